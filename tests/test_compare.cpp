// Comparisons, logical operations, where, and the NaN and closeness tests.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "helpers.h"
#include "kael/factory.h"
#include "kael/ops.h"

namespace {

using kael::DType;
using kael::Shape;
using kael::Tensor;
using kael::testing::values;

using I = std::int64_t;
using B = std::vector<std::uint8_t>;
const double kNan = std::nan("");
constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor doubles(std::vector<double> v) { return kael::from_vector(v); }
Tensor ints(std::vector<I> v) { return kael::from_vector(v); }

TEST(Compare, AllSixComparisonsWriteBool) {
    const Tensor a = ints({1, 2, 3});
    const Tensor b = ints({2, 2, 2});
    EXPECT_EQ((a == b).dtype(), DType::Bool);
    EXPECT_EQ(values<std::uint8_t>(a == b), (B{0, 1, 0}));
    EXPECT_EQ(values<std::uint8_t>(a != b), (B{1, 0, 1}));
    EXPECT_EQ(values<std::uint8_t>(a < b), (B{1, 0, 0}));
    EXPECT_EQ(values<std::uint8_t>(a <= b), (B{1, 1, 0}));
    EXPECT_EQ(values<std::uint8_t>(a > b), (B{0, 0, 1}));
    EXPECT_EQ(values<std::uint8_t>(a >= b), (B{0, 1, 1}));
}

TEST(Compare, ScalarsPromoteBeforeComparing) {
    // 2 < 2.5 holds only if the comparison happens in floating point.
    EXPECT_EQ(values<std::uint8_t>(ints({2, 3}) < 2.5), (B{1, 0}));
    EXPECT_EQ(values<std::uint8_t>(kael::eq(ints({2}), 2)), (B{1}));
    EXPECT_EQ(values<std::uint8_t>(kael::ge(doubles({1, 2}), 2)), (B{0, 1}));
}

TEST(Compare, NanComparesUnequal) {
    const Tensor n = doubles({kNan});
    EXPECT_EQ(values<std::uint8_t>(n == n), (B{0}));
    EXPECT_EQ(values<std::uint8_t>(n != n), (B{1}));
    EXPECT_EQ(values<std::uint8_t>(n < n), (B{0}));
}

TEST(Compare, BroadcastsLikeArithmetic) {
    const Tensor mask = kael::arange(0, 3, 1, DType::I64).view({3, 1}) < ints({1, 2});
    EXPECT_EQ(mask.shape(), (Shape{3, 2}));
    EXPECT_EQ(values<std::uint8_t>(mask), (B{1, 1, 0, 1, 0, 0}));
}

TEST(Compare, LogicalOperationsUseTruthValues) {
    const Tensor a = doubles({0, 2.5, kNan, 0});
    const Tensor b = ints({0, 0, 3, 7});
    EXPECT_EQ(values<std::uint8_t>(kael::logical_and(a, b)), (B{0, 0, 1, 0}));
    EXPECT_EQ(values<std::uint8_t>(kael::logical_or(a, b)), (B{0, 1, 1, 1}));
    EXPECT_EQ(values<std::uint8_t>(kael::logical_xor(a, b)), (B{0, 1, 0, 1}));
    EXPECT_EQ(values<std::uint8_t>(kael::logical_not(a)), (B{1, 0, 0, 1}));
}

TEST(Compare, WhereSelectsAndPromotes) {
    const Tensor condition = kael::from_vector({true, false, true});
    const Tensor picked = kael::where(condition, ints({1, 2, 3}), doubles({10, 20, 30}));
    EXPECT_EQ(picked.dtype(), DType::F64);
    EXPECT_EQ(values<double>(picked), (std::vector<double>{1, 20, 3}));
    EXPECT_EQ(values<I>(kael::where(condition, ints({1, 2, 3}), 0)), (std::vector<I>{1, 0, 3}));
    EXPECT_EQ(values<I>(kael::where(condition, -1, ints({1, 2, 3}))), (std::vector<I>{-1, 2, -1}));
    const Tensor column = kael::from_vector({true, false}, {2, 1});
    EXPECT_EQ(values<I>(kael::where(column, ints({1, 2}), ints({0}))), (std::vector<I>{1, 2, 0, 0}));
}

TEST(Compare, WhereNeedsABoolCondition) {
    EXPECT_THROW((void)kael::where(ints({1}), ints({1}), ints({2})), kael::TypeError);
}

TEST(Compare, NanInfFiniteTests) {
    const Tensor x = doubles({1, kNan, kInf, -kInf});
    EXPECT_EQ(values<std::uint8_t>(kael::isnan(x)), (B{0, 1, 0, 0}));
    EXPECT_EQ(values<std::uint8_t>(kael::isinf(x)), (B{0, 0, 1, 1}));
    EXPECT_EQ(values<std::uint8_t>(kael::isfinite(x)), (B{1, 0, 0, 0}));
    EXPECT_EQ(values<std::uint8_t>(kael::isnan(ints({1}))), (B{0}));
    EXPECT_EQ(values<std::uint8_t>(kael::isfinite(ints({1}))), (B{1}));
}

TEST(Compare, IscloseBoundaryAndSpecialValues) {
    const Tensor b = doubles({1, 2});
    EXPECT_EQ(values<std::uint8_t>(kael::isclose(doubles({1.5, 2}), b, 0, 0.5)), (B{1, 1}));
    EXPECT_EQ(values<std::uint8_t>(kael::isclose(doubles({1.5 + 0x1p-40, 2}), b, 0, 0.5)), (B{0, 1}));
    EXPECT_EQ(values<std::uint8_t>(kael::isclose(doubles({kInf, kInf}), doubles({kInf, -kInf}))), (B{1, 0}));
    const Tensor n = doubles({kNan});
    EXPECT_EQ(values<std::uint8_t>(kael::isclose(n, n)), (B{0}));
    EXPECT_EQ(values<std::uint8_t>(kael::isclose(n, n, 1e-5, 1e-8, true)), (B{1}));
    EXPECT_THROW((void)kael::isclose(doubles({1}), kael::from_vector({1.f})), kael::TypeError);
    EXPECT_THROW((void)kael::isclose(doubles({1}), doubles({1}), -1), kael::ValueError);
}

TEST(Compare, Allclose) {
    EXPECT_TRUE(kael::allclose(doubles({1, 2}), doubles({1 + 1e-9, 2})));
    EXPECT_FALSE(kael::allclose(doubles({1, 2}), doubles({1, 2.1})));
    EXPECT_TRUE(kael::allclose(kael::zeros({0}), kael::zeros({0})));
    EXPECT_TRUE(kael::allclose(kael::ones({2, 3}), kael::ones({3})));  // broadcasts
}

}  // namespace

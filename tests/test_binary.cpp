// Element-wise arithmetic on two operands: values, broadcasting, promotion, and errors.
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
using kael::testing::message_of;
using kael::testing::values;

using I = std::int64_t;
constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor ints(std::vector<I> v) { return kael::from_vector(v); }
Tensor doubles(std::vector<double> v) { return kael::from_vector(v); }

TEST(Binary, AddSubMulDivValues) {
    const Tensor a = doubles({1, 2, 3});
    const Tensor b = doubles({4, 5, 6});
    EXPECT_EQ(values<double>(a + b), (std::vector<double>{5, 7, 9}));
    EXPECT_EQ(values<double>(a - b), (std::vector<double>{-3, -3, -3}));
    EXPECT_EQ(values<double>(a * b), (std::vector<double>{4, 10, 18}));
    EXPECT_EQ(values<double>(b / a), (std::vector<double>{4, 2.5, 2}));
    EXPECT_EQ(values<double>(kael::add(a, b, 2)), (std::vector<double>{9, 12, 15}));
    EXPECT_EQ(values<double>(kael::sub(a, b, 0.5)), (std::vector<double>{-1, -0.5, 0}));
}

TEST(Binary, Broadcasting) {
    const Tensor column = kael::arange(0, 3, 1, DType::I64).view({3, 1});
    const Tensor row = kael::arange(0, 4, 1, DType::I64).mul(10);
    const Tensor sum = column + row;
    EXPECT_EQ(sum.shape(), (Shape{3, 4}));
    EXPECT_EQ(values<I>(sum), (std::vector<I>{0, 10, 20, 30, 1, 11, 21, 31, 2, 12, 22, 32}));
    EXPECT_THROW((void)(kael::zeros({2, 3}) + kael::zeros({2})), kael::ValueError);
}

TEST(Binary, StridedAndOffsetOperands) {
    const Tensor g = kael::arange(0, 12, 1, DType::I64).view({3, 4});
    const Tensor t = g.transpose(0, 1).slice(0, 1, 3);  // [2, 3]: columns 1 and 2
    EXPECT_EQ(values<I>(t + ints({100, 200, 300})), (std::vector<I>{101, 205, 309, 102, 206, 310}));
}

TEST(Binary, TypePromotion) {
    EXPECT_EQ((ints({1}) + kael::from_vector({1.f})).dtype(), DType::F32);
    EXPECT_EQ((ints({1}) + 2.5).dtype(), DType::F32);
    EXPECT_EQ((kael::from_vector({1.f}) + 2.5).dtype(), DType::F32);
    EXPECT_EQ((kael::from_vector({true}) + 1).dtype(), DType::I64);
    EXPECT_EQ((ints({1}) + kael::scalar(1.0, DType::F64)).dtype(), DType::F64);
    EXPECT_EQ((kael::from_vector({1.f}) + kael::scalar(1.0, DType::F64)).dtype(), DType::F32);
    EXPECT_EQ(values<float>(ints({1, 2}) + 2.5), (std::vector<float>{3.5, 4.5}));
}

TEST(Binary, DivisionIsTrueDivision) {
    const Tensor q = ints({1, -7}) / ints({2, 2});
    EXPECT_EQ(q.dtype(), DType::F32);
    EXPECT_EQ(values<float>(q), (std::vector<float>{0.5, -3.5}));
    EXPECT_EQ(values<float>(ints({3}) / 2), (std::vector<float>{1.5}));
    EXPECT_EQ(values<float>(2 / kael::from_vector({4.f})), (std::vector<float>{0.5}));
    const auto by_zero = values<double>(doubles({1, -1, 0}) / doubles({0, 0, 0}));
    EXPECT_EQ(by_zero[0], kInf);
    EXPECT_EQ(by_zero[1], -kInf);
    EXPECT_TRUE(std::isnan(by_zero[2]));
}

TEST(Binary, BoolAddIsOrAndMulIsAnd) {
    const Tensor a = kael::from_vector({true, true, false, false});
    const Tensor b = kael::from_vector({true, false, true, false});
    EXPECT_EQ((a + b).dtype(), DType::Bool);
    EXPECT_EQ(values<std::uint8_t>(a + b), (std::vector<std::uint8_t>{1, 1, 1, 0}));
    EXPECT_EQ(values<std::uint8_t>(a * b), (std::vector<std::uint8_t>{1, 0, 0, 0}));
    EXPECT_THROW((void)(a - b), kael::TypeError);
    EXPECT_NE(message_of([&] { (void)(a - b); }).find("use logical_xor()"), std::string::npos);
}

TEST(Binary, IntegerAlphaMustBeIntegral) {
    EXPECT_EQ(values<I>(kael::add(ints({1, 2}), ints({3, 4}), 2)), (std::vector<I>{7, 10}));
    EXPECT_THROW((void)kael::add(ints({1}), ints({1}), 2.5), kael::TypeError);
    EXPECT_NO_THROW((void)kael::add(doubles({1}), doubles({1}), 2.5));
}

TEST(Binary, FloorDivideAndRemainderFollowPython) {
    const Tensor a = doubles({-7, 7, -7, 7, -0.0});
    const Tensor b = doubles({2, 2, -2, -2, 3});
    EXPECT_EQ(values<double>(kael::floor_divide(a, b)), (std::vector<double>{-4, 3, 3, -4, -0.0}));
    EXPECT_EQ(values<double>(kael::remainder(a, b)), (std::vector<double>{1, 1, -1, -1, -0.0}));
    const Tensor ia = ints({-7, 7, -7, 7});
    const Tensor ib = ints({2, 2, -2, -2});
    EXPECT_EQ(values<I>(kael::floor_divide(ia, ib)), (std::vector<I>{-4, 3, 3, -4}));
    EXPECT_EQ(values<I>(kael::remainder(ia, ib)), (std::vector<I>{1, 1, -1, -1}));
    EXPECT_EQ(values<I>(kael::floor_divide(ints({9, -9}), 4)), (std::vector<I>{2, -3}));
    EXPECT_EQ(values<I>(kael::remainder(ints({9, -9}), 4)), (std::vector<I>{1, 3}));
    EXPECT_EQ(values<double>(kael::floor_divide(doubles({1, -1}), doubles({0, 0}))), (std::vector<double>{kInf, -kInf}));
}

// Python's reflected 3 // t and 3 % t: the number on the left, promoted by the Scalar rules
// (an integer number keeps an integer tensor's dtype, a float number makes it float32).
TEST(Binary, NumberOnTheLeftOfFloorDivideAndRemainder) {
    const Tensor d = kael::floor_divide(7, ints({2, -2, 3}));
    EXPECT_EQ(d.dtype(), DType::I64);
    EXPECT_EQ(values<I>(d), (std::vector<I>{3, -4, 2}));
    const Tensor r = kael::remainder(7, ints({2, -2, 3}));
    EXPECT_EQ(values<I>(r), (std::vector<I>{1, -1, 1}));
    const Tensor f = kael::remainder(7.5, ints({2, -2}));
    EXPECT_EQ(f.dtype(), DType::F32);
    EXPECT_EQ(values<float>(f), (std::vector<float>{1.5f, -0.5f}));
    EXPECT_EQ(kael::floor_divide(1, doubles({0.5})).dtype(), DType::F64);
    EXPECT_THROW((void)kael::floor_divide(1, ints({0})), kael::Error);
}

TEST(Binary, IntegerDivisionByZeroThrows) {
    EXPECT_THROW((void)kael::floor_divide(ints({1, 2}), ints({1, 0})), kael::Error);
    EXPECT_THROW((void)kael::remainder(ints({1}), 0), kael::Error);
    EXPECT_NE(message_of([] { (void)kael::floor_divide(ints({1}), ints({0})); }).find("integer division by zero"),
              std::string::npos);
}

TEST(Binary, Pow) {
    EXPECT_EQ(values<I>(kael::pow(ints({2, 3, -2}), ints({10, 3, 3}))), (std::vector<I>{1024, 27, -8}));
    EXPECT_EQ(values<I>(kael::pow(ints({2, 1, -1, -1}), ints({-1, -5, -3, -2}))), (std::vector<I>{0, 1, -1, 1}));
    EXPECT_EQ(values<double>(kael::pow(doubles({2.5, 4, -8}), 2)), (std::vector<double>{6.25, 16, 64}));
    EXPECT_EQ(values<double>(kael::pow(doubles({4, 9}), 0.5)), (std::vector<double>{2, 3}));
    EXPECT_EQ(values<double>(kael::pow(doubles({4, 0.5}), -1)), (std::vector<double>{0.25, 2}));
    EXPECT_EQ(kael::pow(ints({4}), 0.5).dtype(), DType::F32);
    EXPECT_EQ(values<I>(kael::pow(2, ints({3, 4}))), (std::vector<I>{8, 16}));
    EXPECT_EQ(values<I>(kael::pow(ints({3}), 0)), (std::vector<I>{1}));
    EXPECT_THROW((void)kael::pow(ints({2}), -1), kael::ValueError);
    EXPECT_THROW((void)kael::pow(kael::from_vector({true}), kael::from_vector({true})), kael::TypeError);
}

TEST(Binary, MaximumMinimumPropagateNan) {
    const double nan = std::nan("");
    const auto big = values<double>(kael::maximum(doubles({1, nan, 3}), doubles({2, 0, nan})));
    EXPECT_EQ(big[0], 2);
    EXPECT_TRUE(std::isnan(big[1]) && std::isnan(big[2]));
    const auto small = values<double>(kael::minimum(doubles({1, nan}), doubles({2, 0})));
    EXPECT_EQ(small[0], 1);
    EXPECT_TRUE(std::isnan(small[1]));
    EXPECT_EQ(values<I>(kael::maximum(ints({1, 5}), ints({3, 2}))), (std::vector<I>{3, 5}));
}

TEST(Binary, Atan2ComputesIntegersInFloat) {
    const Tensor angle = kael::atan2(ints({1}), ints({-1}));
    EXPECT_EQ(angle.dtype(), DType::F32);
    EXPECT_FLOAT_EQ(angle.item<float>(), 2.35619449f);
}

TEST(Binary, ScalarOnTheLeft) {
    EXPECT_EQ(values<double>(10 - doubles({1, 2})), (std::vector<double>{9, 8}));
    EXPECT_EQ(values<double>(2 * doubles({1, 2})), (std::vector<double>{2, 4}));
    EXPECT_EQ(values<double>(1 + doubles({1, 2})), (std::vector<double>{2, 3}));
    EXPECT_EQ(values<double>(-doubles({1, -2})), (std::vector<double>{-1, 2}));
}

TEST(Binary, EmptyAndZeroDimensional) {
    EXPECT_EQ((kael::zeros({0, 3}) + kael::zeros({3})).shape(), (Shape{0, 3}));
    const Tensor s = kael::scalar(2.0) * kael::scalar(3.0);
    EXPECT_EQ(s.dim(), 0);
    EXPECT_EQ(s.item<float>(), 6.0f);
}

TEST(Binary, MethodsForwardToTheFunctions) {
    const Tensor a = doubles({1, 2});
    EXPECT_EQ(values<double>(a.add(a, 3)), (std::vector<double>{4, 8}));
    EXPECT_EQ(values<double>(a.sub(a)), (std::vector<double>{0, 0}));
    EXPECT_EQ(values<double>(a.mul(a)), (std::vector<double>{1, 4}));
    EXPECT_EQ(values<double>(a.div(a)), (std::vector<double>{1, 1}));
    EXPECT_EQ(values<double>(a.pow(3)), (std::vector<double>{1, 8}));
}

}  // namespace

// Tests of exercise 02.1. Every test fails until allclose is implemented.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>

#include "exercise.h"
#include "kael/factory.h"

namespace {

using exercise::allclose;
using kael::DType;
using kael::Tensor;

constexpr double kInf = std::numeric_limits<double>::infinity();
const double kNan = std::nan("");

// The transposed view of [[0, 1, 2], [3, 4, 5]]: it reads 0 3 1 4 2 5 in row-major order.
Tensor transposed_arange() {
    auto impl = std::make_shared<kael::TensorImpl>(*kael::arange(0, 6).to(DType::F64).impl());
    impl->shape = {3, 2};
    impl->strides = {1, 3};
    return Tensor::from_impl(std::move(impl));
}

TEST(Allclose, EqualTensorsAreClose) {
    const Tensor a = kael::arange(0, 6).to(DType::F64);
    EXPECT_TRUE(allclose(a, a.clone()));
}

TEST(Allclose, ToleranceBoundaryOnBothSides) {
    // rtol = 0, atol = 0.5: the bound is exactly 0.5 (all values are exact binary fractions).
    const Tensor b = kael::from_vector({1.0, 2.0});
    EXPECT_TRUE(allclose(kael::from_vector({1.5, 2.0}), b, 0.0, 0.5));
    EXPECT_FALSE(allclose(kael::from_vector({1.5 + 0x1p-40, 2.0}), b, 0.0, 0.5));
    // atol = 0, rtol = 0.25: the bound is 0.25 * |b| = 0.5 for b = 2.
    EXPECT_TRUE(allclose(kael::from_vector({1.0, 2.5}), b, 0.25, 0.0));
    EXPECT_FALSE(allclose(kael::from_vector({1.0, 2.5 + 0x1p-40}), b, 0.25, 0.0));
}

TEST(Allclose, DefaultTolerancesMatchPyTorch) {
    const Tensor b = kael::from_vector({1.0});
    EXPECT_TRUE(allclose(kael::from_vector({1.0 + 1e-5}), b));     // inside 1e-8 + 1e-5
    EXPECT_FALSE(allclose(kael::from_vector({1.0 + 1.1e-5}), b));  // just outside
}

TEST(Allclose, ToleranceScalesWithTheReference) {
    // |0 - 1| <= 0 + 1 * |1|, but |1 - 0| > 0 + 1 * |0|.
    const Tensor zero = kael::from_vector({0.0});
    const Tensor one = kael::from_vector({1.0});
    EXPECT_TRUE(allclose(zero, one, 1.0, 0.0));
    EXPECT_FALSE(allclose(one, zero, 1.0, 0.0));
}

TEST(Allclose, MixedDtypesCompareAsDouble) {
    EXPECT_TRUE(allclose(kael::from_vector({1.f, 2.f}), kael::from_vector({1.0, 2.0})));
    EXPECT_TRUE(allclose(kael::from_vector({std::int64_t{3}}), kael::from_vector({3.0})));
    EXPECT_TRUE(allclose(kael::from_vector({true, false}), kael::from_vector({1.f, 0.f})));
    // 0.1f and 0.1 differ by about 1.5e-9: outside a zero tolerance.
    EXPECT_FALSE(allclose(kael::from_vector({0.1f}), kael::from_vector({0.1}), 0.0, 0.0));
}

TEST(Allclose, ReadsStridedLayouts) {
    const Tensor t = transposed_arange();
    EXPECT_TRUE(allclose(t, kael::from_vector({0.0, 3.0, 1.0, 4.0, 2.0, 5.0}, {3, 2})));
    EXPECT_FALSE(allclose(t, kael::from_vector({0.0, 1.0, 2.0, 3.0, 4.0, 5.0}, {3, 2})));
}

TEST(Allclose, InfinitiesAreCloseOnlyToTheSameInfinity) {
    EXPECT_TRUE(allclose(kael::from_vector({kInf, -kInf}), kael::from_vector({kInf, -kInf})));
    EXPECT_FALSE(allclose(kael::from_vector({kInf}), kael::from_vector({-kInf})));
    EXPECT_FALSE(allclose(kael::from_vector({kInf}), kael::from_vector({1e308}), 1.0, 1.0));
    EXPECT_FALSE(allclose(kael::from_vector({1e308}), kael::from_vector({kInf}), 1.0, 1.0));
}

TEST(Allclose, NanNeedsEqualNan) {
    const Tensor nan = kael::from_vector({kNan, 1.0});
    EXPECT_FALSE(allclose(nan, nan));
    EXPECT_TRUE(allclose(nan, nan, 1e-5, 1e-8, true));
    EXPECT_FALSE(allclose(nan, kael::from_vector({1.0, 1.0}), 1e-5, 1e-8, true));
    EXPECT_FALSE(allclose(kael::from_vector({1.0, 1.0}), nan, 1e-5, 1e-8, true));
}

TEST(Allclose, EmptyTensorsAreClose) {
    EXPECT_TRUE(allclose(kael::zeros({0, 3}), kael::zeros({0, 3}, DType::F64)));
}

TEST(Allclose, BadArgumentsThrowValueError) {
    EXPECT_THROW((void)allclose(kael::zeros({2}), kael::zeros({3})), kael::ValueError);
    EXPECT_THROW((void)allclose(kael::zeros({2, 1}), kael::zeros({2})), kael::ValueError);
    EXPECT_THROW((void)allclose(kael::zeros({2}), kael::zeros({2}), -1e-5), kael::ValueError);
    EXPECT_THROW((void)allclose(kael::zeros({2}), kael::zeros({2}), 1e-5, -1.0), kael::ValueError);
}

}  // namespace

// Element-wise functions of one operand.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "helpers.h"
#include "kael/factory.h"
#include "kael/ops.h"

namespace {

using kael::DType;
using kael::Tensor;
using kael::testing::values;

using I = std::int64_t;
const double kNan = std::nan("");
constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor doubles(std::vector<double> v) { return kael::from_vector(v); }
Tensor ints(std::vector<I> v) { return kael::from_vector(v); }

// Checks an element-wise function against the C library on a spread of doubles.
template <typename F, typename G> void expect_matches(F kael_fn, G reference, std::vector<double> inputs) {
    const auto got = values<double>(kael_fn(doubles(inputs)));
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const double expected = reference(inputs[i]);
        if (std::isnan(expected)) {
            EXPECT_TRUE(std::isnan(got[i])) << inputs[i];
        } else {
            EXPECT_DOUBLE_EQ(got[i], expected) << inputs[i];
        }
    }
}

TEST(Unary, TranscendentalsMatchTheCLibrary) {
    const std::vector<double> x{-3.5, -1, -1e-8, 0, 1e-8, 0.5, 2, 10};
    expect_matches([](const Tensor& t) { return kael::exp(t); }, [](double v) { return std::exp(v); }, x);
    expect_matches([](const Tensor& t) { return kael::log(t); }, [](double v) { return std::log(v); }, x);
    expect_matches([](const Tensor& t) { return kael::log1p(t); }, [](double v) { return std::log1p(v); }, x);
    expect_matches([](const Tensor& t) { return kael::expm1(t); }, [](double v) { return std::expm1(v); }, x);
    expect_matches([](const Tensor& t) { return kael::sqrt(t); }, [](double v) { return std::sqrt(v); }, x);
    expect_matches([](const Tensor& t) { return kael::rsqrt(t); }, [](double v) { return 1 / std::sqrt(v); }, x);
    expect_matches([](const Tensor& t) { return kael::sin(t); }, [](double v) { return std::sin(v); }, x);
    expect_matches([](const Tensor& t) { return kael::cos(t); }, [](double v) { return std::cos(v); }, x);
    expect_matches([](const Tensor& t) { return kael::tanh(t); }, [](double v) { return std::tanh(v); }, x);
    expect_matches([](const Tensor& t) { return kael::sigmoid(t); }, [](double v) { return 1 / (1 + std::exp(-v)); }, x);
    expect_matches([](const Tensor& t) { return kael::silu(t); }, [](double v) { return v / (1 + std::exp(-v)); }, x);
}

// The largest distance, in units in the last place, between `op` of each input and the
// C library's answer (computed in double and rounded once to float).
template <typename Op, typename Reference>
int worst_ulps(const std::vector<float>& inputs, Op op, Reference reference) {
    const auto got = values<float>(op(kael::from_vector(inputs)));
    int worst = 0;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const auto expected = static_cast<float>(reference(static_cast<double>(inputs[i])));
        worst = std::max(worst, std::abs(std::bit_cast<std::int32_t>(got[i]) - std::bit_cast<std::int32_t>(expected)));
    }
    return worst;
}

TEST(Unary, Float32ExpIsWithinTwoUlpsOfTheCLibrary) {
    // float32 exp runs kael's vectorizable fast_exp (src/kernels/cpu/fast_exp.h). Sweep the
    // whole range where the result is neither 0 nor inf, subnormal results included.
    std::vector<float> inputs;
    for (float x = -103.9f; x < 88.7f; x += 0.0037f) {
        inputs.push_back(x);
    }
    // And every float near the two ends, where the result turns into inf and into 0 by the
    // arithmetic itself, not by a select (exactly at the limit and one past it).
    for (const float end : {88.7228394f, -103.972084f}) {
        for (float x = end - 0.01f; x < end + 0.01f; x = std::nextafter(x, 1000.0f)) {
            inputs.push_back(x);
        }
    }
    EXPECT_LE(worst_ulps(inputs, [](const Tensor& t) { return kael::exp(t); }, [](double v) { return std::exp(v); }), 2);
    const auto special = values<float>(kael::exp(kael::from_vector(
        {0.0f, -0.0f, std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
         std::nanf(""), 89.0f, -105.0f, 1e30f, -1e30f, 88.8f, -120.0f})));
    EXPECT_EQ(special[0], 1.0f);
    EXPECT_EQ(special[1], 1.0f);
    EXPECT_EQ(special[2], std::numeric_limits<float>::infinity());
    EXPECT_EQ(special[3], 0.0f);
    EXPECT_TRUE(std::isnan(special[4]));
    EXPECT_EQ(special[5], std::numeric_limits<float>::infinity());  // beyond the float range
    EXPECT_EQ(special[6], 0.0f);
    EXPECT_EQ(special[7], std::numeric_limits<float>::infinity());  // far past the clamps
    EXPECT_EQ(special[8], 0.0f);
    EXPECT_EQ(special[9], std::numeric_limits<float>::infinity());  // between the float range and the clamp
    EXPECT_EQ(special[10], 0.0f);
}

TEST(Unary, Float32TanhIsWithinFourUlpsOfTheCLibrary) {
    // float32 tanh runs kael's vectorizable fast_tanh (src/kernels/cpu/fast_tanh.h): a series
    // below |x| = 0.4, the exponential form above. Sweep both sides of that switch, finely
    // near 0 where the series matters and out to where tanh is 1 in float.
    std::vector<float> inputs;
    for (float x = -12.0f; x < 12.0f; x += 0.00113f) {
        inputs.push_back(x);
    }
    for (float x = 1e-30f; x < 0.5f; x *= 1.01f) {
        inputs.push_back(x);
        inputs.push_back(-x);
    }
    inputs.push_back(0.4f);
    inputs.push_back(std::nextafter(0.4f, 0.0f));
    EXPECT_LE(worst_ulps(inputs, [](const Tensor& t) { return kael::tanh(t); }, [](double v) { return std::tanh(v); }), 4);
    const auto special = values<float>(kael::tanh(kael::from_vector(
        {0.0f, -0.0f, std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
         std::nanf(""), 100.0f, -100.0f})));
    EXPECT_EQ(special[0], 0.0f);
    EXPECT_TRUE(std::signbit(special[1]));
    EXPECT_EQ(special[2], 1.0f);
    EXPECT_EQ(special[3], -1.0f);
    EXPECT_TRUE(std::isnan(special[4]));
    EXPECT_EQ(special[5], 1.0f);
    EXPECT_EQ(special[6], -1.0f);
}

TEST(Unary, LogEdges) {
    const auto got = values<double>(kael::log(doubles({0, -1, kInf})));
    EXPECT_EQ(got[0], -kInf);
    EXPECT_TRUE(std::isnan(got[1]));
    EXPECT_EQ(got[2], kInf);
}

TEST(Unary, IntegersComputeFloatingFunctionsInFloat32) {
    const Tensor e = kael::exp(ints({0, 1}));
    EXPECT_EQ(e.dtype(), DType::F32);
    EXPECT_FLOAT_EQ(values<float>(e)[1], 2.7182817f);
    EXPECT_EQ(kael::sqrt(kael::from_vector({true})).dtype(), DType::F32);
    EXPECT_EQ(kael::sigmoid(kael::from_vector({1.0})).dtype(), DType::F64);
}

TEST(Unary, GeluExactAndTanh) {
    // Values from PyTorch 1.13: F.gelu(x) and F.gelu(x, approximate='tanh').
    const auto exact = values<float>(kael::gelu(kael::from_vector({-1.f, 0.f, 1.5f})));
    EXPECT_NEAR(exact[0], -0.1586552858f, 1e-6);
    EXPECT_EQ(exact[1], 0.0f);
    EXPECT_NEAR(exact[2], 1.3997890949f, 1e-6);
    const auto approx = values<float>(kael::gelu(kael::from_vector({-1.f, 0.f, 1.5f}), "tanh"));
    EXPECT_NEAR(approx[0], -0.1588079929f, 1e-6);
    EXPECT_NEAR(approx[2], 1.3995715379f, 1e-6);
    EXPECT_THROW((void)kael::gelu(kael::zeros({1}), "fast"), kael::ValueError);
}

// GELU in long double, from formulas without cancellation: x Phi(x) with Phi through erfc,
// and the tanh form as x / (1 + exp(-2u)).
long double gelu_reference(long double x, bool tanh_form) {
    if (tanh_form) {
        const long double u = std::sqrt(2.0L / 3.14159265358979323846L) * (x + 0.044715L * x * x * x);
        return x / (1 + std::exp(-2 * u));
    }
    return 0.5L * x * std::erfc(-x / std::sqrt(2.0L));
}

// The largest relative error of float32 gelu over [low, high), sampled every `step`.
double worst_gelu_error(float low, float high, float step, bool tanh_form) {
    std::vector<float> inputs;
    for (float x = low; x < high; x += step) {
        inputs.push_back(x);
    }
    const auto got = values<float>(kael::gelu(kael::from_vector(inputs), tanh_form ? "tanh" : "none"));
    double worst = 0;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const long double want = gelu_reference(inputs[i], tanh_form);
        if (want != 0) {
            worst = std::max(worst, static_cast<double>(std::fabs((got[i] - want) / want)));
        }
    }
    return worst;
}

TEST(Unary, GeluKeepsItsRelativeAccuracyInTheTail) {
    // Where GELU is tiny, 1 + erf and 1 + tanh cancel in float32: the textbook formulas are
    // 5% (exact) and 30% (tanh) off at x = -5 and have no correct digit left below -6.
    // kael's forms lose accuracy only as fast as the exponential's argument grows (its
    // rounding error scales with x^2). Measured worst cases: 1.1e-7 above 1, 3.6e-7 on
    // [-1, 1), 2e-6 on [-5, -1), 7e-6 on [-9, -5).
    for (const bool tanh_form : {false, true}) {
        SCOPED_TRACE(tanh_form ? "tanh" : "exact");
        EXPECT_LT(worst_gelu_error(-1.0f, 8.0f, 1e-3f, tanh_form), 5e-7);
        EXPECT_LT(worst_gelu_error(-5.0f, -1.0f, 1e-3f, tanh_form), 4e-6);
        EXPECT_LT(worst_gelu_error(-9.0f, -5.0f, 1e-3f, tanh_form), 2e-5);
    }
    // Infinities and NaN behave as in PyTorch: gelu(inf) = inf, gelu(-inf) = NaN (-inf * 0),
    // NaN stays NaN.
    const float inf = std::numeric_limits<float>::infinity();
    for (const char* form : {"none", "tanh"}) {
        const auto special = values<float>(kael::gelu(kael::from_vector({inf, -inf, NAN, 1e30f, -1e30f}), form));
        EXPECT_EQ(special[0], inf);
        EXPECT_TRUE(std::isnan(special[1]));
        EXPECT_TRUE(std::isnan(special[2]));
        EXPECT_EQ(special[3], 1e30f);
        EXPECT_EQ(special[4], 0.0f);
    }
    // float64 keeps double's accuracy.
    const auto exact = values<double>(kael::gelu(kael::from_vector({-1.0, -10.0})));
    EXPECT_NEAR(exact[0], static_cast<double>(gelu_reference(-1.0L, false)), 1e-15);
    EXPECT_NEAR(exact[1] / static_cast<double>(gelu_reference(-10.0L, false)), 1.0, 1e-13);
}

TEST(Unary, NegAbsSignRelu) {
    EXPECT_EQ(values<I>(kael::neg(ints({3, -4}))), (std::vector<I>{-3, 4}));
    EXPECT_EQ(values<I>(kael::abs(ints({3, -4}))), (std::vector<I>{3, 4}));
    EXPECT_EQ(values<double>(kael::abs(doubles({-0.5, 2}))), (std::vector<double>{0.5, 2}));
    const auto signs = values<double>(kael::sign(doubles({-2, 0, -0.0, 3, kNan})));
    EXPECT_EQ(signs, (std::vector<double>{-1, 0, 0, 1, 0}));  // PyTorch: sign(nan) is 0
    EXPECT_FALSE(std::signbit(signs[2]));
    EXPECT_EQ(values<std::uint8_t>(kael::sign(kael::from_vector({true, false}))), (std::vector<std::uint8_t>{1, 0}));
    const auto relu = values<double>(kael::relu(doubles({-1, 0, 2, kNan})));
    EXPECT_EQ(relu[0], 0);
    EXPECT_EQ(relu[2], 2);
    EXPECT_TRUE(std::isnan(relu[3]));
    EXPECT_EQ(kael::relu(ints({-1, 5})).dtype(), DType::I64);
}

TEST(Unary, BoolIsRejectedWhereThereIsNoMeaning) {
    const Tensor b = kael::from_vector({true});
    EXPECT_THROW((void)kael::neg(b), kael::TypeError);
    EXPECT_THROW((void)kael::abs(b), kael::TypeError);
    EXPECT_THROW((void)kael::relu(b), kael::TypeError);
    EXPECT_THROW((void)kael::floor(b), kael::TypeError);
    EXPECT_THROW((void)kael::round(b), kael::TypeError);
}

TEST(Unary, Rounding) {
    EXPECT_EQ(values<double>(kael::floor(doubles({-1.5, 1.5}))), (std::vector<double>{-2, 1}));
    EXPECT_EQ(values<double>(kael::ceil(doubles({-1.5, 1.5}))), (std::vector<double>{-1, 2}));
    // Halves round to even, as in PyTorch and IEEE 754.
    EXPECT_EQ(values<double>(kael::round(doubles({0.5, 1.5, 2.5, -1.5, -0.4}))), (std::vector<double>{0, 2, 2, -2, -0.0}));
    EXPECT_EQ(values<I>(kael::round(ints({7}))), (std::vector<I>{7}));
}

TEST(Unary, Clamp) {
    const auto c = values<double>(kael::clamp(doubles({1, kNan, 5, 3}), 2, 4));
    EXPECT_EQ(c[0], 2);
    EXPECT_TRUE(std::isnan(c[1]));
    EXPECT_EQ(c[2], 4);
    EXPECT_EQ(c[3], 3);
    EXPECT_EQ(values<double>(kael::clamp(doubles({1, 5}), 3, 2)), (std::vector<double>{2, 2}));  // min > max
    EXPECT_EQ(values<double>(kael::clamp(doubles({-1, 5}), std::nullopt, 0)), (std::vector<double>{-1, 0}));
    EXPECT_EQ(values<I>(kael::clamp(ints({-1, 5}), 0)), (std::vector<I>{0, 5}));
    const Tensor promoted = kael::clamp(ints({-3, 2}), 0.5);
    EXPECT_EQ(promoted.dtype(), DType::F32);
    EXPECT_EQ(values<float>(promoted), (std::vector<float>{0.5, 2}));
    EXPECT_THROW((void)kael::clamp(doubles({1}), std::nullopt, std::nullopt), kael::ValueError);
}

TEST(Unary, StridedInputKeepsLogicalOrder) {
    const Tensor t = kael::arange(0, 6, 1, DType::F64).view({2, 3}).transpose(0, 1);
    EXPECT_EQ(values<double>(kael::neg(t)), (std::vector<double>{-0.0, -3, -1, -4, -2, -5}));
}

}  // namespace

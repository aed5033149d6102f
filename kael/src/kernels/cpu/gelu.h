#pragma once
// GELU's two forms, one element at a time: shared by kael::gelu (src/ops/unary.cpp) and
// the fused bias-GELU exercise of chapter 05.
//
// Both are written so that, for float32, a loop over them is plain arithmetic the compiler
// vectorizes (no call into the C library per element), and so that they keep their
// relative accuracy where GELU is tiny: for x below about -5, 1 + erf(x / sqrt 2) and
// 1 + tanh(u) are 1 minus almost 1, and the textbook formulas lose every digit there.
// tests/test_unary.cpp sweeps both against a double-precision reference.

#include <cmath>
#include <numbers>
#include <type_traits>

#include "kernels/cpu/fast_exp.h"
//> stage 12
#include "kernels/cpu/fast_tanh.h"
//< stage 12

namespace kael::detail {

/// erfc(z) for z >= 0 in float32, as t exp(-z^2 + P(t)) with t = 1 / (1 + z / 2): the
/// Chebyshev fit of Numerical Recipes' erfcc, whose relative error is below 1.2e-7 for
/// every z >= 0. Through fast_exp_nonpositive (the exponent is at most 3e-7) the whole
/// function vectorizes; below e^-87.3 it is flushed to 0, where GELU(x), x < -13, is
/// smaller than 1e-37 anyway.
///
/// Its division and ten terms make the exact GELU slower than PyTorch's, whose erf is
/// Abramowitz and Stegun's 7.1.26: five terms, bounded in absolute error (1.5e-7) only, so
/// that its relative error is 7e-6 at x = -2, 5e-3 at x = -4 and 100% past x = -5.5.
/// The alternatives measured, 4M float32 elements on one core of an AMD EPYC (Zen 4) on
/// 2026-12-02, AVX2 code / AVX-512 code, PyTorch 1.13 taking 1.79 / 1.72 ms:
///   - this fit with fast_exp:               10.90 / 5.28 ms
///   - this fit with fast_exp_nonpositive:    9.13 / 4.32 ms (kept)
///   - 7.1.26 with fast_exp_nonpositive:      4.62 / 2.28 ms, relative error up to 100%
///   - a least-squares fit in t of lower degree: 9 terms give 4.4e-7 (p = 0.5) to 1.3e-7
///     (p = 0.4), 8 terms no better than 8e-7, so no shorter fit keeps float accuracy.
/// Two fits for two ranges would both run for every vector. The accuracy is kept.
[[gnu::always_inline]] inline float erfc_nonnegative(float z) {
    const float t = 1.0f / (1.0f + 0.5f * z);
    float p = 0.17087277f;
    p = p * t - 0.82215223f;
    p = p * t + 1.48851587f;
    p = p * t - 1.13520398f;
    p = p * t + 0.27886807f;
    p = p * t - 0.18628806f;
    p = p * t + 0.09678418f;
    p = p * t + 0.37409196f;
    p = p * t + 1.00002368f;
    p = p * t - 1.26551223f;
    return t * fast_exp_nonpositive(-z * z + p);
}

/// The exact GELU, x Phi(x), with the normal CDF written through erfc:
/// Phi(x) = erfc(-x / sqrt 2) / 2, which stays accurate for negative x, where it is tiny.
template <typename T> [[gnu::always_inline]] inline T gelu_exact(T x) {
    constexpr T kInvSqrt2 = static_cast<T>(1 / std::numbers::sqrt2);
    if constexpr (std::is_same_v<T, float>) {
        const float tail = 0.5f * erfc_nonnegative(std::fabs(x) * kInvSqrt2);  // Phi(-|x|)
        return x * (x < 0 ? tail : 1.0f - tail);
    } else {
        return T{0.5} * x * std::erfc(-x * kInvSqrt2);
    }
}

/// The tanh approximation, 0.5 x (1 + tanh(u)) with u = sqrt(2 / pi) (x + 0.044715 x^3),
/// computed as x / (1 + exp(-2u)): the same value (1 + tanh(u) = 2 / (1 + exp(-2u))), one
/// exponential instead of tanh, and no cancellation for negative u.
template <typename T> [[gnu::always_inline]] inline T gelu_tanh(T x) {
    constexpr T kBeta = static_cast<T>(std::numbers::sqrt2 * std::numbers::inv_sqrtpi);
    constexpr T kKappa = static_cast<T>(0.044715);
    const T u = kBeta * (x + kKappa * x * x * x);
    return x / (T{1} + exponential(T{-2} * u));
}

//> stage 7

// The derivatives GELU's backward formulas use (chapter 06), computed in double: the
// backward pass runs once per forward, so accuracy matters more here than speed.
// With Phi the normal CDF and phi its density, the exact form x Phi(x) has
// first derivative Phi(x) + x phi(x) and second derivative phi(x) (2 - x^2). They are
// constexpr so that the CUDA backend (chapter 09) calls these very formulas on the device.

/// d/dx of gelu_exact.
template <typename T> constexpr T gelu_exact_derivative(T x) {
    const double v = static_cast<double>(x);
    const double cdf = 0.5 * std::erfc(-v / std::numbers::sqrt2);
    const double pdf = std::exp(-0.5 * v * v) * std::numbers::inv_sqrtpi / std::numbers::sqrt2;
    return static_cast<T>(cdf + v * pdf);
}

/// d^2/dx^2 of gelu_exact.
template <typename T> constexpr T gelu_exact_second_derivative(T x) {
    const double v = static_cast<double>(x);
    const double pdf = std::exp(-0.5 * v * v) * std::numbers::inv_sqrtpi / std::numbers::sqrt2;
    return static_cast<T>(pdf * (2 - v * v));
}

/// d/dx of gelu_tanh: with t = tanh(u), 0.5 (1 + t) + 0.5 x (1 - t^2) u'.
template <typename T> constexpr T gelu_tanh_derivative(T x) {
    const double v = static_cast<double>(x);
    const double beta = std::numbers::sqrt2 * std::numbers::inv_sqrtpi;
    const double t = std::tanh(beta * (v + 0.044715 * v * v * v));
    const double du = beta * (1 + 3 * 0.044715 * v * v);
    return static_cast<T>(0.5 * (1 + t) + 0.5 * v * (1 - t * t) * du);
}

/// d^2/dx^2 of gelu_tanh: (1 - t^2) (u' - x t u'^2 + x u'' / 2).
template <typename T> constexpr T gelu_tanh_second_derivative(T x) {
    const double v = static_cast<double>(x);
    const double beta = std::numbers::sqrt2 * std::numbers::inv_sqrtpi;
    const double t = std::tanh(beta * (v + 0.044715 * v * v * v));
    const double du = beta * (1 + 3 * 0.044715 * v * v);
    const double d2u = beta * 6 * 0.044715 * v;
    return static_cast<T>((1 - t * t) * (du - v * t * du * du + 0.5 * v * d2u));
}
//< stage 7
//> stage 12

/// d/dx of gelu_tanh for float32 in float32 arithmetic, through the vectorizable fast_tanh:
/// the backward of every GPT MLP activation (chapter 11), where the double-precision form
/// above, a C library tanh per element, took a fifth of a training step.
[[gnu::always_inline]] inline float gelu_tanh_derivative_fast(float x) {
    constexpr float kBeta = static_cast<float>(std::numbers::sqrt2 * std::numbers::inv_sqrtpi);
    constexpr float kKappa = 0.044715f;
    const float t = fast_tanh(kBeta * (x + kKappa * x * x * x));
    const float du = kBeta * (1.0f + 3.0f * kKappa * x * x);
    return 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * du;
}
//< stage 12

}  // namespace kael::detail

#pragma once
// exp() for float32 that the compiler can vectorize.
//
// std::exp is a call into the C library, one element at a time, so a loop over it runs
// at the speed of that call. This version is plain arithmetic on the value and its bits,
// with no branches, so a loop over it becomes vector instructions, 8 or 16 elements at a
// time. Its error is at most 2 units in the last place: a test in tests/test_unary.cpp
// sweeps the whole float range against std::exp. exp, softmax, sigmoid and SiLU use it
// for float32.

#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

namespace kael::detail {

// Always inlined, like everything in this file: as a call, it is one element per call
// again, which is what it exists to avoid. GCC's inliner otherwise gives up on these in
// translation units with many kernels.

/// exp(x) split as 2^n * exp(r), for an x already clamped to a range where n fits the
/// exponent bits: n = round(x / ln 2), and exp(r) for r = x - n ln 2 in [-ln2/2, ln2/2].
struct ReducedExp {
    float exp_r;
    std::int32_t n;
};

[[gnu::always_inline]] inline ReducedExp reduce_exp(float clamped) {
    constexpr float kLog2e = 1.44269504088896341f;
    // ln 2 split in two so that n * kLn2High is exact (Cody and Waite's reduction).
    constexpr float kLn2High = 0.693359375f;
    constexpr float kLn2Low = -2.12194440e-4f;
    // Adding and subtracting 1.5 * 2^23 rounds to the nearest integer in float arithmetic.
    constexpr float kRound = 12582912.0f;
    const float n = (clamped * kLog2e + kRound) - kRound;
    const float r = (clamped - n * kLn2High) - n * kLn2Low;

    // exp(r) on the reduced range: a degree-6 polynomial (Cephes' coefficients).
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    return {p * r * r + r + 1.0f, static_cast<std::int32_t>(n)};
}

/// 2^n for n in [-126, 127], straight from the exponent bits.
[[gnu::always_inline]] inline float power_of_two(std::int32_t n) {
    return std::bit_cast<float>(static_cast<std::uint32_t>(n + 127) << 23);
}

[[gnu::always_inline]] inline float fast_exp(float x) {
    // Inputs are clamped to [kMin, kMax], a little wider than the range where exp(x) is a
    // finite, non-zero float ([-103.97, 88.72]). Past its ends the arithmetic overflows to
    // inf or rounds to 0 by itself, so no select is needed for them; the clamp only keeps
    // 2^n within the two scale factors. The lower clamp, "x > kMin ? x : kMin", also maps
    // NaN to kMin, so that the conversion to an integer never sees a NaN.
    constexpr float kMax = 89.0f;
    constexpr float kMin = -110.0f;
    const float low = x > kMin ? x : kMin;
    const ReducedExp e = reduce_exp(low < kMax ? low : kMax);

    // 2^n in two halves so that results below FLT_MIN (n < -126, subnormal) and near
    // FLT_MAX both stay representable on the way: with n in [-159, 128] each half is a
    // normal float. The product rounds once, to a subnormal, to 0 or to inf, as exp(x)
    // itself would.
    const std::int32_t half = e.n / 2;
    const float result = e.exp_r * power_of_two(half) * power_of_two(e.n - half);
    return x != x ? x : result;  // NaN in, NaN out
}

/// e^x for x <= 0 (or NaN), which is what softmax and log_softmax compute after
/// subtracting a row's maximum. Nothing can overflow, so one clamp and one scale factor do
/// what fast_exp needs two of each for; and a result below the smallest normal float is
/// flushed to 0, which moves no sum that also holds e^0 = 1 by more than 1.2e-38. The
/// reduction and the polynomial are fast_exp's, so the error is the same on [-87.3, 0].
[[gnu::always_inline]] inline float fast_exp_nonpositive(float x) {
    constexpr float kMin = -87.3365448f;  // e^kMin is the smallest normal float, 2^-126
    const ReducedExp e = reduce_exp(x > kMin ? x : kMin);  // NaN becomes kMin too
    const float result = x < kMin ? 0.0f : e.exp_r * power_of_two(e.n);
    return x != x ? x : result;  // NaN in, NaN out
}

/// e^x for x <= 0: fast_exp_nonpositive for float, std::exp for double.
template <typename T> [[gnu::always_inline]] inline T exponential_nonpositive(T x) {
    if constexpr (std::is_same_v<T, float>) {
        return fast_exp_nonpositive(x);
    } else {
        return std::exp(x);
    }
}

/// e^x: the vectorizable fast_exp for float, std::exp for double.
template <typename T> [[gnu::always_inline]] inline T exponential(T x) {
    if constexpr (std::is_same_v<T, float>) {
        return fast_exp(x);
    } else {
        return std::exp(x);
    }
}

}  // namespace kael::detail

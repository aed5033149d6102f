#pragma once
// tanh() for float32 that the compiler can vectorize, like fast_exp beside it.
//
// std::tanh is a call per element (73 ms for 4M floats). This version is arithmetic only,
// with both forms computed and one selected, so a loop over it becomes vector code:
//   - |x| < 0.4: the odd Taylor series, x - x^3/3 + 2x^5/15 - ... through x^15. Each term is
//     at most 0.065 times the one before, so eight terms leave an error below 1e-9 relative.
//   - otherwise: 1 - 2 / (e^(2|x|) + 1). There tanh >= 0.38, so the
//     subtraction cancels less than two bits; for large |x| e^(2|x|) is inf and this is 1.
// tests/test_unary.cpp sweeps it against the C library. float64 keeps std::tanh.

#include <cmath>
#include <type_traits>

#include "kernels/cpu/fast_exp.h"

namespace kael::detail {

[[gnu::always_inline]] inline float fast_tanh(float x) {
    const float magnitude = std::fabs(x);
    // tanh is odd: both forms are computed for |x| and the sign is put back at the end,
    // which also keeps tanh(-0.0) = -0.0. Near zero, the series in x^2 (Horner's rule).
    const float x2 = magnitude * magnitude;
    float p = -0.00145583438705131826824948518070f;  // -929569 / 638512875
    p = p * x2 + 0.00359212803657248101692546079630f;   // 21844 / 6081075
    p = p * x2 - 0.00886323552990219656886541552175f;   // -1382 / 155925
    p = p * x2 + 0.02186948853615520282186948853616f;   // 62 / 2835
    p = p * x2 - 0.05396825396825396825396825396825f;   // -17 / 315
    p = p * x2 + 0.13333333333333333333333333333333f;   // 2 / 15
    p = p * x2 - 0.33333333333333333333333333333333f;   // -1 / 3
    const float series = magnitude + magnitude * (p * x2);
    // Away from zero: through the vectorizable exponential. NaN stays NaN.
    const float far = 1.0f - 2.0f / (fast_exp(2.0f * magnitude) + 1.0f);
    return std::copysign(magnitude < 0.4f ? series : far, x);
}

/// tanh: the vectorizable fast_tanh for float, std::tanh for double.
template <typename T> [[gnu::always_inline]] inline T hyperbolic_tangent(T x) {
    if constexpr (std::is_same_v<T, float>) {
        return fast_tanh(x);
    } else {
        return std::tanh(x);
    }
}

}  // namespace kael::detail

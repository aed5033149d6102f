#pragma once
// Exercise 02.2: IEEE 754 binary16 (float16) conversions.

#include <cstdint>

namespace exercise {

/// The bits of the float16 nearest to `value`, rounding ties to even. Out-of-range values
/// become infinity; NaN stays NaN.
std::uint16_t float_to_half(float value);

/// The float32 value of float16 bits. Exact for every bit pattern.
float half_to_float(std::uint16_t bits);

}  // namespace exercise

// Reference solution of exercise 02.2.
#include <bit>
#include <cmath>

#include "exercise.h"

namespace exercise {
namespace {

constexpr std::uint32_t kFloatSignBit = 0x8000'0000u;
constexpr std::uint32_t kFloatAbsMask = 0x7fff'ffffu;
constexpr std::uint32_t kFloatInfinity = 0x7f80'0000u;
// The smallest float that is a normal float16: 2^-14, with float exponent field 127 - 14.
constexpr std::uint32_t kHalfMinNormal = (127u - 14u) << 23;
// The float16 overflow threshold: values at or above 65520 (the halfway point between
// 65504 and 2^16) round to infinity.
constexpr float kHalfOverflow = 65520.0f;

}  // namespace

std::uint16_t float_to_half(float value) {
    const auto bits = std::bit_cast<std::uint32_t>(value);
    const auto sign = static_cast<std::uint16_t>((bits & kFloatSignBit) >> 16);
    const std::uint32_t magnitude = bits & kFloatAbsMask;

    if (magnitude > kFloatInfinity) {  // NaN: keep the top fraction bits, force a quiet NaN
        return static_cast<std::uint16_t>(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
    }
    if (std::fabs(value) >= kHalfOverflow) {  // also catches infinity
        return static_cast<std::uint16_t>(sign | 0x7c00u);
    }
    if (magnitude < kHalfMinNormal) {
        // Subnormal result: the value is a multiple of 2^-24 after rounding. Scaling by 2^24
        // is exact, and nearbyint rounds to nearest even in the default rounding mode.
        const float scaled = std::fabs(value) * 0x1p24f;
        return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(std::nearbyint(scaled)));
    }
    // Normal result: rebias the exponent (127 -> 15) and drop 13 fraction bits with
    // round-to-nearest-even. Adding 0xfff plus the lowest kept bit rounds up exactly when
    // the dropped bits exceed half, or equal half with an odd kept bit; a carry out of the
    // fraction correctly bumps the exponent.
    const std::uint32_t rebiased = magnitude - ((127u - 15u) << 23);
    const std::uint32_t lowest_kept = (rebiased >> 13) & 1u;
    const std::uint32_t rounded = (rebiased + 0xfffu + lowest_kept) >> 13;
    return static_cast<std::uint16_t>(sign | rounded);
}

float half_to_float(std::uint16_t bits) {
    const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
    const std::uint32_t exponent = (bits >> 10) & 0x1fu;
    const std::uint32_t fraction = bits & 0x3ffu;
    if (exponent == 0) {
        // Zero or subnormal: fraction * 2^-24, exact in float.
        const float magnitude = static_cast<float>(fraction) * 0x1p-24f;
        return std::bit_cast<float>(std::bit_cast<std::uint32_t>(magnitude) | sign);
    }
    if (exponent == 31) {  // infinity or NaN
        return std::bit_cast<float>(sign | kFloatInfinity | (fraction << 13));
    }
    return std::bit_cast<float>(sign | ((exponent + 127u - 15u) << 23) | (fraction << 13));
}

}  // namespace exercise

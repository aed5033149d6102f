// Tests of exercise 02.2. Every test fails until both conversions are implemented.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

#include "exercise.h"

namespace {

using exercise::float_to_half;
using exercise::half_to_float;

bool is_half_nan(std::uint16_t bits) { return (bits & 0x7c00u) == 0x7c00u && (bits & 0x3ffu) != 0; }

// An independent decoding of the float16 formula, written with ldexp.
double decode(std::uint16_t bits) {
    const int exponent = (bits >> 10) & 0x1f;
    const int fraction = bits & 0x3ff;
    const double sign = (bits & 0x8000u) ? -1.0 : 1.0;
    if (exponent == 0) {
        return sign * std::ldexp(fraction, -24);
    }
    if (exponent == 31) {
        return fraction == 0 ? sign * std::numeric_limits<double>::infinity()
                             : std::numeric_limits<double>::quiet_NaN();
    }
    return sign * std::ldexp(1024 + fraction, exponent - 25);
}

TEST(Float16, HalfToFloatIsExactForEveryPattern) {
    for (std::uint32_t i = 0; i <= 0xffff; ++i) {
        const auto bits = static_cast<std::uint16_t>(i);
        const float value = half_to_float(bits);
        if (is_half_nan(bits)) {
            EXPECT_TRUE(std::isnan(value)) << std::hex << i;
        } else {
            EXPECT_EQ(static_cast<double>(value), decode(bits)) << std::hex << i;
            EXPECT_EQ(std::signbit(value), (bits & 0x8000u) != 0) << std::hex << i;
        }
    }
}

TEST(Float16, EveryHalfRoundTrips) {
    for (std::uint32_t i = 0; i <= 0xffff; ++i) {
        const auto bits = static_cast<std::uint16_t>(i);
        const std::uint16_t back = float_to_half(half_to_float(bits));
        if (is_half_nan(bits)) {
            EXPECT_TRUE(is_half_nan(back)) << std::hex << i;
        } else {
            EXPECT_EQ(back, bits) << std::hex << i;
        }
    }
}

TEST(Float16, KnownValues) {
    EXPECT_EQ(float_to_half(0.0f), 0x0000);
    EXPECT_EQ(float_to_half(-0.0f), 0x8000);
    EXPECT_EQ(float_to_half(1.0f), 0x3c00);
    EXPECT_EQ(float_to_half(-2.0f), 0xc000);
    EXPECT_EQ(float_to_half(0.5f), 0x3800);
    EXPECT_EQ(float_to_half(65504.0f), 0x7bff);
    EXPECT_EQ(float_to_half(0x1p-14f), 0x0400);  // smallest normal
    EXPECT_EQ(float_to_half(0x1p-24f), 0x0001);  // smallest subnormal
}

TEST(Float16, RoundsNormalsToNearestEven) {
    EXPECT_EQ(float_to_half(1.0f + 0x1p-11f), 0x3c00);          // halfway, even below
    EXPECT_EQ(float_to_half(1.0f + 3 * 0x1p-11f), 0x3c02);      // halfway, even above
    EXPECT_EQ(float_to_half(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01);  // just above halfway
    EXPECT_EQ(float_to_half(2048.0f + 1.0f), 0x6800);           // 2049: halfway to 2050
    EXPECT_EQ(float_to_half(2048.0f + 3.0f), 0x6802);           // 2051: rounds up to 2052
}

TEST(Float16, RoundsSubnormalsToNearestEven) {
    EXPECT_EQ(float_to_half(0x1p-25f), 0x0000);                  // halfway to 2^-24: even 0
    EXPECT_EQ(float_to_half(0x1p-25f + 0x1p-40f), 0x0001);       // just above
    EXPECT_EQ(float_to_half(3 * 0x1p-25f), 0x0002);              // 1.5 units: even 2
    EXPECT_EQ(float_to_half(-0x1p-26f), 0x8000);                 // negative, rounds to -0
    // The largest subnormal plus half a unit rounds up into the smallest normal.
    EXPECT_EQ(float_to_half(0x1p-14f - 0x1p-25f), 0x0400);
}

TEST(Float16, OverflowsToInfinity) {
    EXPECT_EQ(float_to_half(65519.0f), 0x7bff);
    EXPECT_EQ(float_to_half(65520.0f), 0x7c00);
    EXPECT_EQ(float_to_half(-65520.0f), 0xfc00);
    EXPECT_EQ(float_to_half(1e10f), 0x7c00);
    EXPECT_EQ(float_to_half(std::numeric_limits<float>::infinity()), 0x7c00);
    EXPECT_EQ(float_to_half(-std::numeric_limits<float>::infinity()), 0xfc00);
}

TEST(Float16, NanStaysNanWithItsSign) {
    const std::uint16_t nan = float_to_half(std::numeric_limits<float>::quiet_NaN());
    EXPECT_TRUE(is_half_nan(nan));
    EXPECT_TRUE(is_half_nan(float_to_half(std::bit_cast<float>(0x7f80'0001u))));  // lowest bit only
    EXPECT_TRUE(float_to_half(-std::numeric_limits<float>::quiet_NaN()) & 0x8000u);
    EXPECT_TRUE(std::isnan(half_to_float(0x7e00)));
}

#ifdef __FLT16_MAX__
// g++ 12 implements _Float16 on x86-64; its conversion is IEEE round-to-nearest-even.
TEST(Float16, MatchesTheCompilersFloat16OnRandomFloats) {
    std::mt19937 generator(2024);
    std::uniform_int_distribution<std::uint32_t> any_bits;
    for (int i = 0; i < 2'000'000; ++i) {
        std::uint32_t raw = any_bits(generator);
        // Half of the draws land in or near float16's range, where rounding happens.
        if (i % 2 == 0) {
            raw = (raw & 0x807f'ffffu) | ((98u + raw % 48u) << 23);
        }
        const auto value = std::bit_cast<float>(raw);
        if (std::isnan(value)) {
            continue;
        }
        const auto reference = static_cast<_Float16>(value);
        std::uint16_t expected = 0;
        std::memcpy(&expected, &reference, sizeof expected);
        ASSERT_EQ(float_to_half(value), expected) << std::hexfloat << value;
    }
}
#endif

}  // namespace

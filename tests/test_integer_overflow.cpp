// Integer edge cases: float-to-integer conversion (stage 3) and the overflow rules of
// integer arithmetic (chapter 05).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "kael/dtype.h"

namespace {

using Limits = std::numeric_limits<std::int64_t>;

TEST(FloatToInteger, SaturatesOutOfRangeValuesAndMapsNanToZero) {
    const double inf = std::numeric_limits<double>::infinity();
    EXPECT_EQ(kael::saturating_cast<std::int64_t>(1e30), Limits::max());
    EXPECT_EQ(kael::saturating_cast<std::int64_t>(-1e30), Limits::min());
    EXPECT_EQ(kael::saturating_cast<std::int64_t>(inf), Limits::max());
    EXPECT_EQ(kael::saturating_cast<std::int64_t>(-inf), Limits::min());
    EXPECT_EQ(kael::saturating_cast<std::int64_t>(std::nan("")), 0);
    EXPECT_EQ(kael::saturating_cast<std::int64_t>(std::nanf("")), 0);
    EXPECT_EQ(kael::saturating_cast<std::int64_t>(std::numeric_limits<float>::infinity()),
              Limits::max());
}

TEST(FloatToInteger, KeepsTheExactLowerBound) {
    // -2^63 is exactly INT64_MIN and converts without saturating "too far".
    EXPECT_EQ(kael::saturating_cast<std::int64_t>(-0x1p63), Limits::min());
    EXPECT_EQ(kael::saturating_cast<std::int64_t>(-0x1p63f), Limits::min());
    // 2^63 is one past INT64_MAX: it saturates to the maximum instead of overflowing.
    EXPECT_EQ(kael::saturating_cast<std::int64_t>(0x1p63), Limits::max());
    EXPECT_EQ(kael::saturating_cast<std::int64_t>(0x1p63f), Limits::max());
    // The largest double below 2^63 is in range and converts exactly.
    const double below = std::nextafter(0x1p63, 0.0);
    EXPECT_EQ(kael::saturating_cast<std::int64_t>(below), static_cast<std::int64_t>(below));
    EXPECT_LT(kael::saturating_cast<std::int64_t>(below), Limits::max());
}

TEST(FloatToInteger, TruncatesTowardZeroInRange) {
    EXPECT_EQ(kael::saturating_cast<std::int64_t>(-2.7), -2);
    EXPECT_EQ(kael::saturating_cast<std::int64_t>(2.7), 2);
    EXPECT_EQ(kael::saturating_cast<std::int64_t>(-0.9f), 0);
    EXPECT_EQ(kael::convert_value<std::int64_t>(1e9), 1000000000);
}

TEST(FloatToInteger, IsConstexpr) {
    static_assert(kael::saturating_cast<std::int64_t>(1e300) == Limits::max());
    static_assert(kael::convert_value<std::int64_t>(-3.5) == -3);
    SUCCEED();
}

}  // namespace

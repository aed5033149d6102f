// Integer edge cases: float-to-integer conversion (stage 3) and the overflow rules of
// integer arithmetic (chapter 05).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kael/dtype.h"
//> stage 6
#include "helpers.h"
#include "kael/factory.h"
#include "kael/ops.h"
//< stage 6

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

//> stage 6
// Integer arithmetic wraps around modulo 2^64, as two's complement hardware does and as
// PyTorch does. kael computes it in unsigned arithmetic, where wrapping is defined, so
// the results are the same on every compiler and UndefinedBehaviorSanitizer stays quiet.

using kael::testing::values;
using I = std::int64_t;
constexpr I kMax = Limits::max();
constexpr I kMin = Limits::min();

kael::Tensor ints(std::vector<I> v) { return kael::from_vector(v); }

TEST(IntegerOverflow, AddSubAndMulWrapAround) {
    EXPECT_EQ(values<I>(ints({kMax}) + 1), (std::vector<I>{kMin}));
    EXPECT_EQ(values<I>(ints({kMin}) - ints({1})), (std::vector<I>{kMax}));
    EXPECT_EQ(values<I>(ints({kMax}) * 2), (std::vector<I>{-2}));
    EXPECT_EQ(values<I>(kael::add(ints({0}), ints({kMax}), 2)), (std::vector<I>{-2}));
    EXPECT_EQ(values<I>(ints({kMax - 1}) + 1), (std::vector<I>{kMax}));  // one below: no wrap
}

TEST(IntegerOverflow, NegationAndAbsoluteValueOfTheMinimum) {
    // -INT64_MIN does not exist; like PyTorch, both stay INT64_MIN.
    EXPECT_EQ(values<I>(kael::neg(ints({kMin, kMin + 1}))), (std::vector<I>{kMin, kMax}));
    EXPECT_EQ(values<I>(kael::abs(ints({kMin, kMin + 1}))), (std::vector<I>{kMin, kMax}));
}

TEST(IntegerOverflow, DivisionOfTheMinimumByMinusOne) {
    // The one integer division that overflows, and traps on x86 when done naively.
    EXPECT_EQ(values<I>(kael::floor_divide(ints({kMin}), ints({-1}))), (std::vector<I>{kMin}));
    EXPECT_EQ(values<I>(kael::remainder(ints({kMin}), ints({-1}))), (std::vector<I>{0}));
    EXPECT_EQ(values<I>(kael::floor_divide(ints({kMin + 1}), ints({-1}))), (std::vector<I>{kMax}));
}

TEST(IntegerOverflow, PowersWrap) {
    EXPECT_EQ(values<I>(kael::pow(ints({2}), 63)), (std::vector<I>{kMin}));
    EXPECT_EQ(values<I>(kael::pow(ints({2}), 64)), (std::vector<I>{0}));
    EXPECT_EQ(values<I>(kael::pow(ints({2}), 62)), (std::vector<I>{I{1} << 62}));
}

TEST(IntegerOverflow, ReductionsWrap) {
    EXPECT_EQ(kael::sum(ints({kMax, 1})).item<I>(), kMin);
    EXPECT_EQ(kael::prod(ints({I{1} << 32, I{1} << 32})).item<I>(), 0);
    EXPECT_EQ(values<I>(kael::cumsum(ints({kMax, 1, 1}), 0)), (std::vector<I>{kMax, kMin, kMin + 1}));
}

TEST(IntegerOverflow, ConversionsSaturateInsteadOfWrapping) {
    // Wrapping is for integer arithmetic; a float that does not fit saturates (FloatToInteger).
    EXPECT_EQ(values<I>(kael::from_vector({1e19, -1e19}).to(kael::DType::I64)), (std::vector<I>{kMax, kMin}));
}
//< stage 6

}  // namespace

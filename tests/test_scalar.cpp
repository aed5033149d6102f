// Scalar: a number with a dtype category, and its conversion to element types.
#include <gtest/gtest.h>

#include <cstdint>

#include "kael/factory.h"
#include "kael/scalar.h"

namespace {

using kael::DType;
using kael::Scalar;

TEST(Scalar, CategoryFollowsTheLiteral) {
    EXPECT_EQ(Scalar(true).dtype(), DType::Bool);
    EXPECT_EQ(Scalar(3).dtype(), DType::I64);
    EXPECT_EQ(Scalar(std::int64_t{3}).dtype(), DType::I64);
    EXPECT_EQ(Scalar(2.5).dtype(), DType::F32);   // a category, not a precision
    EXPECT_EQ(Scalar(2.5f).dtype(), DType::F32);
    EXPECT_FALSE(Scalar(3).is_floating_point());
    EXPECT_TRUE(Scalar(3.0).is_floating_point());
}

TEST(Scalar, IntegersAreKeptExactly) {
    // 2^53 + 1 is not representable as a double.
    const std::int64_t big = (std::int64_t{1} << 53) + 1;
    EXPECT_EQ(Scalar(big).as<std::int64_t>(), big);
    EXPECT_EQ(kael::full({1}, big, DType::I64).item<std::int64_t>(), big);
}

TEST(Scalar, AsConvertsThroughConvertValue) {
    EXPECT_EQ(Scalar(2.5).as<std::uint8_t>(), 1);
    EXPECT_EQ(Scalar(-2.7).as<std::int64_t>(), -2);
    EXPECT_EQ(Scalar(1e30).as<std::int64_t>(), INT64_MAX);
    EXPECT_EQ(Scalar(true).as<float>(), 1.0f);
    EXPECT_EQ(Scalar(7).as<double>(), 7.0);
}

TEST(Scalar, IsConstexpr) {
    static_assert(Scalar(3).dtype() == DType::I64);
    static_assert(Scalar(2.5).as<std::int64_t>() == 2);
    static_assert(kael::promote_with_scalar(DType::I64, 2.5) == DType::F32);
    SUCCEED();
}

}  // namespace

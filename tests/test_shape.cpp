// Shape arithmetic: element counts, strides, index mapping, dimension wrapping, and the
// overflow-checked helpers underneath them.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "kael/checked_math.h"
#include "kael/shape.h"

namespace {

using kael::Index;
using kael::Shape;
using kael::Strides;

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

TEST(CheckedMath, MulExactlyAtTheLimit) {
    // 2^62 * 2 = 2^63 overflows, (2^63 - 1) * 1 does not.
    EXPECT_EQ(kael::detail::checked_mul(kMax, 1, "x"), kMax);
    EXPECT_EQ(kael::detail::checked_mul(kMax / 2, 2, "x"), kMax - 1);
    EXPECT_THROW((void)kael::detail::checked_mul(std::int64_t{1} << 62, 2, "x"), kael::ValueError);
}

TEST(CheckedMath, MulByZeroNeverOverflows) {
    EXPECT_EQ(kael::detail::checked_mul(kMax, 0, "x"), 0);
    EXPECT_EQ(kael::detail::checked_mul(0, kMax, "x"), 0);
}

TEST(CheckedMath, MulOverflowMessageNamesTheOperands) {
    try {
        (void)kael::detail::checked_mul(std::int64_t{1} << 62, 8, "tensor size in bytes");
        FAIL() << "no exception";
    } catch (const kael::ValueError& error) {
        EXPECT_NE(std::string(error.what())
                      .find("tensor size in bytes overflows int64 (4611686018427387904 * 8)"),
                  std::string::npos)
            << error.what();
    }
}

TEST(CheckedMath, AddExactlyAtTheLimit) {
    EXPECT_EQ(kael::detail::checked_add(kMax - 1, 1, "x"), kMax);
    EXPECT_THROW((void)kael::detail::checked_add(kMax, 1, "x"), kael::ValueError);
}

TEST(CheckedMath, NegativeOperandsThrow) {
    EXPECT_THROW((void)kael::detail::checked_mul(-1, 2, "x"), kael::ValueError);
    EXPECT_THROW((void)kael::detail::checked_mul(2, -1, "x"), kael::ValueError);
    EXPECT_THROW((void)kael::detail::checked_add(-1, 2, "x"), kael::ValueError);
    EXPECT_THROW((void)kael::detail::checked_add(2, -1, "x"), kael::ValueError);
}

TEST(Shape, ToStringFormatsAsBrackets) {
    EXPECT_EQ(kael::to_string(Shape{}), "[]");
    EXPECT_EQ(kael::to_string(Shape{7}), "[7]");
    EXPECT_EQ(kael::to_string(Shape{2, 3}), "[2, 3]");
}

TEST(Shape, NumelIsTheProduct) {
    EXPECT_EQ(kael::numel(Shape{}), 1);  // a 0-d tensor holds one element
    EXPECT_EQ(kael::numel(Shape{5}), 5);
    EXPECT_EQ(kael::numel(Shape{2, 3, 4}), 24);
    EXPECT_EQ(kael::numel(Shape{2, 0, 4}), 0);
}

TEST(Shape, NumelRejectsNegativeDimensions) {
    EXPECT_THROW((void)kael::numel(Shape{2, -1}), kael::ValueError);
    EXPECT_NO_THROW((void)kael::numel(Shape{2, 0}));
}

TEST(Shape, NumelIsZeroWheneverADimensionIsZero) {
    // The product of the other sizes would overflow, but no element exists.
    const std::int64_t huge = std::int64_t{1} << 62;
    EXPECT_EQ(kael::numel(Shape{huge, 4, 0}), 0);
    EXPECT_EQ(kael::numel(Shape{0, huge, huge}), 0);
    EXPECT_THROW((void)kael::numel(Shape{huge, 4, 1}), kael::ValueError);
}

TEST(Shape, ContiguousStridesNeverUseTheOutermostSize) {
    // As in PyTorch: [2^62, 0, 4] has strides [4, 4, 1]; the size 2^62 multiplies nothing.
    const std::int64_t huge = std::int64_t{1} << 62;
    EXPECT_EQ(kael::contiguous_strides(Shape{huge, 0, 4}), (Strides{4, 4, 1}));
    EXPECT_EQ(kael::contiguous_strides(Shape{huge, 2}), (Strides{2, 1}));
    EXPECT_THROW((void)kael::contiguous_strides(Shape{2, huge, 4}), kael::ValueError);
}

TEST(Shape, NumelOverflowThrows) {
    const std::int64_t half = std::int64_t{1} << 31;
    EXPECT_EQ(kael::numel(Shape{half, half / 2, 2}), std::int64_t{1} << 62);   // 2^62 fits
    EXPECT_THROW((void)kael::numel(Shape{half, half, 2}), kael::ValueError);   // 2^63 does not
}

TEST(Shape, ContiguousStridesAreRowMajor) {
    EXPECT_EQ(kael::contiguous_strides(Shape{}), Strides{});
    EXPECT_EQ(kael::contiguous_strides(Shape{5}), (Strides{1}));
    EXPECT_EQ(kael::contiguous_strides(Shape{2, 3}), (Strides{3, 1}));
    EXPECT_EQ(kael::contiguous_strides(Shape{2, 3, 4}), (Strides{12, 4, 1}));
}

TEST(Shape, ContiguousStridesTreatZeroSizesAsOne) {
    // As in PyTorch: torch.empty(2, 0, 3).stride() == (3, 3, 1).
    EXPECT_EQ(kael::contiguous_strides(Shape{2, 0, 3}), (Strides{3, 3, 1}));
    EXPECT_EQ(kael::contiguous_strides(Shape{0}), (Strides{1}));
}

TEST(Shape, ContiguousStridesRejectNegativeDimensions) {
    EXPECT_THROW((void)kael::contiguous_strides(Shape{3, -2}), kael::ValueError);
}

TEST(Shape, OffsetFromIndexAddsStridedPositions) {
    const Shape shape{2, 3};
    const Strides strides{3, 1};
    EXPECT_EQ(kael::offset_from_index(shape, strides, 0, Index{1, 2}), 5);
    EXPECT_EQ(kael::offset_from_index(shape, strides, 4, Index{1, 2}), 9);
    // Transposed layout of the same storage.
    EXPECT_EQ(kael::offset_from_index(Shape{3, 2}, Strides{1, 3}, 0, Index{2, 1}), 5);
    // A 0-d tensor has one element, at the offset.
    EXPECT_EQ(kael::offset_from_index(Shape{}, Strides{}, 7, Index{}), 7);
}

TEST(Shape, OffsetFromIndexChecksEachIndexOnBothSides) {
    const Shape shape{2, 3};
    const Strides strides{3, 1};
    EXPECT_NO_THROW((void)kael::offset_from_index(shape, strides, 0, Index{0, 0}));
    EXPECT_NO_THROW((void)kael::offset_from_index(shape, strides, 0, Index{1, 2}));
    EXPECT_THROW((void)kael::offset_from_index(shape, strides, 0, Index{2, 0}), kael::IndexError);
    EXPECT_THROW((void)kael::offset_from_index(shape, strides, 0, Index{0, 3}), kael::IndexError);
    EXPECT_THROW((void)kael::offset_from_index(shape, strides, 0, Index{-1, 0}), kael::IndexError);
}

TEST(Shape, OffsetFromIndexOutOfRangeMessage) {
    try {
        (void)kael::offset_from_index(Shape{3}, Strides{1}, 0, Index{3});
        FAIL() << "no exception";
    } catch (const kael::IndexError& error) {
        EXPECT_NE(std::string(error.what())
                      .find("index 3 is out of bounds for dimension 0 with size 3"),
                  std::string::npos)
            << error.what();
    }
}

TEST(Shape, OffsetFromIndexRejectsWrongIndexCount) {
    EXPECT_THROW((void)kael::offset_from_index(Shape{2, 3}, Strides{3, 1}, 0, Index{1}),
                 kael::ValueError);
    EXPECT_THROW((void)kael::offset_from_index(Shape{2, 3}, Strides{1}, 0, Index{1, 1}),
                 kael::ValueError);
}

TEST(Shape, IndexFromLinearIsRowMajor) {
    EXPECT_EQ(kael::index_from_linear(0, Shape{2, 3}), (Index{0, 0}));
    EXPECT_EQ(kael::index_from_linear(5, Shape{2, 3}), (Index{1, 2}));
    EXPECT_EQ(kael::index_from_linear(4, Shape{2, 3}), (Index{1, 1}));
    EXPECT_EQ(kael::index_from_linear(0, Shape{}), Index{});
    EXPECT_EQ(kael::index_from_linear(13, Shape{2, 3, 4}), (Index{1, 0, 1}));
}

TEST(Shape, IndexFromLinearRoundTripsThroughContiguousStrides) {
    const Shape shape{3, 1, 4, 2};
    const Strides strides = kael::contiguous_strides(shape);
    for (std::int64_t i = 0; i < kael::numel(shape); ++i) {
        EXPECT_EQ(kael::offset_from_index(shape, strides, 0, kael::index_from_linear(i, shape)), i);
    }
}

TEST(Shape, IndexFromLinearChecksBothEnds) {
    EXPECT_NO_THROW((void)kael::index_from_linear(5, Shape{2, 3}));
    EXPECT_THROW((void)kael::index_from_linear(6, Shape{2, 3}), kael::IndexError);
    EXPECT_THROW((void)kael::index_from_linear(-1, Shape{2, 3}), kael::IndexError);
    EXPECT_THROW((void)kael::index_from_linear(0, Shape{2, 0}), kael::IndexError);
}

TEST(Shape, WrapDimCountsNegativeDimsFromTheEnd) {
    EXPECT_EQ(kael::wrap_dim(0, 3), 0);
    EXPECT_EQ(kael::wrap_dim(2, 3), 2);
    EXPECT_EQ(kael::wrap_dim(-1, 3), 2);
    EXPECT_EQ(kael::wrap_dim(-3, 3), 0);
}

TEST(Shape, WrapDimChecksBothEnds) {
    EXPECT_THROW((void)kael::wrap_dim(3, 3), kael::IndexError);
    EXPECT_THROW((void)kael::wrap_dim(-4, 3), kael::IndexError);
}

TEST(Shape, WrapDimMessageGivesTheValidRange) {
    try {
        (void)kael::wrap_dim(2, 2);
        FAIL() << "no exception";
    } catch (const kael::IndexError& error) {
        EXPECT_NE(std::string(error.what())
                      .find("dimension out of range (expected to be in range of [-2, 1], but got 2)"),
                  std::string::npos)
            << error.what();
    }
}

TEST(Shape, WrapDimTreatsAScalarAsOneDimension) {
    EXPECT_EQ(kael::wrap_dim(0, 0), 0);
    EXPECT_EQ(kael::wrap_dim(-1, 0), 0);
    EXPECT_THROW((void)kael::wrap_dim(1, 0), kael::IndexError);
    EXPECT_THROW((void)kael::wrap_dim(-2, 0), kael::IndexError);
    EXPECT_THROW((void)kael::wrap_dim(0, -1), kael::ValueError);
}

TEST(Shape, DimPositionRejectsScalars) {
    EXPECT_EQ(kael::dim_position(-1, 2), 1u);
    EXPECT_EQ(kael::dim_position(0, 1), 0u);
    EXPECT_THROW((void)kael::dim_position(0, 0), kael::IndexError);
    EXPECT_THROW((void)kael::dim_position(-1, 0), kael::IndexError);
}

TEST(Shape, ValidateShapeAcceptsZeroAndRejectsNegative) {
    EXPECT_NO_THROW(kael::validate_shape(Shape{0, 3}));
    EXPECT_THROW(kael::validate_shape(Shape{3, -1}), kael::ValueError);
}

}  // namespace

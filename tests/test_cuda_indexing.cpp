// The index arithmetic of the CUDA kernels, checked on the host: cuda/offset_calculator.h
// is plain C++ outside nvcc, so these tests run in every build, with or without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "cuda/offset_calculator.h"
#include "kael/kael.h"

namespace {

using kael::Shape;
using kael::Strides;
using kael::cuda::fits_in_32_bits;
using kael::cuda::make_offset_calculator;

// The offset of every element, in row-major order, walked the slow way through at()'s own
// arithmetic: the sum of index times stride.
std::vector<std::int64_t> offsets_by_index(const kael::Tensor& t) {
    std::vector<std::int64_t> offsets;
    for (std::int64_t i = 0; i < t.numel(); ++i) {
        const kael::Index index = kael::index_from_linear(i, t.shape());
        std::int64_t offset = 0;
        for (std::size_t d = 0; d < index.size(); ++d) {
            offset += index[d] * t.strides()[d];
        }
        offsets.push_back(offset);
    }
    return offsets;
}

TEST(CudaIndexing, OffsetsOfAPermutedSliceMatchTheStrides) {
    const kael::Tensor base = kael::arange(0, 2 * 3 * 8).view({2, 3, 8});
    const kael::Tensor view = base.permute({2, 0, 1}).slice(0, 1, 7, 2);  // [3, 2, 3], gapped
    const std::vector<std::int64_t> expected = offsets_by_index(view);
    const auto narrow = make_offset_calculator<std::uint32_t>(view.shape(), view.strides());
    const auto wide = make_offset_calculator<std::int64_t>(view.shape(), view.strides());
    for (std::int64_t i = 0; i < view.numel(); ++i) {
        EXPECT_EQ(narrow.offset(static_cast<std::uint32_t>(i)), expected[static_cast<std::size_t>(i)]) << i;
        EXPECT_EQ(wide.offset(i), expected[static_cast<std::size_t>(i)]) << i;
    }
}

TEST(CudaIndexing, ZeroStridesRepeatAnElement) {
    const kael::Tensor row = kael::arange(0, 4).view({1, 4}).expand({3, 4});
    const auto calculator = make_offset_calculator<std::int64_t>(row.shape(), row.strides());
    EXPECT_EQ(calculator.offset(0), 0);
    EXPECT_EQ(calculator.offset(5), 1);   // row 1, column 1: the same element as row 0's
    EXPECT_EQ(calculator.offset(11), 3);
}

TEST(CudaIndexing, AZeroDimensionalTensorHasOffsetZero) {
    const auto calculator = make_offset_calculator<std::uint32_t>({}, {});
    EXPECT_EQ(calculator.ndim, 0);
    EXPECT_EQ(calculator.offset(0), 0U);
}

TEST(CudaIndexing, ThirtyTwoBitIndexingEndsExactlyAtTheLimit) {
    constexpr std::int64_t limit = std::numeric_limits<std::uint32_t>::max();
    // Element counts: exactly 2^32 - 1 elements fit, one more does not.
    EXPECT_TRUE(fits_in_32_bits({limit}, {1}));
    EXPECT_FALSE(fits_in_32_bits({limit + 1}, {1}));
    // Offsets: the last element's offset is what must fit, not the element count.
    EXPECT_TRUE(fits_in_32_bits({2, 3}, {limit - 2, 1}));   // last offset limit - 2 + 2 = limit
    EXPECT_FALSE(fits_in_32_bits({2, 3}, {limit - 1, 1}));  // one past
    // A broadcast dimension never moves, whatever its length.
    EXPECT_TRUE(fits_in_32_bits({65536, 65535}, {0, 1}));
    EXPECT_FALSE(fits_in_32_bits({65536, 65536}, {0, 1}));  // 2^32 elements
    // Nothing to index at all.
    EXPECT_TRUE(fits_in_32_bits({0, limit + 5}, {1, limit + 5}));
}

TEST(CudaIndexing, MoreDimensionsThanAKernelTakesAreRefused) {
    const Shape shape(kael::cuda::kMaxDims + 1, 1);
    const Strides strides(shape.size(), 1);
    EXPECT_NO_THROW((void)make_offset_calculator<std::int64_t>(Shape(kael::cuda::kMaxDims, 1),
                                                              Strides(kael::cuda::kMaxDims, 1)));
    EXPECT_THROW((void)make_offset_calculator<std::int64_t>(shape, strides), kael::ValueError);
}

}  // namespace

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
    const auto narrow = make_offset_calculator<1, std::uint32_t>(view.shape(), {&view.strides()});
    const auto wide = make_offset_calculator<1, std::int64_t>(view.shape(), {&view.strides()});
    for (std::int64_t i = 0; i < view.numel(); ++i) {
        EXPECT_EQ(narrow.offsets(static_cast<std::uint32_t>(i)).of[0], expected[static_cast<std::size_t>(i)]) << i;
        EXPECT_EQ(wide.offsets(i).of[0], expected[static_cast<std::size_t>(i)]) << i;
    }
}

TEST(CudaIndexing, OneDivisionServesEveryOperand) {
    // out = a + b with b broadcast along rows and a transposed: three operands, three
    // layouts, one walk over the coordinates.
    const kael::Tensor a = kael::arange(0, 12).view({4, 3}).transpose(0, 1);  // [3, 4]
    const kael::Tensor b = kael::arange(0, 4).view({1, 4}).expand({3, 4});
    const kael::Tensor out = kael::empty({3, 4});
    const auto calculator =
        make_offset_calculator<3, std::uint32_t>(out.shape(), {&out.strides(), &a.strides(), &b.strides()});
    const std::vector<std::int64_t> want_out = offsets_by_index(out);
    const std::vector<std::int64_t> want_a = offsets_by_index(a);
    const std::vector<std::int64_t> want_b = offsets_by_index(b);
    for (std::uint32_t i = 0; i < 12; ++i) {
        const auto got = calculator.offsets(i);
        EXPECT_EQ(got.of[0], want_out[i]);
        EXPECT_EQ(got.of[1], want_a[i]);
        EXPECT_EQ(got.of[2], want_b[i]);
    }
}

TEST(CudaIndexing, ZeroStridesRepeatAnElement) {
    const kael::Tensor row = kael::arange(0, 4).view({1, 4}).expand({3, 4});
    const auto calculator = make_offset_calculator<1, std::int64_t>(row.shape(), {&row.strides()});
    EXPECT_EQ(calculator.offsets(0).of[0], 0);
    EXPECT_EQ(calculator.offsets(5).of[0], 1);  // row 1, column 1: the same element as row 0's
    EXPECT_EQ(calculator.offsets(11).of[0], 3);
}

TEST(CudaIndexing, AZeroDimensionalTensorHasOffsetZero) {
    const Strides none;
    const auto calculator = make_offset_calculator<1, std::uint32_t>({}, {&none});
    EXPECT_EQ(calculator.ndim, 0);
    EXPECT_EQ(calculator.offsets(0).of[0], 0U);
}

TEST(CudaIndexing, ThirtyTwoBitIndexingEndsExactlyAtTheLimit) {
    constexpr std::int64_t limit = std::numeric_limits<std::uint32_t>::max();
    const Strides unit{1};
    // Element counts: exactly 2^32 - 1 elements fit, one more does not.
    EXPECT_TRUE(fits_in_32_bits({limit}, {&unit}));
    EXPECT_FALSE(fits_in_32_bits({limit + 1}, {&unit}));
    // Offsets: the last element's offset is what must fit, not the element count.
    const Strides at_limit{limit - 2, 1};  // last offset (limit - 2) + 2 = limit
    const Strides one_past{limit - 1, 1};
    EXPECT_TRUE(fits_in_32_bits({2, 3}, {&at_limit}));
    EXPECT_FALSE(fits_in_32_bits({2, 3}, {&one_past}));
    // Every operand counts: a small output does not hide a far-reaching input.
    const Strides contiguous{3, 1};
    EXPECT_FALSE(fits_in_32_bits({2, 3}, {&contiguous, &one_past}));
    // A broadcast dimension never moves, whatever its length; the count still must fit.
    const Strides broadcast{0, 1};
    EXPECT_TRUE(fits_in_32_bits({65536, 65535}, {&broadcast}));
    EXPECT_FALSE(fits_in_32_bits({65536, 65536}, {&broadcast}));  // 2^32 elements
    // Nothing to index at all.
    const Strides huge{limit + 5, 1};
    EXPECT_TRUE(fits_in_32_bits({0, limit + 5}, {&huge}));
}

TEST(CudaIndexing, MoreDimensionsThanAKernelTakesAreRefused) {
    const Shape at_limit(kael::cuda::kMaxDims, 1);
    const Strides at_limit_strides(at_limit.size(), 1);
    const Shape one_past(kael::cuda::kMaxDims + 1, 1);
    const Strides one_past_strides(one_past.size(), 1);
    EXPECT_NO_THROW((void)(make_offset_calculator<1, std::int64_t>(at_limit, {&at_limit_strides})));
    EXPECT_THROW((void)(make_offset_calculator<1, std::int64_t>(one_past, {&one_past_strides})), kael::ValueError);
}

}  // namespace

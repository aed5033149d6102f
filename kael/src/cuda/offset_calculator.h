#pragma once
// From a thread's linear index to an element's offset in a strided tensor (chapter 09).
//
// A kernel over a non-contiguous tensor gives thread i the i-th element in row-major order
// and must find where that element lives: peel the index apart into one coordinate per
// dimension, innermost first, and add coordinate times stride. Division is the expensive
// step on a GPU, and 32-bit division is several times cheaper than 64-bit, so the
// calculator is a template on its index type: the backend uses std::uint32_t whenever
// every index and every offset fits (fits_in_32_bits) and std::int64_t otherwise, which
// is PyTorch's "32-bit indexing" split.
//
// The header is plain C++ with the CUDA qualifiers added under nvcc, so the host tests
// (tests/test_cuda_indexing.cpp) check the very arithmetic the kernels run.
#include <cstdint>
#include <limits>

#include "kael/error.h"
#include "kael/shape.h"

#if defined(__CUDACC__)
#define KAEL_HOST_DEVICE __host__ __device__
#else
#define KAEL_HOST_DEVICE
#endif

namespace kael::cuda {

/// The most dimensions a device kernel handles: the calculator is passed to the kernel by
/// value, so its arrays have a fixed size.
inline constexpr int kMaxDims = 16;

/// Offsets, in elements, of the elements of one strided tensor in row-major order.
template <typename Index> struct OffsetCalculator {
    int ndim = 0;
    Index sizes[kMaxDims] = {};
    Index strides[kMaxDims] = {};

    /// The offset of the element with row-major position `linear` (0 <= linear < numel).
    KAEL_HOST_DEVICE Index offset(Index linear) const {
        Index result = 0;
        for (int d = ndim - 1; d >= 0; --d) {
            const Index coordinate = linear % sizes[d];
            linear /= sizes[d];
            result += coordinate * strides[d];
        }
        return result;
    }
};

/// True when every linear index of `shape` and every offset `strides` reaches fit in 32
/// bits, so that OffsetCalculator<std::uint32_t> computes exactly what the 64-bit one does.
inline bool fits_in_32_bits(const Shape& shape, const Strides& strides) {
    constexpr std::int64_t limit = std::numeric_limits<std::uint32_t>::max();
    std::int64_t count = 1;
    std::int64_t last_offset = 0;  // the offset of the last element: the largest one
    for (std::size_t d = 0; d < shape.size(); ++d) {
        if (shape[d] == 0) {
            return true;  // nothing to index
        }
        count *= shape[d];
        last_offset += (shape[d] - 1) * strides[d];
        if (count > limit || last_offset > limit) {
            return false;
        }
    }
    return true;
}

/// The calculator of a tensor with `shape` and element `strides` (non-negative, as every
/// kael view's are). Throws ValueError past kMaxDims dimensions.
template <typename Index> OffsetCalculator<Index> make_offset_calculator(const Shape& shape, const Strides& strides) {
    KAEL_CHECK_VALUE(shape.size() <= static_cast<std::size_t>(kMaxDims),
                     "CUDA kernels handle at most " << kMaxDims << " dimensions, got " << shape.size());
    OffsetCalculator<Index> calculator;
    calculator.ndim = static_cast<int>(shape.size());
    for (std::size_t d = 0; d < shape.size(); ++d) {
        calculator.sizes[d] = static_cast<Index>(shape[d]);
        calculator.strides[d] = static_cast<Index>(strides[d]);
    }
    return calculator;
}

}  // namespace kael::cuda

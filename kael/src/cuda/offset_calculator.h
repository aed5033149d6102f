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
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
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

/// The offsets of N operands' elements that one row-major position reaches, in each
/// operand's own stride unit (elements for a copy, bytes for the iterator's operands).
/// The coordinates are peeled off once and shared by all N operands: one division per
/// dimension, however many operands there are.
template <std::size_t N, typename Index> struct OffsetCalculator {
    int ndim = 0;
    Index sizes[kMaxDims] = {};
    Index strides[kMaxDims][N] = {};

    /// One offset per operand.
    struct Offsets {
        Index of[N];
    };

    /// The offsets of row-major position `linear` (0 <= linear < numel).
    KAEL_HOST_DEVICE Offsets offsets(Index linear) const {
        Offsets result{};
        for (int d = ndim - 1; d >= 0; --d) {
            const Index coordinate = linear % sizes[d];
            linear /= sizes[d];
            for (std::size_t op = 0; op < N; ++op) {
                result.of[op] += coordinate * strides[d][op];
            }
        }
        return result;
    }
};

/// True when every linear index of `shape` and every offset that any of the operands'
/// `strides` reaches fit in 32 bits, so that an OffsetCalculator with std::uint32_t
/// computes exactly what the 64-bit one does.
template <typename StridesRange> bool fits_in_32_bits(const Shape& shape, const StridesRange& strides) {
    constexpr std::int64_t limit = std::numeric_limits<std::uint32_t>::max();
    if (kael::numel(shape) == 0) {
        return true;  // nothing to index
    }
    if (kael::numel(shape) > limit) {
        return false;
    }
    for (const Strides* operand : strides) {
        std::int64_t last_offset = 0;  // the offset of the last element: the largest one
        for (std::size_t d = 0; d < shape.size(); ++d) {
            last_offset += (shape[d] - 1) * (*operand)[d];
            if (last_offset > limit) {
                return false;
            }
        }
    }
    return true;
}

/// fits_in_32_bits for operands listed in braces: fits_in_32_bits(shape, {&a, &b}).
inline bool fits_in_32_bits(const Shape& shape, std::initializer_list<const Strides*> strides) {
    return fits_in_32_bits<std::initializer_list<const Strides*>>(shape, strides);
}

/// The calculator of N operands over one `shape`, each with its own non-negative
/// `strides` (as every kael view's are). Throws ValueError past kMaxDims dimensions.
template <std::size_t N, typename Index>
OffsetCalculator<N, Index> make_offset_calculator(const Shape& shape, const std::array<const Strides*, N>& strides) {
    KAEL_CHECK_VALUE(shape.size() <= static_cast<std::size_t>(kMaxDims),
                     "CUDA kernels handle at most " << kMaxDims << " dimensions, got " << shape.size());
    OffsetCalculator<N, Index> calculator;
    calculator.ndim = static_cast<int>(shape.size());
    for (std::size_t d = 0; d < shape.size(); ++d) {
        calculator.sizes[d] = static_cast<Index>(shape[d]);
        for (std::size_t op = 0; op < N; ++op) {
            calculator.strides[d][op] = static_cast<Index>((*strides[op])[d]);
        }
    }
    return calculator;
}

}  // namespace kael::cuda

#pragma once
// launch_elementwise: the device's for_each (chapter 09). The TensorIterator has already
// broadcast, promoted, allocated and coalesced; what is left is one thread per element of
// the loop. Two kernels serve every element-wise operation:
//
// - contiguous_kernel, when every operand is one dense run (the coalesced loop has one
//   dimension and each stride is one element): thread i reads element i of each input and
//   writes element i of the output, no index arithmetic at all;
// - strided_kernel otherwise: an OffsetCalculator turns the thread's linear index into
//   each operand's byte offset, with 32-bit arithmetic when every offset fits
//   (fits_in_32_bits) and 64-bit arithmetic when one does not.
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "cuda/launch.cuh"
#include "cuda/offset_calculator.h"
#include "kael/iterator.h"

namespace kael::cuda {

/// The operands' first elements, passed to a kernel by value.
template <std::size_t N> struct OperandPointers {
    std::byte* data[N];
};

template <typename Out, typename... In, typename F, std::size_t... I>
__device__ void apply_at(const OperandPointers<sizeof...(In) + 1>& operands, std::int64_t i, const F& f,
                         std::index_sequence<I...>) {
    reinterpret_cast<Out*>(operands.data[0])[i] = f(reinterpret_cast<const In*>(operands.data[I + 1])[i]...);
}

// nvcc wants a __global__ template's parameter pack last, so the functor type comes first.
template <typename F, typename Out, typename... In>
__global__ void contiguous_kernel(OperandPointers<sizeof...(In) + 1> operands, std::int64_t count, F f) {
    const std::int64_t step = std::int64_t{blockDim.x} * gridDim.x;
    for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count; i += step) {
        apply_at<Out, In...>(operands, i, f, std::index_sequence_for<In...>{});
    }
}

template <typename Out, typename... In, typename F, typename Offsets, std::size_t... I>
__device__ void apply_strided(const OperandPointers<sizeof...(In) + 1>& operands, const Offsets& at, const F& f,
                              std::index_sequence<I...>) {
    *reinterpret_cast<Out*>(operands.data[0] + at.of[0]) =
        f(*reinterpret_cast<const In*>(operands.data[I + 1] + at.of[I + 1])...);
}

template <typename F, typename Index, typename Out, typename... In>
__global__ void strided_kernel(OperandPointers<sizeof...(In) + 1> operands,
                               OffsetCalculator<sizeof...(In) + 1, Index> calculator, std::int64_t count, F f) {
    const std::int64_t step = std::int64_t{blockDim.x} * gridDim.x;
    for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count; i += step) {
        apply_strided<Out, In...>(operands, calculator.offsets(static_cast<Index>(i)), f,
                                  std::index_sequence_for<In...>{});
    }
}

/// Runs `f` on the device over every element of `iter`: output = f(inputs...). Out and
/// In... are the operands' C++ element types; `f` is a functor with a __device__ call
/// operator, copied to the kernel by value.
template <typename Out, typename... In, typename F> void launch_elementwise(const TensorIterator& iter, const F& f) {
    constexpr std::size_t N = sizeof...(In) + 1;
    const std::int64_t count = iter.numel();
    if (count == 0) {
        return;
    }
    OperandPointers<N> operands{};
    std::array<const Strides*, N> strides{};
    constexpr std::array<std::int64_t, N> element_sizes{sizeof(Out), sizeof(In)...};
    bool contiguous = iter.shape().size() <= 1;
    for (std::size_t op = 0; op < N; ++op) {
        operands.data[op] = iter.operand(op).device_data();
        strides[op] = &iter.byte_strides(op);
        contiguous = contiguous && (iter.shape().empty() || strides[op]->front() == element_sizes[op]);
    }
    if (contiguous) {
        contiguous_kernel<F, Out, In...><<<blocks_for(count), kBlockSize>>>(operands, count, f);
    } else if (fits_in_32_bits(iter.shape(), strides)) {
        strided_kernel<F, std::uint32_t, Out, In...><<<blocks_for(count), kBlockSize>>>(
            operands, make_offset_calculator<N, std::uint32_t>(iter.shape(), strides), count, f);
    } else {
        strided_kernel<F, std::int64_t, Out, In...><<<blocks_for(count), kBlockSize>>>(
            operands, make_offset_calculator<N, std::int64_t>(iter.shape(), strides), count, f);
    }
    check_launch();
}

}  // namespace kael::cuda

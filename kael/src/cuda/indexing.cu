// gather, scatter_add and the triangle mask on the device (chapter 09). The positions are
// walked with a three-operand OffsetCalculator in elements, 64-bit: these kernels read
// through an index, so their cost is the scattered memory access, not the division.
#include <cstdint>
#include <type_traits>

#include "cuda/indexing.h"
#include "cuda/launch.cuh"
#include "cuda/offset_calculator.h"

namespace kael::cuda {
namespace {

using Calculator = OffsetCalculator<3, std::int64_t>;

Calculator calculator_of(const Tensor& a, const Tensor& b, const Tensor& c) {
    return make_offset_calculator<3, std::int64_t>(a.shape(), {&a.strides(), &b.strides(), &c.strides()});
}

template <typename T>
__global__ void gather_kernel(T* out, const std::int64_t* index, const T* source, std::int64_t source_dim_stride,
                              Calculator at, std::int64_t count) {
    const std::int64_t step = std::int64_t{blockDim.x} * gridDim.x;
    for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count; i += step) {
        const Calculator::Offsets offset = at.offsets(i);
        out[offset.of[0]] = source[offset.of[2] + index[offset.of[1]] * source_dim_stride];
    }
}

// atomicAdd has no int64 overload; two's complement addition of the same bits as unsigned
// 64-bit integers is exactly the wrapping int64 sum kael defines.
template <typename T> __device__ void atomic_add(T* target, T value) {
    if constexpr (std::is_same_v<T, std::int64_t>) {
        atomicAdd(reinterpret_cast<unsigned long long*>(target), static_cast<unsigned long long>(value));
    } else if constexpr (std::is_same_v<T, std::uint8_t>) {
        if (value != 0) {
            *target = 1;  // Bool "adds" with or; every writer writes the same 1, so no race matters
        }
    } else {
        atomicAdd(target, value);
    }
}

template <typename T>
__global__ void scatter_add_kernel(T* target, std::int64_t target_dim_stride, const std::int64_t* index,
                                   const T* source, Calculator at, std::int64_t count) {
    const std::int64_t step = std::int64_t{blockDim.x} * gridDim.x;
    for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count; i += step) {
        const Calculator::Offsets offset = at.offsets(i);
        atomic_add(target + offset.of[0] + index[offset.of[1]] * target_dim_stride, source[offset.of[2]]);
    }
}

template <typename T>
__global__ void zero_triangle_kernel(T* data, std::int64_t count, std::int64_t rows, std::int64_t cols,
                                     std::int64_t diagonal, bool lower) {
    const std::int64_t step = std::int64_t{blockDim.x} * gridDim.x;
    for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count; i += step) {
        const std::int64_t col = i % cols;
        const std::int64_t row = (i / cols) % rows;
        const bool keep = lower ? col - row <= diagonal : col - row >= diagonal;
        if (!keep) {
            data[i] = T{0};
        }
    }
}

template <typename T> T* elements(const Tensor& t) { return reinterpret_cast<T*>(t.device_data()); }

}  // namespace

void gather(const Tensor& out, const Tensor& index, const Tensor& source, std::int64_t source_dim_stride) {
    const std::int64_t count = out.numel();
    if (count == 0) {
        return;
    }
    dispatch(out.dtype(), [&]<typename T>() {
        gather_kernel<T><<<blocks_for(count), kBlockSize>>>(elements<T>(out), elements<const std::int64_t>(index),
                                                            elements<const T>(source), source_dim_stride,
                                                            calculator_of(out, index, source), count);
    });
    check_launch();
}

void scatter_add(const Tensor& target, std::int64_t target_dim_stride, const Tensor& index, const Tensor& source) {
    const std::int64_t count = index.numel();
    if (count == 0) {
        return;
    }
    dispatch(target.dtype(), [&]<typename T>() {
        scatter_add_kernel<T><<<blocks_for(count), kBlockSize>>>(
            elements<T>(target), target_dim_stride, elements<const std::int64_t>(index), elements<const T>(source),
            calculator_of(target, index, source), count);
    });
    check_launch();
}

void zero_triangle(bool lower, const Tensor& t, std::int64_t rows, std::int64_t cols, std::int64_t diagonal) {
    const std::int64_t count = t.numel();
    if (count == 0) {
        return;
    }
    dispatch(t.dtype(), [&]<typename T>() {
        zero_triangle_kernel<T><<<blocks_for(count), kBlockSize>>>(elements<T>(t), count, rows, cols, diagonal, lower);
    });
    check_launch();
}

}  // namespace kael::cuda

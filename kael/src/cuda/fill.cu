// device::fill: every element of a contiguous device buffer set to one value (chapter 09).
#include <cstdint>

#include "core/device_backend.h"
#include "cuda/launch.cuh"

namespace kael::device {
namespace {

template <typename T> __global__ void fill_kernel(T* data, std::int64_t count, T value) {
    const std::int64_t step = std::int64_t{blockDim.x} * gridDim.x;
    for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count; i += step) {
        data[i] = value;
    }
}

}  // namespace

void fill(DType dtype, std::byte* device_dst, std::int64_t count, const void* value) {
    if (count == 0) {
        return;
    }
    dispatch(dtype, [&]<typename T>() {
        fill_kernel<T><<<cuda::blocks_for(count), cuda::kBlockSize>>>(reinterpret_cast<T*>(device_dst), count,
                                                                        *static_cast<const T*>(value));
    });
    cuda::check_launch();
}

}  // namespace kael::device

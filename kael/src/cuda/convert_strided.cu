// device::convert_strided: the device half of detail::convert_strided (chapter 09). One
// thread per element of the contiguous output finds its source element through an
// OffsetCalculator and converts it with the same convert_value the CPU uses (a constexpr
// function, which nvcc lets device code call under --expt-relaxed-constexpr), so a
// float-to-int64 conversion saturates on the GPU exactly as on the host.
#include <cstdint>

#include "core/device_backend.h"
#include "cuda/launch.cuh"
#include "cuda/offset_calculator.h"

namespace kael::device {
namespace {

template <typename Out, typename In, typename Index>
__global__ void convert_strided_kernel(Out* out, const In* src, std::int64_t count,
                                       cuda::OffsetCalculator<1, Index> source) {
    const std::int64_t step = std::int64_t{blockDim.x} * gridDim.x;
    for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count; i += step) {
        out[i] = convert_value<Out>(src[source.offsets(static_cast<Index>(i)).of[0]]);
    }
}

template <typename Index>
void launch(DType out_dtype, std::byte* out, DType src_dtype, const std::byte* src, const Shape& shape,
            const Strides& src_strides, std::int64_t count) {
    const auto source = cuda::make_offset_calculator<1, Index>(shape, {&src_strides});
    dispatch(out_dtype, [&]<typename Out>() {
        dispatch(src_dtype, [&]<typename In>() {
            convert_strided_kernel<Out, In, Index><<<cuda::blocks_for(count), cuda::kBlockSize>>>(
                reinterpret_cast<Out*>(out), reinterpret_cast<const In*>(src), count, source);
        });
    });
    cuda::check_launch();
}

}  // namespace

void convert_strided(DType out_dtype, std::byte* out, DType src_dtype, const std::byte* src, const Shape& shape,
                     const Strides& src_strides) {
    const std::int64_t count = numel(shape);
    if (count == 0) {
        return;
    }
    if (cuda::fits_in_32_bits(shape, {&src_strides})) {
        launch<std::uint32_t>(out_dtype, out, src_dtype, src, shape, src_strides, count);
    } else {
        launch<std::int64_t>(out_dtype, out, src_dtype, src, shape, src_strides, count);
    }
}

}  // namespace kael::device

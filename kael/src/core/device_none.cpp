// The device backend of a build without CUDA: no device is available, and every operation
// that would touch device memory throws the same message.
#include "core/device_backend.h"

namespace kael::device {
namespace {

constexpr bool built_with_cuda = false;

[[noreturn]] void no_cuda() {
    KAEL_CHECK(built_with_cuda, "kael was built without CUDA; configure with KAEL_ENABLE_CUDA=ON");
    detail::unreachable();
}

}  // namespace

bool is_available() { return false; }
//> stage 10

bool is_built() { return built_with_cuda; }
//< stage 10

void synchronize() { no_cuda(); }

std::byte* allocate(std::int64_t /*nbytes*/) { no_cuda(); }

// Nothing can have been allocated, so there is nothing to free.
void free(std::byte* /*ptr*/) noexcept {}

void copy_to_device(std::byte* /*device_dst*/, const std::byte* /*host_src*/,
                    std::int64_t /*nbytes*/) {
    no_cuda();
}

void copy_to_host(std::byte* /*host_dst*/, const std::byte* /*device_src*/,
                  std::int64_t /*nbytes*/) {
    no_cuda();
}

void copy_within_device(std::byte* /*device_dst*/, const std::byte* /*device_src*/,
                        std::int64_t /*nbytes*/) {
    no_cuda();
}

void fill(DType /*dtype*/, std::byte* /*device_dst*/, std::int64_t /*count*/,
          const void* /*value*/) {
    no_cuda();
}
//> stage 10

void convert_strided(DType /*out_dtype*/, std::byte* /*out*/, DType /*src_dtype*/, const std::byte* /*src*/,
                     const Shape& /*shape*/, const Strides& /*src_strides*/) {
    no_cuda();
}
//< stage 10

}  // namespace kael::device

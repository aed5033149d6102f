// The device backend of a build with CUDA: core/device_backend.h over the CUDA runtime.
//
// This file is plain C++ compiled by the host compiler; only the kernels (fill.cu,
// convert_strided.cu) need nvcc. kael drives one GPU, device 0, on the default stream, so
// every operation here is ordered after the kernels launched before it.
#include <cuda_runtime.h>

#include <new>

#include "core/device_backend.h"
#include "cuda/check.h"

namespace kael::device {
namespace {

// Asked once: cudaGetDeviceCount initialises the runtime, which takes tens of
// milliseconds, and a machine does not gain or lose its GPU while a program runs. Without
// a driver it fails (cudaErrorInsufficientDriver, cudaErrorNoDevice): no device, no error.
bool device_present() {
    static const bool present = [] {
        int count = 0;
        const bool found = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
        (void)cudaGetLastError();  // a failed query must not stay as the sticky error
        return found;
    }();
    return present;
}

void require_device() {
    KAEL_CHECK(device_present(),
               "no CUDA device is available (kael was built with CUDA, but cudaGetDeviceCount "
               "found no usable GPU); check cuda_is_available() before asking for Device::CUDA");
}

}  // namespace

bool is_available() { return device_present(); }

bool is_built() { return true; }

void synchronize() {
    require_device();
    KAEL_CUDA_CHECK(cudaDeviceSynchronize());
}

std::byte* allocate(std::int64_t nbytes) {
    require_device();
    void* block = nullptr;
    const cudaError_t status = cudaMalloc(&block, static_cast<std::size_t>(nbytes));
    if (status == cudaErrorMemoryAllocation) {
        // Out of memory is not sticky; clear it and let the caching allocator react as it
        // does on the host: give its cached blocks back and ask once more, then report.
        (void)cudaGetLastError();
        throw std::bad_alloc();
    }
    KAEL_CUDA_CHECK(status);
    return static_cast<std::byte*>(block);
}

void free(std::byte* ptr) noexcept {
    // cudaFree waits for the device; a failure here (a driver shutting down at exit) has no
    // one to report to, and a deleter must not throw.
    (void)cudaFree(ptr);
}

void copy_to_device(std::byte* device_dst, const std::byte* host_src, std::int64_t nbytes) {
    KAEL_CUDA_CHECK(cudaMemcpy(device_dst, host_src, static_cast<std::size_t>(nbytes), cudaMemcpyHostToDevice));
}

void copy_to_host(std::byte* host_dst, const std::byte* device_src, std::int64_t nbytes) {
    KAEL_CUDA_CHECK(cudaMemcpy(host_dst, device_src, static_cast<std::size_t>(nbytes), cudaMemcpyDeviceToHost));
}

void copy_within_device(std::byte* device_dst, const std::byte* device_src, std::int64_t nbytes) {
    KAEL_CUDA_CHECK(
        cudaMemcpy(device_dst, device_src, static_cast<std::size_t>(nbytes), cudaMemcpyDeviceToDevice));
}

}  // namespace kael::device

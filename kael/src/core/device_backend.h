#pragma once
// The device backend: the handful of memory operations that Storage and Tensor need on a
// device other than the CPU. src/core/device_none.cpp implements them for builds without CUDA
// (each throws); the CUDA backend of chapter 09 implements them with the CUDA runtime.
//
// Pointers passed to these functions are device addresses: host code must not dereference
// them.

#include <cstddef>
#include <cstdint>

#include "kael/dtype.h"
//> stage 10
#include "kael/shape.h"
//< stage 10

namespace kael::device {

/// True when a device is present and usable.
bool is_available();
//> stage 10
/// True in a build with a device backend, with or without a device present.
bool is_built();
//< stage 10
/// Blocks until all queued device work has finished.
void synchronize();

/// Allocates `nbytes` bytes of device memory.
std::byte* allocate(std::int64_t nbytes);
/// Frees memory from allocate().
void free(std::byte* ptr) noexcept;

/// Copies `nbytes` bytes from host memory to device memory.
void copy_to_device(std::byte* device_dst, const std::byte* host_src, std::int64_t nbytes);
/// Copies `nbytes` bytes from device memory to host memory.
void copy_to_host(std::byte* host_dst, const std::byte* device_src, std::int64_t nbytes);
/// Copies `nbytes` bytes between two device buffers.
void copy_within_device(std::byte* device_dst, const std::byte* device_src, std::int64_t nbytes);
/// Sets `count` elements of type `dtype` at `device_dst` to the element at `value` (a host
/// pointer to one element of that dtype).
void fill(DType dtype, std::byte* device_dst, std::int64_t count, const void* value);
//> stage 10
/// Copies every element of a strided device tensor into a contiguous device buffer in
/// row-major order, converting each value from `src_dtype` to `out_dtype` with
/// convert_value. `src` points at the source's first element; `src_strides` are in
/// elements, one per dimension of `shape`.
void convert_strided(DType out_dtype, std::byte* out, DType src_dtype, const std::byte* src, const Shape& shape,
                     const Strides& src_strides);
//< stage 10

}  // namespace kael::device

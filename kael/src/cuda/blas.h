#pragma once
// Matrix products on the device through cuBLAS (chapter 09).
#include <cstddef>
#include <cstdint>

#include "kael/dtype.h"

namespace kael::cuda {

/// c[i] = a[i] x b[i] for i < batches: row-major, contiguous matrices on the device, a of
/// [m, k], b of [k, n], c of [m, n], each batch following the one before. Float32 and
/// float64 only. With `allow_tf32`, float32 products may use TF32 tensor cores (10-bit
/// mantissas for the inputs: faster, and no longer within float32 tolerance of the CPU).
void batched_gemm(DType dtype, std::int64_t batches, std::int64_t m, std::int64_t n, std::int64_t k,
                  const std::byte* a, const std::byte* b, std::byte* c, bool allow_tf32);

}  // namespace kael::cuda

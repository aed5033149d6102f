#pragma once
/// \file
/// \brief Matrix products with PyTorch's shape rules, and the choice between kael's own
/// kernel and a BLAS library.

//> stage 8
#include <string>
//< stage 8
#include <string_view>

#include "kael/tensor.h"

namespace kael {

/// The matrix product with PyTorch's rules for every rank:
/// - 1-d x 1-d: the dot product, a 0-d tensor;
/// - 2-d x 2-d: the matrix product;
/// - 1-d x 2-d and 2-d x 1-d: the 1-d operand acts as a row (or column) vector, and its
///   dimension is removed from the result;
/// - more dimensions: a batch of matrix products whose leading (batch) dimensions
///   broadcast.
/// Both operands must have the same dtype (TypeError), which must not be Bool; the inner
/// sizes must agree (ValueError naming both shapes); 0-d operands are rejected.
[[nodiscard]] Tensor matmul(const Tensor& a, const Tensor& b);
/// The product of two matrices (2-d only).
[[nodiscard]] Tensor mm(const Tensor& a, const Tensor& b);
/// The products of two batches of matrices of the same batch size (3-d only).
[[nodiscard]] Tensor bmm(const Tensor& a, const Tensor& b);
/// The dot product of two 1-d tensors of the same size, as a 0-d tensor.
[[nodiscard]] Tensor dot(const Tensor& a, const Tensor& b);
/// The outer product of two 1-d tensors: result[i][j] = a[i] * b[j].
[[nodiscard]] Tensor outer(const Tensor& a, const Tensor& b);

/// Which kernel computes float and double matrix products.
enum class MatmulBackend {
//> until 8
//|     Auto,  ///< BLAS when kael was built with it, the own kernel otherwise
//< until 8
//> stage 8
    Auto,  ///< BLAS when kael was built with it and its kernel for this CPU is vectorized, else the own kernel
//< stage 8
    Kael,  ///< always kael's own blocked kernel
    Blas,  ///< always BLAS (kael::Error if kael was built without it)
};

/// Chooses the matrix product kernel for the whole program (benchmarks compare them).
void set_matmul_backend(MatmulBackend backend);
/// The current choice.
[[nodiscard]] MatmulBackend matmul_backend();
/// True when kael was built with a BLAS library (CMake option KAEL_USE_BLAS).
[[nodiscard]] bool blas_available();
//> stage 10

/// Lets float32 matrix products on CUDA use TF32 tensor cores, as PyTorch's
/// torch.backends.cuda.matmul.allow_tf32 does. Off by default: TF32 rounds the inputs to
/// 10-bit mantissas, so products are faster but no longer agree with the CPU to float32
/// tolerance. The CPU ignores it.
void set_matmul_allow_tf32(bool allowed);
/// True while float32 products on CUDA may use TF32.
[[nodiscard]] bool matmul_allow_tf32();
//< stage 10
/// The copy of kael's own matrix kernel this CPU runs: "avx512", "avx2" or "generic" (the
/// widest the CPU has, or a narrower one named by the environment variable KAEL_GEMM_ISA).
[[nodiscard]] std::string_view matmul_kernel_isa();
//> stage 8
/// The BLAS library's kernel for this CPU as the library names it ("SkylakeX", "Haswell",
/// "Prescott" for its SSE3 fallback, ...), or "" without BLAS.
[[nodiscard]] std::string blas_kernel_name();
/// Which kernel float and double products use now, in words, for logs: "OpenBLAS
/// (SkylakeX kernel)" or "kael's own avx512 kernel".
[[nodiscard]] std::string matmul_kernel_description();
//< stage 8

}  // namespace kael

// cuda/blas.h over cuBLAS, which is column-major: it reads a matrix column after column.
// A row-major [m, n] matrix laid out that way is its own transpose, so instead of C = A B
// kael asks cuBLAS for C^T = B^T A^T, passing B where cuBLAS expects its first operand and
// A as its second. Every "transpose" is then free: no flag is set and nothing is copied.
#include "cuda/blas.h"

#include <cublas_v2.h>

#include <limits>

#include "cuda/check.h"

namespace kael::cuda {
namespace {

#define KAEL_CUBLAS_CHECK(call) \
    KAEL_CHECK_CUDA_STATUS(call, CUBLAS_STATUS_SUCCESS, cublasGetStatusName, cublasGetStatusString)

// One handle per thread: a handle's settings (the math mode below) are per handle, and two
// threads changing one would race. A handle is created on a thread's first product and
// deliberately never destroyed: at exit the driver may already be gone.
cublasHandle_t handle() {
    thread_local cublasHandle_t made = [] {
        cublasHandle_t h = nullptr;
        KAEL_CUBLAS_CHECK(cublasCreate(&h));
        return h;
    }();
    return made;
}

int as_int(std::int64_t value, const char* what) {
    KAEL_CHECK_VALUE(value <= std::numeric_limits<int>::max(),
                     "matmul on CUDA: " << what << " of " << value << " exceeds cuBLAS's 32-bit sizes");
    return static_cast<int>(value);
}

}  // namespace

void batched_gemm(DType dtype, std::int64_t batches, std::int64_t m, std::int64_t n, std::int64_t k,
                  const std::byte* a, const std::byte* b, std::byte* c, bool allow_tf32) {
    const int rows = as_int(m, "a row count");
    const int cols = as_int(n, "a column count");
    const int inner = as_int(k, "an inner size");
    const int count = as_int(batches, "a batch count");
    cublasHandle_t h = handle();
    KAEL_CUBLAS_CHECK(cublasSetMathMode(h, allow_tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
    // Column-major view: C^T [n, m] = B^T [n, k] x A^T [k, m], leading dimensions n, n, k.
    if (dtype == DType::F32) {
        const float one = 1.0F;
        const float zero = 0.0F;
        KAEL_CUBLAS_CHECK(cublasSgemmStridedBatched(
            h, CUBLAS_OP_N, CUBLAS_OP_N, cols, rows, inner, &one, reinterpret_cast<const float*>(b), cols, k * n,
            reinterpret_cast<const float*>(a), inner, m * k, &zero, reinterpret_cast<float*>(c), cols, m * n, count));
    } else {
        KAEL_CHECK_TYPE(dtype == DType::F64, "matmul on CUDA supports float32 and float64, got " << dtype);
        const double one = 1.0;
        const double zero = 0.0;
        KAEL_CUBLAS_CHECK(cublasDgemmStridedBatched(
            h, CUBLAS_OP_N, CUBLAS_OP_N, cols, rows, inner, &one, reinterpret_cast<const double*>(b), cols, k * n,
            reinterpret_cast<const double*>(a), inner, m * k, &zero, reinterpret_cast<double*>(c), cols, m * n,
            count));
    }
}

}  // namespace kael::cuda

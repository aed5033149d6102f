// The kernels of cuda/elementwise.h and cuda/blas.h in a build without CUDA. No tensor can live on a
// device there (allocation throws first), so these are never reached; they exist so that
// the operations layer links the same way in both builds.
#include "cuda/blas.h"
#include "cuda/elementwise.h"

namespace kael::cuda {
namespace {

[[noreturn]] void no_cuda() {
    throw Error("kael was built without CUDA; configure with KAEL_ENABLE_CUDA=ON");
}

}  // namespace

void binary(BinaryOp /*op*/, const TensorIterator& /*iter*/, Scalar /*alpha*/) { no_cuda(); }

void binary_with_scalar(BinaryOp /*op*/, const TensorIterator& /*iter*/, Scalar /*value*/, Scalar /*alpha*/,
                        bool /*scalar_first*/) {
    no_cuda();
}

void unary(UnaryOp /*op*/, const TensorIterator& /*iter*/) { no_cuda(); }

void copy(const TensorIterator& /*iter*/) { no_cuda(); }

void batched_gemm(DType /*dtype*/, std::int64_t /*batches*/, std::int64_t /*m*/, std::int64_t /*n*/,
                  std::int64_t /*k*/, const std::byte* /*a*/, const std::byte* /*b*/, std::byte* /*c*/,
                  bool /*allow_tf32*/) {
    no_cuda();
}

}  // namespace kael::cuda

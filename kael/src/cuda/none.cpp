// The kernels of the cuda/*.h headers in a build without CUDA. No tensor can live on a
// device there (allocation throws first), so these are never reached; they exist so that
// the operations layer links the same way in both builds.
#include "cuda/blas.h"
#include "cuda/elementwise.h"
#include "cuda/indexing.h"
#include "cuda/normalize.h"
#include "cuda/reduce.h"

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

void clamp(const TensorIterator& /*iter*/, std::optional<Scalar> /*min*/, std::optional<Scalar> /*max*/) {
    no_cuda();
}

void compare(CompareOp /*op*/, const TensorIterator& /*iter*/) { no_cuda(); }

void classify(ClassifyOp /*op*/, const TensorIterator& /*iter*/) { no_cuda(); }

void where(const TensorIterator& /*iter*/) { no_cuda(); }

void isclose(const TensorIterator& /*iter*/, double /*rtol*/, double /*atol*/, bool /*equal_nan*/) { no_cuda(); }

void reduce_runs(ReduceOp /*op*/, const Tensor& /*runs*/, std::int64_t /*outputs*/, std::int64_t /*length*/,
                 const Tensor& /*out*/) {
    no_cuda();
}

void extreme_positions(bool /*largest*/, const Tensor& /*runs*/, std::int64_t /*outputs*/, std::int64_t /*length*/,
                       const Tensor& /*values*/, const Tensor& /*indices*/) {
    no_cuda();
}

void variance(const Tensor& /*runs*/, std::int64_t /*outputs*/, std::int64_t /*length*/, double /*correction*/,
              const Tensor& /*out*/) {
    no_cuda();
}

void logsumexp(const Tensor& /*runs*/, std::int64_t /*outputs*/, std::int64_t /*length*/, const Tensor& /*out*/) {
    no_cuda();
}

void cumsum(const Tensor& /*runs*/, std::int64_t /*outputs*/, std::int64_t /*length*/, const Tensor& /*out*/) {
    no_cuda();
}

void softmax(bool /*log*/, const Tensor& /*in*/, std::int64_t /*rows*/, std::int64_t /*length*/,
             const Tensor& /*out*/) {
    no_cuda();
}

void layer_norm(const Tensor& /*in*/, std::int64_t /*rows*/, std::int64_t /*length*/, const Tensor& /*weight*/,
                const Tensor& /*bias*/, double /*eps*/, const Tensor& /*out*/) {
    no_cuda();
}

void gather(const Tensor& /*out*/, const Tensor& /*index*/, const Tensor& /*source*/,
            std::int64_t /*source_dim_stride*/) {
    no_cuda();
}

void scatter_add(const Tensor& /*target*/, std::int64_t /*target_dim_stride*/, const Tensor& /*index*/,
                 const Tensor& /*source*/) {
    no_cuda();
}

void zero_triangle(bool /*lower*/, const Tensor& /*t*/, std::int64_t /*rows*/, std::int64_t /*cols*/,
                   std::int64_t /*diagonal*/) {
    no_cuda();
}

void batched_gemm(DType /*dtype*/, std::int64_t /*batches*/, std::int64_t /*m*/, std::int64_t /*n*/,
                  std::int64_t /*k*/, const std::byte* /*a*/, const std::byte* /*b*/, std::byte* /*c*/,
                  bool /*allow_tf32*/) {
    no_cuda();
}

}  // namespace kael::cuda

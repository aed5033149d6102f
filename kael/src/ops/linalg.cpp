// Matrix products: PyTorch's rank rules on top of one strided, batched product.
#include "kael/ops/linalg.h"

#include <atomic>
#include <type_traits>

#include "ops/native.h"
#include "kernels/cpu/gemm.h"
//> stage 13
#include "kernels/cpu/gemv.h"
#include "kael/ops/few_rows.h"
//< stage 13
#include "kael/broadcast.h"
#include "kael/factory.h"
#include "kael/ops/binary.h"
//> stage 10
#include "cuda/blas.h"
//< stage 10

namespace kael {
namespace {

std::atomic<MatmulBackend> current_backend{MatmulBackend::Auto};

bool use_blas(DType dtype) {
    const MatmulBackend backend = current_backend.load();
//> until 8
//|     return dtype != DType::I64 &&
//|            (backend == MatmulBackend::Blas || (backend == MatmulBackend::Auto && detail::blas_available()));
//< until 8
//> stage 8
    return dtype != DType::I64 &&
           (backend == MatmulBackend::Blas || (backend == MatmulBackend::Auto && detail::blas_preferred()));
//< stage 8
}

// BLAS reads matrices with contiguous rows or contiguous columns; anything else is copied.
bool blas_readable(const Tensor& matrix) {
    const std::int64_t rows = matrix.size(-2);
    const std::int64_t cols = matrix.size(-1);
    const std::int64_t row_stride = matrix.stride(-2);
    const std::int64_t col_stride = matrix.stride(-1);
    return (col_stride == 1 && row_stride >= cols) || (row_stride == 1 && col_stride >= rows);
}

template <typename T>
void multiply(const detail::GemmOperands<T>& op, bool blas) {
    if constexpr (std::is_same_v<T, std::int64_t>) {
        detail::gemm(op);
    } else {
//> stage 13
        static_assert(detail::kMaxGemvRows == kMatmulFewRows, "the public limit is the kernel's");
        // One row times a matrix, a decode step's product, is one pass over B; a blocked
        // product, BLAS's included, would pack B first (chapter 12). Only BLAS asked for by
        // name computes it.
        if (detail::gemv_applies(op) && current_backend.load() != MatmulBackend::Blas) {
            detail::gemv(op);
            return;
        }
//< stage 13
        if (blas) {
            detail::blas_gemm(op);
        } else {
            detail::gemm(op);
        }
    }
}

// out[batch] = a[batch] x b[batch] for a [..., M, K] and b [..., K, N] whose batch
// dimensions already have the same shape (expanded views with stride 0 are fine).
//> stage 10
// The device's batched product: cuBLAS wants every batch at one stride from the next, so
// the operands are made contiguous first. That copies a transposed or broadcast operand
// (a [B, M, K] expanded from [M, K] becomes B real copies); the copy runs on the device at
// memory speed, and the product costs far more than it for any matrix worth a GPU.
std::atomic<bool> allow_tf32{false};

Tensor device_batched_product(const Tensor& a, const Tensor& b, const Shape& out_shape) {
    const Tensor left = native::contiguous(a);
    const Tensor right = native::contiguous(b);
    Tensor out = empty(out_shape, a.dtype(), a.device());
    const std::int64_t m = a.size(-2);
    const std::int64_t k = a.size(-1);
    const std::int64_t n = b.size(-1);
    const std::int64_t batches = numel(Shape(out_shape.begin(), out_shape.end() - 2));
    if (out.numel() == 0) {
        return out;
    }
    if (k == 0) {
        return zeros(out_shape, a.dtype(), a.device());  // a sum of no products
    }
    cuda::batched_gemm(a.dtype(), batches, m, n, k, left.device_data(), right.device_data(), out.device_data(),
                       allow_tf32.load());
    return out;
}

//< stage 10
Tensor batched_product(Tensor a, Tensor b, const Shape& out_shape) {
    const DType dtype = a.dtype();
//> stage 10
    if (a.device() != Device::CPU) {
        return device_batched_product(a, b, out_shape);
    }
//< stage 10
    Tensor out = empty(out_shape, dtype);
    const bool blas = use_blas(dtype);
    if (blas) {
        if (!blas_readable(a)) {
            a = native::contiguous(a);
        }
        if (!blas_readable(b)) {
            b = native::contiguous(b);
        }
    }
    const std::int64_t m = a.size(-2);
    const std::int64_t k = a.size(-1);
    const std::int64_t n = b.size(-1);
    const Shape batch_shape(out_shape.begin(), out_shape.end() - 2);
    const std::int64_t batches = numel(batch_shape);
    dispatch_no_bool(dtype, "matmul", [&]<typename T>() {
        const T* a_data = reinterpret_cast<const T*>(a.device_data());
        const T* b_data = reinterpret_cast<const T*>(b.device_data());
        T* c_data = out.numel() > 0 ? out.data_ptr<T>() : nullptr;
        for (std::int64_t batch = 0; batch < batches; ++batch) {
            // Where this batch's matrices start: the batch index through each operand's
            // batch strides (0 along broadcast dimensions).
            const Index index = index_from_linear(batch, batch_shape);
            std::int64_t a_offset = 0;
            std::int64_t b_offset = 0;
            for (std::size_t d = 0; d < index.size(); ++d) {
                a_offset += index[d] * a.strides()[d];
                b_offset += index[d] * b.strides()[d];
            }
            multiply<T>({m, n, k, a_data + a_offset, a.stride(-2), a.stride(-1), b_data + b_offset,
                         b.stride(-2), b.stride(-1), c_data + batch * m * n, n},
                        blas);
        }
    });
    return out;
}

void check_operands(const Tensor& a, const Tensor& b, const char* op) {
    KAEL_CHECK_TYPE(a.dtype() == b.dtype(), op << ": expected both operands to have the same dtype, got "
                                               << a.dtype() << " and " << b.dtype());
    KAEL_CHECK_TYPE(a.dtype() != DType::Bool, op << " does not support dtype bool");
//> until 10
//|     KAEL_CHECK(a.device() == Device::CPU && b.device() == Device::CPU,
//|                op << ": operands on " << a.device() << " and " << b.device()
//|                   << " are not supported by the CPU kernel");
//< until 10
//> stage 10
    KAEL_CHECK(a.device() == b.device(), op << ": expected all tensors to be on the same device, but found at "
                                               "least two devices, " << a.device() << " and " << b.device());
    KAEL_CHECK_TYPE(a.device() == Device::CPU || a.dtype() != DType::I64,
                    op << " on CUDA supports float32 and float64; cuBLAS has no int64 product (use cpu())");
//< stage 10
}

void check_inner_sizes(const Tensor& a, const Tensor& b) {
    KAEL_CHECK_VALUE(a.size(-1) == b.size(-2),
                     "matmul: shapes " << to_string(a.shape()) << " and " << to_string(b.shape())
                                       << " cannot be multiplied (" << a.size(-1)
                                       << " columns against " << b.size(-2) << " rows)");
}

}  // namespace

}  // namespace kael

//> until 7
//| namespace kael {
//< until 7
//> stage 7
// From chapter 06 on these are the operations below autograd: kael::matmul, what users call,
// is the autograd layer's (autograd/functions/linalg.cpp), which runs native::matmul and
// records its backward.
namespace kael::native {
//< stage 7

Tensor matmul(const Tensor& a, const Tensor& b) {
    check_operands(a, b, "matmul");
    KAEL_CHECK_VALUE(a.dim() >= 1 && b.dim() >= 1,
                     "matmul needs operands with at least 1 dimension, got " << a.dim() << "-d and "
                                                                            << b.dim() << "-d");
    if (a.dim() == 1 && b.dim() == 1) {
        return native::dot(a, b);
    }
    // A 1-d operand is a row vector on the left and a column vector on the right; its
    // dimension is dropped from the result again.
    const Tensor left = a.dim() == 1 ? native::unsqueeze(a, 0) : a;
    const Tensor right = b.dim() == 1 ? native::unsqueeze(b, 1) : b;
    check_inner_sizes(left, right);
    const std::int64_t m = left.size(-2);
    const std::int64_t n = right.size(-1);

    Tensor result = [&] {
        // A batch times one matrix: fold the batch into the rows and multiply once.
        if (right.dim() == 2 && left.dim() > 2) {
            // The row count is spelled out rather than inferred with -1, which cannot be
            // resolved when the inner size is 0.
            Shape out_shape(left.shape().begin(), left.shape().end() - 1);
            const Tensor rows = native::reshape(left, {numel(out_shape), left.size(-1)});
            out_shape.push_back(n);
            return native::view(batched_product(rows, right, {rows.size(0), n}), out_shape);
        }
        Shape batch = broadcast_shapes(Shape(left.shape().begin(), left.shape().end() - 2),
                                       Shape(right.shape().begin(), right.shape().end() - 2));
        Shape a_shape = batch;
        a_shape.insert(a_shape.end(), {m, left.size(-1)});
        Shape b_shape = batch;
        b_shape.insert(b_shape.end(), {right.size(-2), n});
        Shape out_shape = batch;
        out_shape.insert(out_shape.end(), {m, n});
        return batched_product(native::expand(left, a_shape), native::expand(right, b_shape), out_shape);
    }();
    if (a.dim() == 1) {
        result = native::squeeze(result, -2);
    }
    if (b.dim() == 1) {
        result = native::squeeze(result, -1);
    }
    return result;
}

Tensor dot(const Tensor& a, const Tensor& b) {
    check_operands(a, b, "dot");
    KAEL_CHECK_VALUE(a.dim() == 1 && b.dim() == 1,
                     "dot needs two 1-d tensors, got " << a.dim() << "-d and " << b.dim() << "-d");
    KAEL_CHECK_VALUE(a.size(0) == b.size(0), "dot: sizes " << a.size(0) << " and " << b.size(0)
                                                           << " differ");
    // A 1 x K row times a K x 1 column.
    return native::view(batched_product(native::unsqueeze(a, 0), native::unsqueeze(b, 1), {1, 1}), {});
}

}  // namespace

namespace kael {

void set_matmul_backend(MatmulBackend backend) {
    KAEL_CHECK(backend != MatmulBackend::Blas || detail::blas_available(),
               "kael was built without BLAS; configure with KAEL_USE_BLAS=ON");
    current_backend.store(backend);
}

MatmulBackend matmul_backend() { return current_backend.load(); }
//> stage 10

void set_matmul_allow_tf32(bool allowed) { allow_tf32.store(allowed); }

bool matmul_allow_tf32() { return allow_tf32.load(); }
//< stage 10

bool blas_available() { return detail::blas_available(); }

std::string_view matmul_kernel_isa() { return detail::gemm_isa(); }
//> stage 8

std::string blas_kernel_name() { return detail::blas_kernel_name(); }

std::string matmul_kernel_description() {
    if (use_blas(DType::F32)) {
        return "OpenBLAS (" + blas_kernel_name() + " kernel)";
    }
    return "kael's own " + std::string(detail::gemm_isa()) + " kernel";
}
//< stage 8

}  // namespace kael

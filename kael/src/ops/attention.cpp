// The fused attention of chapter 11, below autograd. The two products go through matmul
// (the matrix kernel or BLAS, batched over every head); what is fused is the middle: one
// pass per row of scores that scales, applies the causal bound, subtracts the row's
// maximum, exponentiates and normalises, and writes 0 where the mask is, so that no mask
// tensor exists. The backward's middle, dS = P (dP - rowsum(P dP)) * scale, is one such
// pass too. The probabilities P are kept for the backward ([..., T, S] per call, what
// PyTorch's math kernel keeps as well).
#include "ops/native.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/elementwise.h"
#include "kernels/cpu/fast_exp.h"
#include "kael/factory.h"
//> stage 13
#include "kael/parallel.h"
//< stage 13

namespace kael::native {
namespace {

void check_attention_operands(const Tensor& q, const Tensor& k, const Tensor& v) {
    KAEL_CHECK_VALUE(q.dim() >= 2 && k.dim() >= 2 && v.dim() >= 2,
                     "scaled_dot_product_attention needs q, k and v of at least 2 dimensions, got shapes "
                         << to_string(q.shape()) << ", " << to_string(k.shape()) << " and " << to_string(v.shape()));
    KAEL_CHECK_TYPE(q.dtype() == k.dtype() && q.dtype() == v.dtype() && is_floating_point(q.dtype()),
                    "scaled_dot_product_attention needs q, k and v of one floating dtype, got "
                        << q.dtype() << ", " << k.dtype() << " and " << v.dtype());
    const Shape batch(q.shape().begin(), q.shape().end() - 2);
    KAEL_CHECK_VALUE(Shape(k.shape().begin(), k.shape().end() - 2) == batch &&
                         Shape(v.shape().begin(), v.shape().end() - 2) == batch && q.size(-1) == k.size(-1) &&
                         k.size(-2) == v.size(-2),
                     "scaled_dot_product_attention needs q [..., T, D], k [..., S, D] and v [..., S, E] with the same "
                     "leading dimensions, got " << to_string(q.shape()) << ", " << to_string(k.shape()) << " and "
                                                 << to_string(v.shape()));
}

// Row `i` of each [T, S] matrix may read keys 0 .. keys_visible - 1: every key without a
// causal bound, else those up to position i + offset.
std::int64_t keys_visible(std::int64_t i, std::int64_t keys, std::optional<std::int64_t> causal_offset) {
    return causal_offset ? std::clamp<std::int64_t>(i + 1 + *causal_offset, 0, keys) : keys;
}

// scores <- softmax(scores * scale) row by row, in place, 0 past each row's causal bound.
template <typename T> void masked_softmax_rows(T* scores, std::int64_t matrices, std::int64_t queries,
                                               std::int64_t keys, double scale,
                                               std::optional<std::int64_t> causal_offset) {
    const auto s = static_cast<T>(scale);
//> until 13
//|     for (std::int64_t m = 0; m < matrices; ++m) {
//|         for (std::int64_t i = 0; i < queries; ++i) {
//|             T* row = scores + (m * queries + i) * keys;
//< until 13
//> stage 13
    // Every row is its own softmax: rows run on several threads (chapter 12).
    const std::int64_t grain = std::max<std::int64_t>(1, 16384 / std::max<std::int64_t>(keys, 1));
    parallel_for(0, matrices * queries, grain, [&](std::int64_t first, std::int64_t end) {
        for (std::int64_t r = first; r < end; ++r) {
            const std::int64_t i = r % queries;
            T* row = scores + r * keys;
//< stage 13
            const std::int64_t visible = keys_visible(i, keys, causal_offset);
            T largest = -std::numeric_limits<T>::infinity();
            for (std::int64_t j = 0; j < visible; ++j) {
                row[j] *= s;
                largest = row[j] > largest ? row[j] : largest;
            }
            double total = 0;
            for (std::int64_t j = 0; j < visible; ++j) {
                row[j] = detail::exponential_nonpositive(row[j] - largest);
                total += static_cast<double>(row[j]);
            }
            const auto normalise = static_cast<T>(1.0 / total);
            for (std::int64_t j = 0; j < visible; ++j) {
                row[j] *= normalise;
            }
            std::fill(row + visible, row + keys, T{0});
        }
//> until 13
//|     }
//< until 13
//> stage 13
    });
//< stage 13
}

// dP <- P (dP - rowsum(P dP)) * scale, row by row, in place: the softmax's backward. Past
// a causal bound P is 0, so dS is 0 there without a test.
template <typename T> void softmax_backward_rows(const T* probabilities, T* grad, std::int64_t rows,
                                                 std::int64_t keys, double scale) {
    for (std::int64_t r = 0; r < rows; ++r) {
        const T* p = probabilities + r * keys;
        T* g = grad + r * keys;
        double dot = 0;
        for (std::int64_t j = 0; j < keys; ++j) {
            dot += static_cast<double>(p[j]) * static_cast<double>(g[j]);
        }
        const auto shift = static_cast<T>(dot);
        const auto s = static_cast<T>(scale);
        for (std::int64_t j = 0; j < keys; ++j) {
            g[j] = p[j] * (g[j] - shift) * s;
        }
    }
}

}  // namespace

double attention_scale(const Tensor& q, std::optional<double> scale) {
    return scale ? *scale : 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
}

AttentionForward attention_forward(const Tensor& q, const Tensor& k, const Tensor& v,
                                   std::optional<std::int64_t> causal_offset, double scale) {
    check_attention_operands(q, k, v);
    if (q.device() != Device::CPU) {
        // The device has no fused row kernel for attention yet: the same arithmetic from its
        // row and element-wise kernels, the causal mask as a [T, S] tensor.
        Tensor scores = native::mul(native::matmul(q, native::transpose(k, -2, -1)), scale);
        if (causal_offset) {
            const Tensor keep = native::tril(ones({q.size(-2), k.size(-2)}, DType::Bool, q.device()), *causal_offset);
            scores = native::where(keep, scores, scalar(-std::numeric_limits<double>::infinity(), scores.dtype()));
        }
        const Tensor probabilities = native::softmax(scores, -1);
        return {native::matmul(probabilities, v), probabilities};
    }
    Tensor probabilities = native::contiguous(native::matmul(q, native::transpose(k, -2, -1)));
    const std::int64_t queries = q.size(-2);
    const std::int64_t keys = k.size(-2);
    const std::int64_t matrices = queries * keys == 0 ? 0 : probabilities.numel() / (queries * keys);
    dispatch_floating(q.dtype(), "scaled_dot_product_attention", [&]<typename T>() {
        masked_softmax_rows(probabilities.data_ptr<T>(), matrices, queries, keys, scale, causal_offset);
    });
    return {native::matmul(probabilities, v), probabilities};
}

AttentionGrads attention_backward(const Tensor& grad, const Tensor& q, const Tensor& k, const Tensor& v,
                                  const Tensor& probabilities, double scale) {
    const Tensor grad_v = native::matmul(native::transpose(probabilities, -2, -1), grad);
    if (q.device() != Device::CPU) {  // as attention_forward: the formula from the device's kernels
        const Tensor grad_p = native::matmul(grad, native::transpose(v, -2, -1));
        const Tensor row_sums = native::sum(native::mul(probabilities, grad_p), {-1}, true);
        const Tensor grad_scores = native::mul(native::mul(probabilities, native::sub(grad_p, row_sums, 1)), scale);
        return {native::matmul(grad_scores, k), native::matmul(native::transpose(grad_scores, -2, -1), q), grad_v};
    }
    Tensor grad_scores = native::contiguous(native::matmul(grad, native::transpose(v, -2, -1)));
    const std::int64_t keys = k.size(-2);
    const std::int64_t rows = keys == 0 ? 0 : grad_scores.numel() / keys;
    dispatch_floating(q.dtype(), "scaled_dot_product_attention backward", [&]<typename T>() {
        softmax_backward_rows(probabilities.data_ptr<T>(), grad_scores.data_ptr<T>(), rows, keys, scale);
    });
    return {native::matmul(grad_scores, k), native::matmul(native::transpose(grad_scores, -2, -1), q), grad_v};
}

}  // namespace kael::native

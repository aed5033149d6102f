// The differentiable matrix products (ops/linalg.cpp): mm, bmm and outer are built from
// matmul and views.
#include "autograd/functions/function.h"
#include "kael/ops/linalg.h"
#include "ops/native.h"

namespace kael {
namespace {

using autograd::Grads;
using autograd::Node;
using autograd::SavedTensor;

//> stage 8
// p q for a gradient that will land in `like`'s layout. When `like` is a stored transpose
// (a layer's `weight.mT()`), the product is computed as (q^T p^T)^T, which has that same
// transposed layout: the view backward of mT() then hands the weight a contiguous gradient,
// which the leaf keeps instead of copying (PyTorch's matmul backward does the same).
Tensor product_in_layout_of(const Tensor& p, const Tensor& q, const Tensor& like) {
    const bool stored_transposed = like.dim() == 2 && !like.is_contiguous() && like.mT().is_contiguous();
    if (stored_transposed && p.dim() == 2 && q.dim() == 2) {
        return matmul(q.mT(), p.mT()).mT();
    }
    return matmul(p, q);
}

//< stage 8
// d/dB of a batch of matrices times one matrix, [..., M, K] x [K, N] (a Linear applied to
// [B, T, C]): the forward folded the batch into the rows of one product, and so does this
// gradient. One [K, rows] x [rows, N] product sums over the batch inside the GEMM; the
// general rule would compute one [K, N] gradient per batch element and add them up after,
// which for GPT-2's tied head is a [B, 768, 50257] temporary (PyTorch's linear backward
// folds the same way).
Tensor folded_right_gradient(const Tensor& left, const Tensor& g, [[maybe_unused]] const Tensor& right) {
    const std::int64_t rows = numel(Shape(left.shape().begin(), left.shape().end() - 1));
    const Tensor left_rows = left.reshape({rows, left.size(-1)});
    const Tensor grad_rows = g.reshape({rows, g.size(-1)});
//> until 8
//|     return matmul(left_rows.mT(), grad_rows);
//< until 8
//> stage 8
    return product_in_layout_of(left_rows.mT(), grad_rows, right);
//< stage 8
}

// The gradients of a matrix product, for every rank combination. A 1-d operand is made a
// matrix first (a row on the left, a column on the right) and the gradient gets the same
// extra dimension, so one rule covers dot, matrix-vector and batched products:
// d/dA (A B) = G B^T and d/dB (A B) = A^T G, each summed back over broadcast batch dimensions.
Grads matmul_backward(const Tensor& grad, const Tensor& x, const Tensor& y, Node& node) {
    const Tensor left = x.dim() == 1 ? x.unsqueeze(0) : x;
    const Tensor right = y.dim() == 1 ? y.unsqueeze(1) : y;
    // Put back the dimensions the forward squeezed out, in reverse order.
    Tensor g = y.dim() == 1 ? grad.unsqueeze(-1) : grad;
    if (x.dim() == 1) {
        g = g.unsqueeze(-2);
    }
    Grads grads(2);
    if (node.needs_input_grad(0)) {
//> until 8
//|         grads[0] = autograd::sum_to(matmul(g, right.mT()), left.shape()).reshape(x.shape());
//< until 8
//> stage 8
        grads[0] = autograd::sum_to(product_in_layout_of(g, right.mT(), left), left.shape()).reshape(x.shape());
//< stage 8
    }
    if (node.needs_input_grad(1) && right.dim() == 2 && left.dim() > 2) {
        grads[1] = folded_right_gradient(left, g, right).reshape(y.shape());
    } else if (node.needs_input_grad(1)) {
//> until 8
//|         grads[1] = autograd::sum_to(matmul(left.mT(), g), right.shape()).reshape(y.shape());
//< until 8
//> stage 8
        grads[1] = autograd::sum_to(product_in_layout_of(left.mT(), g, right), right.shape()).reshape(y.shape());
//< stage 8
    }
    return grads;
}

template <typename Compute>
//> until 14
//| Tensor product(const Tensor& a, const Tensor& b, Compute&& compute) {
//< until 14
//> stage 14
Tensor product(const Tensor& a, const Tensor& b, Compute&& compute,
               const std::source_location& caller = std::source_location::current()) {
//< stage 14
    return autograd::differentiable({a, b}, std::forward<Compute>(compute), [&](const Tensor& out) {
        autograd::record(out, "MmBackward", {a, b}, [sa = SavedTensor(a), sb = SavedTensor(b)](const Tensor& grad,
                                                                                            Node& node) {
            return matmul_backward(grad, sa.unpack(node), sb.unpack(node), node);
        });
//> until 14
//|     });
//< until 14
//> stage 14
    }, caller);
//< stage 14
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) {
    return product(a, b, [&] { return native::matmul(a, b); });
}

Tensor dot(const Tensor& a, const Tensor& b) {
    return product(a, b, [&] { return native::dot(a, b); });
}

}  // namespace kael

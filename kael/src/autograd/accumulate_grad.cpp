// AccumulateGrad: where a gradient ends, in a leaf's grad().
#include "kael/autograd/node.h"

#include <mutex>
#include <utility>

#include "autograd/recording.h"
#include "kael/autograd/grad_mode.h"
#include "kael/factory.h"
#include "kael/ops/binary.h"
#include "kael/ops/inplace.h"
#include "kael/view.h"
#include "ops/native.h"

namespace kael::autograd {
namespace {

// The strides a leaf's gradient must have (PyTorch's layout contract): the leaf's own when
// its elements fill a block of memory exactly, so a transposed parameter gets a transposed
// gradient and the optimizer's element-wise updates walk both in the same order; plain
// contiguous strides otherwise (an expanded or sliced leaf).
bool laid_out_like(const Tensor& grad, const Tensor& leaf) {
    if (!is_non_overlapping_and_dense(leaf)) {
        return grad.is_contiguous();
    }
    for (std::int64_t d = 0; d < leaf.dim(); ++d) {
        if (leaf.size(d) > 1 && grad.stride(d) != leaf.stride(d)) {
            return false;  // a size-1 dimension is never stepped along, so its stride is free
        }
    }
    return is_non_overlapping_and_dense(grad);
}

// A gradient the leaf may keep as it is: nobody else holds it or its memory (the engine's
// handle is the only one), it is exactly as large as its storage, and it is laid out as
// the contract says. Adding into it in place later then changes nothing anyone else sees.
bool can_be_kept(const Tensor& grad, const Tensor& leaf) {
    const auto& storage = grad.impl()->storage;
    return grad.use_count() == 1 && storage.use_count() == 1 && storage->nbytes() == grad.nbytes() &&
           laid_out_like(grad, leaf);
}

// A copy of `grad` that the leaf owns, laid out as the contract says. In grad mode (a
// backward pass with create_graph) the copy is recorded, so the gradient can be
// differentiated again.
Tensor owned_copy(const Tensor& grad, const Tensor& leaf) {
    if (!is_non_overlapping_and_dense(leaf) || leaf.is_contiguous()) {
        return grad.clone();
    }
    Tensor copy = native::as_strided(empty({leaf.numel()}, grad.dtype(), grad.device()), leaf.shape(), leaf.strides(), 0);
    copy.copy_(grad);
    return copy;
}

}  // namespace

AccumulateGrad::AccumulateGrad(std::shared_ptr<TensorImpl> leaf) : Node("AccumulateGrad"), leaf_(std::move(leaf)) {}

void AccumulateGrad::run_hooks(Grads& grads) {
    run_gradient_hooks(meta_of(*leaf_)->hooks, grads);
    Node::run_hooks(grads);
}

Grads AccumulateGrad::apply(Grads grads) {
    const Tensor leaf = ImplAccess::wrap(leaf_);
    // The engine converted the gradient to the leaf's dtype at the time of the forward
    // pass; a move_to_ since then changed what the leaf is.
    // Taken out of the list, so that the handle here is the only one the engine had: a
    // gradient nobody else holds is kept as it is, without a copy.
    Tensor grad = *std::exchange(grads.at(0), std::nullopt);
    if (grad.dtype() != leaf.dtype()) {
        grad = grad.to(leaf.dtype());
    }
    if (grad.device() != leaf.device()) {
        grad = grad.to(leaf.device());
    }
    AutogradMeta& meta = *meta_of(*leaf_);
    const std::lock_guard<std::recursive_mutex> lock(meta.mutex);
    if (!meta.grad) {
        meta.grad = !is_grad_enabled() && can_be_kept(grad, leaf) ? std::move(grad) : owned_copy(grad, leaf);
    } else if (is_grad_enabled()) {
        meta.grad = add(*meta.grad, grad);  // out of place: the old gradient may be in a graph
    } else {
        // In place, so that every handle to the gradient sees the sum; with grad mode off
        // nothing would record, so the addition below autograd is the whole of it.
        native::add_(*meta.grad, grad, 1);
    }
    return {};
}

}  // namespace kael::autograd

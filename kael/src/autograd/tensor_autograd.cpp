// Tensor's autograd members: thin layers over the impl's AutogradMeta and the engine.
#include <utility>

#include "autograd/recording.h"
#include "kael/autograd/engine.h"
#include "kael/error.h"
#include "kael/ops/binary.h"
#include "kael/tensor.h"

namespace kael {

using autograd::AutogradMeta;
using autograd::meta_of;

bool Tensor::requires_grad() const noexcept { return autograd::requires_grad(*impl_); }

Tensor& Tensor::requires_grad_(bool requires_grad) {
    KAEL_CHECK_TYPE(!requires_grad || is_floating_point(dtype()),
                    "only tensors of floating point dtype can require gradients, got dtype " << dtype());
    if (!is_leaf()) {
        KAEL_CHECK(requires_grad, "you can only change requires_grad flags of leaf variables; use detach() to get a "
                                  "tensor outside the graph");
        return *this;
    }
    if (requires_grad || impl_->autograd != nullptr) {
        autograd::ensure_meta(*this).requires_grad = requires_grad;
    }
    return *this;
}

bool Tensor::is_leaf() const { return grad_fn() == nullptr; }

std::shared_ptr<autograd::Node> Tensor::grad_fn() const { return autograd::grad_fn_of(*this); }

std::optional<Tensor> Tensor::grad() const {
    return impl_->autograd == nullptr ? std::nullopt : meta_of(*impl_)->grad;
}

void Tensor::set_grad(const std::optional<Tensor>& grad) {
    if (!grad) {
        if (impl_->autograd != nullptr) {
            meta_of(*impl_)->grad.reset();
        }
        return;
    }
    KAEL_CHECK_VALUE(grad->shape() == shape(), "assigned grad has shape " << to_string(grad->shape())
                                                                         << ", but the tensor has shape "
                                                                         << to_string(shape()));
    KAEL_CHECK_TYPE(grad->dtype() == dtype(),
                    "assigned grad has dtype " << grad->dtype() << ", but the tensor has dtype " << dtype());
    autograd::ensure_meta(*this).grad = grad;
}

namespace {

// The hook retain_grad() puts on a non-leaf's grad_fn, run after every other hook there, so
// the retained gradient is the one the formula uses (PyTorch 2's rule). It holds the impl
// weakly (the impl holds the node, which holds the hook) and writes only while the impl's
// grad_fn is still `owner`: after an in-place rebase the gradient arrives at the new node.
autograd::GradHook retaining_hook(const std::shared_ptr<TensorImpl>& impl, const autograd::Node* owner) {
    return [weak = std::weak_ptr<TensorImpl>(impl), owner](const Tensor& grad) -> std::optional<Tensor> {
        const std::shared_ptr<TensorImpl> target = weak.lock();
        if (target == nullptr || target->autograd == nullptr || meta_of(*target)->grad_fn.get() != owner) {
            return std::nullopt;
        }
        // A copy, never the gradient itself: the engine goes on using that one, and a later
        // in-place accumulation into one must not change the other.
        std::optional<Tensor>& kept = meta_of(*target)->grad;
        kept = kept ? add(*kept, grad) : grad.clone();
        return std::nullopt;
    };
}

}  // namespace

namespace autograd {

void retain_grad_on_node(const Tensor& t) {
    const std::shared_ptr<Node> node = t.grad_fn();
    node->add_retain_hook(retaining_hook(ImplAccess::shared(t), node.get()));
}

}  // namespace autograd

void Tensor::retain_grad() const {
    KAEL_CHECK(requires_grad(), "can't retain_grad on a tensor that does not require grad");
    if (is_leaf()) {
        return;  // a leaf keeps its gradient anyway; retains_grad() stays false, as in PyTorch
    }
    AutogradMeta& meta = autograd::ensure_meta(*this);
    if (!meta.retains_grad) {
        meta.retains_grad = true;
        autograd::retain_grad_on_node(*this);
    }
}

bool Tensor::retains_grad() const noexcept {
    const AutogradMeta* meta = meta_of(*impl_);
    return meta != nullptr && meta->retains_grad;
}

void Tensor::register_hook(autograd::GradHook hook) const {
    KAEL_CHECK(requires_grad(), "cannot register a hook on a tensor that does not require grad");
    if (const std::shared_ptr<autograd::Node> node = grad_fn()) {
        node->add_pre_hook(std::move(hook));
    } else {
        autograd::ensure_meta(*this).hooks.push_back(std::move(hook));
    }
}

Tensor& Tensor::detach_() {
    AutogradMeta* meta = meta_of(*impl_);
    if (meta == nullptr) {
        return *this;
    }
    KAEL_CHECK(meta->view_base == nullptr,
               "can't detach views in place: this tensor is a view autograd follows; use detach() instead");
    autograd::release_node(std::move(meta->grad_fn));
    meta->grad_fn = nullptr;
    meta->requires_grad = false;
    meta->output_nr = 0;
    return *this;
}

void Tensor::backward(const std::optional<Tensor>& gradient, bool retain_graph, bool create_graph) const {
    autograd::backward({*this}, {gradient}, retain_graph, create_graph);
}

}  // namespace kael

// In-place operations on tensors in the graph: the refusals, the rebase, and CopySlices
// for writes through a view (inplace.h).
#include "autograd/inplace.h"

#include <utility>

#include "autograd/views.h"
#include "kael/error.h"
#include "kael/factory.h"
#include "kael/ops/compare.h"
#include "kael/view.h"
#include "ops/native.h"

namespace kael::autograd {

bool inplace_needs_graph(const Tensor& self, std::initializer_list<Input> operands) noexcept {
    // Only a floating point tensor can carry history: writing into an integer one records nothing.
    return is_grad_enabled() && is_floating_point(self.dtype()) && (self.requires_grad() || should_record(operands));
}

namespace {

// The furthest storage position a layout reaches, counted from its own first element.
std::int64_t reach(const Shape& shape, const Strides& strides) {
    std::int64_t last = 0;
    for (std::size_t d = 0; d < shape.size(); ++d) {
        last += (shape[d] - 1) * strides[d];
    }
    return last;
}

// The node that a write through a view gives the view's base (PyTorch's CopySlices). The
// base's new value is its old value with the view's elements replaced by the result of
// the in-place operation, so its gradient splits in two: the part at the view's positions
// goes to that result, whose own history (the operation, then the view's old history,
// then the base's old one) carries it on; the rest goes straight to the base's old history.
//
//      base's gradient ──► CopySlices ──► zeros at the view's positions ──► base's old history
//                                    └──► the view's positions ──► result's history (op_, view, ...)
//
// Both pieces are computed with operations, so a backward pass with create_graph records
// them too. Positions are found through the storage: a buffer covers the storage the base
// reaches, the gradient is placed in it through the base's geometry, and read back
// through the view's.
class CopySlices final : public Node {
public:
    CopySlices(const Tensor& base, const Tensor& view)
        : Node("CopySlices"), base_shape_(base.shape()), base_strides_(base.strides()), view_shape_(view.shape()),
          view_strides_(view.strides()), view_offset_(view.offset() - base.offset()),
          extent_(numel(base.shape()) == 0 ? 0 : reach(base.shape(), base.strides()) + 1),
          untouched_(positions_outside_view()) {}

protected:
    Grads apply(Grads grads) override {
        const Tensor& grad = *grads.at(0);
        Grads out(2);
        if (needs_input_grad(0)) {
            out[0] = where(untouched_.to(grad.device()), grad, 0);  // the marks are made on the host
        }
        if (needs_input_grad(1)) {
            const Tensor in_storage = embed(grad, {extent_}, [shape = base_shape_, strides = base_strides_](
                                                                 const Tensor& buffer) {
                return buffer.as_strided(shape, strides, 0);
            }, "CopySlicesBackward");
            out[1] = in_storage.as_strided(view_shape_, view_strides_, view_offset_);
        }
        return out;
    }

private:
    // A Bool tensor of the base's shape: true where the write through the view left the
    // base's element as it was.
    [[nodiscard]] Tensor positions_outside_view() const {
        const NoGradGuard no_grad;
        Tensor marks = ones({extent_}, DType::Bool);
        Tensor written = native::as_strided(marks, view_shape_, view_strides_, view_offset_);
        native::fill_(written, false);
        return native::as_strided(marks, base_shape_, base_strides_, 0).clone();
    }

    Shape base_shape_;
    Strides base_strides_;
    Shape view_shape_;
    Strides view_strides_;
    std::int64_t view_offset_;
    std::int64_t extent_;
    Tensor untouched_;
};

// The refusals, each before anything is written: what PyTorch refuses, and the one case
// kael refuses that PyTorch allows (memory shared with a tensor autograd does not track,
// where kael cannot tell whether that tensor is a view made with grad mode off, which
// PyTorch refuses).
void check_rebase_allowed(const Tensor& self, const std::optional<Tensor>& base, const char* op) {
    if (base) {
        KAEL_CHECK(!(base->is_leaf() && base->requires_grad()),
                   "a view of a leaf Variable that requires grad is being used in an in-place operation ("
                       << op << "); update the leaf inside a NoGradGuard, as optimizers do, or work on a clone()");
        return;
    }
    KAEL_CHECK(!(self.is_leaf() && self.requires_grad()),
               "a leaf Variable that requires grad is being used in an in-place operation ("
                   << op << "); update it inside a NoGradGuard, as optimizers do, or work on a clone()");
    KAEL_CHECK(self.requires_grad() || self.impl()->storage.use_count() == 1,
               op << ": this tensor shares its memory with another that autograd does not follow (a detach(), a "
                     "view made with grad mode off, or the base of views), so the history this write records "
                     "could not reach that tensor; write into a clone(), or make the write out of place");
}

}  // namespace

Tensor& inplace_through_graph(Tensor& self, const char* op, const std::function<Tensor(const Tensor&)>& out_of_place) {
    std::optional<Tensor> base = view_base(self);
    if (base && !base->shares_storage(self)) {
        base.reset();  // the base moved (move_to_): self no longer shows it
    }
    check_rebase_allowed(self, base, op);
    // The node saves what it needs from the copy, so the write below cannot invalidate it.
    const Tensor computed = out_of_place(self.clone());
    KAEL_CHECK_TYPE(can_cast(computed.dtype(), self.dtype()), op << ": result type " << computed.dtype()
                                                                 << " can't be cast to the desired output type "
                                                                 << self.dtype());
    KAEL_CHECK_VALUE(computed.shape() == self.shape(), op << ": output with shape " << to_string(self.shape())
                                                          << " doesn't match the broadcast shape "
                                                          << to_string(computed.shape()));
    const Tensor result = computed.to(self.dtype());
    std::shared_ptr<Node> base_history;
    if (base) {
        auto copy_slices = std::make_shared<CopySlices>(*base, self);
        copy_slices->add_input(gradient_edge(*base), {base->shape(), base->dtype()});
        copy_slices->add_input(gradient_edge(result), {self.shape(), self.dtype()});
        base_history = std::move(copy_slices);
    }
    {
        const NoGradGuard no_grad;
        native::copy_(self, result);  // the ordinary in-place path: writability checks, version bump
    }
    AutogradMeta& meta = ensure_meta(self);
    if (base) {
        AutogradMeta& base_meta = ensure_meta(*base);
        release_node(std::exchange(base_meta.grad_fn, base_history));
        base_meta.output_nr = 0;
        // The view now shows part of the base's new value: its history is made from the
        // base's, as for every view whose storage was written (recording.cpp).
        meta.view_version = -1;
    } else {
        const AutogradMeta* produced = meta_of(result);
        release_node(std::exchange(meta.grad_fn, produced != nullptr ? produced->grad_fn : nullptr));
        meta.output_nr = produced != nullptr ? produced->output_nr : 0;
    }
    if (meta.retains_grad && self.grad_fn() != nullptr) {
        retain_grad_on_node(self);
    }
    return self;
}

}  // namespace kael::autograd

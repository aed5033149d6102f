// In-place operations on tensors in the graph: refusals, then the rebase (inplace.h).
#include "autograd/inplace.h"

#include "kael/error.h"
#include "ops/native.h"

namespace kael::autograd {

bool inplace_needs_graph(const Tensor& self, std::initializer_list<Input> operands) noexcept {
    // Only a floating point tensor can carry history: writing into an integer one records nothing.
    return is_grad_enabled() && is_floating_point(self.dtype()) && (self.requires_grad() || should_record(operands));
}

namespace {

void check_rebase_allowed(const Tensor& self, const char* op) {
    KAEL_CHECK(!(self.is_leaf() && self.requires_grad()),
               "a leaf Variable that requires grad is being used in an in-place operation ("
                   << op << "); update it inside a NoGradGuard, as optimizers do, or work on a clone()");
    const AutogradMeta* meta = meta_of(self);
    if (self.requires_grad()) {
        KAEL_CHECK(meta->view_base == nullptr,
                   op << ": in-place operations on a view of a tensor that requires grad are not supported (kael "
                         "has no CopySlices); clone() the view first, or build the result out of place");
        const std::int64_t views = meta->live_views.load(std::memory_order_relaxed);
        KAEL_CHECK(views == 0, op << ": this tensor has " << views
                                  << " live view(s) in the graph, whose history an in-place write would make "
                                     "wrong; write into a clone(), or drop the views first");
    } else {
        KAEL_CHECK(self.impl()->storage.use_count() == 1,
                   op << ": writing a result that requires grad into a tensor whose storage other tensors share "
                         "(a view, or a detach()) is not supported: only this one tensor would get the history; "
                         "clone() it first");
    }
}

}  // namespace

Tensor& inplace_through_graph(Tensor& self, const char* op, const std::function<Tensor(const Tensor&)>& out_of_place) {
    check_rebase_allowed(self, op);
    // The node saves what it needs from the copy, so the write below cannot invalidate it.
    const Tensor computed = out_of_place(self.clone());
    KAEL_CHECK_TYPE(can_cast(computed.dtype(), self.dtype()), op << ": result type " << computed.dtype()
                                                                 << " can't be cast to the desired output type "
                                                                 << self.dtype());
    KAEL_CHECK_VALUE(computed.shape() == self.shape(), op << ": output with shape " << to_string(self.shape())
                                                          << " doesn't match the broadcast shape "
                                                          << to_string(computed.shape()));
    const Tensor result = computed.to(self.dtype());
    {
        const NoGradGuard no_grad;
        native::copy_(self, result);  // the ordinary in-place path: writability checks, version bump
    }
    AutogradMeta& meta = ensure_meta(self);
    const AutogradMeta* produced = meta_of(result);
    meta.grad_fn = produced != nullptr ? produced->grad_fn : nullptr;
    meta.output_nr = produced != nullptr ? produced->output_nr : 0;
    if (meta.retains_grad && meta.grad_fn != nullptr) {
        retain_grad_on_node(self);
    }
    return self;
}

}  // namespace kael::autograd

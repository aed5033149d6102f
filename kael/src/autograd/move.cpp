// Tensor::move_to_: a tensor changes device or dtype without changing identity, which is
// what lets nn::Module::to move a model under an optimizer that already holds its
// parameters (ADR 0002).
#include <optional>
#include <utility>

#include "kael/autograd/grad_mode.h"
#include "kael/error.h"
#include "kael/tensor.h"

namespace kael {
namespace {

// `t` converted outside any graph: the tensor keeps its place in the graph as a leaf, and
// only its bytes change.
template <typename Target> Tensor converted(const Tensor& t, Target target) {
    const autograd::NoGradGuard no_grad;
    return t.detach().to(target).contiguous();
}

// Puts `moved`'s layout into `impl`. Nothing here throws, and every conversion that can
// fail ran before it, so a move that fails leaves the tensor as it was.
void adopt(TensorImpl& impl, const Tensor& moved) {
    const std::shared_ptr<const TensorImpl> source = moved.impl();
    impl.storage = source->storage;
    impl.strides = source->strides;
    impl.offset = source->offset;
    impl.dtype = source->dtype;
    impl.device = source->device;
}

// A tensor computed by a recorded operation cannot move, even to where it already is: its
// place in the graph is its inputs'.
void check_leaf(const Tensor& t) {
    KAEL_CHECK(t.is_leaf(), "move_to_ needs a leaf tensor; this one was computed by a recorded operation, "
                            "move the tensors it was computed from instead");
}

// Converts `t` and its gradient to `target`, then puts the converted layout into `impl`,
// t's own impl, so every handle to t sees the move.
template <typename Target> void move_in_place(Tensor& t, TensorImpl& impl, Target target) {
    const Tensor moved = converted(t, target);
    std::optional<Tensor> gradient = t.grad();
    if (gradient) {
        gradient = converted(*gradient, target);
    }
    t.set_grad(std::nullopt);  // the old gradient has the old layout, which set_grad would refuse
    adopt(impl, moved);
    t.set_grad(gradient);
}

}  // namespace

Tensor& Tensor::move_to_(Device target) {
    check_leaf(*this);
    if (target != device()) {
        move_in_place(*this, *impl_, target);
    }
    return *this;
}

Tensor& Tensor::move_to_(DType target) {
    check_leaf(*this);
    if (target != dtype()) {
        KAEL_CHECK_TYPE(!requires_grad() || is_floating_point(target),
                        "only floating point tensors can require gradients, so a tensor that requires grad "
                        "cannot move to dtype " << target);
        move_in_place(*this, *impl_, target);
    }
    return *this;
}

//> stage 13

Tensor& Tensor::set_(const Tensor& source) {
    check_leaf(*this);
    KAEL_CHECK_VALUE(source.shape() == shape(), "set_ needs a source of this tensor's shape " << to_string(shape())
                                                    << ", got " << to_string(source.shape()));
    KAEL_CHECK_TYPE(source.dtype() == dtype(), "set_ needs a source of this tensor's dtype " << dtype() << ", got "
                                                   << source.dtype());
    KAEL_CHECK(source.device() == device(), "set_ needs a source on this tensor's device " << device() << ", got "
                                                << source.device());
    adopt(*impl_, source);
    return *this;
}
//< stage 13

}  // namespace kael

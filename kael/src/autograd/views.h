#pragma once
// The backward side of views (chapter 06).
//
// A view's gradient is the view's shape going back to the input's shape: a reshape, a
// transpose, or, for views that pick out part of their input (select, slice, as_strided),
// zeros of the input's shape with the gradient written where the view's elements sit.
#include <functional>

#include "autograd/recording.h"
#include "kael/shape.h"
#include "kael/tensor.h"

namespace kael::autograd {

// A function that makes a view of a tensor: the same view applied to another tensor of the
// same shape selects the same positions.
using ViewFunction = std::function<Tensor(const Tensor&)>;

// The view `make_view()` of `base`. In grad mode it is a tracked view (track_view): when
// base requires grad its history is a node with the formula `backward(grad, base's
// shape)`, and in-place writes through it rebase base's history. The view is made below
// autograd, so the funnel (as_strided) does not first record a generic node for this one to
// replace; the formula reads the input's shape from the node instead of copying it. A view
// made with grad mode off is a plain alias, as detach() makes.
template <typename MakeView, typename Backward>
[[nodiscard]] Tensor with_view_backward(const Tensor& base, MakeView make_view, const char* name, Backward backward) {
    if (!is_grad_enabled()) {
        return make_view();
    }
    const Tensor out = [&] {
        const NoGradGuard no_grad;
        return make_view();
    }();
    if (base.requires_grad()) {
        record(out, name, {base}, [backward](const Tensor& grad, Node& node) {
            return Grads{backward(grad, node.input_meta()[0].shape)};
        });
    }
    track_view(out, base);
    return out;
}

// The history of a view made again from its base's (recording.cpp), after an in-place
// write to their storage: the view's gradient placed where its elements sit in the base,
// through both geometries (PyTorch's AsStridedBackward).
class ViewOfBase final : public Node {
public:
    ViewOfBase(const Tensor& base, const Tensor& view);

protected:
    [[nodiscard]] Grads apply(Grads grads) override;

private:
    Strides base_strides_;
    std::int64_t base_offset_;
    Shape shape_;
    Strides strides_;
    std::int64_t offset_;
};

// Zeros of `shape`, with `grad` added at the positions that `view_of` selects (summed where
// they repeat, as for an expanded view). Differentiable: its own gradient is view_of(gg).
[[nodiscard]] Tensor embed(const Tensor& grad, const Shape& shape, const ViewFunction& view_of, const char* name);

// The backward of as_strided on `base`: `grad` placed at the storage positions the view
// (shape, strides, offset) reads, then read back through base's own layout. kael::Error
// when base's elements overlap (an expanded base), where the answer would be ambiguous.
[[nodiscard]] Tensor as_strided_backward(const Tensor& grad, const Shape& base_shape, const Strides& base_strides,
                                         std::int64_t base_offset, const Shape& shape, const Strides& strides,
                                         std::int64_t offset);

}  // namespace kael::autograd

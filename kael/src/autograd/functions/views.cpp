// The differentiable views: Tensor::slice and the other methods that make a view come here
// (autograd/tensor_methods.cpp). A view's gradient goes back to its input's shape: a
// reshape or a transpose of the gradient, or, for a view that picks out part of its input,
// zeros of the input's shape with the gradient written where the view's elements sit
// (autograd/views.h).
#include <cstddef>
#include <vector>

#include "autograd/functions/function.h"
#include "autograd/views.h"
#include "kael/view.h"
#include "ops/native.h"

namespace kael {

using autograd::with_view_backward;

// A direct as_strided records the general node: the gradient placed at the storage
// positions the view reads, then read back through the input's own layout.
Tensor as_strided(const Tensor& t, const Shape& shape, const Strides& strides, std::int64_t offset) {
    return with_view_backward(t, [&] { return native::as_strided(t, shape, strides, offset); }, "AsStridedBackward",
                              [base_strides = t.strides(), base_offset = t.offset(), shape, strides,
                               offset](const Tensor& grad, const Shape& in) {
                                  return autograd::as_strided_backward(grad, in, base_strides, base_offset, shape,
                                                                       strides, offset);
                              });
}

Tensor view(const Tensor& t, const Shape& shape) {
    return with_view_backward(t, [&] { return native::view(t, shape); }, "ViewBackward",
                              [](const Tensor& grad, const Shape& in) { return grad.reshape(in); });
}

// A view when the strides allow one, else a view of a copy: either way made of recorded
// functions, so the gradient needs no formula of its own.
Tensor reshape(const Tensor& t, const Shape& shape) {
    const Shape target = infer_size(shape, t.numel());
    if (view_strides(t.shape(), t.strides(), target)) {
        return kael::view(t, target);
    }
    return kael::view(kael::clone(t), target);
}

Tensor transpose(const Tensor& t, std::int64_t dim0, std::int64_t dim1) {
    return with_view_backward(t, [&] { return native::transpose(t, dim0, dim1); }, "TransposeBackward",
                              [dim0, dim1](const Tensor& grad, const Shape&) { return grad.transpose(dim0, dim1); });
}

Tensor permute(const Tensor& t, const std::vector<std::int64_t>& dims) {
    return with_view_backward(t, [&] { return native::permute(t, dims); }, "PermuteBackward",
                              [dims](const Tensor& grad, const Shape&) {
                                  // Dimension dims[i] of the input became dimension i: send it back.
                                  std::vector<std::int64_t> inverse(dims.size());
                                  for (std::size_t i = 0; i < dims.size(); ++i) {
                                      inverse[dim_position(dims[i], grad.dim())] = static_cast<std::int64_t>(i);
                                  }
                                  return grad.permute(inverse);
                              });
}

// The same arguments applied to a tensor of the input's shape select the same positions,
// so the view itself says where its gradient goes.
Tensor slice(const Tensor& t, std::int64_t dim, std::optional<std::int64_t> start, std::optional<std::int64_t> end,
             std::int64_t step) {
    return with_view_backward(t, [&] { return native::slice(t, dim, start, end, step); }, "SliceBackward",
                              [=](const Tensor& grad, const Shape& in) {
                                  return autograd::embed(grad, in, [=](const Tensor& whole) {
                                      return whole.slice(dim, start, end, step);
                                  }, "SliceBackwardBackward");
                              });
}

Tensor select(const Tensor& t, std::int64_t dim, std::int64_t index) {
    return with_view_backward(t, [&] { return native::select(t, dim, index); }, "SelectBackward",
                              [=](const Tensor& grad, const Shape& in) {
                                  return autograd::embed(grad, in, [=](const Tensor& whole) {
                                      return whole.select(dim, index);
                                  }, "SelectBackwardBackward");
                              });
}

// Every position of an expanded dimension read the same element: its gradients add up.
Tensor expand(const Tensor& t, const Shape& shape) {
    return with_view_backward(t, [&] { return native::expand(t, shape); }, "ExpandBackward",
                              [](const Tensor& grad, const Shape& in) { return autograd::sum_to(grad, in); });
}

Tensor squeeze(const Tensor& t) {
    return with_view_backward(t, [&] { return native::squeeze(t); }, "SqueezeBackward",
                              [](const Tensor& grad, const Shape& in) { return grad.reshape(in); });
}

Tensor squeeze(const Tensor& t, std::int64_t dim) {
    return with_view_backward(t, [&] { return native::squeeze(t, dim); }, "SqueezeBackward",
                              [](const Tensor& grad, const Shape& in) { return grad.reshape(in); });
}

Tensor unsqueeze(const Tensor& t, std::int64_t dim) {
    return with_view_backward(t, [&] { return native::unsqueeze(t, dim); }, "UnsqueezeBackward",
                              [](const Tensor& grad, const Shape& in) { return grad.reshape(in); });
}

Tensor unflatten(const Tensor& t, std::int64_t dim, const Shape& sizes) {
    return with_view_backward(t, [&] { return native::unflatten(t, dim, sizes); }, "UnflattenBackward",
                              [](const Tensor& grad, const Shape& in) { return grad.reshape(in); });
}

}  // namespace kael

#pragma once
// The backward side of views (chapter 06).
//
// A view's gradient is the view's shape going back to the input's shape: a reshape, a
// transpose, or, for views that pick out part of their input (select, slice, as_strided),
// zeros of the input's shape with the gradient written where the view's elements sit.
#include <functional>

#include "kael/shape.h"
#include "kael/tensor.h"

namespace kael::autograd {

// A function that makes a view of a tensor: the same view applied to another tensor of the
// same shape selects the same positions.
using ViewFunction = std::function<Tensor(const Tensor&)>;

// Returns `out`, recorded as a view of `base` whose backward formula is `backward(grad)`,
// when `base` requires grad; returns it unchanged otherwise.
[[nodiscard]] Tensor with_view_backward(Tensor out, const Tensor& base, const char* name, ViewFunction backward);

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

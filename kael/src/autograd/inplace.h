#pragma once
// In-place operations on tensors in the graph (chapter 06).
//
// Writing into a tensor that autograd tracks changes which values its history describes.
// kael handles a non-leaf written in place (`y = x * 2; y.add_(1)`) by rebasing: the
// operation is recorded as if it had been out of place on a copy of the old value, the
// result is written into the tensor, and the tensor's grad_fn becomes the new node. A write
// through a view of a tensor in the graph (`y[0].mul_(2)`) rebases the view's base instead,
// through a CopySlices node that applies the view's gradient to its slice (inplace.cpp),
// and the view's own history follows its base's. What stays refused, with an error that
// says why: a leaf that requires grad, a view of one, and memory shared with a tensor
// autograd does not follow.
#include <functional>
#include <initializer_list>

#include "autograd/recording.h"
#include "kael/tensor.h"

namespace kael::autograd {

// True when the in-place operation on `self` with `operands` must be recorded: grad mode
// is on and `self` or an operand requires grad.
[[nodiscard]] bool inplace_needs_graph(const Tensor& self, std::initializer_list<Input> operands) noexcept;

// Runs the in-place operation `op` as `out_of_place(copy of self)`, writes the result into
// `self` (bumping its version) and makes the recorded node self's grad_fn. kael::Error for
// the refusals described above, before anything is written.
Tensor& inplace_through_graph(Tensor& self, const char* op, const std::function<Tensor(const Tensor&)>& out_of_place);

}  // namespace kael::autograd

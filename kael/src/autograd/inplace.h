#pragma once
// In-place operations on tensors in the graph (chapter 06).
//
// Writing into a tensor that autograd tracks changes which values its history describes.
// kael handles the case PyTorch users meet most, a non-leaf written in place
// (`y = x * 2; y.add_(1)`), by rebasing: the operation is recorded as if it had been out of
// place on a copy of the old value, the result is written into the tensor, and the
// tensor's grad_fn becomes the new node. The cases that would need PyTorch's CopySlices
// (writes through a view, or into a tensor while views of it are in the graph) are refused
// with an error that says so, never answered with a silently wrong gradient.
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
// a leaf that requires grad, and for the view cases described above.
Tensor& inplace_through_graph(Tensor& self, const char* op, const std::function<Tensor(const Tensor&)>& out_of_place);

}  // namespace kael::autograd

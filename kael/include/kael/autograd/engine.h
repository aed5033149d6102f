#pragma once
/// \file
/// \brief The backward pass: Tensor::backward's engine and the functional autograd::grad.

#include <optional>
#include <vector>

#include "kael/tensor.h"

namespace kael::autograd {

/// Gradients handed to the engine or returned by it; an empty entry means none.
using GradList = std::vector<std::optional<Tensor>>;

/// Runs the backward pass from `outputs` and adds the gradients into the grad() of every
/// leaf that requires grad, as `torch.autograd.backward`.
///
/// `grad_outputs` holds one gradient per output, with the output's shape and dtype; an
/// empty list or entry means 1 for a one-element output and is an error otherwise.
/// Without `retain_graph` the saved tensors are freed on the way, and a second backward
/// through the same nodes is an error. With `create_graph` the backward pass is recorded
/// too, so the gradients can be differentiated again.
void backward(const std::vector<Tensor>& outputs, const GradList& grad_outputs = {},
              bool retain_graph = false, bool create_graph = false);

/// Returns the gradients of `outputs` with respect to `inputs` and leaves every grad()
/// untouched, as `torch.autograd.grad`.
///
/// `retain_graph` defaults to `create_graph`. An input the outputs do not depend on is an
/// error unless `allow_unused`, which returns an empty entry for it instead.
[[nodiscard]] GradList grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                            const GradList& grad_outputs = {}, std::optional<bool> retain_graph = std::nullopt,
                            bool create_graph = false, bool allow_unused = false);

/// Sets the grad() of each tensor to none (`set_to_none`, the default, as PyTorch 2) or
/// fills it with zeros in place.
void zero_grad(const std::vector<Tensor>& tensors, bool set_to_none = true);

}  // namespace kael::autograd

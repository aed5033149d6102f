#pragma once
/// \file
/// \brief The autograd graph behind a tensor, as Graphviz DOT (chapter 13).
#include <string>

#include "kael/tensor.h"

namespace kael::autograd {

/// The graph that backward() from `root` would run, in the DOT language: `dot -Tsvg`
/// draws it. Each node is a box named as grad_fn names it (an AccumulateGrad node adds
/// its leaf's shape); each arrow runs from a node to the node that consumes its gradient,
/// the direction of the forward pass, and is labelled with the shape of the tensor that
/// flowed along it. `root` is an ellipse with its shape. Nodes are numbered in the order a
/// walk from the root first meets them, so the same graph always gives the same text.
/// The walk uses an explicit stack: a chain of any length is fine. A tensor outside the
/// graph (no grad_fn, not a leaf that requires grad) gives a graph of the root alone.
[[nodiscard]] std::string to_dot(const Tensor& root);

}  // namespace kael::autograd

#pragma once
// Exercise 04.1: the strides that broadcast a tensor to a larger shape.

#include "kael/shape.h"

namespace exercise {

/// The strides, in elements, under which a tensor with `shape` and `strides` reads as a
/// tensor of shape `target`, without copying: 0 for every dimension that is added in
/// front or stretched from size 1, the tensor's own stride everywhere else. Throws
/// kael::ValueError, naming both shapes, when `shape` cannot be broadcast to `target`, and
/// for inconsistent or negative input. See README.md for the rules.
[[nodiscard]] kael::Strides broadcast_strides(const kael::Shape& shape, const kael::Strides& strides,
                                              const kael::Shape& target);

}  // namespace exercise

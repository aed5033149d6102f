#pragma once
/// \file
/// \brief Broadcasting: the shape two or more operands stretch to.

#include <span>

#include "kael/shape.h"

namespace kael {

/// The broadcast shape of `a` and `b`, NumPy and PyTorch's rule: align the shapes at their
/// last dimension; each pair of sizes must be equal or contain a 1, which stretches to the
/// other. Throws ValueError naming both shapes and the dimension that disagrees.
[[nodiscard]] Shape broadcast_shapes(const Shape& a, const Shape& b);

/// The broadcast shape of any number of shapes ([] when there are none).
[[nodiscard]] Shape broadcast_shapes(std::span<const Shape> shapes);

/// True when a tensor of shape `from` can be broadcast to `to` without changing `to`.
[[nodiscard]] bool is_broadcastable_to(const Shape& from, const Shape& to);

}  // namespace kael

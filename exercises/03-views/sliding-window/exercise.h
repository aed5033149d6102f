#pragma once
// Exercise 03.2: sliding windows as a view (PyTorch's Tensor.unfold).

#include <cstdint>

#include "kael/tensor.h"

namespace exercise {

/// A view of `t` in which dimension `dim` is replaced by its windows of `size` elements,
/// starting every `step` elements, and a new last dimension runs through each window.
/// Throws kael::IndexError for `dim` out of range and kael::ValueError for a size outside
/// [0, t.size(dim)] or a step that is not positive.
kael::Tensor unfold(const kael::Tensor& t, std::int64_t dim, std::int64_t size, std::int64_t step);

}  // namespace exercise

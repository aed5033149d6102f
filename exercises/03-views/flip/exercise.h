#pragma once
// Exercise 03.1: flip, the copying reverse that replaces NumPy's negative strides.

#include <cstdint>
#include <vector>

#include "kael/tensor.h"

namespace exercise {

/// A new contiguous tensor holding the elements of `t` in reverse order along every
/// dimension in `dims` (negative dimensions count from the end). Throws kael::IndexError
/// for a dimension out of range and kael::ValueError for a dimension named twice.
kael::Tensor flip(const kael::Tensor& t, const std::vector<std::int64_t>& dims);

}  // namespace exercise

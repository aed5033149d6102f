#pragma once
// Exercise 05.1: median along a dimension, with PyTorch's semantics.

#include <cstdint>

#include "kael/ops/reduce.h"
#include "kael/tensor.h"

namespace exercise {

/// The median of `t` along `dim` and its position: for each slice along `dim`, the lower of
/// the two middle values when the slice has an even length. See README.md for the rules on
/// NaN, ties, keepdim, dtypes and empty dimensions.
kael::ValuesIndices median(const kael::Tensor& t, std::int64_t dim, bool keepdim = false);

}  // namespace exercise

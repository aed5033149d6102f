#pragma once
// Exercise 02.1: allclose with PyTorch's semantics.

#include "kael/tensor.h"

namespace exercise {

/// True when every element of `a` is within atol + rtol * |b| of the element of `b` at
/// the same index. See README.md for the rules on shapes, dtypes, infinities and NaN.
bool allclose(const kael::Tensor& a, const kael::Tensor& b, double rtol = 1e-5,
              double atol = 1e-8, bool equal_nan = false);

}  // namespace exercise

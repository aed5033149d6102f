#pragma once
// Exercise 05.2: a fused bias-add and GELU, computed in one pass.

#include <string_view>

#include "kael/tensor.h"

namespace exercise {

/// gelu(x + bias) for a bias along the last dimension of x, computed element by element in
/// one pass into one new tensor. See README.md for the rules on shapes, dtypes and
/// `approximate`.
kael::Tensor bias_gelu(const kael::Tensor& x, const kael::Tensor& bias,
                       std::string_view approximate = "none");

}  // namespace exercise

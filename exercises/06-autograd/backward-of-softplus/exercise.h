#pragma once
// Exercise 06.1: softplus with a backward formula of its own.

#include "kael/tensor.h"

namespace exercise {

/// log(1 + exp(beta x)) / beta, and x where beta x > threshold, recorded as one node
/// "SoftplusBackward" when x requires grad. See README.md for the rules.
kael::Tensor softplus(const kael::Tensor& x, double beta = 1.0, double threshold = 20.0);

}  // namespace exercise

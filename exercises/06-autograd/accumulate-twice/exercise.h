#pragma once
// Exercise 06.3: a backward pass written by hand, summing gradients where they meet.

#include "kael/tensor.h"

namespace exercise {

/// Runs the backward pass from the one-element `output` and adds the gradients into the
/// grad() of every leaf it depends on, as Tensor::backward() does. See README.md.
void backward(const kael::Tensor& output);

}  // namespace exercise

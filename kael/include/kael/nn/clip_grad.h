#pragma once
/// \file
/// \brief nn::clip_grad_norm_: rescaling gradients whose total norm is too large.

#include <vector>

#include "kael/tensor.h"

namespace kael::nn {

/// `torch.nn.utils.clip_grad_norm_`. Computes the norm of all the gradients together (as
/// if concatenated into one vector) and, when it exceeds `max_norm`, multiplies every
/// gradient in place by max_norm / (norm + 1e-6). Parameters without a gradient are skipped.
/// `norm_type` is any p >= 1 or infinity (the largest absolute value). Returns the total
/// norm before clipping, as a one-element tensor. With `error_if_nonfinite`, a NaN or
/// infinite norm is a kael::Error and no gradient is changed. ValueError for a negative
/// max_norm or a norm_type below 1.
Tensor clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);

}  // namespace kael::nn

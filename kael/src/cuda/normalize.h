#pragma once
// The row-normalising kernels of the CUDA backend (chapter 09): softmax, log_softmax and
// layer_norm, each over `rows` rows of `length` contiguous elements (the operations layer
// moves the dimension last and makes the rows contiguous, as the CPU does). One block per
// row, as for the reductions (block_reduce.cuh).
//
// In a build without CUDA these are defined by cuda/none.cpp and throw.
#include <cstdint>

#include "kael/tensor.h"

namespace kael::cuda {

/// out = softmax of each row, or log_softmax when `log`: exponentials of x - max (so none
/// overflows), their sum in double. `in` and `out` are contiguous, floating, of one dtype.
void softmax(bool log, const Tensor& in, std::int64_t rows, std::int64_t length, const Tensor& out);

/// out = (x - mean) / sqrt(var + eps) * weight + bias per row, the statistics in double
/// (biased variance, as layer_norm defines it). weight and bias are contiguous tensors of
/// `length` elements in the input's dtype.
void layer_norm(const Tensor& in, std::int64_t rows, std::int64_t length, const Tensor& weight, const Tensor& bias,
                double eps, const Tensor& out);

}  // namespace kael::cuda

#pragma once
// Cross entropy over the rows of [N, C] logits as one differentiable function (chapter 12),
// which kael::cross_entropy (functions/composite.cpp) takes where it applies.
#include <cstdint>

#include "kael/ops/nn.h"
#include "kael/tensor.h"

namespace kael::autograd {

/// True for float logits [N, C] and int64 targets [N] on the CPU: the fused kernels' case.
[[nodiscard]] bool fused_cross_entropy_applies(const Tensor& logits, const Tensor& target);

/// nll_loss(log_softmax(logits, 1), target, reduction, ignore_index), fused: the same
/// losses to the bit, one pass over the logits forward and one backward.
[[nodiscard]] Tensor fused_cross_entropy(const Tensor& logits, const Tensor& target, Reduction reduction,
                                         std::int64_t ignore_index);

}  // namespace kael::autograd

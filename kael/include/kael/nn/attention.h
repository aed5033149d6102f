#pragma once
/// \file
/// \brief Attention composed of recorded operations (chapter 11): the reference for the
/// fused scaled_dot_product_attention, and differentiable any number of times.

#include <optional>

#include "kael/tensor.h"

namespace kael::nn {

/// softmax(q k^T * scale + mask) v with the same shapes, scale and causal rule as
/// kael::scaled_dot_product_attention, built from matmul, masked_fill with a [T, S] mask
/// tensor and softmax, each recording its own backward.
[[nodiscard]] Tensor attention_composed(const Tensor& q, const Tensor& k, const Tensor& v, bool is_causal = false,
                                        std::optional<double> scale = std::nullopt);

}  // namespace kael::nn

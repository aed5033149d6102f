#pragma once
/// \file
/// \brief The functions neural networks are built from: softmax and its logarithm, the
/// losses, layer normalization, dropout and embedding lookup.

#include <cstdint>
#include <optional>
#include <string_view>

#include "kael/shape.h"
#include "kael/tensor.h"

namespace kael {

/// exp(t) / sum(exp(t)) along `dim`, computed stably (the maximum is subtracted first).
/// Floating dtypes only (TypeError).
[[nodiscard]] Tensor softmax(const Tensor& t, std::int64_t dim);
/// log(softmax(t, dim)), computed as t - logsumexp(t, dim) without forming softmax.
[[nodiscard]] Tensor log_softmax(const Tensor& t, std::int64_t dim);

/// How a loss combines the losses of individual elements.
enum class Reduction {
    None,  ///< one loss per element
    Mean,  ///< their mean
    Sum,   ///< their sum
};

/// The negative log likelihood of class indices under log-probabilities. `log_probs` is
/// [N, C], [C], or [N, C, d1, ...]; `target` holds int64 class indices of shape [N], [],
/// or [N, d1, ...]. Targets equal to ignore_index contribute nothing, and the mean divides
/// by the number of targets that are not ignored. IndexError for a target outside [0, C).
[[nodiscard]] Tensor nll_loss(const Tensor& log_probs, const Tensor& target,
                              Reduction reduction = Reduction::Mean,
                              std::int64_t ignore_index = -100);
/// nll_loss(log_softmax(logits, 1), target): the cross entropy of class indices.
[[nodiscard]] Tensor cross_entropy(const Tensor& logits, const Tensor& target,
                                   Reduction reduction = Reduction::Mean,
                                   std::int64_t ignore_index = -100);
/// The squared differences (a - b)^2, reduced; a and b broadcast.
[[nodiscard]] Tensor mse_loss(const Tensor& a, const Tensor& b, Reduction reduction = Reduction::Mean);

/// Normalizes over the trailing dimensions `normalized_shape` to mean 0 and variance 1
/// (the biased variance, plus eps), then scales by `weight` and shifts by `bias` when given
/// (both of shape normalized_shape).
[[nodiscard]] Tensor layer_norm(const Tensor& t, const Shape& normalized_shape,
                                const std::optional<Tensor>& weight = std::nullopt,
                                const std::optional<Tensor>& bias = std::nullopt,
                                double eps = 1e-5);

/// In training, zeroes each element with probability p (drawn from the global generator)
/// and scales the rest by 1 / (1 - p); otherwise returns t itself. ValueError unless
/// 0 <= p <= 1.
[[nodiscard]] Tensor dropout(const Tensor& t, double p, bool training = true);

/// Rows of `weight` ([V, D]) picked by int64 `indices` of any shape: the result has shape
/// indices.shape() + [D]. IndexError for an index outside [0, V).
[[nodiscard]] Tensor embedding(const Tensor& weight, const Tensor& indices);

}  // namespace kael

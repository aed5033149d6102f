#pragma once
/// \file
/// \brief nn::sample_next: the next token from a model's logits, with temperature, top-k
/// and top-p (chapter 11).

#include <cstdint>
#include <optional>

#include "kael/tensor.h"

namespace kael::nn {

/// How a next token is drawn from logits. The defaults draw from the model's own
/// distribution.
struct SamplingOptions {
    /// Divides the logits before the softmax: below 1 sharpens the distribution, above 1
    /// flattens it, and 0 means greedy (the most likely token, the first of equals).
    double temperature = 1.0;
    /// Keeps only the k most likely tokens (those tied with the k-th are kept too); a k
    /// larger than the vocabulary keeps every token. Unset keeps every token.
    std::optional<std::int64_t> top_k;
    /// Keeps the smallest set of most likely tokens whose probabilities add up to at least
    /// top_p (nucleus sampling); 1 keeps every token.
    double top_p = 1.0;
};

/// Throws ValueError for a negative or non-finite temperature, a top_k below 1, or a top_p
/// outside (0, 1].
void check_sampling_options(const SamplingOptions& options);

/// One token index per row of `logits` ([V] gives [], [B, V] gives [B]), as I64 on the
/// logits' device: temperature, then top-k, then top-p, then one draw from the global
/// generator with multinomial (none for temperature 0). Computed on the host in double.
/// ValueError for bad options or logits of another rank; logits may hold -inf (a masked
/// token) but not NaN or +inf, and a row needs one finite logit.
[[nodiscard]] Tensor sample_next(const Tensor& logits, const SamplingOptions& options = {});

}  // namespace kael::nn

#pragma once
/// \file
/// \brief What a server does to a row of logits besides sampling it (chapter 13): the
/// OpenAI API's penalties and logit bias before the draw, and the log-probabilities it
/// reports after.

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kael/tensor.h"

namespace kael::serve {

/// The adjustments OpenAI's API makes to the logits before a token is drawn.
struct LogitAdjustments {
    /// Subtracted once from the logit of every token the completion has drawn so far
    /// (-2 .. 2 in the API): a push towards new tokens.
    double presence_penalty = 0;
    /// Subtracted from a token's logit once for each time the completion has drawn it
    /// (-2 .. 2): a push against repetition that grows with it.
    double frequency_penalty = 0;
    /// Added to the logits of the given tokens (-100 .. 100; -100 bans a token in practice).
    std::vector<std::pair<std::int64_t, double>> logit_bias;

    /// Whether any adjustment is set: without one the logits go to the sampler untouched.
    [[nodiscard]] bool any() const noexcept {
        return presence_penalty != 0 || frequency_penalty != 0 || !logit_bias.empty();
    }
};

/// `logits` ([V] or [1, V], any float dtype and device) with the adjustments applied, as
/// float32 on the CPU: logit[t] - counts[t] * frequency_penalty - (counts[t] > 0) *
/// presence_penalty + bias[t], OpenAI's formula, where `counts` holds how often the
/// completion drew each token. ValueError for a biased token outside the vocabulary.
[[nodiscard]] Tensor adjusted_logits(const Tensor& logits, const std::unordered_map<std::int64_t, std::int64_t>& counts,
                                     const LogitAdjustments& adjustments);

/// A token's log-probability and the most likely tokens at its position.
struct TokenLogprobs {
    std::int64_t token = 0;          ///< the token that was drawn (or that the prompt holds)
    std::optional<double> logprob;   ///< its log-probability; none for a prompt's first token
    /// The `top` most likely tokens with their log-probabilities, most likely first, equal
    /// ones in the order of their ids.
    std::vector<std::pair<std::int64_t, double>> top;
};

/// The log-probability of `token` under `logits` ([V] or [1, V]; the model's own
/// distribution, log_softmax computed in double) and the `top` most likely tokens.
/// ValueError for a token outside the vocabulary or a negative `top`.
[[nodiscard]] TokenLogprobs token_logprobs(const Tensor& logits, std::int64_t token, std::int64_t top);

}  // namespace kael::serve

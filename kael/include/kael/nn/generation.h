#pragma once
/// \file
/// \brief nn::generate: text continuation with a GPT, one token at a time (chapter 12).
///
/// Generation has two phases. The prefill runs the model over the whole prompt at once
/// and fills a KVCache with every position's keys and values; its cost is a forward of T
/// positions. Each decode step then runs the model over the one token just drawn, reusing
/// the cache, and draws the next from the last position's logits. A decode step reads every
/// weight once for one position of work, so it is bound by memory bandwidth, not by
/// arithmetic; chapter 12 measures both phases.

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "kael/nn/gpt.h"
#include "kael/nn/sampling.h"

namespace kael::nn {

/// What generate() does.
struct GenerationOptions {
    /// The most tokens to add after the prompt.
    std::int64_t max_new_tokens = 64;
    /// How each token is drawn; temperature 0 is greedy.
    SamplingOptions sampling;
    /// A token that ends the text (GPT-2's <|endoftext|>, 50256); it is not returned.
    std::optional<std::int64_t> stop_token;
    /// Decode with a KV cache (the default). Without, every step runs the model over the
    /// whole sequence again: the same tokens, much slower; kept for tests and the book.
    bool use_cache = true;
};

/// Why generation stopped.
enum class StopReason {
    MaxNewTokens,  ///< max_new_tokens were produced
    StopToken,     ///< the stop token was drawn
    ContextFull,   ///< every position of the context was used: the sequence is one token longer than the block size
    Callback,      ///< the callback asked to stop
};

/// The tokens generate() produced and the time each phase took.
struct Generation {
    std::vector<std::int64_t> tokens;  ///< the new tokens, without the prompt
    StopReason reason = StopReason::MaxNewTokens;  ///< why generation stopped
    double prefill_seconds = 0.0;  ///< the prompt's forward and the first token's draw
    double decode_seconds = 0.0;   ///< every later step
    std::int64_t decode_steps = 0;  ///< the steps after the first (a stop token's included)
};

/// Called with each new token as soon as it is drawn (the stop token excluded); return
/// false to stop after it.
using TokenCallback = std::function<bool(std::int64_t token)>;

/// Continues `prompt` (token ids, at least one, at most the block size) with `model`, in
/// eval mode and without recording gradients; sampled tokens come from the global
/// generator, so kael::manual_seed makes a run repeatable. ValueError for an empty or
/// too long prompt, an id outside the vocabulary, max_new_tokens below 0 or bad sampling
/// options, before the model runs.
[[nodiscard]] Generation generate(GPT& model, std::span<const std::int64_t> prompt,
                                  const GenerationOptions& options = {}, const TokenCallback& on_token = {});

}  // namespace kael::nn

#pragma once
/// \file
/// \brief nn::decode_step: one decode step for several sequences at once, each with a KV
/// cache of its own (chapter 13).
///
/// A server runs many generations side by side, and each decode step of each one reads
/// every weight of the model for one position of work (chapter 12). decode_step runs the
/// steps of R sequences together: their new positions go through every Linear as the R
/// rows of one product, so the weights are read once for all of them, while attention,
/// the one part that depends on a sequence's past, runs per sequence against its own
/// cache. The sequences may have different lengths, and may have joined at different
/// times: continuous batching (Orca, OSDI 2022, calls it selective batching).

#include <cstdint>
#include <span>

#include "kael/nn/gpt.h"
#include "kael/nn/kv_cache.h"
#include "kael/tensor.h"

namespace kael::nn {

/// Logits [R, vocab_size] for R sequences, row r for token `tokens[r]` appended to the
/// caches[r]->length() positions that caches[r] holds, whose keys and values join that
/// cache. Row r equals, bit for bit, the last row of model.forward(tokens[r] as [1, 1],
/// *caches[r], Logits::Last) when R is at most 8 and the model is on the CPU (the
/// products of a few rows give each row its own bits, chapter 12). Runs without
/// recording gradients, in eval mode. ValueError for no sequences, a count of caches other
/// than of tokens, a null cache, a cache with a batch other than 1, a cache shared by two
/// sequences, a token outside the vocabulary, or a cache that is full or at the block
/// size; and from the cache's append for a cache made for another model. No cache's length
/// changes when it throws.
[[nodiscard]] Tensor decode_step(GPT& model, std::span<const std::int64_t> tokens,
                                 std::span<AttentionCache* const> caches);

}  // namespace kael::nn

#pragma once
// Exercise 11.1: the repetition penalty of CTRL, applied to one row of logits before the next
// token is chosen.

#include <cstdint>
#include <vector>

namespace exercise {

/// A copy of `logits` (one score per token of the vocabulary) in which every token that
/// occurs in `generated` is made less likely: a positive logit is divided by `penalty`, a
/// negative one multiplied by it, once per token however often it occurs. Every other
/// logit is copied unchanged. Throws kael::ValueError unless penalty > 0 (checked first)
/// and kael::IndexError for an id outside [0, logits.size()). See README.md.
[[nodiscard]] std::vector<double> apply_repetition_penalty(const std::vector<double>& logits,
                                                           const std::vector<std::int64_t>& generated,
                                                           double penalty);

}  // namespace exercise

#pragma once
// Exercise 11.2: ALiBi, attention that knows order through a penalty on distance instead of
// position embeddings (Press, Smith and Lewis, "Train Short, Test Long").

#include <cstdint>
#include <optional>
#include <vector>

#include "kael/dtype.h"
#include "kael/tensor.h"

namespace exercise {

/// The slopes of `heads` attention heads, m_h = 2^(-8 h / heads) for h = 1 .. heads, the
/// steepest first: 1/2, 1/4, ..., 1/256 for eight heads. Throws kael::ValueError unless
/// heads is a power of two (1, 2, 4, ...).
[[nodiscard]] std::vector<double> alibi_slopes(std::int64_t heads);

/// The bias [H, T, S] of H = slopes.size() heads, T queries and S keys, as `dtype`. The
/// queries are the last T of the S positions: query t sits at position i = S - T + t, and
/// bias[h, t, j] = -slopes[h] * (i - j) for every key j <= i, and -inf for j > i (the
/// causal mask). For T = S, i is simply t. Throws kael::ValueError for no slopes, a
/// negative T or S, or T > S, and kael::TypeError for a dtype that is not floating.
[[nodiscard]] kael::Tensor alibi_bias(const std::vector<double>& slopes, std::int64_t queries, std::int64_t keys,
                                      kael::DType dtype = kael::DType::F32);

/// softmax(q k^T * scale + bias) v for q [..., H, T, D], k [..., H, S, D], v [..., H, S, E]
/// and a bias [H, T, S] (alibi_bias), shared by every leading index: the result is
/// [..., H, T, E]. The scale is 1/sqrt(D) unless given; the bias is used in q's dtype and
/// on q's device. Composed of kael operations, so gradients flow through it. Throws
/// kael::ValueError for a q of fewer than three dimensions, a k of fewer than two, or a
/// bias whose shape is not [H, T, S]. See README.md.
[[nodiscard]] kael::Tensor alibi_attention(const kael::Tensor& q, const kael::Tensor& k, const kael::Tensor& v,
                                           const kael::Tensor& bias, std::optional<double> scale = std::nullopt);

}  // namespace exercise

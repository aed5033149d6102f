#pragma once
/// \file
/// \brief scaled_dot_product_attention: softmax(q k^T * scale, masked) v as one operation
/// with a backward of its own (chapter 11).

#include <optional>

#include "kael/tensor.h"

namespace kael {

/// Attention of queries `q` [..., T, D] over keys `k` [..., S, D] and values `v`
/// [..., S, E]: softmax(q k^T * scale) v, of shape [..., T, E], with scale 1/sqrt(D) unless
/// given. With `is_causal`, query i sees keys 0 .. i only (PyTorch's top-left alignment,
/// so T <= S is where it means "the past"); the mask is the loop's bound, never a tensor.
/// The softmax subtracts each row's maximum, so large scores do not overflow. The leading
/// dimensions of q, k and v must be equal (no broadcasting), the dtypes equal and floating.
/// The backward is its own formula (dV = P^T dO, dS = P (dP - rowsum(P dP)), dQ = dS K,
/// dK = dS^T Q, times the scale) and cannot itself be differentiated again: a backward
/// with create_graph through it throws; the composition in nn/attention.h can.
[[nodiscard]] Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                                                  bool is_causal = false, std::optional<double> scale = std::nullopt);
//> stage 13

/// Causal attention of the newest T positions of a sequence over all S of its positions
/// (chapter 12): k and v hold S - T earlier positions (a KV cache's) followed by the T
/// new ones, so query i sits at position S - T + i and sees keys 0 .. S - T + i. This is
/// the lower-right alignment of PyTorch's causal_lower_right bias; with S = T it is
/// scaled_dot_product_attention(q, k, v, true), and for one query it sees every key.
/// ValueError when S < T; otherwise the operands are checked and differentiated as
/// scaled_dot_product_attention's.
[[nodiscard]] Tensor causal_attention_lower_right(const Tensor& q, const Tensor& k, const Tensor& v,
                                                  std::optional<double> scale = std::nullopt);
//< stage 13

}  // namespace kael

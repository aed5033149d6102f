#pragma once
/// \file
/// \brief nn::AttentionCache: what a GPT's attention layers need of a store of past keys
/// and values (chapter 12), whatever holds them.
///
/// nn::KVCache keeps them in one buffer per layer, reserved for the sequence's whole length.
/// A server keeps them in blocks shared out among its requests instead (chapter 13's
/// serve::PagedKVCache). The model's forward and nn::decode_step call only this interface,
/// so both run the same code over either.

#include <cstddef>
#include <cstdint>
#include <utility>

#include "kael/tensor.h"

namespace kael::nn {

/// A store of the keys and values of the positions a sequence has seen, layer by layer.
class AttentionCache {
public:
    virtual ~AttentionCache() = default;

    /// The number of positions stored (the same in every layer once a forward is done).
    [[nodiscard]] virtual std::int64_t length() const noexcept = 0;
    /// The most positions it can hold.
    [[nodiscard]] virtual std::int64_t capacity() const noexcept = 0;
    /// The number of sequences.
    [[nodiscard]] virtual std::int64_t batch() const noexcept = 0;

    /// Stores the keys and values of `layer` for T new positions (k and v [batch, n_head,
    /// T, head_size]) after the length() stored ones, and returns the keys and values of
    /// all length() + T positions, [batch, n_head, length() + T, head_size], each head's
    /// positions consecutive rows. The length moves on only with advance(), once every
    /// layer has appended. ValueError for a layer out of range, shapes other than the
    /// cache's, or positions past the capacity.
    [[nodiscard]] virtual std::pair<Tensor, Tensor> append(std::size_t layer, const Tensor& k, const Tensor& v) = 0;
    /// Counts `positions` more positions as stored (the model calls it after its layers).
    /// ValueError past the capacity.
    virtual void advance(std::int64_t positions) = 0;

protected:
    /// Only an implementation makes one.
    AttentionCache() = default;
    /// Copied only as part of an implementation, never sliced through the interface.
    AttentionCache(const AttentionCache&) = default;
    /// Assigned only as part of an implementation.
    AttentionCache& operator=(const AttentionCache&) = default;
    /// Moved only as part of an implementation.
    AttentionCache(AttentionCache&&) = default;
    /// Move-assigned only as part of an implementation.
    AttentionCache& operator=(AttentionCache&&) = default;
};

}  // namespace kael::nn

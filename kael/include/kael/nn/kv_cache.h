#pragma once
/// \file
/// \brief nn::KVCache: the keys and values a GPT's attention layers have computed for the
/// positions seen so far, so that generating a token costs one position's work (chapter 12).
///
/// Without a cache, the n-th generated token runs the model over all n positions again,
/// though the keys and values of the first n - 1 are what they were the step before. With
/// it, a step runs the model over the new position only: each attention layer appends the
/// new position's key and value to its cache and lets the new query attend over the whole
/// cached sequence. The cost is memory: 2 (keys and values) x n_layer x batch x capacity x
/// n_embd elements, 75 MB for GPT-2 small at 1024 positions in float32.

#include <cstdint>
#include <utility>
#include <vector>

#include "kael/device.h"
#include "kael/dtype.h"
#include "kael/nn/attention_cache.h"
#include "kael/nn/gpt.h"
#include "kael/tensor.h"

namespace kael::nn {

/// Room for the keys and values of `capacity` positions of `batch` sequences in every
/// block of a GPT, allocated once. Each layer's keys and values are [batch, n_head,
/// capacity, head_size], so that the cached positions of one head are consecutive rows
/// and a layer's cache is a narrowed view, never a copy.
class KVCache final : public AttentionCache {
public:
    /// An empty cache for a model of `config`. ValueError for a batch below 1 or a
    /// capacity outside 1 .. config.block_size.
    KVCache(const GPTConfig& config, std::int64_t batch, std::int64_t capacity, DType dtype = DType::F32,
            Device device = Device::CPU);

    /// The number of positions stored (the same in every layer once a forward is done).
    [[nodiscard]] std::int64_t length() const noexcept override { return length_; }
    /// The most positions it can hold.
    [[nodiscard]] std::int64_t capacity() const noexcept override { return capacity_; }
    /// The number of sequences.
    [[nodiscard]] std::int64_t batch() const noexcept override { return batch_; }
    /// The bytes its buffers take.
    [[nodiscard]] std::int64_t nbytes() const noexcept;

    /// Writes the keys and values of `layer` for T new positions (k and v [batch, n_head,
    /// T, head_size]) after the length() stored ones, and returns the keys and values of
    /// all length() + T positions as views [batch, n_head, length() + T, head_size]. The
    /// length itself moves on only with advance(), once every layer has appended.
    /// ValueError for a layer out of range, shapes other than the cache's, or positions
    /// past the capacity.
    [[nodiscard]] std::pair<Tensor, Tensor> append(std::size_t layer, const Tensor& k, const Tensor& v) override;
    /// Counts `positions` more positions as stored (the model calls it after its layers).
    /// ValueError past the capacity.
    void advance(std::int64_t positions) override;
    /// Forgets every position; the buffers stay allocated for the next sequence.
    void clear() noexcept { length_ = 0; }

private:
    std::vector<Tensor> keys_;    // one [batch, n_head, capacity, head_size] per layer
    std::vector<Tensor> values_;  // the same
    std::int64_t batch_;
    std::int64_t capacity_;
    std::int64_t length_ = 0;
};

}  // namespace kael::nn

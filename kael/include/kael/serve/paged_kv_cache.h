#pragma once
/// \file
/// \brief serve::PagedKVCache: one sequence's keys and values in the blocks of a
/// serve::BlockPool (chapter 13), behind the interface the model's attention reads.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "kael/nn/attention_cache.h"
#include "kael/serve/block_pool.h"

namespace kael::serve {

/// A sequence's block table over a BlockPool, as an nn::AttentionCache: append() writes each
/// new position into its block, and hands attention the sequence's keys and values gathered
/// from its blocks in order, so the model computes exactly what it computes over an
/// nn::KVCache. Its blocks go back to the pool when it is destroyed. Batch 1.
class PagedKVCache final : public nn::AttentionCache {
public:
    /// A cache for up to `capacity` positions from `pool` (which must outlive it): first the
    /// cached blocks of the longest prefix of `prompt` that take_prefix finds within
    /// `prefix_limit` positions (0: none), then fresh blocks for the rest of the capacity,
    /// all reserved now. Null, with nothing taken, when the pool has too few free blocks.
    [[nodiscard]] static std::unique_ptr<PagedKVCache> reserve(BlockPool& pool, std::int64_t capacity,
                                                               std::span<const std::int64_t> prompt,
                                                               std::int64_t prefix_limit);
    ~PagedKVCache() override;
    PagedKVCache(const PagedKVCache&) = delete;
    PagedKVCache& operator=(const PagedKVCache&) = delete;

    [[nodiscard]] std::int64_t length() const noexcept override { return length_; }
    [[nodiscard]] std::int64_t capacity() const noexcept override { return capacity_; }
    [[nodiscard]] std::int64_t batch() const noexcept override { return 1; }
    [[nodiscard]] std::pair<Tensor, Tensor> append(std::size_t layer, const Tensor& k, const Tensor& v) override;
    void advance(std::int64_t positions) override;

    /// The blocks, in the order of the positions they hold.
    [[nodiscard]] const std::vector<std::int64_t>& blocks() const noexcept { return blocks_; }
    /// The positions found in cached blocks when it was made (they count in length()).
    [[nodiscard]] std::int64_t reused() const noexcept { return reused_; }

private:
    PagedKVCache(BlockPool& pool, std::vector<std::int64_t> blocks, std::int64_t capacity, std::int64_t reused);

    BlockPool& pool_;
    std::vector<std::int64_t> blocks_;
    std::int64_t capacity_;
    std::int64_t length_;
    std::int64_t reused_;
};

}  // namespace kael::serve

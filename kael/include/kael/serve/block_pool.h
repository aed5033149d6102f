#pragma once
/// \file
/// \brief serve::BlockPool: the keys and values of every request in blocks of a fixed
/// number of positions, shared out by a server (chapter 13), and the blocks of earlier
/// prompts kept for reuse.
///
/// A cache reserved per request for its whole length wastes what it does not fill, and a
/// server that reserves them for the model's full context runs out of memory long before
/// it runs out of compute. vLLM's PagedAttention (Kwon et al., SOSP 2023) keeps keys and
/// values in fixed-size blocks instead, as an operating system keeps memory in pages: a
/// request holds a table of the blocks it uses, a request is admitted when enough blocks
/// are free, and a block goes back to the pool the moment its request ends.
///
/// Blocks make a second saving possible: prefix caching. The keys and values of a prompt's
/// first n positions depend on those n tokens alone, so a block filled by one prompt holds
/// exactly what any prompt that starts with the same tokens needs. A full block of a
/// finished prompt stays in the pool, keyed by its tokens and the block before it, until its
/// memory is needed; a new prompt that starts the same way takes those blocks instead of
/// computing them again. Blocks are reclaimed least recently used first.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "kael/device.h"
#include "kael/dtype.h"
#include "kael/nn/gpt.h"
#include "kael/tensor.h"

namespace kael::serve {

/// The counters a metrics endpoint shows.
struct BlockPoolStats {
    std::int64_t blocks = 0;         ///< blocks in the pool
    std::int64_t used = 0;           ///< blocks some request holds
    std::int64_t cached = 0;         ///< free blocks that still hold a prompt's prefix
    std::int64_t hit_tokens = 0;     ///< prompt positions taken from cached blocks, since start
    std::int64_t hit_requests = 0;   ///< requests that took at least one cached block
};

/// Blocks of keys and values for the layers of one model (see the file comment).
class BlockPool {
public:
    /// `blocks` blocks of `block_tokens` positions each for a model of `config`: per layer,
    /// keys and values [blocks, n_head, block_tokens, head_size]. ValueError for fewer than
    /// one block or one position a block.
    BlockPool(const nn::GPTConfig& config, std::int64_t blocks, std::int64_t block_tokens = 16,
              DType dtype = DType::F32, Device device = Device::CPU);

    /// Positions a block holds.
    [[nodiscard]] std::int64_t block_tokens() const noexcept { return block_tokens_; }
    /// Blocks in the pool.
    [[nodiscard]] std::int64_t blocks() const noexcept { return static_cast<std::int64_t>(records_.size()); }
    /// Blocks no request holds, cached ones included (they are reclaimed when needed).
    [[nodiscard]] std::int64_t free_blocks() const noexcept;
    /// The counters.
    [[nodiscard]] BlockPoolStats stats() const noexcept;
    /// The blocks that `positions` positions take.
    [[nodiscard]] std::int64_t blocks_for(std::int64_t positions) const noexcept {
        return (positions + block_tokens_ - 1) / block_tokens_;
    }

    /// The layer's keys, [blocks, n_head, block_tokens, head_size].
    [[nodiscard]] const Tensor& keys(std::size_t layer) const { return keys_.at(layer); }
    /// The layer's values, [blocks, n_head, block_tokens, head_size].
    [[nodiscard]] const Tensor& values(std::size_t layer) const { return values_.at(layer); }

    /// The longest run of cached blocks that hold the first positions of `tokens`, at most
    /// `limit` positions (whole blocks only), each taken for the caller, who gives them back
    /// with release(). Empty when none matches.
    [[nodiscard]] std::vector<std::int64_t> take_prefix(std::span<const std::int64_t> tokens, std::int64_t limit);
    /// `count` free blocks for the caller, the uncached ones first, then the least recently
    /// used cached ones (which forget their prefix); none when fewer are free.
    [[nodiscard]] std::optional<std::vector<std::int64_t>> allocate(std::int64_t count);
    /// Gives blocks back. A block that holds a registered prefix stays cached until its
    /// memory is needed. ValueError for a block that is out of range or not held.
    void release(std::span<const std::int64_t> ids);
    /// Records that `ids` (a sequence's block table) hold the positions of `tokens` from the
    /// first on: each block the tokens fill whole becomes reusable by take_prefix() once
    /// released. A prefix another block holds already stays with that block.
    void register_prefix(std::span<const std::int64_t> tokens, std::span<const std::int64_t> ids);

private:
    // What identifies a cached block's contents: the block before it (its index and how
    // often it has been reallocated, so a reused parent never matches) and its own tokens.
    using PrefixKey = std::pair<std::pair<std::int64_t, std::int64_t>, std::vector<std::int64_t>>;

    struct Record {
        std::int64_t references = 0;
        std::int64_t generation = 0;  // incremented each time the block is handed out fresh
        std::optional<PrefixKey> key;  // set while it holds a registered prefix
        std::int64_t last_used = 0;
    };

    [[nodiscard]] PrefixKey key_of(std::int64_t parent, std::span<const std::int64_t> tokens) const;
    void check_id(std::int64_t id) const;

    std::int64_t block_tokens_;
    std::vector<Tensor> keys_;
    std::vector<Tensor> values_;
    std::vector<Record> records_;
    std::vector<std::int64_t> uncached_free_;                 // free blocks that hold nothing reusable
    std::set<std::pair<std::int64_t, std::int64_t>> cached_free_;  // (last used, block), oldest first
    std::map<PrefixKey, std::int64_t> prefixes_;              // cached contents to their block
    std::int64_t clock_ = 0;
    std::int64_t hit_tokens_ = 0;
    std::int64_t hit_requests_ = 0;
};

}  // namespace kael::serve

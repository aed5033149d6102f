// serve::PagedKVCache (chapter 13): a block table over the pool, written position by
// position and gathered for attention.
#include "kael/serve/paged_kv_cache.h"

#include <algorithm>

#include "kael/autograd/grad_mode.h"
#include "kael/error.h"
#include "kael/factory.h"
#include "kael/ops.h"

namespace kael::serve {

std::unique_ptr<PagedKVCache> PagedKVCache::reserve(BlockPool& pool, std::int64_t capacity,
                                                    std::span<const std::int64_t> prompt, std::int64_t prefix_limit) {
    KAEL_CHECK_VALUE(capacity >= 1, "a PagedKVCache needs a capacity of at least 1, got " << capacity);
    std::vector<std::int64_t> blocks =
        prefix_limit > 0 ? pool.take_prefix(prompt, std::min(prefix_limit, capacity)) : std::vector<std::int64_t>{};
    const std::int64_t reused = std::ssize(blocks) * pool.block_tokens();
    const std::optional<std::vector<std::int64_t>> fresh = pool.allocate(pool.blocks_for(capacity) - std::ssize(blocks));
    if (!fresh) {
        pool.release(blocks);
        return nullptr;
    }
    blocks.insert(blocks.end(), fresh->begin(), fresh->end());
    return std::unique_ptr<PagedKVCache>(new PagedKVCache(pool, std::move(blocks), capacity, reused));
}

PagedKVCache::PagedKVCache(BlockPool& pool, std::vector<std::int64_t> blocks, std::int64_t capacity,
                           std::int64_t reused)
    : pool_(pool), blocks_(std::move(blocks)), capacity_(capacity), length_(reused), reused_(reused) {}

PagedKVCache::~PagedKVCache() { pool_.release(blocks_); }

std::pair<Tensor, Tensor> PagedKVCache::append(std::size_t layer, const Tensor& k, const Tensor& v) {
    const Tensor& keys = pool_.keys(layer);  // [blocks, n_head, block_tokens, head_size]
    const Tensor& values = pool_.values(layer);
    const std::int64_t positions = k.dim() == 4 ? k.size(2) : 0;
    const Shape expected{1, keys.size(1), positions, keys.size(3)};
    KAEL_CHECK_VALUE(k.dim() == 4 && k.shape() == expected && v.shape() == expected,
                     "PagedKVCache of layer " << layer << " expects keys and values [1, " << keys.size(1) << ", T, "
                                              << keys.size(3) << "], got " << to_string(k.shape()) << " and "
                                              << to_string(v.shape()));
    KAEL_CHECK_VALUE(length_ + positions <= capacity_, "PagedKVCache holds " << capacity_ << " positions; " << length_
                                                                             << " are stored and " << positions
                                                                             << " more do not fit");
    const autograd::NoGradGuard no_grad;  // the cache is state, never differentiated
    const std::int64_t per_block = pool_.block_tokens();
    // Each new position into its block, a run of consecutive positions of one block at once.
    for (std::int64_t t = 0; t < positions;) {
        const std::int64_t position = length_ + t;
        const std::int64_t block = blocks_[static_cast<std::size_t>(position / per_block)];
        const std::int64_t slot = position % per_block;
        const std::int64_t run = std::min(per_block - slot, positions - t);
        Tensor(keys).select(0, block).narrow(1, slot, run).copy_(k.select(0, 0).narrow(1, t, run));
        Tensor(values).select(0, block).narrow(1, slot, run).copy_(v.select(0, 0).narrow(1, t, run));
        t += run;
    }
    // The sequence's positions gathered in order, each head's rows consecutive, as an
    // nn::KVCache lays them out: attention then computes the same numbers over them.
    const std::int64_t stored = length_ + positions;
    const std::int64_t used = pool_.blocks_for(stored);
    const std::vector<std::int64_t> table(blocks_.begin(), blocks_.begin() + used);
    const Tensor index = from_vector(table).to(keys.device());
    auto gather = [&](const Tensor& pooled) {  // [used, H, block, D] -> [1, H, stored, D]
        return index_select(pooled, 0, index)
            .transpose(0, 1)
            .contiguous()
            .view({1, pooled.size(1), used * per_block, pooled.size(3)})
            .narrow(2, 0, stored);
    };
    return {gather(keys), gather(values)};
}

void PagedKVCache::advance(std::int64_t positions) {
    KAEL_CHECK_VALUE(positions >= 0 && length_ + positions <= capacity_,
                     "PagedKVCache holds " << capacity_ << " positions; " << length_ << " are stored and "
                                           << positions << " more do not fit");
    length_ += positions;
}

}  // namespace kael::serve

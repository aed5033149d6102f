// serve::BlockPool (chapter 13): blocks of keys and values, reference counts, and the
// prefixes of finished prompts kept until their memory is needed.
#include "kael/serve/block_pool.h"

#include <algorithm>

#include "kael/error.h"
#include "kael/factory.h"

namespace kael::serve {

BlockPool::BlockPool(const nn::GPTConfig& config, std::int64_t blocks, std::int64_t block_tokens, DType dtype,
                     Device device)
    : block_tokens_(block_tokens) {
    KAEL_CHECK_VALUE(blocks >= 1, "a BlockPool needs at least one block, got " << blocks);
    KAEL_CHECK_VALUE(block_tokens >= 1, "a BlockPool needs blocks of at least one position, got " << block_tokens);
    const std::int64_t head_size = config.n_embd / config.n_head;
    for (std::int64_t layer = 0; layer < config.n_layer; ++layer) {
        keys_.push_back(zeros({blocks, config.n_head, block_tokens, head_size}, dtype, device));
        values_.push_back(zeros({blocks, config.n_head, block_tokens, head_size}, dtype, device));
    }
    records_.resize(static_cast<std::size_t>(blocks));
    for (std::int64_t id = blocks - 1; id >= 0; --id) {
        uncached_free_.push_back(id);  // handed out from the back: block 0 first
    }
}

std::int64_t BlockPool::free_blocks() const noexcept {
    return static_cast<std::int64_t>(uncached_free_.size() + cached_free_.size());
}

BlockPoolStats BlockPool::stats() const noexcept {
    return {blocks(), blocks() - free_blocks(), static_cast<std::int64_t>(cached_free_.size()), hit_tokens_,
            hit_requests_};
}

BlockPool::PrefixKey BlockPool::key_of(std::int64_t parent, std::span<const std::int64_t> tokens) const {
    const std::int64_t generation = parent < 0 ? 0 : records_[static_cast<std::size_t>(parent)].generation;
    return {{parent, generation}, std::vector<std::int64_t>(tokens.begin(), tokens.end())};
}

void BlockPool::check_id(std::int64_t id) const {
    KAEL_CHECK_VALUE(id >= 0 && id < blocks(), "block " << id << " is outside the pool of " << blocks());
}

std::vector<std::int64_t> BlockPool::take_prefix(std::span<const std::int64_t> tokens, std::int64_t limit) {
    std::vector<std::int64_t> taken;
    std::int64_t parent = -1;
    for (std::int64_t start = 0; start + block_tokens_ <= std::min<std::int64_t>(limit, std::ssize(tokens));
         start += block_tokens_) {
        const auto found = prefixes_.find(key_of(parent, tokens.subspan(static_cast<std::size_t>(start),
                                                                        static_cast<std::size_t>(block_tokens_))));
        if (found == prefixes_.end()) {
            break;
        }
        const std::int64_t id = found->second;
        Record& record = records_[static_cast<std::size_t>(id)];
        if (record.references == 0) {
            cached_free_.erase({record.last_used, id});
        }
        ++record.references;
        record.last_used = ++clock_;
        taken.push_back(id);
        parent = id;
    }
    if (!taken.empty()) {
        hit_tokens_ += std::ssize(taken) * block_tokens_;
        ++hit_requests_;
    }
    return taken;
}

std::optional<std::vector<std::int64_t>> BlockPool::allocate(std::int64_t count) {
    if (count > free_blocks()) {
        return std::nullopt;
    }
    std::vector<std::int64_t> ids;
    while (std::ssize(ids) < count) {
        std::int64_t id = 0;
        if (!uncached_free_.empty()) {
            id = uncached_free_.back();
            uncached_free_.pop_back();
        } else {  // the least recently used cached block forgets its prefix
            id = cached_free_.begin()->second;
            cached_free_.erase(cached_free_.begin());
            Record& evicted = records_[static_cast<std::size_t>(id)];
            prefixes_.erase(*evicted.key);
            evicted.key.reset();
        }
        Record& record = records_[static_cast<std::size_t>(id)];
        record.references = 1;
        ++record.generation;  // blocks cached after its old contents no longer match it
        record.last_used = ++clock_;
        ids.push_back(id);
    }
    return ids;
}

void BlockPool::release(std::span<const std::int64_t> ids) {
    for (const std::int64_t id : ids) {
        check_id(id);
        Record& record = records_[static_cast<std::size_t>(id)];
        KAEL_CHECK_VALUE(record.references > 0, "block " << id << " is released but not held");
        if (--record.references > 0) {
            continue;
        }
        if (record.key) {
            cached_free_.insert({record.last_used, id});
        } else {
            uncached_free_.push_back(id);
        }
    }
}

void BlockPool::register_prefix(std::span<const std::int64_t> tokens, std::span<const std::int64_t> ids) {
    std::int64_t parent = -1;
    const std::int64_t full = std::min<std::int64_t>(std::ssize(tokens) / block_tokens_, std::ssize(ids));
    for (std::int64_t b = 0; b < full; ++b) {
        const std::int64_t id = ids[static_cast<std::size_t>(b)];
        check_id(id);
        Record& record = records_[static_cast<std::size_t>(id)];
        if (!record.key) {
            PrefixKey key = key_of(parent, tokens.subspan(static_cast<std::size_t>(b * block_tokens_),
                                                          static_cast<std::size_t>(block_tokens_)));
            if (prefixes_.emplace(key, id).second) {
                record.key = std::move(key);
            }
        }
        parent = id;
    }
}

}  // namespace kael::serve

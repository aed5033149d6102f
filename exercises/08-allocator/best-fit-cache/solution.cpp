// Reference solution of exercise 08.1.
#include <new>

#include "exercise.h"
#include "kael/error.h"

namespace exercise {

namespace {

// The most bytes a request of `nbytes` may waste: floor(nbytes * percent / 100), in two
// parts so that no product overflows, however large the request.
std::int64_t max_waste(std::int64_t nbytes, std::int64_t percent) {
    return nbytes / 100 * percent + nbytes % 100 * percent / 100;
}

}  // namespace

BestFitCache::BestFitCache(SystemAllocate system_allocate, SystemFree system_free,
                           std::int64_t max_waste_percent)
    : system_allocate_(system_allocate), system_free_(system_free),
      max_waste_percent_(max_waste_percent) {
    KAEL_CHECK_VALUE(max_waste_percent >= 0 && max_waste_percent <= 100,
                     "max_waste_percent must be in [0, 100], got " << max_waste_percent);
}

BestFitCache::~BestFitCache() { empty(); }

Block BestFitCache::allocate(std::int64_t nbytes) {
    KAEL_CHECK_VALUE(nbytes > 0, "cannot allocate " << nbytes << " bytes");
    // The first capacity >= nbytes is the best fit. When even it wastes too much, every
    // larger one wastes more: the search ends here either way.
    const auto best = free_.lower_bound(nbytes);
    if (best != free_.end() && best->first - nbytes <= max_waste(nbytes, max_waste_percent_)) {
        const Block block{best->second, best->first};
        free_.erase(best);
        cached_bytes_ -= block.capacity;
        ++hits_;
        return block;
    }
    std::byte* data = system_allocate_(nbytes);  // a refusal propagates, and counts nothing
    ++misses_;
    return {data, nbytes};
}

void BestFitCache::release(Block block) noexcept {
    if (block.data == nullptr) {
        return;
    }
    // A new node of the map may not be had; the noexcept release then frees the block.
    try {
        free_.emplace(block.capacity, block.data);
        cached_bytes_ += block.capacity;
    } catch (const std::bad_alloc&) {
        system_free_(block.data);
    }
}

void BestFitCache::empty() noexcept {
    for (const auto& [capacity, data] : free_) {
        system_free_(data);
    }
    free_.clear();
    cached_bytes_ = 0;
}

std::int64_t BestFitCache::hits() const { return hits_; }

std::int64_t BestFitCache::misses() const { return misses_; }

std::int64_t BestFitCache::cached_bytes() const { return cached_bytes_; }

std::int64_t BestFitCache::cached_blocks() const {
    return static_cast<std::int64_t>(free_.size());
}

}  // namespace exercise

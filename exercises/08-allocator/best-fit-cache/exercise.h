#pragma once
// Exercise 08.1: a cache that serves a request from the best-fitting free block, within a
// bound on the bytes it wastes.

#include <cstddef>
#include <cstdint>
#include <map>

namespace exercise {

/// A block from BestFitCache::allocate: its address and its capacity, which may be larger
/// than the request it served. Give it back to release() as it came.
struct Block {
    std::byte* data = nullptr;
    std::int64_t capacity = 0;
};

/// A cache of free blocks of any capacity over injected system functions, as
/// kael::detail::BlockCache is, but with a best-fit policy: a request of n bytes takes the
/// cached block of the smallest capacity >= n, provided the waste (capacity - n) is at
/// most max_waste_percent percent of n. Otherwise it is a miss, and the system allocates
/// exactly n bytes. Not thread-safe: one thread uses it at a time. See README.md.
class BestFitCache {
public:
    /// Gets `capacity` bytes from the system; may throw.
    using SystemAllocate = std::byte* (*)(std::int64_t capacity);
    /// Returns a block from SystemAllocate to the system.
    using SystemFree = void (*)(std::byte* block) noexcept;

    /// An empty cache. ValueError unless 0 <= max_waste_percent <= 100.
    BestFitCache(SystemAllocate system_allocate, SystemFree system_free,
                 std::int64_t max_waste_percent);
    BestFitCache(const BestFitCache&) = delete;
    BestFitCache& operator=(const BestFitCache&) = delete;
    /// Gives every cached block back to the system, as empty() does.
    ~BestFitCache();

    /// At least `nbytes` bytes: the best-fitting cached block within the bound (a hit), or
    /// a new block of exactly `nbytes` from the system (a miss). ValueError for
    /// nbytes <= 0, and then nothing is counted.
    [[nodiscard]] Block allocate(std::int64_t nbytes);
    /// Takes back a block from allocate() into the cache, whatever its capacity.
    void release(Block block) noexcept;
    /// Gives every cached block back to the system. Blocks in use stay with their owners.
    void empty() noexcept;

    /// Allocations served from the cache.
    [[nodiscard]] std::int64_t hits() const;
    /// Allocations that went to the system.
    [[nodiscard]] std::int64_t misses() const;
    /// The capacities of the cached blocks, summed.
    [[nodiscard]] std::int64_t cached_bytes() const;
    /// How many blocks are cached.
    [[nodiscard]] std::int64_t cached_blocks() const;

private:
    SystemAllocate system_allocate_;
    SystemFree system_free_;
    std::int64_t max_waste_percent_;
    /// The free blocks by capacity; several may share one.
    std::multimap<std::int64_t, std::byte*> free_;
    std::int64_t hits_ = 0;
    std::int64_t misses_ = 0;
    std::int64_t cached_bytes_ = 0;
};

}  // namespace exercise

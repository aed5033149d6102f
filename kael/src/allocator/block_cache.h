#pragma once
// BlockCache: the caching allocator of one device (chapter 08). Freed blocks wait in a free
// list per capacity until a request of the same capacity takes them again, so a training
// loop that allocates the same sizes on every step stops calling the system allocator
// after its first step.
//
// The cache does not know where blocks come from: it is given the system's allocate and
// free functions. The library gives each device's cache its real ones (allocator.cpp); the
// tests give a cache counting fakes, so that its policy and its thread safety are tested
// in every build, including the sanitizer builds that compile the library's cache out.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#include "kael/allocator.h"

namespace kael::detail {

class BlockCache {
public:
    /// Gets `capacity` bytes from the system; may throw (std::bad_alloc, kael::Error).
    using SystemAllocate = std::byte* (*)(std::int64_t capacity);
    /// Returns a block from SystemAllocate to the system.
    using SystemFree = void (*)(std::byte* block) noexcept;

    /// A cache over `system_allocate` and `system_free` that keeps at most `max_cached`
    /// bytes of free blocks, enabled or not from the start.
    BlockCache(SystemAllocate system_allocate, SystemFree system_free, std::int64_t max_cached, bool enabled)
        : system_allocate_(system_allocate), system_free_(system_free), max_cached_(max_cached), enabled_(enabled) {}
    BlockCache(const BlockCache&) = delete;
    BlockCache& operator=(const BlockCache&) = delete;
    ~BlockCache() { empty(); }

    /// A block of exactly `capacity` bytes: a cached one when there is one (a hit),
    /// otherwise a new one from the system (a miss). When the system refuses, the cache
    /// gives its free blocks back and asks once more, as PyTorch's allocator does.
    std::byte* allocate(std::int64_t capacity) {
        {
            const std::lock_guard lock(mutex_);
            if (std::vector<std::byte*>* blocks = free_list(capacity); blocks != nullptr && !blocks->empty()) {
                std::byte* block = blocks->back();
                blocks->pop_back();
                stats_.cached_bytes -= capacity;
                ++stats_.hits;
                count_in_use(capacity);
                return block;
            }
            ++stats_.misses;
            stats_.in_use_bytes += capacity;  // the peak waits until the system said yes
            stats_.reserved_bytes += capacity;
        }
        // The system call runs outside the lock: it can take long (page faults, cudaMalloc),
        // and other threads may hit the cache meanwhile.
        try {
            std::byte* block = allocate_from_system(capacity);
            const std::lock_guard lock(mutex_);
            raise_peak();
            return block;
        } catch (...) {
            // Nothing was allocated: the counters go back to what they were.
            const std::lock_guard lock(mutex_);
            --stats_.misses;
            stats_.in_use_bytes -= capacity;
            stats_.reserved_bytes -= capacity;
            throw;
        }
    }

    /// Takes back a block of `capacity` bytes: into its free list when the cache is
    /// enabled and stays within its limit, otherwise straight back to the system. Runs in
    /// a noexcept deleter, so nothing here may throw.
    void release(std::byte* block, std::int64_t capacity) noexcept {
        {
            const std::lock_guard lock(mutex_);
            stats_.in_use_bytes -= capacity;
            if (enabled_ && stats_.cached_bytes + capacity <= limit() && try_cache(block, capacity)) {
                stats_.cached_bytes += capacity;
                return;
            }
            stats_.reserved_bytes -= capacity;
        }
        system_free_(block);
    }

    /// Returns every cached block to the system; blocks in use are untouched. The blocks
    /// are freed under the lock: collecting them first would need memory, and this runs
    /// where nothing may throw.
    void empty() noexcept {
        const std::lock_guard lock(mutex_);
        for (auto& [capacity, blocks] : free_) {
            for (std::byte* block : blocks) {
                system_free_(block);
            }
        }
        free_.clear();  // the lists' own memory too
        stats_.reserved_bytes -= stats_.cached_bytes;
        stats_.cached_bytes = 0;
    }

    /// Turns caching on or off; turning it off also empties the cache, so that every
    /// block from then on goes back to the system at once.
    void set_enabled(bool on) noexcept {
        {
            const std::lock_guard lock(mutex_);
            enabled_ = on;
        }
        if (!on) {
            empty();
        }
    }

    /// True while released blocks are kept.
    [[nodiscard]] bool enabled() const noexcept {
        const std::lock_guard lock(mutex_);
        return enabled_;
    }

    /// A consistent copy of the counters.
    [[nodiscard]] AllocatorStats stats() const noexcept {
        const std::lock_guard lock(mutex_);
        return stats_;
    }

    /// Starts the peak over from the bytes in use now.
    void reset_peak() noexcept {
        const std::lock_guard lock(mutex_);
        stats_.peak_in_use_bytes = stats_.in_use_bytes;
    }

    /// Held across fork() (allocator.cpp): the child then starts with an unlocked mutex and
    /// consistent lists, whatever another thread was doing when the parent forked.
    void lock_for_fork() noexcept { mutex_.lock(); }
    /// The other half of lock_for_fork(), in the parent and in the child.
    void unlock_after_fork() noexcept { mutex_.unlock(); }

private:
    std::vector<std::byte*>* free_list(std::int64_t capacity) {
        const auto found = free_.find(capacity);
        return found == free_.end() ? nullptr : &found->second;
    }

    void count_in_use(std::int64_t capacity) {
        stats_.in_use_bytes += capacity;
        raise_peak();
    }

//> until 13
//|     void raise_peak() { stats_.peak_in_use_bytes = std::max(stats_.peak_in_use_bytes, stats_.in_use_bytes); }
//|
//|     // The most bytes of free blocks the cache keeps.
//|     [[nodiscard]] std::int64_t limit() const { return max_cached_; }
//< until 13
//> stage 13
    void raise_peak() {
        stats_.peak_in_use_bytes = std::max(stats_.peak_in_use_bytes, stats_.in_use_bytes);
        high_water_ = std::max(high_water_, stats_.in_use_bytes);
    }

    // The most bytes of free blocks the cache keeps: the fixed limit, or as much as the
    // program ever had in use at once when that is more (chapter 12). A GPT-2 training step
    // has 2.6 GiB in use at its peak and cycles through more than 1 GiB of blocks: under
    // the fixed limit, a thousand of them went back to the system every step and came back
    // as fresh pages, a tenth of the step in page faults. A program that once needed this
    // much is likely to need it again, and the process still never holds more than twice
    // its high-water mark (in use, plus at most as much cached).
    [[nodiscard]] std::int64_t limit() const { return std::max(max_cached_, high_water_); }
//< stage 13

    // Putting a block in its list may allocate (a new list, or a list that grows), and a
    // std::bad_alloc must not escape the noexcept release: the block is then freed instead.
    bool try_cache(std::byte* block, std::int64_t capacity) noexcept {
        try {
            free_[capacity].push_back(block);
            return true;
        } catch (const std::bad_alloc&) {
            return false;
        }
    }

    std::byte* allocate_from_system(std::int64_t capacity) {
        try {
            return system_allocate_(capacity);
        } catch (const std::bad_alloc&) {
            empty();
            return system_allocate_(capacity);
        }
    }

    SystemAllocate system_allocate_;
    SystemFree system_free_;
    std::int64_t max_cached_;
//> stage 13
    std::int64_t high_water_ = 0;  // the most in use at once, ever (reset_peak leaves it)
//< stage 13
    mutable std::mutex mutex_;
    std::unordered_map<std::int64_t, std::vector<std::byte*>> free_;
    AllocatorStats stats_;
    bool enabled_;
};

}  // namespace kael::detail

// The caching allocator's wiring: one BlockCache per device over the system's allocate and
// free, the bucket policy, the three switches, and the fork handlers.
#include "kael/allocator.h"

#include <pthread.h>

#include <array>
#include <atomic>
#include <bit>
#include <cstdlib>
#include <mutex>
#include <new>

#include "allocator/block_cache.h"
#include "core/device_backend.h"
#include "kael/error.h"
#include "kael/storage.h"

namespace kael {
namespace detail {
namespace {

#ifdef KAEL_NO_CACHING_ALLOCATOR
// The sanitizer builds: a freed block that waits in a free list is still valid memory to
// AddressSanitizer, so a use after free would go unnoticed. Every release frees.
constexpr bool kCacheCompiledIn = false;
#else
constexpr bool kCacheCompiledIn = true;
#endif

constexpr std::int64_t kSmallStep = 512;
constexpr std::int64_t kSmallLimit = 64 * 1024;

// The aligned forms of operator new and operator delete must always be used as a pair;
// freeing aligned memory with the plain operator delete is undefined behavior.
std::byte* host_allocate(std::int64_t capacity) {
    return static_cast<std::byte*>(
        ::operator new(static_cast<std::size_t>(capacity), std::align_val_t{Storage::kAlignment}));
}

void host_free(std::byte* block) noexcept { ::operator delete(block, std::align_val_t{Storage::kAlignment}); }

std::byte* device_allocate(std::int64_t capacity) { return device::allocate(capacity); }

void device_free(std::byte* block) noexcept { device::free(block); }

bool enabled_at_start() { return kCacheCompiledIn && std::getenv("KAEL_NO_CACHING_ALLOCATOR") == nullptr; }

// The caches, made with new and never destroyed: a tensor with static storage duration may
// release its block after main returns, when a cache with a destructor would be gone.
using Caches = std::array<BlockCache*, 2>;

// The fork handlers reach the caches through this plain pointer: they must not run the
// guarded initialisation of a function-local static in the middle of fork().
std::atomic<Caches*> g_caches{nullptr};

void lock_caches_for_fork() {
    if (Caches* all = g_caches.load()) {
        for (BlockCache* cache : *all) {
            cache->lock_for_fork();
        }
    }
}

void unlock_caches_after_fork() {
    if (Caches* all = g_caches.load()) {
        for (BlockCache* cache : *all) {
            cache->unlock_after_fork();
        }
    }
}

Caches& caches() {
    static Caches* all = [] {
        auto* made = new Caches{new BlockCache(host_allocate, host_free, kMaxCachedBytes, enabled_at_start()),
                                new BlockCache(device_allocate, device_free, kMaxCachedBytes, enabled_at_start())};
        g_caches.store(made);
        // A thread inside allocate() while another forks would leave the child a locked
        // mutex; holding every cache's mutex across fork() gives the child unlocked ones.
        pthread_atfork(lock_caches_for_fork, unlock_caches_after_fork, unlock_caches_after_fork);
        return made;
    }();
    return *all;
}

// Made while the program starts, on one thread: a fork() during the very first
// allocation would otherwise give the child a guard variable stuck half-initialised.
[[maybe_unused]] const bool kCachesMadeAtStartUp = (caches(), true);

BlockCache& cache(Device device) { return *caches()[device == Device::CPU ? 0 : 1]; }

}  // namespace

std::int64_t block_capacity(std::int64_t nbytes) {
    KAEL_CHECK_VALUE(nbytes > 0 && nbytes <= kMaxBlockBytes, "cannot reserve " << nbytes << " bytes");
    if (nbytes <= kSmallLimit) {
        return (nbytes + kSmallStep - 1) / kSmallStep * kSmallStep;
    }
    return static_cast<std::int64_t>(std::bit_ceil(static_cast<std::uint64_t>(nbytes)));
}

std::byte* allocate_block(std::int64_t capacity, Device device) {
    try {
        return cache(device).allocate(capacity);
    } catch (const std::bad_alloc&) {
        // Typed like every other failure of kael, with the size that was too much.
        KAEL_CHECK(false, "cannot allocate " << capacity << " bytes on " << device << ": out of memory");
        unreachable();
    }
}

void release_block(std::byte* block, std::int64_t capacity, Device device) noexcept {
    cache(device).release(block, capacity);
}

}  // namespace detail

AllocatorStats allocator_stats(Device device) { return detail::cache(device).stats(); }

void reset_peak_allocator_stats(Device device) { detail::cache(device).reset_peak(); }

void empty_cache(Device device) { detail::cache(device).empty(); }

void set_caching_allocator_enabled(bool enabled) {
    for (detail::BlockCache* cache : detail::caches()) {
        cache->set_enabled(enabled && detail::kCacheCompiledIn);
    }
}

bool caching_allocator_enabled() { return detail::cache(Device::CPU).enabled(); }

}  // namespace kael

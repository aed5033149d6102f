#pragma once
/// \file
/// \brief The caching allocator: block buckets, statistics and switches (chapter 08).
///
/// Every Storage gets its block through here. A block's capacity is the request rounded up
/// to a bucket (detail::block_capacity); a freed block waits in its device's cache for the
/// next request of the same capacity instead of going back to the system. The cache is
/// compiled out when KAEL_NO_CACHING_ALLOCATOR is defined (CMake defines it for both
/// sanitizer builds), switched off at start-up by the environment variable of the same
/// name, and switched at run time with set_caching_allocator_enabled.

#include <cstddef>
#include <cstdint>

#include "kael/dtype.h"

namespace kael {

/// The counters of one device's allocator, in bytes of block capacity (not of requests).
struct AllocatorStats {
    std::int64_t in_use_bytes = 0;       ///< held by live storages
    std::int64_t cached_bytes = 0;       ///< in the free lists, ready for reuse
    std::int64_t reserved_bytes = 0;     ///< taken from the system and not given back: in use + cached
    std::int64_t peak_in_use_bytes = 0;  ///< the most in use at once since start or reset_peak_allocator_stats
    std::int64_t hits = 0;               ///< allocations served from the cache
    std::int64_t misses = 0;             ///< allocations that went to the system
};

/// The counters of `device`'s allocator.
[[nodiscard]] AllocatorStats allocator_stats(Device device = Device::CPU);
/// Starts the peak of `device`'s allocator over from the bytes in use now.
void reset_peak_allocator_stats(Device device = Device::CPU);
/// Returns every cached block of `device` to the system. Blocks in use stay where they are.
void empty_cache(Device device = Device::CPU);
/// Turns caching on or off for every device. Off also empties the caches; on has no
/// effect in a build that compiled the cache out (caching_allocator_enabled() says so).
void set_caching_allocator_enabled(bool enabled);
/// True while freed blocks are kept for reuse.
[[nodiscard]] bool caching_allocator_enabled();

namespace detail {

/// The most bytes a device's cache keeps; a block that would exceed it is freed instead.
inline constexpr std::int64_t kMaxCachedBytes = std::int64_t{1} << 30;
/// The largest request block_capacity accepts: 2^62 bytes, whose bucket still fits int64.
inline constexpr std::int64_t kMaxBlockBytes = std::int64_t{1} << 62;

/// The bucket of a request of `nbytes` (> 0): the next multiple of 512 up to 64 KiB, the
/// next power of two above. ValueError "cannot reserve <n> bytes" past kMaxBlockBytes.
[[nodiscard]] std::int64_t block_capacity(std::int64_t nbytes);
/// A block of `capacity` bytes (a block_capacity) on `device`, from its cache or the system.
[[nodiscard]] std::byte* allocate_block(std::int64_t capacity, Device device);
/// Gives a block from allocate_block back, with the same capacity and device.
void release_block(std::byte* block, std::int64_t capacity, Device device) noexcept;

}  // namespace detail
}  // namespace kael

#pragma once
// Streaming stores for large new outputs (chapter 08). Once the caching allocator hands a
// loop warm memory, what an element-wise operation into a new tensor still pays beyond
// `a += b` is the read for ownership: before a core writes part of a cache line it reads
// the whole line from memory, although every byte of it is about to be overwritten. A
// streaming (non-temporal) store writes full lines straight to memory without reading
// them, so `a + b` into a new 40 MB tensor moves 120 MB instead of 160 MB.
//
// The compiler never emits these stores by itself, and writing a vector kernel by hand for
// every element function would undo the one loop the compiler vectorizes for all of them.
// So the loop stays as it is, but writes into a small buffer that lives in L1, and each
// full buffer is streamed out with the widest store the build's instruction set has.
//
// Only outputs larger than the caches are streamed: a smaller result is read again soon by
// the next operation, and streaming it would send it to memory and fetch it back. And only
// while the caching allocator is on: then a large output is, in a loop, a block the cache
// hands back warm. With the cache off every large output is fresh pages, which the kernel
// zeroes through the cache on their first touch, and streaming stores would then have to
// push those lines out again: slower than ordinary stores (measured: 36-38 against 28-32 ms
// for the 40 MB add into fresh pages).

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kael/allocator.h"

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace kael::detail {

/// New outputs of at least this many bytes are written with streaming stores. Measured on
/// the chapter's machine: at 16 MiB both ways cost the same, from 32 MiB on streaming is
/// 15-20% faster even when the next operation reads the result.
inline constexpr std::int64_t kStreamingStoreBytes = std::int64_t{16} << 20;

/// The bytes computed into the L1 buffer before each streaming copy: a whole number of
/// cache lines and of vectors, small enough to stay in L1 with the loop's inputs.
inline constexpr std::size_t kStreamChunkBytes = 4096;

/// The alignment streaming stores need: one cache line (the widest store's size).
inline constexpr std::uintptr_t kStreamAlignment = 64;

/// Copies kStreamChunkBytes from `chunk` to `destination`, both aligned to
/// kStreamAlignment, without reading the destination's lines into the cache.
inline void stream_chunk(std::byte* destination, const std::byte* chunk) {
#if defined(__AVX512F__)
    for (std::size_t i = 0; i < kStreamChunkBytes; i += 64) {
        _mm512_stream_si512(reinterpret_cast<__m512i*>(destination + i),
                            _mm512_load_si512(reinterpret_cast<const __m512i*>(chunk + i)));
    }
#elif defined(__AVX__)
    for (std::size_t i = 0; i < kStreamChunkBytes; i += 32) {
        _mm256_stream_si256(reinterpret_cast<__m256i*>(destination + i),
                            _mm256_load_si256(reinterpret_cast<const __m256i*>(chunk + i)));
    }
#elif defined(__SSE2__)
    for (std::size_t i = 0; i < kStreamChunkBytes; i += 16) {
        _mm_stream_si128(reinterpret_cast<__m128i*>(destination + i),
                         _mm_load_si128(reinterpret_cast<const __m128i*>(chunk + i)));
    }
#else
    std::memcpy(destination, chunk, kStreamChunkBytes);  // no streaming store on this target
#endif
}

/// Streaming stores are weakly ordered: the fence makes them visible to every thread
/// before the tensor is handed on.
inline void stream_fence() {
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

/// True when a new output of `n` elements of T at `result` should be streamed: it is large,
/// aligned to a cache line, and the caching allocator is on.
template <typename T> bool streams(const T* result, std::int64_t n) {
    const bool large = n * static_cast<std::int64_t>(sizeof(T)) >= kStreamingStoreBytes;
    const bool aligned = reinterpret_cast<std::uintptr_t>(result) % kStreamAlignment == 0;
    return large && aligned && caching_allocator_enabled();
}

/// result[k] = element(k) for k < n, computed a chunk at a time into an L1 buffer and
/// streamed out; the last partial chunk is stored directly.
template <typename T, typename Element>
[[gnu::flatten]] void streamed_loop(T* result, std::int64_t n, Element element) {
    constexpr std::size_t buffer_size = kStreamChunkBytes / sizeof(T);
    constexpr auto chunk = static_cast<std::int64_t>(buffer_size);
    alignas(kStreamAlignment) T buffer[buffer_size];
    std::int64_t start = 0;
    for (; start + chunk <= n; start += chunk) {
        for (std::int64_t k = 0; k < chunk; ++k) {
            buffer[k] = element(start + k);
        }
        stream_chunk(reinterpret_cast<std::byte*>(result + start),
                     reinterpret_cast<const std::byte*>(buffer));
    }
    for (; start < n; ++start) {
        result[start] = element(start);
    }
    stream_fence();
}

}  // namespace kael::detail

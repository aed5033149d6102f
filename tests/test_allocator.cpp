// The caching allocator: the bucket policy at and around every boundary, reuse and the
// statistics through Storage, the 1 GiB limit and the switches, and its thread and fork
// safety. The policy tests drive a BlockCache over counting fakes, so they run in every
// build, including the sanitizer builds that compile the library's cache out.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "allocator/block_cache.h"
#include "kael/allocator.h"
#include "kael/kael.h"
#include "messages.h"

namespace {

using kael::AllocatorStats;
using kael::Storage;
using kael::detail::block_capacity;
using kael::detail::BlockCache;
using kael::testing::message_of;

// ---- The bucket policy ----------------------------------------------------------------

TEST(AllocatorBucket, TheTableOfTheChapter) {
    const std::vector<std::pair<std::int64_t, std::int64_t>> table{
        {1, 512},         {48, 512},         {512, 512},       {513, 1024},      {40000, 40448},
        {65536, 65536},   {65537, 131072},   {200000, 262144}, {262144, 262144}, {262145, 524288}};
    for (const auto& [request, capacity] : table) {
        EXPECT_EQ(block_capacity(request), capacity) << request << " bytes";
    }
}

TEST(AllocatorBucket, SmallRequestsRoundToMultiplesOf512UpTo64KiB) {
    for (std::int64_t n = 1; n <= 65536; n += 97) {
        const std::int64_t capacity = block_capacity(n);
        EXPECT_EQ(capacity % 512, 0) << n;
        EXPECT_GE(capacity, n);
        EXPECT_LT(capacity - n, 512) << n;  // internal waste below one step
    }
}

TEST(AllocatorBucket, LargeRequestsRoundToPowersOfTwo) {
    for (std::int64_t power = 17; power <= 62; ++power) {
        const std::int64_t size = std::int64_t{1} << power;
        EXPECT_EQ(block_capacity(size), size);
        EXPECT_EQ(block_capacity(size - 1), size);
        if (power < 62) {
            EXPECT_EQ(block_capacity(size + 1), size * 2);
        }
    }
}

TEST(AllocatorBucket, RefusesZeroNegativeAndPast2To62) {
    const std::int64_t limit = kael::detail::kMaxBlockBytes;
    EXPECT_EQ(block_capacity(limit), limit);  // exactly at the limit
    const std::string message = message_of([&] { (void)block_capacity(limit + 1); });  // one past it
    EXPECT_NE(message.find("cannot reserve 4611686018427387905 bytes"), std::string::npos) << message;
    EXPECT_THROW((void)block_capacity(0), kael::ValueError);
    EXPECT_THROW((void)block_capacity(-1), kael::ValueError);
    // Storage passes the request through: past the limit a ValueError, at it the system
    // refuses, as a kael::Error rather than a std::bad_alloc.
    EXPECT_THROW((void)Storage(limit + 1), kael::ValueError);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    // The sanitizers' own allocators abort on a 4 EiB request instead of refusing it.
    EXPECT_THROW((void)Storage(limit), kael::Error);
#endif
}

// ---- The cache's policy over counting fakes ----------------------------------------------

// A fake system: hands out distinct addresses without memory behind them, and counts.
struct FakeSystem {
    static inline std::atomic<std::int64_t> allocations{0};
    static inline std::atomic<std::int64_t> frees{0};
    static inline std::atomic<std::uintptr_t> next{4096};
    static inline std::atomic<bool> refuse{false};
    static std::byte* allocate(std::int64_t capacity) {
        if (refuse) {
            throw std::bad_alloc();
        }
        ++allocations;
        return reinterpret_cast<std::byte*>(next.fetch_add(static_cast<std::uintptr_t>(capacity)));
    }
    static void free(std::byte* /*block*/) noexcept { ++frees; }
    static void reset() {
        allocations = 0;
        frees = 0;
        refuse = false;
    }
};

BlockCache fake_cache(std::int64_t max_cached = kael::detail::kMaxCachedBytes, bool enabled = true) {
    FakeSystem::reset();
    return BlockCache(FakeSystem::allocate, FakeSystem::free, max_cached, enabled);
}

TEST(CachingAllocator, AReleasedBlockServesTheNextRequestOfItsCapacity) {
    BlockCache cache = fake_cache();
    std::byte* first = cache.allocate(1024);
    cache.release(first, 1024);
    EXPECT_EQ(cache.allocate(1024), first);  // a hit: the same block
    std::byte* other = cache.allocate(2048);  // another capacity: a miss
    EXPECT_NE(other, first);
    const AllocatorStats stats = cache.stats();
    EXPECT_EQ(stats.hits, 1);
    EXPECT_EQ(stats.misses, 2);
    EXPECT_EQ(FakeSystem::allocations, 2);
    EXPECT_EQ(stats.in_use_bytes, 1024 + 2048);
    EXPECT_EQ(stats.cached_bytes, 0);
    EXPECT_EQ(stats.reserved_bytes, 1024 + 2048);
}

TEST(CachingAllocator, StatisticsFollowEveryAllocationAndRelease) {
    BlockCache cache = fake_cache();
    std::byte* a = cache.allocate(512);
    std::byte* b = cache.allocate(4096);
    cache.release(a, 512);
    AllocatorStats stats = cache.stats();
    EXPECT_EQ(stats.in_use_bytes, 4096);
    EXPECT_EQ(stats.cached_bytes, 512);
    EXPECT_EQ(stats.reserved_bytes, 4608);
    EXPECT_EQ(stats.peak_in_use_bytes, 4608);
    cache.release(b, 4096);
    cache.reset_peak();
    stats = cache.stats();
    EXPECT_EQ(stats.in_use_bytes, 0);
    EXPECT_EQ(stats.peak_in_use_bytes, 0);
    EXPECT_EQ(stats.reserved_bytes, stats.in_use_bytes + stats.cached_bytes);
}

TEST(CachingAllocator, EmptyCacheFreesCachedBlocksOnly) {
    BlockCache cache = fake_cache();
    std::byte* kept = cache.allocate(512);
    cache.release(cache.allocate(1024), 1024);
    cache.release(cache.allocate(8192), 8192);
    cache.empty();
    const AllocatorStats stats = cache.stats();
    EXPECT_EQ(FakeSystem::frees, 2);
    EXPECT_EQ(stats.cached_bytes, 0);
    EXPECT_EQ(stats.in_use_bytes, 512);
    EXPECT_EQ(stats.reserved_bytes, 512);
    cache.release(kept, 512);
}

TEST(CachingAllocator, TheLimitIsOneGibibyteOfCachedBlocks) {
    BlockCache cache = fake_cache();
    const std::int64_t gib = kael::detail::kMaxCachedBytes;
    cache.release(cache.allocate(gib), gib);  // exactly at the limit: kept
    EXPECT_EQ(cache.stats().cached_bytes, gib);
    EXPECT_EQ(FakeSystem::frees, 0);
    std::byte* small = cache.allocate(512);  // no cached block of 512: a miss
    cache.release(small, 512);               // one block past the limit: freed
    EXPECT_EQ(cache.stats().cached_bytes, gib);
    EXPECT_EQ(FakeSystem::frees, 1);
    EXPECT_EQ(cache.stats().reserved_bytes, gib);
}
//> stage 13

TEST(CachingAllocator, TheLimitGrowsToTheMostEverInUseAtOnce) {
    BlockCache cache = fake_cache();
    const std::int64_t gib = kael::detail::kMaxCachedBytes;
    std::vector<std::byte*> blocks;
    for (int i = 0; i < 3; ++i) {
        blocks.push_back(cache.allocate(gib));  // 3 GiB in use at once
    }
    cache.reset_peak();  // the reported peak starts over; the high-water mark does not
    for (std::byte* block : blocks) {
        cache.release(block, gib);
    }
    EXPECT_EQ(cache.stats().cached_bytes, 3 * gib);  // all kept: the limit is now 3 GiB
    EXPECT_EQ(FakeSystem::frees, 0);
    for (int i = 0; i < 3; ++i) {
        EXPECT_NE(cache.allocate(gib), nullptr);  // and the next step finds them all again
    }
    EXPECT_EQ(cache.stats().hits, 3);
    EXPECT_EQ(FakeSystem::allocations, 3);
    for (std::byte* block : blocks) {
        cache.release(block, gib);
    }
    // Past the high-water mark the cache frees again: never more cached than that.
    cache.release(cache.allocate(512), 512);
    EXPECT_EQ(cache.stats().cached_bytes, 3 * gib);
    EXPECT_EQ(FakeSystem::frees, 1);
}
//< stage 13

TEST(CachingAllocator, ADisabledCacheFreesEveryReleaseAndEnablingAgainKeepsThem) {
    BlockCache cache = fake_cache(kael::detail::kMaxCachedBytes, /*enabled=*/false);
    cache.release(cache.allocate(512), 512);
    EXPECT_EQ(FakeSystem::frees, 1);
    EXPECT_EQ(cache.stats().cached_bytes, 0);
    cache.set_enabled(true);
    cache.release(cache.allocate(512), 512);
    EXPECT_EQ(FakeSystem::frees, 1);
    EXPECT_EQ(cache.stats().cached_bytes, 512);
    cache.set_enabled(false);  // switching off empties the cache
    EXPECT_EQ(FakeSystem::frees, 2);
    EXPECT_EQ(cache.stats().reserved_bytes, 0);
}

TEST(CachingAllocator, ASystemRefusalEmptiesTheCacheRetriesAndThenReports) {
    BlockCache cache = fake_cache();
    cache.release(cache.allocate(512), 512);
    FakeSystem::refuse = true;
    EXPECT_THROW((void)cache.allocate(1024), std::bad_alloc);
    const AllocatorStats stats = cache.stats();
    EXPECT_EQ(FakeSystem::frees, 1);  // the cached block went back before the retry
    EXPECT_EQ(stats.in_use_bytes, 0);
    EXPECT_EQ(stats.reserved_bytes, 0);  // the failed request is not counted as reserved
    EXPECT_EQ(stats.misses, 1);          // nor as a system allocation: only the first one was
    EXPECT_EQ(stats.peak_in_use_bytes, 512);  // and the peak is what was really in use
    FakeSystem::refuse = false;
}

TEST(CachingAllocator, ConcurrentAllocationAndReleaseKeepTheCountersExact) {
    BlockCache cache = fake_cache();
    constexpr int kThreads = 8;
    constexpr int kRounds = 5000;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&cache, t] {
            for (int i = 0; i < kRounds; ++i) {
                const std::int64_t capacity = 512 * (1 + (i + t) % 4);
                std::byte* block = cache.allocate(capacity);
                cache.release(block, capacity);
            }
        });
    }
    for (std::thread& thread : threads) {
        thread.join();
    }
    const AllocatorStats stats = cache.stats();
    EXPECT_EQ(stats.hits + stats.misses, kThreads * kRounds);
    EXPECT_EQ(stats.in_use_bytes, 0);
    EXPECT_EQ(stats.reserved_bytes, stats.cached_bytes);
    EXPECT_LE(stats.misses, kThreads * 4);  // at most one block per thread and capacity
}

// ---- The library's allocator, through Storage ---------------------------------------------

// Skips a test that needs the cache in a build (or an environment) without it.
#define KAEL_REQUIRE_CACHE()                                                                  \
    if (!kael::caching_allocator_enabled()) {                                                  \
        GTEST_SKIP() << "the caching allocator is off in this build or environment";          \
    }

TEST(CachingAllocator, StorageReusesTheBlockOfAFreedStorageOfTheSameBucket) {
    KAEL_REQUIRE_CACHE();
    const std::byte* first = nullptr;
    {
        const Storage storage(1000);
        first = storage.data();
    }
    const AllocatorStats before = kael::allocator_stats();
    const Storage again(1020);  // another request, the same 1024-byte bucket
    EXPECT_EQ(again.data(), first);
    EXPECT_EQ(kael::allocator_stats().hits, before.hits + 1);
}

TEST(CachingAllocator, NbytesIsTheRequestSoViewsCannotReachTheSlack) {
    const kael::Tensor t = kael::zeros({250});  // 1000 bytes in a 1024-byte block
    EXPECT_EQ(t.impl()->storage->nbytes(), 1000);
    EXPECT_NO_THROW((void)t.as_strided({250}, {1}, 0));
    EXPECT_THROW((void)t.as_strided({256}, {1}, 0), kael::Error);  // would fit the block, not the storage
}

TEST(CachingAllocator, EmptyCacheAndTheRunTimeSwitchAreSeenInTheStatistics) {
    KAEL_REQUIRE_CACHE();
    { const Storage storage(3 * 65536); }  // a 262144-byte block, now cached
    EXPECT_GE(kael::allocator_stats().cached_bytes, 262144);
    kael::empty_cache();
    EXPECT_EQ(kael::allocator_stats().cached_bytes, 0);
    kael::set_caching_allocator_enabled(false);
    EXPECT_FALSE(kael::caching_allocator_enabled());
    { const Storage storage(4096); }
    EXPECT_EQ(kael::allocator_stats().cached_bytes, 0);  // released into a disabled cache: freed
    kael::set_caching_allocator_enabled(true);
    EXPECT_TRUE(kael::caching_allocator_enabled());
}

TEST(CachingAllocator, ASteadyTrainingLoopMakesNoSystemAllocations) {
    KAEL_REQUIRE_CACHE();
    kael::manual_seed(0);
    kael::nn::Sequential model({std::make_shared<kael::nn::Linear>(64, 32), std::make_shared<kael::nn::ReLU>(),
                                std::make_shared<kael::nn::Linear>(32, 10)});
    kael::optim::Adam adam(model.parameters(), {.lr = 1e-3});
    const kael::Tensor x = kael::randn({16, 64});
    const kael::Tensor y = kael::randint(0, 10, {16});
    const auto step = [&] {
        adam.zero_grad();
        const kael::Tensor loss = kael::cross_entropy(model(x), y);
        loss.backward();
        adam.step();
    };
    step();  // the first steps fill the cache (and create Adam's state)
    step();
    const AllocatorStats warm = kael::allocator_stats();
    for (int i = 0; i < 5; ++i) {
        step();
    }
    const AllocatorStats after = kael::allocator_stats();
    EXPECT_EQ(after.misses, warm.misses);  // zero system allocations per step
    EXPECT_GT(after.hits, warm.hits);
    EXPECT_EQ(after.in_use_bytes, warm.in_use_bytes);
}

TEST(CachingAllocator, TheEnvironmentVariableTurnsTheCacheOffAtStartUp) {
    if (std::getenv("KAEL_NO_CACHING_ALLOCATOR") == nullptr) {
        GTEST_SKIP() << "run by CTest with KAEL_NO_CACHING_ALLOCATOR=1 (CachingAllocator.EnvironmentSwitch)";
    }
    EXPECT_FALSE(kael::caching_allocator_enabled());
    const AllocatorStats before = kael::allocator_stats();
    { const Storage storage(512); }
    EXPECT_EQ(kael::allocator_stats().cached_bytes, before.cached_bytes);
}

TEST(CachingAllocator, ADeviceWithoutABackendFailsCleanlyAndCountsNothing) {
    if (kael::cuda_is_available()) {
        GTEST_SKIP() << "this build has a GPU";
    }
    EXPECT_THROW((void)kael::detail::allocate_block(512, kael::Device::CUDA), kael::Error);
    const AllocatorStats stats = kael::allocator_stats(kael::Device::CUDA);
    EXPECT_EQ(stats.in_use_bytes, 0);
    EXPECT_EQ(stats.reserved_bytes, 0);
    EXPECT_EQ(stats.misses, 0);
}

TEST(CachingAllocator, ManyThreadsAllocateAndReleaseStoragesAtOnce) {
    const AllocatorStats before = kael::allocator_stats();
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([t] {
            for (int i = 0; i < 2000; ++i) {
                const kael::Tensor a = kael::ones({16 * (1 + (i + t) % 8)});
                const kael::Tensor b = kael::add(a, a);
                ASSERT_EQ(b.numel(), a.numel());
            }
        });
    }
    for (std::thread& thread : threads) {
        thread.join();
    }
    EXPECT_EQ(kael::allocator_stats().in_use_bytes, before.in_use_bytes);
}

TEST(CachingAllocator, AChildProcessCanAllocateAfterFork) {
    // Another thread allocates all the time, so the fork is likely to land while it holds
    // the cache's lock; the fork handlers must give the child an unlocked cache anyway.
    std::atomic<bool> stop{false};
    std::thread busy([&stop] {
        while (!stop) {
            const Storage storage(2048);
        }
    });
    for (int round = 0; round < 20; ++round) {
        const pid_t child = fork();
        ASSERT_NE(child, -1);
        if (child == 0) {
            const kael::Tensor t = kael::ones({1000});
            const Storage storage(2048);
            _exit(kael::sum(t).item() == 1000.0 && storage.data() != nullptr ? 0 : 1);
        }
        int status = 0;
        ASSERT_EQ(waitpid(child, &status, 0), child);
        ASSERT_TRUE(WIFEXITED(status)) << "round " << round;
        EXPECT_EQ(WEXITSTATUS(status), 0) << "round " << round;
    }
    stop = true;
    busy.join();
}

}  // namespace

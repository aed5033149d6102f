// Tests of exercise 08.1. Every test fails until BestFitCache is implemented. The cache
// runs over a fake system that hands out addresses without memory behind them, so the
// tests run in every build, with or without kael's own cache.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <new>
#include <vector>

#include "exercise.h"
#include "kael/error.h"

namespace {

using exercise::Block;
using exercise::BestFitCache;

// A fake system: distinct addresses, the capacity of each block it has out, and counts.
struct FakeSystem {
    static inline std::map<std::byte*, std::int64_t> live;
    static inline std::int64_t allocations = 0;
    static inline std::int64_t frees = 0;
    static inline std::int64_t unknown_frees = 0;  // blocks it never gave, or gave back twice
    static inline std::uintptr_t next = 4096;
    static inline bool refuse = false;

    static std::byte* allocate(std::int64_t capacity) {
        if (refuse) {
            throw std::bad_alloc();
        }
        ++allocations;
        auto* block = reinterpret_cast<std::byte*>(next);
        next += static_cast<std::uintptr_t>(capacity) + 64;
        live[block] = capacity;
        return block;
    }
    static void free(std::byte* block) noexcept {
        ++frees;
        if (live.erase(block) == 0) {
            ++unknown_frees;
        }
    }
    static void reset() {
        live.clear();
        allocations = frees = unknown_frees = 0;
        refuse = false;
    }
};

BestFitCache make_cache(std::int64_t max_waste_percent) {
    FakeSystem::reset();
    return BestFitCache(FakeSystem::allocate, FakeSystem::free, max_waste_percent);
}

// Allocates a block of each capacity (every one a miss, the cache being empty until the
// releases), then releases them in the order given, and returns them.
std::vector<Block> seed(BestFitCache& cache, const std::vector<std::int64_t>& capacities) {
    std::vector<Block> blocks;
    for (const std::int64_t capacity : capacities) {
        blocks.push_back(cache.allocate(capacity));
    }
    for (const Block& block : blocks) {
        cache.release(block);
    }
    return blocks;
}

TEST(BestFitCache, AnEmptyCacheMissesToTheSystem) {
    BestFitCache cache = make_cache(25);
    EXPECT_EQ(cache.hits(), 0);
    EXPECT_EQ(cache.misses(), 0);
    EXPECT_EQ(cache.cached_bytes(), 0);
    EXPECT_EQ(cache.cached_blocks(), 0);
    const Block block = cache.allocate(1000);
    ASSERT_NE(block.data, nullptr);
    EXPECT_EQ(block.capacity, 1000);  // a miss asks for exactly the request
    EXPECT_EQ(FakeSystem::live[block.data], 1000);
    EXPECT_EQ(cache.misses(), 1);
    EXPECT_EQ(cache.hits(), 0);
    cache.empty();  // nothing cached, nothing freed
    EXPECT_EQ(FakeSystem::frees, 0);
    cache.release(block);
}

TEST(BestFitCache, AReleasedBlockServesTheSameSize) {
    BestFitCache cache = make_cache(25);
    const Block first = cache.allocate(1000);
    cache.release(first);
    EXPECT_EQ(cache.cached_bytes(), 1000);
    EXPECT_EQ(cache.cached_blocks(), 1);
    EXPECT_EQ(FakeSystem::frees, 0);  // kept, not freed
    const Block again = cache.allocate(1000);
    EXPECT_EQ(again.data, first.data);
    EXPECT_EQ(again.capacity, 1000);
    EXPECT_EQ(cache.hits(), 1);
    EXPECT_EQ(cache.misses(), 1);
    EXPECT_EQ(cache.cached_bytes(), 0);
    EXPECT_EQ(FakeSystem::allocations, 1);
    cache.release(again);
}

TEST(BestFitCache, PicksTheSmallestAdequateBlock) {
    BestFitCache cache = make_cache(50);
    // Released out of order, so that neither the first nor the last one is the best.
    const std::vector<Block> b = seed(cache, {900, 1300, 1100, 1200});
    const Block first = cache.allocate(1000);
    EXPECT_EQ(first.capacity, 1100);
    EXPECT_EQ(first.data, b[2].data);
    const Block second = cache.allocate(1000);
    EXPECT_EQ(second.capacity, 1200);
    const Block third = cache.allocate(1000);
    EXPECT_EQ(third.capacity, 1300);
    const Block fourth = cache.allocate(1000);  // only 900 is left: too small
    EXPECT_EQ(fourth.capacity, 1000);
    EXPECT_EQ(cache.hits(), 3);
    EXPECT_EQ(cache.misses(), 5);
    EXPECT_EQ(cache.cached_bytes(), 900);
    EXPECT_EQ(cache.cached_blocks(), 1);
    for (const Block& block : {first, second, third, fourth}) {
        cache.release(block);
    }
}

TEST(BestFitCache, ExactlyAtTheBoundIsAHit) {
    BestFitCache cache = make_cache(25);
    const std::vector<Block> b = seed(cache, {1250});  // wastes 250 of 1000: 25%
    const Block block = cache.allocate(1000);
    EXPECT_EQ(block.data, b[0].data);
    EXPECT_EQ(block.capacity, 1250);
    EXPECT_EQ(cache.hits(), 1);
    EXPECT_EQ(cache.cached_blocks(), 0);
    cache.release(block);
}

TEST(BestFitCache, OneBytePastTheBoundIsAMiss) {
    BestFitCache cache = make_cache(25);
    const std::vector<Block> b = seed(cache, {1251});  // wastes 251 of 1000
    const Block block = cache.allocate(1000);
    EXPECT_NE(block.data, b[0].data);
    EXPECT_EQ(block.capacity, 1000);
    EXPECT_EQ(cache.hits(), 0);
    EXPECT_EQ(cache.misses(), 2);
    EXPECT_EQ(FakeSystem::allocations, 2);
    EXPECT_EQ(cache.cached_bytes(), 1251);  // the large block stays cached
    cache.release(block);
}

TEST(BestFitCache, FractionalBoundsCompareExactly) {
    {
        // 25% of 1001 is 250.25 bytes: a waste of 250 is within it, 251 is not.
        BestFitCache cache = make_cache(25);
        seed(cache, {1252, 1251});
        EXPECT_EQ(cache.allocate(1001).capacity, 1251);
        EXPECT_EQ(cache.allocate(1001).capacity, 1001);
        EXPECT_EQ(cache.hits(), 1);
        EXPECT_EQ(cache.cached_bytes(), 1252);
    }
    {
        // 10% of 15 is 1.5 bytes.
        BestFitCache cache = make_cache(10);
        seed(cache, {17, 16});
        EXPECT_EQ(cache.allocate(15).capacity, 16);
        EXPECT_EQ(cache.allocate(15).capacity, 15);
        EXPECT_EQ(cache.cached_bytes(), 17);
    }
}

TEST(BestFitCache, ZeroAndHundredPercentAreTheLimits) {
    {
        BestFitCache cache = make_cache(0);  // exact capacities only
        seed(cache, {1001});
        EXPECT_EQ(cache.allocate(1000).capacity, 1000);
        EXPECT_EQ(cache.allocate(1001).capacity, 1001);
        EXPECT_EQ(cache.hits(), 1);
    }
    {
        BestFitCache cache = make_cache(100);  // up to twice the request
        seed(cache, {2001, 2000});
        EXPECT_EQ(cache.allocate(1000).capacity, 2000);
        EXPECT_EQ(cache.allocate(1000).capacity, 1000);
        EXPECT_EQ(cache.hits(), 1);
        EXPECT_EQ(cache.cached_bytes(), 2001);
    }
}

TEST(BestFitCache, AServedBlockComesBackAtItsCapacity) {
    BestFitCache cache = make_cache(50);
    seed(cache, {1400});
    const Block block = cache.allocate(1000);
    ASSERT_EQ(block.capacity, 1400);
    cache.release(block);
    EXPECT_EQ(cache.cached_bytes(), 1400);  // all of it, not the 1000 bytes asked for
    EXPECT_EQ(cache.allocate(1400).data, block.data);  // and it still serves 1400 bytes
    EXPECT_EQ(cache.hits(), 2);
    EXPECT_EQ(cache.misses(), 1);
}

TEST(BestFitCache, BlocksOfOneCapacityAreAllReused) {
    BestFitCache cache = make_cache(25);
    const std::vector<Block> b = seed(cache, {512, 512});
    EXPECT_EQ(cache.cached_blocks(), 2);
    EXPECT_EQ(cache.cached_bytes(), 1024);
    const Block one = cache.allocate(512);
    const Block two = cache.allocate(512);
    EXPECT_NE(one.data, two.data);
    EXPECT_TRUE(one.data == b[0].data || one.data == b[1].data);
    EXPECT_TRUE(two.data == b[0].data || two.data == b[1].data);
    const Block three = cache.allocate(512);
    EXPECT_EQ(cache.hits(), 2);
    EXPECT_EQ(cache.misses(), 3);
    cache.release(Block{});  // a null block is nothing to keep
    EXPECT_EQ(cache.cached_blocks(), 0);
    for (const Block& block : {one, two, three}) {
        cache.release(block);
    }
    EXPECT_EQ(cache.cached_blocks(), 3);
    EXPECT_EQ(cache.cached_bytes(), 3 * 512);
    EXPECT_EQ(FakeSystem::frees, 0);
}

TEST(BestFitCache, EmptyFreesCachedBlocksOnly) {
    BestFitCache cache = make_cache(25);
    seed(cache, {512, 4096, 8192});
    const Block kept = cache.allocate(4096);
    cache.empty();
    EXPECT_EQ(FakeSystem::frees, 2);
    EXPECT_EQ(FakeSystem::unknown_frees, 0);
    EXPECT_EQ(cache.cached_bytes(), 0);
    EXPECT_EQ(cache.cached_blocks(), 0);
    EXPECT_EQ(FakeSystem::live.size(), 1U);  // the block in use is left alone
    EXPECT_EQ(FakeSystem::live.count(kept.data), 1U);
    const Block after = cache.allocate(512);  // the cache is empty: a miss
    EXPECT_EQ(cache.misses(), 4);
    cache.release(after);
    cache.release(kept);
}

TEST(BestFitCache, TheDestructorFreesCachedBlocks) {
    {
        BestFitCache cache = make_cache(25);
        seed(cache, {512, 1024, 1024});
        EXPECT_EQ(FakeSystem::live.size(), 3U);
    }
    EXPECT_EQ(FakeSystem::frees, 3);
    EXPECT_EQ(FakeSystem::unknown_frees, 0);
    EXPECT_TRUE(FakeSystem::live.empty());
}

TEST(BestFitCache, RefusesABadBoundOrRequest) {
    EXPECT_NO_THROW(make_cache(0));
    EXPECT_NO_THROW(make_cache(100));
    EXPECT_THROW(make_cache(-1), kael::ValueError);
    EXPECT_THROW(make_cache(101), kael::ValueError);
    BestFitCache cache = make_cache(25);
    EXPECT_THROW((void)cache.allocate(0), kael::ValueError);
    EXPECT_THROW((void)cache.allocate(-512), kael::ValueError);
    EXPECT_EQ(cache.hits(), 0);  // a refused request counts as nothing
    EXPECT_EQ(cache.misses(), 0);
    EXPECT_EQ(FakeSystem::allocations, 0);
}

TEST(BestFitCache, ASystemRefusalPropagatesUncounted) {
    BestFitCache cache = make_cache(25);
    seed(cache, {1300});  // past the bound for 1000 bytes
    FakeSystem::refuse = true;
    EXPECT_THROW((void)cache.allocate(1000), std::bad_alloc);
    FakeSystem::refuse = false;
    EXPECT_EQ(cache.misses(), 1);  // the seed's allocation only
    EXPECT_EQ(cache.hits(), 0);
    EXPECT_EQ(cache.cached_bytes(), 1300);
}

}  // namespace

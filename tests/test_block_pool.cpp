// serve::BlockPool and serve::PagedKVCache (chapter 13): blocks handed out and given back,
// prompts' prefixes kept and reused, and a paged cache that gives the model exactly what
// nn::KVCache gives it.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <set>
#include <vector>

#include "kael/kael.h"
#include "own_matmul_kernels.h"
#include "kael/nn/batched_decode.h"
#include "kael/serve/block_pool.h"
#include "kael/serve/paged_kv_cache.h"

namespace {

using kael::Tensor;
using kael::nn::GPT;
using kael::nn::GPTConfig;
using kael::serve::BlockPool;
using kael::serve::PagedKVCache;
using Ids = std::vector<std::int64_t>;

// The elements of a float tensor, to compare bit for bit.
std::vector<float> values_of(const Tensor& t) {
    const Tensor flat = t.contiguous();
    return {flat.data_ptr<float>(), flat.data_ptr<float>() + flat.numel()};
}

GPTConfig small() {
    return {.vocab_size = 41, .block_size = 48, .n_layer = 2, .n_head = 2, .n_embd = 16, .dropout = 0.0,
            .layer_norm_epsilon = 1e-5, .fused_attention = true};
}

Ids count_from(std::int64_t first, std::int64_t n) {
    Ids ids;
    for (std::int64_t i = 0; i < n; ++i) {
        ids.push_back((first + i) % 41);
    }
    return ids;
}

TEST(BlockPool, HandsOutBlocksTakesThemBackAndRefusesPastItsSize) {
    BlockPool pool(small(), 4, 8);
    EXPECT_EQ(pool.blocks(), 4);
    EXPECT_EQ(pool.blocks_for(0), 0);
    EXPECT_EQ(pool.blocks_for(8), 1);
    EXPECT_EQ(pool.blocks_for(9), 2);
    const auto three = pool.allocate(3);
    ASSERT_TRUE(three);
    EXPECT_EQ(std::set<std::int64_t>(three->begin(), three->end()).size(), 3U);
    EXPECT_FALSE(pool.allocate(2));  // one is free
    EXPECT_EQ(pool.free_blocks(), 1);
    EXPECT_EQ(pool.stats().used, 3);
    pool.release(*three);
    EXPECT_EQ(pool.free_blocks(), 4);
    EXPECT_THROW(pool.release(*three), kael::ValueError);  // not held any more
    EXPECT_THROW(pool.release(Ids{4}), kael::ValueError);  // out of range
    EXPECT_EQ(pool.keys(0).shape(), (kael::Shape{4, 2, 8, 8}));
    EXPECT_THROW(BlockPool(small(), 0, 8), kael::ValueError);
    EXPECT_THROW(BlockPool(small(), 2, 0), kael::ValueError);
}

TEST(BlockPool, AFinishedPromptsFullBlocksServeTheNextPromptThatStartsTheSame) {
    BlockPool pool(small(), 6, 4);
    const Ids prompt = count_from(1, 10);  // two full blocks and half of a third
    const auto blocks = pool.allocate(3);
    ASSERT_TRUE(blocks);
    pool.register_prefix(prompt, *blocks);
    pool.release(*blocks);
    EXPECT_EQ(pool.stats().cached, 2);  // the half-filled block holds nothing reusable
    Ids longer = count_from(1, 8);
    longer.insert(longer.end(), {30, 31, 32});
    const Ids taken = pool.take_prefix(longer, 100);
    EXPECT_EQ(taken, (Ids{(*blocks)[0], (*blocks)[1]}));
    EXPECT_EQ(pool.stats().hit_tokens, 8);
    EXPECT_EQ(pool.stats().hit_requests, 1);
    EXPECT_EQ(pool.stats().used, 2);
    pool.release(taken);
    EXPECT_EQ(pool.take_prefix(longer, 7).size(), 1U);  // whole blocks within the limit only
    pool.release(Ids{(*blocks)[0]});
    Ids other = count_from(1, 8);
    other[5] = 40;  // the second block differs
    const Ids first_only = pool.take_prefix(other, 100);
    EXPECT_EQ(first_only, (Ids{(*blocks)[0]}));
    pool.release(first_only);
    EXPECT_TRUE(pool.take_prefix(count_from(2, 8), 100).empty());
}

TEST(BlockPool, ReclaimingACachedBlockForgetsItAndTheBlocksAfterIt) {
    BlockPool pool(small(), 2, 2);
    const Ids prompt{1, 2, 3, 4};
    const auto blocks = pool.allocate(2);
    ASSERT_TRUE(blocks);
    pool.register_prefix(prompt, *blocks);
    pool.release(*blocks);
    EXPECT_EQ(pool.stats().cached, 2);
    const auto one = pool.allocate(1);  // the least recently used: the first block
    ASSERT_TRUE(one);
    EXPECT_EQ(*one, (Ids{(*blocks)[0]}));
    EXPECT_EQ(pool.stats().cached, 1);
    // The second block is still cached, but what came before it is gone: no prompt reaches it.
    EXPECT_TRUE(pool.take_prefix(prompt, 4).empty());
    pool.release(*one);
}

TEST(PagedKVCache, GivesTheModelTheLogitsOfAKVCacheBitForBit) {
    const OwnMatmulKernels own_kernels;
    kael::manual_seed(3);
    GPT model(small());
    model.eval();
    const kael::autograd::NoGradGuard no_grad;
    BlockPool pool(small(), 12, 4);
    const Ids prompt = count_from(5, 21);
    kael::nn::KVCache plain(small(), 1, 24);
    const std::unique_ptr<PagedKVCache> paged = PagedKVCache::reserve(pool, 24, prompt, 0);
    ASSERT_TRUE(paged);
    EXPECT_EQ(paged->blocks().size(), 6U);
    const Tensor tokens = kael::from_vector(prompt, {1, 21});
    const Tensor expected = model.forward(tokens, plain, kael::nn::Logits::All);
    // The paged cache in two chunks that cross blocks, 11 positions then 10: more than 8
    // rows each, as the scheduler cuts them (a product of fewer rows sums in another order).
    const Tensor first = model.forward(tokens.narrow(1, 0, 11), *paged, kael::nn::Logits::All);
    const Tensor second = model.forward(tokens.narrow(1, 11, 10), *paged, kael::nn::Logits::All);
    EXPECT_EQ(values_of(kael::cat({first, second}, 1)), values_of(expected));
    for (const std::int64_t next : {7, 8, 9}) {  // decode steps over both
        kael::nn::AttentionCache* one[] = {&plain};
        kael::nn::AttentionCache* other[] = {paged.get()};
        EXPECT_EQ(values_of(kael::nn::decode_step(model, Ids{next}, one)),
                  values_of(kael::nn::decode_step(model, Ids{next}, other)));
    }
    EXPECT_EQ(paged->length(), 24);
    EXPECT_THROW((void)paged->append(0, kael::zeros({1, 2, 9, 8}), kael::zeros({1, 2, 9, 8})), kael::ValueError);
    EXPECT_THROW((void)paged->append(0, kael::zeros({1, 3, 1, 8}), kael::zeros({1, 3, 1, 8})), kael::ValueError);
}

TEST(PagedKVCache, ReservesEveryBlockAtOnceOrNoneAndGivesThemBackWhenDestroyed) {
    BlockPool pool(small(), 5, 4);
    const Ids prompt = count_from(0, 12);
    {
        const std::unique_ptr<PagedKVCache> big = PagedKVCache::reserve(pool, 17, prompt, 0);  // 5 blocks
        ASSERT_TRUE(big);
        EXPECT_EQ(pool.free_blocks(), 0);
        EXPECT_FALSE(PagedKVCache::reserve(pool, 1, prompt, 0));
        pool.register_prefix(prompt, big->blocks());
    }
    EXPECT_EQ(pool.free_blocks(), 5);
    EXPECT_EQ(pool.stats().cached, 3);
    // A prompt that starts the same way starts with the cached positions stored.
    const std::unique_ptr<PagedKVCache> reused = PagedKVCache::reserve(pool, 16, prompt, 9);
    ASSERT_TRUE(reused);
    EXPECT_EQ(reused->reused(), 8);  // two whole blocks within 9 positions
    EXPECT_EQ(reused->length(), 8);
    EXPECT_EQ(pool.stats().used, 4);
    // Too few blocks for the rest: nothing stays taken, the cached prefix included.
    EXPECT_FALSE(PagedKVCache::reserve(pool, 20, prompt, 9));
    EXPECT_EQ(pool.stats().used, 4);
}

}  // namespace

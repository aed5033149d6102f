// nn::KVCache and the cached GPT forward (chapter 12): the logits of a cached forward are
// the full forward's, however the sequence is cut into steps.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kael/kael.h"

namespace {

using kael::DType;
using kael::Tensor;
using kael::nn::GPT;
using kael::nn::GPTConfig;
using kael::nn::KVCache;
using kael::nn::Logits;

GPTConfig small() {
    return {.vocab_size = 13, .block_size = 12, .n_layer = 2, .n_head = 2, .n_embd = 16, .dropout = 0.0,
            .layer_norm_epsilon = 1e-5, .fused_attention = true};
}

// The largest absolute difference of two tensors of one shape.
double max_difference(const Tensor& a, const Tensor& b) { return kael::amax(kael::abs(kael::sub(a, b))).item(); }

// Logits of `indices` [1, T] fed to a cached forward in chunks of the given lengths.
Tensor cached_logits(GPT& model, const Tensor& indices, const std::vector<std::int64_t>& chunks) {
    KVCache cache(model.config(), 1, indices.size(1));
    std::vector<Tensor> pieces;
    std::int64_t start = 0;
    for (const std::int64_t length : chunks) {
        pieces.push_back(model.forward(indices.narrow(1, start, length), cache, Logits::All));
        start += length;
    }
    EXPECT_EQ(cache.length(), indices.size(1));
    return kael::cat(pieces, 1);
}

TEST(KVCache, AppendReturnsThePastAndTheNewPositions) {
    const GPTConfig config = small();
    KVCache cache(config, 2, 5);
    EXPECT_EQ(cache.nbytes(), 2 * config.n_layer * 2 * 5 * config.n_embd * 4);  // keys and values, float32
    const Tensor k1 = kael::randn({2, 2, 3, 8});
    const Tensor v1 = kael::randn({2, 2, 3, 8});
    const auto [keys1, values1] = cache.append(0, k1, v1);
    EXPECT_EQ(keys1.shape(), (kael::Shape{2, 2, 3, 8}));
    cache.advance(3);
    const Tensor k2 = kael::randn({2, 2, 2, 8});
    const Tensor v2 = kael::randn({2, 2, 2, 8});
    const auto [keys2, values2] = cache.append(0, k2, v2);
    EXPECT_EQ(keys2.shape(), (kael::Shape{2, 2, 5, 8}));  // exactly the capacity
    EXPECT_EQ(max_difference(keys2, kael::cat({k1, k2}, 2)), 0.0);
    EXPECT_EQ(max_difference(values2, kael::cat({v1, v2}, 2)), 0.0);
    cache.clear();
    EXPECT_EQ(cache.length(), 0);
}

TEST(KVCache, PositionsPastTheCapacityAreRefused) {
    KVCache cache(small(), 1, 4);
    (void)cache.append(1, kael::randn({1, 2, 4, 8}), kael::randn({1, 2, 4, 8}));  // exactly 4
    cache.advance(4);
    EXPECT_THROW((void)cache.append(1, kael::randn({1, 2, 1, 8}), kael::randn({1, 2, 1, 8})), kael::ValueError);
    EXPECT_THROW(cache.advance(1), kael::ValueError);
    EXPECT_THROW(KVCache(small(), 1, 13), kael::ValueError);  // past the block size of 12
    EXPECT_NO_THROW(KVCache(small(), 1, 12));
    EXPECT_THROW(KVCache(small(), 0, 4), kael::ValueError);
    EXPECT_THROW(KVCache(small(), 1, 0), kael::ValueError);
}

TEST(KVCache, ShapesAndLayersOtherThanTheCachesAreRefused) {
    KVCache cache(small(), 1, 4);
    const Tensor ok = kael::randn({1, 2, 1, 8});
    EXPECT_THROW((void)cache.append(2, ok, ok), kael::ValueError);  // two layers: 0 and 1
    EXPECT_THROW((void)cache.append(0, kael::randn({2, 2, 1, 8}), kael::randn({2, 2, 1, 8})), kael::ValueError);
    EXPECT_THROW((void)cache.append(0, kael::randn({1, 2, 1, 4}), kael::randn({1, 2, 1, 4})), kael::ValueError);
    EXPECT_THROW((void)cache.append(0, ok, kael::randn({1, 2, 2, 8})), kael::ValueError);
    EXPECT_NO_THROW((void)cache.append(0, ok, ok));
}

TEST(CachedGpt, OneTokenAtATimeGivesTheFullForwardsLogits) {
    kael::manual_seed(3);
    GPT model(small());
    model.eval();
    const kael::autograd::NoGradGuard no_grad;
    const Tensor indices = kael::randint(0, 13, {1, 12});
    const Tensor full = model(indices);
    EXPECT_LT(max_difference(cached_logits(model, indices, std::vector<std::int64_t>(12, 1)), full), 1e-5);
}

TEST(CachedGpt, APromptThenChunksOfAnyLengthGiveTheSameLogits) {
    kael::manual_seed(4);
    GPT model(small());
    model.eval();
    const kael::autograd::NoGradGuard no_grad;
    const Tensor indices = kael::randint(0, 13, {1, 12});
    const Tensor full = model(indices);
    for (const auto& chunks : std::vector<std::vector<std::int64_t>>{{12}, {5, 1, 1, 5}, {1, 11}, {3, 4, 5}}) {
        EXPECT_LT(max_difference(cached_logits(model, indices, chunks), full), 1e-5);
    }
}

TEST(CachedGpt, LogitsLastIsTheLastRowOfAll) {
    kael::manual_seed(5);
    GPT model(small());
    model.eval();
    const kael::autograd::NoGradGuard no_grad;
    const Tensor indices = kael::randint(0, 13, {2, 7});
    KVCache all(model.config(), 2, 7);
    KVCache last(model.config(), 2, 7);
    const Tensor every = model.forward(indices, all, Logits::All);
    const Tensor final_row = model.forward(indices, last, Logits::Last);
    EXPECT_EQ(final_row.shape(), (kael::Shape{2, 1, 13}));
    EXPECT_LT(max_difference(final_row, every.narrow(1, 6, 1)), 1e-6);
}

TEST(CachedGpt, EachSequenceOfABatchHasItsOwnCache) {
    kael::manual_seed(6);
    GPT model(small());
    model.eval();
    const kael::autograd::NoGradGuard no_grad;
    const Tensor indices = kael::randint(0, 13, {3, 9});
    KVCache cache(model.config(), 3, 9);
    (void)model.forward(indices.narrow(1, 0, 6), cache);
    const Tensor steps = model.forward(indices.narrow(1, 6, 3), cache);
    EXPECT_LT(max_difference(steps, model(indices).narrow(1, 6, 3)), 1e-5);
}

TEST(CachedGpt, TooManyPositionsAreRefusedAndTheCacheIsUnchanged) {
    kael::manual_seed(7);
    GPT model(small());
    const kael::autograd::NoGradGuard no_grad;
    KVCache cache(model.config(), 1, 6);
    (void)model.forward(kael::randint(0, 13, {1, 4}), cache);
    EXPECT_THROW((void)model.forward(kael::randint(0, 13, {1, 3}), cache), kael::ValueError);  // 7 > 6
    EXPECT_EQ(cache.length(), 4);
    EXPECT_NO_THROW((void)model.forward(kael::randint(0, 13, {1, 2}), cache));  // exactly 6
    EXPECT_EQ(cache.length(), 6);
    KVCache pair(model.config(), 2, 6);
    EXPECT_THROW((void)model.forward(kael::randint(0, 13, {1, 2}), pair), kael::ValueError);  // batch 1, cache 2
    EXPECT_THROW((void)model.forward(kael::randint(0, 13, {2, 0}), pair), kael::ValueError);  // no position
}

}  // namespace

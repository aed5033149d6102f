// nn::decode_step (chapter 13): several sequences' decode steps as one pass over the
// weights, each row exactly what its sequence gets when decoded alone.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "helpers.h"
#include "kael/kael.h"
#include "kael/nn/batched_decode.h"

namespace {

using kael::Tensor;
using kael::nn::GPT;
using kael::nn::GPTConfig;
using kael::nn::KVCache;
using kael::nn::Logits;
using kael::testing::values;
using Ids = std::vector<std::int64_t>;

// 32 channels and 128 MLP channels: whole vectors on every CPU, as GPT-2's 768 are.
GPTConfig small() {
    return {.vocab_size = 37, .block_size = 16, .n_layer = 2, .n_head = 2, .n_embd = 32, .dropout = 0.0,
            .layer_norm_epsilon = 1e-5, .fused_attention = true};
}

Tensor row(const Ids& ids) { return kael::from_vector(ids, kael::Shape{1, static_cast<std::int64_t>(ids.size())}); }

// A cache holding `prompt`, filled by the model's own cached forward.
std::unique_ptr<KVCache> prefilled(GPT& model, const Ids& prompt) {
    auto cache = std::make_unique<KVCache>(model.config(), 1, model.config().block_size);
    (void)model.forward(row(prompt), *cache, Logits::Last);
    return cache;
}

TEST(BatchedDecode, EachRowIsItsSequenceDecodedAloneBitForBit) {
    kael::manual_seed(5);
    GPT model(small());
    model.eval();
    const std::vector<Ids> prompts{{1, 2, 3}, {4}, {5, 6, 7, 8, 9, 10}, {11, 12}, {0, 36, 1, 35, 2}};
    const Ids next{7, 8, 9, 10, 11};
    const kael::autograd::NoGradGuard no_grad;
    std::vector<std::unique_ptr<KVCache>> alone;
    std::vector<std::unique_ptr<KVCache>> together;
    std::vector<kael::nn::AttentionCache*> caches;
    for (const Ids& prompt : prompts) {
        alone.push_back(prefilled(model, prompt));
        together.push_back(prefilled(model, prompt));
        caches.push_back(together.back().get());
    }
    // Two steps: the second reads what the first appended.
    for (int step = 0; step < 2; ++step) {
        const Tensor logits = kael::nn::decode_step(model, next, caches);
        ASSERT_EQ(logits.shape(), (kael::Shape{5, 37}));
        for (std::size_t r = 0; r < prompts.size(); ++r) {
            const Tensor single = model.forward(row({next[r]}), *alone[r], Logits::Last).view({1, 37});
            EXPECT_EQ(values<float>(logits.narrow(0, static_cast<std::int64_t>(r), 1)), values<float>(single))
                << "sequence " << r << ", step " << step;
            EXPECT_EQ(together[r]->length(), alone[r]->length());
        }
    }
}

TEST(BatchedDecode, MatchesTheFullForwardOfEachSequence) {
    kael::manual_seed(6);
    GPT model(small());
    model.eval();
    const kael::autograd::NoGradGuard no_grad;
    const Ids a{3, 1, 4, 1, 5};
    const Ids b{9, 2};
    auto cache_a = prefilled(model, a);
    auto cache_b = prefilled(model, b);
    std::vector<kael::nn::AttentionCache*> caches{cache_a.get(), cache_b.get()};
    const Tensor logits = kael::nn::decode_step(model, Ids{6, 6}, caches);
    for (const auto& [prompt, r] : {std::pair{a, 0}, std::pair{b, 1}}) {
        Ids whole = prompt;
        whole.push_back(6);
        const Tensor full = model.forward(row(whole)).select(1, static_cast<std::int64_t>(whole.size()) - 1);
        EXPECT_LT(kael::amax(kael::abs(full - logits.narrow(0, r, 1))).item(), 1e-5);
    }
}

TEST(BatchedDecode, RefusesBadArgumentsAndLeavesTheCachesAlone) {
    GPT model(small());
    const kael::autograd::NoGradGuard no_grad;
    auto first = prefilled(model, {1, 2});
    auto second = prefilled(model, {3});
    KVCache two_rows(model.config(), 2, 4);
    KVCache* none = nullptr;
    auto refuses = [&](const Ids& tokens, std::vector<kael::nn::AttentionCache*> caches) {
        EXPECT_THROW((void)kael::nn::decode_step(model, tokens, caches), kael::ValueError);
        EXPECT_EQ(first->length(), 2);
        EXPECT_EQ(second->length(), 1);
    };
    refuses({}, {});
    refuses({1}, {first.get(), second.get()});
    refuses({1}, {none});
    refuses({1, 2}, {first.get(), first.get()});
    refuses({1}, {&two_rows});
    refuses({1, -1}, {first.get(), second.get()});
    refuses({1, 37}, {first.get(), second.get()});  // vocab_size itself: one past the last id
    (void)kael::nn::decode_step(model, Ids{1, 36}, std::vector<kael::nn::AttentionCache*>{first.get(), second.get()});  // the last id
    EXPECT_EQ(first->length(), 3);
    EXPECT_EQ(second->length(), 2);
}

TEST(BatchedDecode, AFullCacheIsRefusedAndOneBelowItTakesTheLastPosition) {
    GPT model(small());
    const kael::autograd::NoGradGuard no_grad;
    KVCache cache(model.config(), 1, 3);
    (void)model.forward(row({1, 2}), cache, Logits::Last);
    std::vector<kael::nn::AttentionCache*> caches{&cache};
    (void)kael::nn::decode_step(model, Ids{3}, caches);  // length 2 of 3: the last place
    EXPECT_EQ(cache.length(), 3);
    EXPECT_THROW((void)kael::nn::decode_step(model, Ids{4}, caches), kael::ValueError);
    EXPECT_EQ(cache.length(), 3);
}

}  // namespace

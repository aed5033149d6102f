// nn::generate (chapter 12): greedy and sampled continuation, with and without the cache,
// and the four ways it stops.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kael/kael.h"

namespace {

using kael::nn::Generation;
using kael::nn::GenerationOptions;
using kael::nn::GPT;
using kael::nn::GPTConfig;
using kael::nn::StopReason;
using Ids = std::vector<std::int64_t>;

GPTConfig small() {
    return {.vocab_size = 17, .block_size = 16, .n_layer = 2, .n_head = 2, .n_embd = 16, .dropout = 0.0,
            .layer_norm_epsilon = 1e-5, .fused_attention = true};
}

GenerationOptions greedy(std::int64_t tokens) {
    GenerationOptions options;
    options.max_new_tokens = tokens;
    options.sampling.temperature = 0.0;
    return options;
}

// The greedy continuation computed the slow way: the whole sequence through forward(),
// the argmax of the last row, again and again.
Ids greedy_by_hand(GPT& model, Ids sequence, std::int64_t tokens) {
    const kael::autograd::NoGradGuard no_grad;
    Ids produced;
    for (std::int64_t i = 0; i < tokens; ++i) {
        const kael::Tensor logits =
            model(kael::from_vector(sequence, kael::Shape{1, static_cast<std::int64_t>(sequence.size())}));
        const kael::Tensor last = logits.select(1, logits.size(1) - 1).select(0, 0);
        produced.push_back(kael::argmax(last).item<std::int64_t>());
        sequence.push_back(produced.back());
    }
    return produced;
}

TEST(Generate, GreedyWithTheCacheIsGreedyWithoutAndByHand) {
    kael::manual_seed(11);
    GPT model(small());
    const Ids prompt{1, 5, 9, 2};
    GenerationOptions without = greedy(10);
    without.use_cache = false;
    const Generation cached = kael::nn::generate(model, prompt, greedy(10));
    EXPECT_EQ(cached.tokens.size(), 10U);
    EXPECT_EQ(cached.reason, StopReason::MaxNewTokens);
    EXPECT_EQ(cached.tokens, kael::nn::generate(model, prompt, without).tokens);
    EXPECT_EQ(cached.tokens, greedy_by_hand(model, prompt, 10));
}

TEST(Generate, TheSameSeedSamplesTheSameTokensAndAnotherSeedOthers) {
    kael::manual_seed(12);
    GPT model(small());
    GenerationOptions options;
    options.max_new_tokens = 12;
    options.sampling.temperature = 1.5;  // flat enough that two seeds differ
    kael::manual_seed(100);
    const Ids first = kael::nn::generate(model, Ids{3}, options).tokens;
    kael::manual_seed(100);
    EXPECT_EQ(kael::nn::generate(model, Ids{3}, options).tokens, first);
    kael::manual_seed(101);
    EXPECT_NE(kael::nn::generate(model, Ids{3}, options).tokens, first);
}

TEST(Generate, TheStopTokenEndsTheTextAndIsNotReturned) {
    kael::manual_seed(13);
    GPT model(small());
    const Ids prompt{4, 4, 8};
    const Ids all = kael::nn::generate(model, prompt, greedy(6)).tokens;
    GenerationOptions options = greedy(6);
    options.stop_token = all[2];
    const Generation stopped = kael::nn::generate(model, prompt, options);
    EXPECT_EQ(stopped.reason, StopReason::StopToken);
    const auto first = static_cast<std::size_t>(std::find(all.begin(), all.end(), all[2]) - all.begin());
    EXPECT_EQ(stopped.tokens, Ids(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(first)));
}

TEST(Generate, ItStopsWhenTheContextIsFull) {
    kael::manual_seed(14);
    GPT model(small());  // block size 16
    // Positions 0..15 exist; the token after position 15 comes from its logits, so a prompt
    // of 14 tokens can grow by 3, to 17 tokens, the last of which is never fed back.
    const Generation at_limit = kael::nn::generate(model, Ids(14, 1), greedy(3));
    EXPECT_EQ(at_limit.tokens.size(), 3U);
    EXPECT_EQ(at_limit.reason, StopReason::MaxNewTokens);
    const Generation past = kael::nn::generate(model, Ids(14, 1), greedy(4));
    EXPECT_EQ(past.tokens.size(), 3U);
    EXPECT_EQ(past.reason, StopReason::ContextFull);
    EXPECT_EQ(past.tokens, at_limit.tokens);
    // A prompt that fills the context gets exactly one token, the argmax of its last row.
    const Ids full(16, 2);
    const Generation one = kael::nn::generate(model, full, greedy(2));
    ASSERT_EQ(one.tokens.size(), 1U);
    EXPECT_EQ(one.reason, StopReason::ContextFull);
    EXPECT_EQ(one.tokens, greedy_by_hand(model, full, 1));
    // Without the cache the same boundary holds: the whole 16 tokens run as one forward.
    GenerationOptions uncached = greedy(4);
    uncached.use_cache = false;
    EXPECT_EQ(kael::nn::generate(model, Ids(14, 1), uncached).tokens, past.tokens);
}

TEST(Generate, TheCallbackSeesEachTokenAndCanStop) {
    kael::manual_seed(15);
    GPT model(small());
    Ids seen;
    const Generation result = kael::nn::generate(model, Ids{2, 3}, greedy(8), [&](std::int64_t token) {
        seen.push_back(token);
        return seen.size() < 3;
    });
    EXPECT_EQ(result.reason, StopReason::Callback);
    EXPECT_EQ(result.tokens, seen);
    EXPECT_EQ(seen.size(), 3U);
    EXPECT_GE(result.prefill_seconds, 0.0);
    EXPECT_GE(result.decode_seconds, 0.0);
}

TEST(Generate, BadRequestsAreRefusedBeforeTheModelRuns) {
    kael::manual_seed(16);
    GPT model(small());
    EXPECT_THROW((void)kael::nn::generate(model, Ids{}, greedy(1)), kael::ValueError);
    EXPECT_THROW((void)kael::nn::generate(model, Ids(17, 1), greedy(1)), kael::ValueError);  // past 16
    EXPECT_EQ(kael::nn::generate(model, Ids(16, 1), greedy(1)).tokens.size(), 1U);  // a full context still predicts
    EXPECT_THROW((void)kael::nn::generate(model, Ids{17}, greedy(1)), kael::ValueError);  // vocabulary 0..16
    EXPECT_THROW((void)kael::nn::generate(model, Ids{-1}, greedy(1)), kael::ValueError);
    EXPECT_NO_THROW((void)kael::nn::generate(model, Ids{16}, greedy(1)));
    EXPECT_THROW((void)kael::nn::generate(model, Ids{1}, greedy(-1)), kael::ValueError);
    EXPECT_TRUE(kael::nn::generate(model, Ids{1}, greedy(0)).tokens.empty());
    GenerationOptions bad = greedy(1);
    bad.sampling.top_p = 0.0;
    EXPECT_THROW((void)kael::nn::generate(model, Ids{1}, bad), kael::ValueError);
}

}  // namespace

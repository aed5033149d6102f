// serve::adjusted_logits and serve::token_logprobs (chapter 13): OpenAI's penalties and
// bias, and the log-probabilities a server reports, on one row of logits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "kael/kael.h"
#include "kael/serve/token_scores.h"

namespace {

using kael::Tensor;
using kael::serve::LogitAdjustments;

std::vector<float> values_of(const Tensor& t) {
    const Tensor flat = t.contiguous();
    return {flat.data_ptr<float>(), flat.data_ptr<float>() + flat.numel()};
}

TEST(TokenScores, AdjustedLogitsFollowOpenAIsFormula) {
    const Tensor logits = kael::from_vector<float>({0, 1, 2, 3}, {1, 4});
    LogitAdjustments adjust;
    adjust.presence_penalty = 0.5;
    adjust.frequency_penalty = 0.25;
    adjust.logit_bias = {{0, 5.0}, {2, -100.0}};
    const std::unordered_map<std::int64_t, std::int64_t> counts = {{1, 2}, {3, 1}};
    // logit - count * frequency - (count > 0) * presence + bias
    EXPECT_EQ(values_of(kael::serve::adjusted_logits(logits, counts, adjust)),
              (std::vector<float>{5.0F, 1 - 0.5F - 0.5F, 2 - 100.0F, 3 - 0.25F - 0.5F}));
    EXPECT_EQ(values_of(logits), (std::vector<float>{0, 1, 2, 3}));  // the input stays as it was
    EXPECT_FALSE(LogitAdjustments{}.any());
    EXPECT_TRUE(adjust.any());
    adjust.logit_bias = {{4, 1.0}};  // one past the vocabulary
    EXPECT_THROW((void)kael::serve::adjusted_logits(logits, counts, adjust), kael::ValueError);
    EXPECT_THROW((void)kael::serve::adjusted_logits(kael::zeros({2, 4}), {}, LogitAdjustments{}), kael::ValueError);
}

TEST(TokenScores, LogprobsAreTheLogSoftmaxWithTheMostLikelyFirst) {
    const Tensor logits = kael::from_vector<float>({1, 3, 2, 3});
    const double normaliser = std::log(std::exp(1.0) + 2 * std::exp(3.0) + std::exp(2.0));
    const kael::serve::TokenLogprobs scores = kael::serve::token_logprobs(logits, 0, 3);
    EXPECT_EQ(scores.token, 0);
    EXPECT_NEAR(*scores.logprob, 1 - normaliser, 1e-12);
    ASSERT_EQ(scores.top.size(), 3U);
    EXPECT_EQ(scores.top[0].first, 1);  // equals in the order of their ids
    EXPECT_EQ(scores.top[1].first, 3);
    EXPECT_EQ(scores.top[2].first, 2);
    EXPECT_NEAR(scores.top[2].second, 2 - normaliser, 1e-12);
    EXPECT_EQ(kael::serve::token_logprobs(logits, 2, 0).top.size(), 0U);
    EXPECT_EQ(kael::serve::token_logprobs(logits, 2, 10).top.size(), 4U);  // no more than the vocabulary
    // Far apart logits neither overflow nor underflow to -inf for the likely token.
    const kael::serve::TokenLogprobs wide = kael::serve::token_logprobs(kael::from_vector<float>({1000, -1000}), 0, 1);
    EXPECT_NEAR(*wide.logprob, 0.0, 1e-12);
    EXPECT_THROW((void)kael::serve::token_logprobs(logits, 4, 1), kael::ValueError);
    EXPECT_THROW((void)kael::serve::token_logprobs(logits, 0, -1), kael::ValueError);
}

}  // namespace

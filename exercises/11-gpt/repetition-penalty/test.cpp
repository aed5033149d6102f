// Tests of exercise 11.1. Every test fails until apply_repetition_penalty is implemented.
// The last three decode greedily with kael::nn::sample_next, as a generation loop does.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "exercise.h"
#include "kael/error.h"
#include "kael/factory.h"
#include "kael/nn/sampling.h"

namespace {

using exercise::apply_repetition_penalty;
using Logits = std::vector<double>;
using Ids = std::vector<std::int64_t>;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The token greedy decoding picks from one row: sample_next at temperature 0, the most
// likely token and the first of equals.
std::int64_t greedy(const Logits& logits) {
    kael::nn::SamplingOptions options;
    options.temperature = 0;
    return kael::nn::sample_next(kael::from_vector(logits), options).item<std::int64_t>();
}

TEST(RepetitionPenalty, PositiveLogitsAreDivided) {
    const Logits out = apply_repetition_penalty({2.0, 1.5, 4.0, 0.5}, {0, 2}, 2.0);
    ASSERT_EQ(out.size(), 4U);
    EXPECT_EQ(out[0], 1.0);
    EXPECT_EQ(out[1], 1.5);  // not generated: as it was
    EXPECT_EQ(out[2], 2.0);
    EXPECT_EQ(out[3], 0.5);
    EXPECT_DOUBLE_EQ(apply_repetition_penalty({3.0}, {0}, 1.3)[0], 3.0 / 1.3);
}

TEST(RepetitionPenalty, NegativeLogitsAreMultiplied) {
    // Dividing -1 by 2 would give -0.5: a larger logit, a token made more likely.
    const Logits out = apply_repetition_penalty({-1.0, -1.5, -0.25, 0.5}, {0, 2}, 2.0);
    EXPECT_EQ(out[0], -2.0);
    EXPECT_EQ(out[1], -1.5);
    EXPECT_EQ(out[2], -0.5);
    EXPECT_EQ(out[3], 0.5);
    EXPECT_DOUBLE_EQ(apply_repetition_penalty({-3.0}, {0}, 1.3)[0], -3.0 * 1.3);
    // Every generated logit ends up lower for a penalty above 1, whatever its sign.
    const Logits mixed{-4.0, -0.1, 0.1, 4.0};
    const Logits lowered = apply_repetition_penalty(mixed, {0, 1, 2, 3}, 1.5);
    for (std::size_t i = 0; i < mixed.size(); ++i) {
        EXPECT_LT(lowered[i], mixed[i]) << i;
    }
}

TEST(RepetitionPenalty, AZeroLogitStaysZero) {
    // Exactly 0, and the smallest steps to either side of it: the positive one is divided,
    // the negative one multiplied.
    const Logits out = apply_repetition_penalty({0.0, 1e-300, -1e-300, -0.0}, {0, 1, 2, 3}, 2.0);
    EXPECT_EQ(out[0], 0.0);
    EXPECT_DOUBLE_EQ(out[1], 5e-301);
    EXPECT_DOUBLE_EQ(out[2], -2e-300);
    EXPECT_EQ(out[3], 0.0);
    EXPECT_FALSE(std::isnan(out[0]));
}

TEST(RepetitionPenalty, MaskedTokensStayMasked) {
    // -inf is a token that may not be drawn (sample_next accepts it); a penalty keeps it so.
    const Logits out = apply_repetition_penalty({-kInf, 1.0, -kInf}, {0, 1}, 3.0);
    EXPECT_EQ(out[0], -kInf);
    EXPECT_DOUBLE_EQ(out[1], 1.0 / 3.0);
    EXPECT_EQ(out[2], -kInf);
}

TEST(RepetitionPenalty, APenaltyOfOneChangesNothing) {
    const Logits logits{-2.75, -0.1, 0.0, 0.3, 7.125, -kInf};
    EXPECT_EQ(apply_repetition_penalty(logits, {0, 1, 2, 3, 4, 5}, 1.0), logits);  // to the last bit
    // One step to either side of 1 already moves a logit, in opposite directions.
    const double above = std::nextafter(1.0, 2.0);
    const double below = std::nextafter(1.0, 0.0);
    const Logits up = apply_repetition_penalty({1.0, -1.0}, {0, 1}, above);
    EXPECT_LT(up[0], 1.0);
    EXPECT_LT(up[1], -1.0);
    const Logits down = apply_repetition_penalty({1.0, -1.0}, {0, 1}, below);
    EXPECT_GT(down[0], 1.0);
    EXPECT_GT(down[1], -1.0);
}

TEST(RepetitionPenalty, APenaltyBelowOneRewardsRepetition) {
    // Allowed, as in Hugging Face: the same rule, now raising every generated logit.
    const Logits out = apply_repetition_penalty({2.0, -2.0, 1.0}, {0, 1}, 0.5);
    EXPECT_EQ(out[0], 4.0);
    EXPECT_EQ(out[1], -1.0);
    EXPECT_EQ(out[2], 1.0);
    // Just above 0 is a valid penalty too.
    const Logits tiny = apply_repetition_penalty({1.0, -1.0}, {0, 1}, 1e-300);
    EXPECT_DOUBLE_EQ(tiny[0], 1e300);
    EXPECT_DOUBLE_EQ(tiny[1], -1e-300);
}

TEST(RepetitionPenalty, EachTokenIsPenalisedOnce) {
    const Logits logits{8.0, -8.0, 3.0};
    const Logits once = apply_repetition_penalty(logits, {0, 1}, 2.0);
    EXPECT_EQ(once, (Logits{4.0, -16.0, 3.0}));
    // Three occurrences are still one token: not 8 / 2^3.
    EXPECT_EQ(apply_repetition_penalty(logits, {0, 0, 0, 1}, 2.0), once);
    EXPECT_EQ(apply_repetition_penalty(logits, {1, 0, 1, 0, 1}, 2.0), once);
    EXPECT_EQ(apply_repetition_penalty({5.0}, Ids(100, 0), 5.0), (Logits{1.0}));
}

TEST(RepetitionPenalty, AnEmptyHistoryChangesNothing) {
    const Logits logits{3.5, -1.25, 0.0, -kInf};
    EXPECT_EQ(apply_repetition_penalty(logits, {}, 2.0), logits);
    EXPECT_EQ(apply_repetition_penalty(logits, {}, 1e-9), logits);
    // An empty vocabulary with an empty history is an empty row.
    EXPECT_TRUE(apply_repetition_penalty({}, {}, 2.0).empty());
}

TEST(RepetitionPenalty, TheLastIdIsVMinusOneAndVIsOutOfRange) {
    const Logits logits{1.0, 2.0, 3.0, 4.0};  // V = 4
    EXPECT_EQ(apply_repetition_penalty(logits, {3}, 2.0), (Logits{1.0, 2.0, 3.0, 2.0}));
    EXPECT_EQ(apply_repetition_penalty(logits, {0}, 2.0), (Logits{0.5, 2.0, 3.0, 4.0}));
    EXPECT_THROW((void)apply_repetition_penalty(logits, {4}, 2.0), kael::IndexError);
    EXPECT_THROW((void)apply_repetition_penalty(logits, {-1}, 2.0), kael::IndexError);
    EXPECT_THROW((void)apply_repetition_penalty(logits, {std::numeric_limits<std::int64_t>::max()}, 2.0),
                 kael::IndexError);
    EXPECT_THROW((void)apply_repetition_penalty(logits, {std::numeric_limits<std::int64_t>::min()}, 2.0),
                 kael::IndexError);
    // One bad id among good ones, wherever it is.
    EXPECT_THROW((void)apply_repetition_penalty(logits, {0, 1, 4}, 2.0), kael::IndexError);
    EXPECT_THROW((void)apply_repetition_penalty(logits, {4, 1, 0}, 2.0), kael::IndexError);
    // With no vocabulary every id is out of range.
    EXPECT_THROW((void)apply_repetition_penalty({}, {0}, 2.0), kael::IndexError);
    // An out-of-range id is an IndexError also when the penalty is 1 and changes nothing.
    EXPECT_THROW((void)apply_repetition_penalty(logits, {4}, 1.0), kael::IndexError);
}

TEST(RepetitionPenalty, PenaltiesNotAboveZeroAreRefused) {
    const Logits logits{1.0, -1.0};
    for (const double penalty : {0.0, -0.0, -1e-300, -1.0, -2.0, -kInf, kNaN}) {
        EXPECT_THROW((void)apply_repetition_penalty(logits, {0}, penalty), kael::ValueError) << penalty;
        EXPECT_THROW((void)apply_repetition_penalty(logits, {}, penalty), kael::ValueError) << penalty;
    }
    EXPECT_NO_THROW((void)apply_repetition_penalty(logits, {0}, std::numeric_limits<double>::denorm_min()));
    // The penalty is checked first: a bad penalty with a bad id is a ValueError.
    EXPECT_THROW((void)apply_repetition_penalty(logits, {7}, 0.0), kael::ValueError);
}

TEST(RepetitionPenalty, GreedyDecodingPicksAnotherToken) {
    const Logits logits{2.0, 1.5, -1.0, 0.5};
    EXPECT_EQ(greedy(logits), 0);
    EXPECT_EQ(greedy(apply_repetition_penalty(logits, {0}, 1.0)), 0);
    // 2 / 1.25 = 1.6 still leads; 2 / 1.5 = 1.33 falls behind token 1's 1.5.
    EXPECT_EQ(greedy(apply_repetition_penalty(logits, {0}, 1.25)), 0);
    EXPECT_EQ(greedy(apply_repetition_penalty(logits, {0}, 1.5)), 1);
    // Penalising both leaders hands the choice to the third: 0.4 and 0.3 against 0.5.
    EXPECT_EQ(greedy(apply_repetition_penalty(logits, {0, 1}, 5.0)), 3);
}

TEST(RepetitionPenalty, ANegativeLeaderIsPushedDownNotUp) {
    // Every logit negative, as after a log-softmax: dividing -1 by 1.5 would give -0.67
    // and keep token 0 in front; multiplying gives -1.5, behind token 1's -1.2.
    const Logits logits{-1.0, -1.2, -3.0};
    EXPECT_EQ(greedy(logits), 0);
    EXPECT_EQ(greedy(apply_repetition_penalty(logits, {0}, 1.5)), 1);
}

TEST(RepetitionPenalty, AGreedyLoopMovesOnFromARepeatedToken) {
    // A model that always says the same thing: these logits at every step. Greedy decoding
    // repeats token 0 forever. With the penalty each used token drops below the next
    // unused one, until all four are used; then the penalised 0 leads again, and stays in
    // front because it is penalised once, not once per occurrence.
    const Logits logits{3.0, 2.9, 2.8, 2.7};
    Ids plain;
    Ids penalised;
    for (int step = 0; step < 6; ++step) {
        plain.push_back(greedy(logits));
        penalised.push_back(greedy(apply_repetition_penalty(logits, penalised, 1.2)));
    }
    EXPECT_EQ(plain, (Ids{0, 0, 0, 0, 0, 0}));
    EXPECT_EQ(penalised, (Ids{0, 1, 2, 3, 0, 0}));
}

}  // namespace

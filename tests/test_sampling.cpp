// multinomial and the sampling of a next token (chapter 11). Random draws are checked by
// their properties (frequencies, exclusions, reproducibility), never against hard-coded
// numbers: the standard does not fix std::uniform_real_distribution's output.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>
#include <vector>

#include "kael/kael.h"

namespace {

using kael::DType;
using kael::Tensor;

std::vector<std::int64_t> values_of(const Tensor& t) {
    const Tensor flat = t.cpu().contiguous();
    return {flat.data_ptr<std::int64_t>(), flat.data_ptr<std::int64_t>() + flat.numel()};
}

// ---- multinomial -------------------------------------------------------------------------------

TEST(Multinomial, WeightsOneAndThreeDrawTheSecondIndexThreeTimesInFour) {
    kael::manual_seed(1);
    const Tensor weights = kael::from_vector<float>({1, 3});
    const std::vector<std::int64_t> draws = values_of(kael::multinomial(weights, 40000, true));
    const auto ones = std::count(draws.begin(), draws.end(), 1);
    // 40000 draws of a Bernoulli(3/4): the standard deviation of the count is about 87.
    EXPECT_NEAR(static_cast<double>(ones) / 40000.0, 0.75, 0.01);
    EXPECT_EQ(std::count(draws.begin(), draws.end(), 0) + ones, 40000);
}

TEST(Multinomial, ResultHasOneRowPerWeightRowAndIsInt64) {
    const Tensor one = kael::multinomial(kael::ones({5}), 3);
    EXPECT_EQ(one.shape(), (kael::Shape{3}));
    EXPECT_EQ(one.dtype(), DType::I64);
    const Tensor batch = kael::multinomial(kael::ones({4, 6}), 2);
    EXPECT_EQ(batch.shape(), (kael::Shape{4, 2}));
}

TEST(Multinomial, WithoutReplacementNoIndexRepeatsUpToEveryPositiveWeight) {
    kael::manual_seed(2);
    const Tensor weights = kael::from_vector<double>({0.5, 0, 2, 1, 0, 0.25});
    // Exactly as many samples as positive weights: each of them once.
    const std::vector<std::int64_t> all = values_of(kael::multinomial(weights, 4, false));
    EXPECT_EQ(std::set<std::int64_t>(all.begin(), all.end()), (std::set<std::int64_t>{0, 2, 3, 5}));
    // One more is refused.
    EXPECT_THROW((void)kael::multinomial(weights, 5, false), kael::ValueError);
    EXPECT_NO_THROW((void)kael::multinomial(weights, 5, true));
}

TEST(Multinomial, ZeroWeightsAreNeverDrawn) {
    kael::manual_seed(3);
    const Tensor weights = kael::from_vector<float>({0, 1e-30F, 0, 5, 0}, {1, 5});
    for (const std::int64_t index : values_of(kael::multinomial(weights, 20000, true))) {
        EXPECT_TRUE(index == 1 || index == 3) << index;
    }
}

TEST(Multinomial, TheSameSeedDrawsTheSameIndices) {
    const Tensor weights = kael::rand({3, 50});
    kael::manual_seed(9);
    const std::vector<std::int64_t> first = values_of(kael::multinomial(weights, 10, false));
    kael::manual_seed(9);
    EXPECT_EQ(values_of(kael::multinomial(weights, 10, false)), first);
}

TEST(Multinomial, EachRowDrawsFromItsOwnWeights) {
    kael::manual_seed(4);
    Tensor weights = kael::zeros({3, 4});
    weights.select(0, 0).select(0, 2).fill_(1);
    weights.select(0, 1).select(0, 0).fill_(1);
    weights.select(0, 2).select(0, 3).fill_(1);
    const Tensor draws = kael::multinomial(weights, 6, true);
    EXPECT_EQ(values_of(draws), (std::vector<std::int64_t>{2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, 3, 3, 3, 3, 3, 3}));
}

TEST(Multinomial, BadWeightsAndCountsAreRefused) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    for (const std::vector<double>& bad : {std::vector<double>{1, -1e-9}, {nan, 1}, {inf, 1}, {0, 0}}) {
        EXPECT_THROW((void)kael::multinomial(kael::from_vector(bad), 1, true), kael::ValueError);
    }
    EXPECT_THROW((void)kael::multinomial(kael::ones({2}), 0), kael::ValueError);
    EXPECT_NO_THROW((void)kael::multinomial(kael::ones({2}), 1));
    EXPECT_THROW((void)kael::multinomial(kael::ones({2, 2, 2}), 1), kael::ValueError);
    EXPECT_THROW((void)kael::multinomial(kael::ones({0}), 1), kael::ValueError);
    EXPECT_THROW((void)kael::multinomial(kael::ones({3, 0}), 1), kael::ValueError);
}

// ---- the next token ---------------------------------------------------------------------------

namespace next {

using kael::nn::SamplingOptions;
using kael::nn::sample_next;

// How often each token is drawn in `draws` samples of one row.
std::vector<double> frequencies(const Tensor& logits, const SamplingOptions& options, int draws) {
    std::vector<double> counts(static_cast<std::size_t>(logits.size(-1)), 0.0);
    for (int i = 0; i < draws; ++i) {
        counts[static_cast<std::size_t>(sample_next(logits, options).item<std::int64_t>())] += 1.0 / draws;
    }
    return counts;
}

// Options with one field set (designated initializers that skip a member would warn).
SamplingOptions with_temperature(double t) {
    SamplingOptions options;
    options.temperature = t;
    return options;
}
SamplingOptions with_top_k(std::int64_t k) {
    SamplingOptions options;
    options.top_k = k;
    return options;
}
SamplingOptions with_top_p(double p) {
    SamplingOptions options;
    options.top_p = p;
    return options;
}

const Tensor kLogits = kael::from_vector<double>({std::log(0.5), std::log(0.3), std::log(0.15), std::log(0.05)});

TEST(SampleNext, TemperatureOneDrawsTheModelsOwnDistribution) {
    kael::manual_seed(11);
    const std::vector<double> seen = frequencies(kLogits, {}, 20000);
    const std::vector<double> expected{0.5, 0.3, 0.15, 0.05};
    for (std::size_t i = 0; i < seen.size(); ++i) {
        EXPECT_NEAR(seen[i], expected[i], 0.015) << i;
    }
}

TEST(SampleNext, TemperatureZeroIsGreedyAndTakesTheFirstOfEquals) {
    const Tensor tied = kael::from_vector<float>({1, 3, 3, 2, 0, 5, 5, -1}, {2, 4});
    EXPECT_EQ(values_of(sample_next(tied, with_temperature(0))), (std::vector<std::int64_t>{1, 1}));
    EXPECT_EQ(sample_next(kLogits, with_temperature(0)).shape(), kael::Shape{});
}

TEST(SampleNext, LowTemperatureSharpensAndHighFlattens) {
    kael::manual_seed(12);
    EXPECT_GT(frequencies(kLogits, with_temperature(0.25), 4000)[0], 0.85);
    EXPECT_LT(frequencies(kLogits, with_temperature(20), 4000)[0], 0.32);
}

TEST(SampleNext, TopKKeepsTheKMostLikelyAndTiesWithTheKth) {
    kael::manual_seed(13);
    const std::vector<double> two = frequencies(kLogits, with_top_k(2), 4000);
    EXPECT_EQ(two[2] + two[3], 0.0);
    EXPECT_NEAR(two[0], 0.5 / 0.8, 0.03);
    // A k of the vocabulary's size, or larger, keeps every token.
    EXPECT_GT(frequencies(kLogits, with_top_k(4), 4000)[3], 0.0);
    EXPECT_GT(frequencies(kLogits, with_top_k(1000), 4000)[3], 0.0);
    const Tensor tied = kael::from_vector<double>({2, 1, 1, 0});
    const std::vector<double> with_ties = frequencies(tied, with_top_k(2), 4000);
    EXPECT_GT(with_ties[2], 0.0);  // tied with the second most likely
    EXPECT_EQ(with_ties[3], 0.0);
}

TEST(SampleNext, TopPKeepsTheSmallestNucleusThatReachesIt) {
    kael::manual_seed(14);
    // 0.5 alone is below 0.6; with 0.3 the nucleus holds 0.8 >= 0.6: two tokens.
    const std::vector<double> nucleus = frequencies(kLogits, with_top_p(0.6), 4000);
    EXPECT_GT(nucleus[1], 0.0);
    EXPECT_EQ(nucleus[2] + nucleus[3], 0.0);
    // Exactly at a boundary: 0.5 reaches 0.5 by itself.
    const std::vector<double> alone = frequencies(kLogits, with_top_p(0.5), 2000);
    EXPECT_EQ(alone[1] + alone[2] + alone[3], 0.0);
    // 1 keeps every token, even the least likely.
    EXPECT_GT(frequencies(kLogits, with_top_p(1.0), 20000)[3], 0.0);
}

TEST(SampleNext, MaskedTokensAreNeverDrawn) {
    kael::manual_seed(15);
    const double inf = std::numeric_limits<double>::infinity();
    const Tensor masked = kael::from_vector<double>({0, -inf, 0, -inf});
    const std::vector<double> seen = frequencies(masked, {}, 2000);
    EXPECT_EQ(seen[1] + seen[3], 0.0);
}

TEST(SampleNext, TheSameSeedSamplesTheSameTokens) {
    const Tensor logits = kael::randn({3, 100});
    kael::manual_seed(16);
    const std::vector<std::int64_t> first = values_of(sample_next(logits, SamplingOptions{0.8, std::nullopt, 0.9}));
    kael::manual_seed(16);
    EXPECT_EQ(values_of(sample_next(logits, SamplingOptions{0.8, std::nullopt, 0.9})), first);
}

// The filters as plain code: the whole row sorted (stably, most likely first), top-k and
// top-p read off the sorted order. sample_next never sorts the whole row; it must draw
// what this draws.
std::vector<double> filtered_by_full_sort(const std::vector<double>& logits, const SamplingOptions& options) {
    const double largest = *std::max_element(logits.begin(), logits.end());
    std::vector<double> p;
    for (const double x : logits) {
        p.push_back(std::exp((x - largest) / options.temperature));
    }
    std::vector<std::size_t> order(p.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] > p[b]; });
    if (options.top_k && static_cast<std::size_t>(*options.top_k) < p.size()) {
        const double kth = p[order[static_cast<std::size_t>(*options.top_k) - 1]];
        for (double& q : p) {
            q = q >= kth ? q : 0.0;
        }
    }
    const double target = options.top_p * std::accumulate(p.begin(), p.end(), 0.0);
    double kept = 0;
    for (const std::size_t i : order) {
        if (options.top_p < 1.0 && kept >= target) {
            p[i] = 0;
        } else {
            kept += p[i];
        }
    }
    return p;
}

TEST(SampleNext, FiltersDrawWhatAFullSortOfTheRowDraws) {
    kael::manual_seed(17);
    // A vocabulary whose nucleus at top_p 0.99 holds far more than the first candidates.
    const Tensor logits = kael::randn({3000}, DType::F64) * 2.0;
    const std::vector<double> values(logits.data_ptr<double>(), logits.data_ptr<double>() + logits.numel());
    for (const SamplingOptions& options :
         {SamplingOptions{0.8, 40, 1.0}, SamplingOptions{1.0, std::nullopt, 0.9},
          SamplingOptions{0.7, 200, 0.95}, SamplingOptions{1.3, std::nullopt, 0.99},
          SamplingOptions{1.0, std::nullopt, 1.0}, SamplingOptions{2.0, 1, 0.5}}) {
        const Tensor reference = kael::from_vector(filtered_by_full_sort(values, options));
        for (std::uint64_t seed = 0; seed < 40; ++seed) {
            kael::manual_seed(seed);
            const std::int64_t drawn = sample_next(logits, options).item<std::int64_t>();
            kael::manual_seed(seed);
            EXPECT_EQ(drawn, kael::multinomial(reference, 1, true).item<std::int64_t>())
                << "temperature " << options.temperature << ", top_p " << options.top_p << ", seed " << seed;
        }
    }
}

TEST(SampleNext, FloatLogitsDrawWhatTheirValuesInDoubleDraw) {
    kael::manual_seed(23);
    // Rounded to a coarse grid so that many logits tie, at the top-k threshold too; 1500
    // takes the selection past the heap's limit.
    const Tensor logits = kael::round(kael::randn({5000}) * 8.0) / 4.0;
    const Tensor as_double = logits.to(DType::F64);
    for (const SamplingOptions& options :
         {SamplingOptions{0.8, 40, 1.0}, SamplingOptions{1.0, 1500, 1.0}, SamplingOptions{1.0, std::nullopt, 0.9},
          SamplingOptions{0.0, std::nullopt, 1.0}, SamplingOptions{1.5, 7, 0.8}}) {
        for (std::uint64_t seed = 0; seed < 20; ++seed) {
            kael::manual_seed(seed);
            const std::int64_t from_float = sample_next(logits, options).item<std::int64_t>();
            kael::manual_seed(seed);
            EXPECT_EQ(from_float, sample_next(as_double, options).item<std::int64_t>())
                << "temperature " << options.temperature << ", seed " << seed;
        }
    }
    const std::vector<double> values(as_double.data_ptr<double>(), as_double.data_ptr<double>() + as_double.numel());
    const Tensor reference = kael::from_vector(filtered_by_full_sort(values, SamplingOptions{1.0, 1500, 1.0}));
    for (std::uint64_t seed = 0; seed < 20; ++seed) {
        kael::manual_seed(seed);
        const std::int64_t drawn = sample_next(logits, SamplingOptions{1.0, 1500, 1.0}).item<std::int64_t>();
        kael::manual_seed(seed);
        EXPECT_EQ(drawn, kael::multinomial(reference, 1, true).item<std::int64_t>()) << "seed " << seed;
    }
    const float nan = std::numeric_limits<float>::quiet_NaN();
    EXPECT_THROW((void)sample_next(kael::from_vector<float>({0, 1, nan}), {}), kael::ValueError);
    EXPECT_THROW((void)sample_next(kael::from_vector<float>({std::numeric_limits<float>::infinity(), 0}), {}),
                 kael::ValueError);
    EXPECT_THROW((void)sample_next(kael::full({4}, -std::numeric_limits<float>::infinity()), {}), kael::ValueError);
}

TEST(SampleNext, OptionsOutOfRangeAreRefused) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    for (const SamplingOptions& bad : {with_temperature(-0.1), with_temperature(inf),
                                       with_top_k(0), with_top_p(0),
                                       with_top_p(1.0000001), with_top_p(nan)}) {
        EXPECT_THROW((void)sample_next(kLogits, bad), kael::ValueError);
    }
    EXPECT_NO_THROW((void)sample_next(kLogits, SamplingOptions{1.0, 1, 1e-9}));
    EXPECT_THROW((void)sample_next(kael::from_vector<double>({0, nan}), {}), kael::ValueError);
    EXPECT_THROW((void)sample_next(kael::from_vector<double>({0, inf}), {}), kael::ValueError);
    EXPECT_THROW((void)sample_next(kael::full({3}, -inf, DType::F64), {}), kael::ValueError);
    EXPECT_THROW((void)sample_next(kael::zeros({2, 2, 2}), {}), kael::ValueError);
}

}  // namespace next

}  // namespace

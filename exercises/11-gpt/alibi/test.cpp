// Tests of exercise 11.2. Every test fails until alibi_slopes, alibi_bias and
// alibi_attention are implemented. The attention is checked against a loop written out in
// the test, against kael's causal attention when every slope is 0, and against itself
// when the queries arrive one at a time.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "exercise.h"
#include "kael/kael.h"

namespace {

using exercise::alibi_attention;
using exercise::alibi_bias;
using exercise::alibi_slopes;
using kael::DType;
using kael::Shape;
using kael::Tensor;
using Slopes = std::vector<double>;

constexpr double kInf = std::numeric_limits<double>::infinity();

// softmax(q k^T * scale + ALiBi) v for q [H, T, D], k [H, S, D], v [H, S, E] in float64,
// one element at a time, with the bias taken straight from the formula: query t at
// position S - T + t, keys after it left out of the sum.
Tensor by_hand(const Tensor& q, const Tensor& k, const Tensor& v, const Slopes& slopes, double scale) {
    const std::int64_t heads = q.size(0);
    const std::int64_t queries = q.size(1);
    const std::int64_t width = q.size(2);
    const std::int64_t keys = k.size(1);
    const std::int64_t out_width = v.size(2);
    std::vector<double> out;
    for (std::int64_t h = 0; h < heads; ++h) {
        for (std::int64_t t = 0; t < queries; ++t) {
            const std::int64_t i = keys - queries + t;
            std::vector<double> score(static_cast<std::size_t>(i + 1));
            double largest = -kInf;
            for (std::int64_t j = 0; j <= i; ++j) {
                double dot = 0;
                for (std::int64_t d = 0; d < width; ++d) {
                    dot += q.at<double>({h, t, d}) * k.at<double>({h, j, d});
                }
                const double s = dot * scale - slopes[static_cast<std::size_t>(h)] * static_cast<double>(i - j);
                score[static_cast<std::size_t>(j)] = s;
                largest = std::max(largest, s);
            }
            double total = 0;
            for (double& s : score) {
                s = std::exp(s - largest);
                total += s;
            }
            for (std::int64_t e = 0; e < out_width; ++e) {
                double sum = 0;
                for (std::int64_t j = 0; j <= i; ++j) {
                    sum += score[static_cast<std::size_t>(j)] / total * v.at<double>({h, j, e});
                }
                out.push_back(sum);
            }
        }
    }
    return kael::from_vector(out, {heads, queries, out_width});
}

// The attention weights themselves: with v the identity, output row t is weight row t.
Tensor weights(const Tensor& q, const Tensor& k, const Tensor& bias) {
    const std::int64_t keys = k.size(-2);
    const Tensor identity = kael::eye(keys, q.dtype()).expand({q.size(0), keys, keys}).contiguous();
    return alibi_attention(q, k, identity, bias);
}

TEST(Alibi, SlopesForEightHeadsArePowersOfOneHalf) {
    EXPECT_EQ(alibi_slopes(8), (Slopes{1.0 / 2, 1.0 / 4, 1.0 / 8, 1.0 / 16, 1.0 / 32, 1.0 / 64, 1.0 / 128,
                                       1.0 / 256}));  // to the last bit
}

TEST(Alibi, SlopesForOtherPowersOfTwo) {
    EXPECT_EQ(alibi_slopes(1), (Slopes{1.0 / 256}));
    EXPECT_EQ(alibi_slopes(2), (Slopes{1.0 / 16, 1.0 / 256}));
    EXPECT_EQ(alibi_slopes(4), (Slopes{1.0 / 4, 1.0 / 16, 1.0 / 64, 1.0 / 256}));
    // Sixteen heads: every second slope is one of the eight heads' slopes, and the ones
    // between are their geometric means, starting at 2^-0.5.
    const Slopes eight = alibi_slopes(8);
    const Slopes sixteen = alibi_slopes(16);
    ASSERT_EQ(sixteen.size(), 16U);
    EXPECT_DOUBLE_EQ(sixteen[0], std::sqrt(0.5));
    for (std::size_t h = 0; h < 8; ++h) {
        EXPECT_EQ(sixteen[2 * h + 1], eight[h]) << h;
    }
    for (std::size_t h = 1; h < sixteen.size(); ++h) {
        EXPECT_DOUBLE_EQ(sixteen[h] / sixteen[h - 1], std::sqrt(0.5)) << h;
    }
    // Whatever the count, the last head's slope is 1/256 and the ratio is 2^(-8 / H).
    for (const std::int64_t heads : {32, 64, 1024}) {
        const Slopes s = alibi_slopes(heads);
        ASSERT_EQ(s.size(), static_cast<std::size_t>(heads));
        EXPECT_EQ(s.back(), 1.0 / 256) << heads;
        EXPECT_DOUBLE_EQ(s[1] / s[0], std::exp2(-8.0 / static_cast<double>(heads))) << heads;
    }
}

TEST(Alibi, HeadCountsThatAreNotPowersOfTwoAreRefused) {
    for (const std::int64_t heads : {0, -1, -2, -8, 3, 5, 6, 7, 9, 12, 24, 96, 1000}) {
        EXPECT_THROW((void)alibi_slopes(heads), kael::ValueError) << heads;
    }
    for (const std::int64_t heads : {1, 2, 4, 8, 16}) {
        EXPECT_EQ(alibi_slopes(heads).size(), static_cast<std::size_t>(heads));
    }
}

TEST(Alibi, BiasValuesAtAFewPositions) {
    const Tensor bias = alibi_bias(alibi_slopes(8), 4, 4, DType::F64);
    EXPECT_EQ(bias.shape(), (Shape{8, 4, 4}));
    EXPECT_EQ(bias.dtype(), DType::F64);
    EXPECT_EQ(bias.at<double>({0, 3, 0}), -1.5);  // slope 1/2, three positions back
    EXPECT_EQ(bias.at<double>({0, 2, 1}), -0.5);
    EXPECT_EQ(bias.at<double>({1, 3, 1}), -0.5);  // slope 1/4, two back
    EXPECT_EQ(bias.at<double>({7, 3, 0}), -3.0 / 256);
    for (std::int64_t h = 0; h < 8; ++h) {
        for (std::int64_t i = 0; i < 4; ++i) {
            EXPECT_EQ(bias.at<double>({h, i, i}), 0.0) << h << ", " << i;  // a query and its own key
            for (std::int64_t j = i + 1; j < 4; ++j) {
                EXPECT_EQ(bias.at<double>({h, i, j}), -kInf) << h << ", " << i << ", " << j;  // the future
            }
        }
    }
    // Float32 by default, with the same values: these are all exact in float.
    const Tensor f32 = alibi_bias(alibi_slopes(8), 4, 4);
    EXPECT_EQ(f32.dtype(), DType::F32);
    EXPECT_EQ(f32.at<float>({0, 3, 0}), -1.5F);
    EXPECT_EQ(f32.at<float>({7, 3, 0}), -3.0F / 256);
    EXPECT_EQ(f32.at<float>({2, 0, 1}), -std::numeric_limits<float>::infinity());
}

TEST(Alibi, FewerQueriesThanKeysAreTheLastPositions) {
    // Two queries over five keys: the queries are positions 3 and 4, as when two new
    // tokens are appended to three cached ones.
    const Tensor bias = alibi_bias({1.0, 0.5}, 2, 5, DType::F64);
    EXPECT_EQ(bias.shape(), (Shape{2, 2, 5}));
    const std::vector<std::vector<double>> head0{{-3, -2, -1, 0, -kInf}, {-4, -3, -2, -1, 0}};
    for (std::int64_t t = 0; t < 2; ++t) {
        for (std::int64_t j = 0; j < 5; ++j) {
            const double want = head0[static_cast<std::size_t>(t)][static_cast<std::size_t>(j)];
            EXPECT_EQ(bias.at<double>({0, t, j}), want) << t << ", " << j;
            EXPECT_EQ(bias.at<double>({1, t, j}), want * 0.5) << t << ", " << j;
        }
    }
    // One query over S keys is the last position and sees them all.
    const Tensor one = alibi_bias({0.25}, 1, 3, DType::F64);
    EXPECT_EQ(one.at<double>({0, 0, 0}), -0.5);
    EXPECT_EQ(one.at<double>({0, 0, 2}), 0.0);
}

TEST(Alibi, BiasShapesAreChecked) {
    const Slopes slopes = alibi_slopes(4);
    EXPECT_EQ(alibi_bias(slopes, 5, 5).shape(), (Shape{4, 5, 5}));
    EXPECT_EQ(alibi_bias(slopes, 4, 5).shape(), (Shape{4, 4, 5}));
    EXPECT_THROW((void)alibi_bias(slopes, 6, 5), kael::ValueError);  // more queries than positions
    EXPECT_THROW((void)alibi_bias(slopes, 2, 1), kael::ValueError);
    EXPECT_EQ(alibi_bias(slopes, 0, 3).shape(), (Shape{4, 0, 3}));
    EXPECT_EQ(alibi_bias(slopes, 0, 0).shape(), (Shape{4, 0, 0}));
    EXPECT_THROW((void)alibi_bias(slopes, -1, 3), kael::ValueError);
    EXPECT_THROW((void)alibi_bias(slopes, 0, -1), kael::ValueError);
    EXPECT_THROW((void)alibi_bias({}, 2, 2), kael::ValueError);
    // Any number of slopes of any value is a bias; only alibi_slopes insists on powers of two.
    EXPECT_EQ(alibi_bias({0.3, 0.2, 0.1}, 2, 2).shape(), (Shape{3, 2, 2}));
    EXPECT_THROW((void)alibi_bias(slopes, 2, 2, DType::I64), kael::TypeError);
    EXPECT_THROW((void)alibi_bias(slopes, 2, 2, DType::Bool), kael::TypeError);
}

TEST(Alibi, AttentionMatchesTheFormulaWrittenOut) {
    kael::manual_seed(11);
    for (const Slopes& slopes : {alibi_slopes(2), Slopes{0.9, 0.3}}) {
        for (const auto& [queries, keys] : std::vector<std::pair<std::int64_t, std::int64_t>>{{5, 5}, {3, 5}, {1, 4}}) {
            const Tensor q = kael::randn({2, queries, 4}, DType::F64);
            const Tensor k = kael::randn({2, keys, 4}, DType::F64);
            const Tensor v = kael::randn({2, keys, 3}, DType::F64);
            const Tensor bias = alibi_bias(slopes, queries, keys, DType::F64);
            const Tensor out = alibi_attention(q, k, v, bias);
            EXPECT_EQ(out.shape(), (Shape{2, queries, 3}));
            EXPECT_TRUE(kael::allclose(out, by_hand(q, k, v, slopes, 0.5), 1e-12, 1e-12))
                << "slope " << slopes[0] << " T " << queries << " S " << keys;
            EXPECT_TRUE(kael::allclose(alibi_attention(q, k, v, bias, 0.7), by_hand(q, k, v, slopes, 0.7), 1e-12,
                                       1e-12))
                << "slope " << slopes[0] << " T " << queries << " S " << keys;
        }
    }
}

TEST(Alibi, AllSlopesZeroIsCausalAttention) {
    kael::manual_seed(12);
    const Tensor q = kael::randn({2, 4, 6, 8}, DType::F64);
    const Tensor k = kael::randn({2, 4, 6, 8}, DType::F64);
    const Tensor v = kael::randn({2, 4, 6, 5}, DType::F64);
    const Tensor flat = alibi_bias({0, 0, 0, 0}, 6, 6, DType::F64);
    const Tensor out = alibi_attention(q, k, v, flat);
    EXPECT_EQ(out.shape(), (Shape{2, 4, 6, 5}));
    EXPECT_TRUE(kael::allclose(out, kael::nn::attention_composed(q, k, v, true), 1e-12, 1e-12));
    EXPECT_TRUE(kael::allclose(alibi_attention(q, k, v, flat, 0.3), kael::nn::attention_composed(q, k, v, true, 0.3),
                               1e-12, 1e-12));
    // In float32, with a float32 bias, and with a float64 bias used in q's dtype.
    const Tensor q32 = q.to(DType::F32);
    const Tensor k32 = k.to(DType::F32);
    const Tensor v32 = v.to(DType::F32);
    const Tensor causal32 = kael::nn::attention_composed(q32, k32, v32, true);
    EXPECT_TRUE(kael::allclose(alibi_attention(q32, k32, v32, alibi_bias({0, 0, 0, 0}, 6, 6)), causal32, 1e-5, 1e-6));
    const Tensor mixed = alibi_attention(q32, k32, v32, flat);
    EXPECT_EQ(mixed.dtype(), DType::F32);
    EXPECT_TRUE(kael::allclose(mixed, causal32, 1e-5, 1e-6));
    // Real slopes change the result.
    EXPECT_FALSE(kael::allclose(alibi_attention(q, k, v, alibi_bias(alibi_slopes(4), 6, 6, DType::F64)),
                                kael::nn::attention_composed(q, k, v, true), 1e-3, 1e-3));
}

TEST(Alibi, NearerKeysGetMoreAttentionOnEqualScores) {
    // q = 0 gives every key the same score, so the weights are the bias's alone.
    kael::manual_seed(13);
    const Slopes slopes = alibi_slopes(4);
    const Tensor q = kael::zeros({4, 6, 8}, DType::F64);
    const Tensor k = kael::randn({4, 6, 8}, DType::F64);
    const Tensor w = weights(q, k, alibi_bias(slopes, 6, 6, DType::F64));
    for (std::int64_t h = 0; h < 4; ++h) {
        const double m = slopes[static_cast<std::size_t>(h)];
        for (std::int64_t i = 0; i < 6; ++i) {
            for (std::int64_t j = 0; j < i; ++j) {
                // Each step nearer multiplies the weight by e^m.
                EXPECT_LT(w.at<double>({h, i, j}), w.at<double>({h, i, j + 1})) << h << ", " << i << ", " << j;
                EXPECT_NEAR(w.at<double>({h, i, j + 1}) / w.at<double>({h, i, j}), std::exp(m), 1e-12)
                    << h << ", " << i << ", " << j;
            }
            for (std::int64_t j = i + 1; j < 6; ++j) {
                EXPECT_EQ(w.at<double>({h, i, j}), 0.0) << h << ", " << i << ", " << j;  // never the future
            }
        }
    }
    // The steepest head looks closest: the most weight on a query's own key.
    for (std::int64_t h = 1; h < 4; ++h) {
        EXPECT_GT(w.at<double>({h - 1, 5, 5}), w.at<double>({h, 5, 5})) << h;
    }
    // Without slopes, equal scores share the weight equally over the past.
    const Tensor uniform = weights(q, k, alibi_bias({0, 0, 0, 0}, 6, 6, DType::F64));
    for (std::int64_t j = 0; j <= 3; ++j) {
        EXPECT_NEAR(uniform.at<double>({2, 3, j}), 0.25, 1e-15) << j;
    }
}

TEST(Alibi, QueriesOneAtATimeMatchTheFullSequence) {
    // Generation with a cache asks for the last query only, over every key so far. The
    // bias of T queries over S keys must give it the same row as the full square.
    kael::manual_seed(14);
    const Slopes slopes = alibi_slopes(4);
    const Tensor q = kael::randn({4, 7, 8}, DType::F64);
    const Tensor k = kael::randn({4, 7, 8}, DType::F64);
    const Tensor v = kael::randn({4, 7, 3}, DType::F64);
    const Tensor full = alibi_attention(q, k, v, alibi_bias(slopes, 7, 7, DType::F64));
    for (std::int64_t queries = 1; queries <= 7; ++queries) {
        const std::int64_t start = 7 - queries;
        const Tensor part =
            alibi_attention(q.narrow(1, start, queries), k, v, alibi_bias(slopes, queries, 7, DType::F64));
        EXPECT_TRUE(kael::allclose(part, full.narrow(1, start, queries), 1e-12, 1e-12)) << queries;
    }
}

TEST(Alibi, AttentionChecksTheBiasAgainstItsOperands) {
    kael::manual_seed(15);
    const Slopes eight = alibi_slopes(8);
    const Tensor q = kael::randn({8, 5, 4});
    const Tensor k = kael::randn({8, 6, 4});
    const Tensor v = kael::randn({8, 6, 3});
    EXPECT_EQ(alibi_attention(q, k, v, alibi_bias(eight, 5, 6)).shape(), (Shape{8, 5, 3}));
    EXPECT_THROW((void)alibi_attention(q, k, v, alibi_bias(alibi_slopes(4), 5, 6)), kael::ValueError);  // heads
    EXPECT_THROW((void)alibi_attention(q, k, v, alibi_bias(eight, 4, 6)), kael::ValueError);  // queries
    EXPECT_THROW((void)alibi_attention(q, k, v, alibi_bias(eight, 5, 5)), kael::ValueError);  // keys
    EXPECT_THROW((void)alibi_attention(q, k, v, alibi_bias(eight, 5, 6).select(0, 0)), kael::ValueError);
    EXPECT_THROW((void)alibi_attention(q.select(0, 0), k.select(0, 0), v.select(0, 0), alibi_bias({0.5}, 5, 6)),
                 kael::ValueError);  // q without a head dimension
    // A batch in front shares the bias.
    const Tensor qb = kael::randn({2, 8, 5, 4});
    const Tensor kb = kael::randn({2, 8, 6, 4});
    const Tensor vb = kael::randn({2, 8, 6, 3});
    const Tensor out = alibi_attention(qb, kb, vb, alibi_bias(eight, 5, 6));
    EXPECT_EQ(out.shape(), (Shape{2, 8, 5, 3}));
    EXPECT_TRUE(kael::allclose(out.select(0, 1), alibi_attention(qb.select(0, 1), kb.select(0, 1), vb.select(0, 1),
                                                                 alibi_bias(eight, 5, 6)),
                               1e-6, 1e-6));
}

TEST(Alibi, GradientsFlowThroughTheComposition) {
    kael::manual_seed(16);
    const Tensor q = kael::randn({2, 3, 2}, DType::F64).requires_grad_();
    const Tensor k = kael::randn({2, 4, 2}, DType::F64).requires_grad_();
    const Tensor v = kael::randn({2, 4, 2}, DType::F64).requires_grad_();
    const Tensor bias = alibi_bias({0.8, 0.2}, 3, 4, DType::F64);
    const auto result = kael::autograd::gradcheck(
        [&bias](const std::vector<Tensor>& in) { return alibi_attention(in[0], in[1], in[2], bias); }, {q, k, v});
    EXPECT_TRUE(result.ok) << result.report;
}

}  // namespace

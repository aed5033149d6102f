// Softmax, losses, layer normalization, dropout and embedding.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "helpers.h"
#include "kael/factory.h"
#include "kael/ops.h"
#include "kael/random.h"

namespace {

using kael::DType;
using kael::Reduction;
using kael::Shape;
using kael::Tensor;
using kael::testing::values;

using I = std::int64_t;
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(Softmax, ValuesSumToOneAlongTheDimension) {
    const auto p = values<double>(kael::softmax(kael::from_vector({1.0, 2.0, 3.0}), 0));
    EXPECT_NEAR(p[0], 0.09003057317038046, 1e-15);
    EXPECT_NEAR(p[2], 0.6652409557748219, 1e-15);
    const Tensor m = kael::arange(0, 6, 1, DType::F64).view({2, 3});
    const Tensor columns = kael::softmax(m, 0);
    for (const double total : values<double>(kael::sum(columns, {0}))) {
        EXPECT_NEAR(total, 1.0, 1e-15);
    }
    const Tensor rows = kael::softmax(m, -1);
    for (const double total : values<double>(kael::sum(rows, {1}))) {
        EXPECT_NEAR(total, 1.0, 1e-15);
    }
}

TEST(Softmax, LargeLogitsDoNotOverflow) {
    const auto p = values<float>(kael::softmax(kael::from_vector({1000.f, 1000.f}), 0));
    EXPECT_EQ(p, (std::vector<float>{0.5f, 0.5f}));
    const auto logp = values<float>(kael::log_softmax(kael::from_vector({1000.f, 0.f}), 0));
    EXPECT_EQ(logp[0], 0.0f);
    EXPECT_EQ(logp[1], -1000.0f);
}

TEST(Softmax, LogSoftmaxMatchesLogOfSoftmax) {
    kael::manual_seed(7);
    const Tensor x = kael::randn({4, 5}, DType::F64);
    EXPECT_TRUE(kael::allclose(kael::log_softmax(x, 1), kael::log(kael::softmax(x, 1)), 1e-12, 1e-12));
}

TEST(Softmax, MaskedEntriesAndNan) {
    const auto p = values<double>(kael::softmax(kael::from_vector({0.0, -kInf}), 0));
    EXPECT_EQ(p, (std::vector<double>{1, 0}));
    EXPECT_TRUE(std::isnan(values<double>(kael::softmax(kael::from_vector({std::nan(""), 1.0}), 0))[1]));
}

TEST(Softmax, RejectsIntegers) {
    EXPECT_THROW((void)kael::softmax(kael::from_vector({I{1}}), 0), kael::TypeError);
    EXPECT_THROW((void)kael::softmax(kael::zeros({2}), 1), kael::IndexError);
}

TEST(CrossEntropy, MatchesPyTorch) {
    // F.cross_entropy(torch.tensor([[1.,2.,3.],[1.,1.,1.]]), torch.tensor([2, 0]), reduction='none')
    const Tensor logits = kael::from_vector({1.f, 2.f, 3.f, 1.f, 1.f, 1.f}, {2, 3});
    const Tensor target = kael::from_vector({I{2}, I{0}});
    const auto each = values<float>(kael::cross_entropy(logits, target, Reduction::None));
    EXPECT_NEAR(each[0], 0.40760594606399536f, 1e-6);
    EXPECT_NEAR(each[1], 1.0986123085021973f, 1e-6);
    EXPECT_NEAR(kael::cross_entropy(logits, target).item<float>(), (each[0] + each[1]) / 2, 1e-6);
    EXPECT_NEAR(kael::cross_entropy(logits, target, Reduction::Sum).item<float>(), each[0] + each[1], 1e-6);
}

TEST(CrossEntropy, IgnoreIndexIsLeftOutOfTheMean) {
    const Tensor logits = kael::from_vector({1.f, 2.f, 3.f, 1.f, 1.f, 1.f}, {2, 3});
    EXPECT_NEAR(kael::cross_entropy(logits, kael::from_vector({I{2}, I{-100}})).item<float>(), 0.40760594606399536f, 1e-6);
    EXPECT_TRUE(std::isnan(kael::cross_entropy(logits, kael::from_vector({I{-100}, I{-100}})).item<float>()));
    EXPECT_NEAR(kael::cross_entropy(logits, kael::from_vector({I{7}, I{2}}), Reduction::Mean, 7).item<float>(),
                1.0986123085021973f, 1e-6);
}

TEST(CrossEntropy, TargetsAreChecked) {
    const Tensor logits = kael::zeros({2, 3});
    EXPECT_THROW((void)kael::cross_entropy(logits, kael::from_vector({I{3}, I{0}})), kael::IndexError);
    EXPECT_THROW((void)kael::cross_entropy(logits, kael::from_vector({I{-1}, I{0}})), kael::IndexError);
    EXPECT_NO_THROW((void)kael::cross_entropy(logits, kael::from_vector({I{2}, I{0}})));
    EXPECT_THROW((void)kael::cross_entropy(logits, kael::from_vector({2.0, 0.0})), kael::TypeError);
    EXPECT_THROW((void)kael::cross_entropy(logits, kael::from_vector({I{0}})), kael::ValueError);
}

TEST(CrossEntropy, UnbatchedAndSpatialInputs) {
    const Tensor single = kael::cross_entropy(kael::from_vector({1.f, 2.f, 3.f}), kael::scalar(2, DType::I64));
    EXPECT_NEAR(single.item<float>(), 0.40760594606399536f, 1e-6);
    // [N, C, L] logits against [N, L] targets equals the flattened [N * L, C] problem.
    kael::manual_seed(8);
    const Tensor logits = kael::randn({2, 4, 3}, DType::F64);
    const Tensor target = kael::randint(0, 4, {2, 3});
    const Tensor flat = logits.permute({0, 2, 1}).reshape({6, 4});
    EXPECT_NEAR(kael::cross_entropy(logits, target).item<double>(),
                kael::cross_entropy(flat, target.reshape({6})).item<double>(), 1e-12);
}

TEST(Losses, MeanSquaredError) {
    const Tensor a = kael::from_vector({1.0, 2.0});
    const Tensor b = kael::from_vector({3.0, 2.0});
    EXPECT_EQ(kael::mse_loss(a, b).item<double>(), 2.0);
    EXPECT_EQ(kael::mse_loss(a, b, Reduction::Sum).item<double>(), 4.0);
    EXPECT_EQ(values<double>(kael::mse_loss(a, b, Reduction::None)), (std::vector<double>{4, 0}));
}

TEST(LayerNorm, NormalizesTheTrailingDimensions) {
    const Tensor x = kael::from_vector({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, {2, 3});
    const auto y = values<double>(kael::layer_norm(x, {3}));
    EXPECT_NEAR(y[0], -1.2247356, 1e-6);  // (1 - 2) / sqrt(2/3 + 1e-5)
    EXPECT_NEAR(y[1], 0.0, 1e-12);
    const Tensor scaled = kael::layer_norm(x, {3}, kael::full({3}, 2.0, DType::F64), kael::full({3}, 1.0, DType::F64));
    EXPECT_NEAR(values<double>(scaled)[0], 1 - 2 * 1.2247356, 1e-6);
    const Tensor all = kael::layer_norm(x, {2, 3});
    EXPECT_NEAR(kael::mean(all).item<double>(), 0.0, 1e-12);
}

TEST(LayerNorm, ShapesAreChecked) {
    const Tensor x = kael::zeros({2, 3});
    EXPECT_THROW((void)kael::layer_norm(x, {2}), kael::ValueError);
    EXPECT_THROW((void)kael::layer_norm(x, {}), kael::ValueError);
    EXPECT_THROW((void)kael::layer_norm(x, {3}, kael::ones({2})), kael::ValueError);
    EXPECT_THROW((void)kael::layer_norm(x, {3}, kael::ones({3}, DType::F64)), kael::TypeError);
}

TEST(Softmax, Float32RowsAreWithinAFewUlpsOfADoubleReference) {
    // softmax's exponential only ever sees x - max <= 0 (fast_exp_nonpositive): sweep that
    // range through rows [0, v], whose second element is e^v / (1 + e^v).
    std::vector<float> data;
    std::vector<double> expected;
    for (float v = -87.3f; v <= 0.0f; v += 0.0093f) {
        data.insert(data.end(), {0.0f, v});
        expected.push_back(std::exp(static_cast<double>(v)) / (1 + std::exp(static_cast<double>(v))));
    }
    const auto rows = static_cast<std::int64_t>(expected.size());
    const auto got = values<float>(kael::softmax(kael::from_vector(data).view({rows, 2}), 1));
    int worst = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const auto want = static_cast<float>(expected[i]);
        worst = std::max(worst, std::abs(std::bit_cast<std::int32_t>(got[2 * i + 1]) - std::bit_cast<std::int32_t>(want)));
    }
    EXPECT_LE(worst, 4);
    // Below e^-87.34, the smallest normal float, the exponential is flushed to 0: exactly at
    // the limit it is kept, one step past it it is 0.
    const auto edge = values<float>(kael::softmax(kael::from_vector({0.0f, -87.3365f, 0.0f, -87.34f, 0.0f, -1000.0f}).view({3, 2}), 1));
    EXPECT_GT(edge[1], 0.0f);
    EXPECT_EQ(edge[3], 0.0f);
    EXPECT_EQ(edge[5], 0.0f);
    EXPECT_EQ(edge[4], 1.0f);
}

TEST(Dropout, KeepsTheExpectedValue) {
    kael::manual_seed(9);
    const Tensor x = kael::ones({100000});
    const Tensor y = kael::dropout(x, 0.25);
    const auto v = values<float>(y);
    std::int64_t zeros = 0;
    for (const float value : v) {
        EXPECT_TRUE(value == 0.0f || std::abs(value - 4.0f / 3.0f) < 1e-6f);
        zeros += value == 0.0f;
    }
    EXPECT_NEAR(static_cast<double>(zeros) / 100000.0, 0.25, 0.01);
    EXPECT_NEAR(kael::mean(y).item<float>(), 1.0f, 0.02f);
}

TEST(Dropout, EdgesAndEvaluation) {
    const Tensor x = kael::ones({4});
    EXPECT_TRUE(kael::dropout(x, 0.5, false).is_same(x));
    EXPECT_EQ(values<float>(kael::dropout(x, 1.0)), (std::vector<float>(4, 0.0f)));
    EXPECT_EQ(values<float>(kael::dropout(x, 0.0)), (std::vector<float>(4, 1.0f)));
    EXPECT_THROW((void)kael::dropout(x, 1.5), kael::ValueError);
    EXPECT_THROW((void)kael::dropout(x, -0.1), kael::ValueError);
}

TEST(Embedding, LooksUpRows) {
    const Tensor weight = kael::arange(0, 8, 1, DType::F32).view({4, 2});
    const Tensor out = kael::embedding(weight, kael::from_vector({I{3}, I{0}, I{3}, I{1}}, {2, 2}));
    EXPECT_EQ(out.shape(), (Shape{2, 2, 2}));
    EXPECT_EQ(values<float>(out), (std::vector<float>{6, 7, 0, 1, 6, 7, 2, 3}));
    EXPECT_THROW((void)kael::embedding(weight, kael::from_vector({I{4}})), kael::IndexError);
    EXPECT_THROW((void)kael::embedding(weight, kael::from_vector({1.0})), kael::TypeError);
}

}  // namespace

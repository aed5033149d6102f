// The layers: each forward against the function it wraps, PyTorch's default
// initialisation as a distribution, and the checks at and just past each limit.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <thread>
#include <vector>

#include "helpers.h"
#include "kael/factory.h"
#include "kael/nn.h"
#include "kael/ops.h"
#include "kael/random.h"

namespace {

using kael::Tensor;
using kael::testing::values;

// Mean and standard deviation of a float tensor's elements, in double.
std::pair<double, double> moments(const Tensor& t) {
    const std::vector<float> v = values<float>(t);
    double mean = 0;
    for (float x : v) {
        mean += x;
    }
    mean /= static_cast<double>(v.size());
    double var = 0;
    for (float x : v) {
        var += (x - mean) * (x - mean);
    }
    return {mean, std::sqrt(var / static_cast<double>(v.size()))};
}

TEST(NnLinear, ForwardIsInputTimesWeightTransposedPlusBias) {
    kael::nn::Linear linear(3, 2);
    const Tensor x = kael::randn({4, 3});
    const Tensor expected = kael::add(kael::matmul(x, linear.weight.T()), *linear.bias);
    EXPECT_EQ(values<float>(linear(x)), values<float>(expected));
    EXPECT_EQ(linear.weight.shape(), (kael::Shape{2, 3}));
    EXPECT_EQ(linear(kael::randn({5, 6, 3})).shape(), (kael::Shape{5, 6, 2}));  // any leading dimensions
}

TEST(NnLinear, WithoutBiasHasOneParameter) {
    kael::nn::Linear linear(3, 2, /*bias=*/false);
    EXPECT_FALSE(linear.bias.has_value());
    EXPECT_EQ(linear.parameters().size(), 1u);
    const Tensor x = kael::randn({4, 3});
    EXPECT_EQ(values<float>(linear(x)), values<float>(kael::matmul(x, linear.weight.T())));
}

TEST(NnLinear, DefaultInitIsUniformWithinOneOverSqrtFanIn) {
    kael::manual_seed(0);
    kael::nn::Linear linear(784, 512);
    const double bound = 1.0 / std::sqrt(784.0);
    for (const Tensor& p : linear.parameters()) {
        for (float w : values<float>(p)) {
            ASSERT_LE(std::abs(w), bound);
        }
    }
    // Uniform on [-b, b]: mean 0, standard deviation b / sqrt(3). 401k draws pin both closely.
    const auto [mean, std] = moments(linear.weight);
    EXPECT_NEAR(mean, 0.0, 1e-3 * bound * 10);
    EXPECT_NEAR(std, bound / std::sqrt(3.0), 0.005 * bound);
}

TEST(NnLinear, RefusesNegativeSizesAndAcceptsZero) {
    EXPECT_THROW(kael::nn::Linear(-1, 2), kael::ValueError);
    EXPECT_THROW(kael::nn::Linear(2, -1), kael::ValueError);
    kael::nn::Linear empty_input(0, 2);  // PyTorch allows it: the output is the bias
    EXPECT_EQ(values<float>(*empty_input.bias), (std::vector<float>{0, 0}));
    EXPECT_EQ(empty_input(kael::zeros({3, 0})).shape(), (kael::Shape{3, 2}));
}

TEST(NnLinear, TwoLossesOnTwoThreadsAccumulateIntoOneLayer) {
    // Separate graphs may run on separate threads (ADR 0005), sharing parameters: the
    // layer's AccumulateGrad nodes and gradients are shared, and guarded. ThreadSanitizer
    // runs this test too (scripts/test).
    kael::manual_seed(3);
    kael::nn::Linear layer(8, 4);
    const Tensor first = kael::randn({16, 8});
    const Tensor second = kael::randn({16, 8});
    std::vector<float> expected_weight;
    std::vector<float> expected_bias;
    {
        kael::sum(layer(first)).backward();
        kael::sum(layer(second) * 2).backward();
        expected_weight = values<float>(*layer.weight.grad());
        expected_bias = values<float>(*layer.bias->grad());
        layer.zero_grad();
    }
    for (int round = 0; round < 20; ++round) {
        std::thread one([&] { kael::sum(layer(first)).backward(); });
        std::thread two([&] { kael::sum(layer(second) * 2).backward(); });
        one.join();
        two.join();
        const std::vector<float> weight = values<float>(*layer.weight.grad());
        const std::vector<float> bias = values<float>(*layer.bias->grad());
        for (std::size_t i = 0; i < weight.size(); ++i) {
            ASSERT_NEAR(weight[i], expected_weight[i], 1e-4f) << "round " << round;
        }
        for (std::size_t i = 0; i < bias.size(); ++i) {
            ASSERT_NEAR(bias[i], expected_bias[i], 1e-4f) << "round " << round;
        }
        layer.zero_grad();
    }
}

TEST(NnEmbedding, LooksUpRowsAndIsInitialisedStandardNormal) {
    kael::manual_seed(0);
    kael::nn::Embedding table(1000, 64);
    const auto [mean, std] = moments(table.weight);
    EXPECT_NEAR(mean, 0.0, 0.02);
    EXPECT_NEAR(std, 1.0, 0.02);
    const Tensor rows = table(kael::from_vector<std::int64_t>({3, 999, 3}, {3}));
    EXPECT_EQ(rows.shape(), (kael::Shape{3, 64}));
    EXPECT_EQ(values<float>(rows[1]), values<float>(table.weight[999]));
    EXPECT_THROW((void)table(kael::from_vector<std::int64_t>({1000})), kael::IndexError);
    EXPECT_THROW(kael::nn::Embedding(-1, 3), kael::ValueError);
}

TEST(NnLayerNorm, StartsAsPlainNormalisationAndMatchesTheFunction) {
    kael::nn::LayerNorm norm({4});
    EXPECT_EQ(values<float>(*norm.weight), (std::vector<float>{1, 1, 1, 1}));
    EXPECT_EQ(values<float>(*norm.bias), (std::vector<float>{0, 0, 0, 0}));
    const Tensor x = kael::randn({2, 4});
    EXPECT_EQ(values<float>(norm(x)), values<float>(kael::layer_norm(x, {4})));
    kael::nn::LayerNorm plain({4}, 1e-5, /*elementwise_affine=*/false);
    EXPECT_TRUE(plain.parameters().empty());
    EXPECT_THROW(kael::nn::LayerNorm(kael::Shape{}), kael::ValueError);
    EXPECT_THROW(kael::nn::LayerNorm({-1}), kael::ValueError);
}

TEST(NnDropout, IsTheIdentityInEvalAndDropsAboutPInTraining) {
    kael::nn::Dropout dropout(0.25);
    const Tensor x = kael::ones({100000});
    dropout.eval();
    EXPECT_TRUE(dropout(x).is_same(x));
    dropout.train();
    kael::manual_seed(0);
    const std::vector<float> kept = values<float>(dropout(x));
    std::int64_t zeros = 0;
    for (float v : kept) {
        if (v == 0) {
            ++zeros;
        } else {
            ASSERT_FLOAT_EQ(v, 1.0f / 0.75f);  // survivors are scaled so the mean stays 1
        }
    }
    EXPECT_NEAR(static_cast<double>(zeros) / 100000.0, 0.25, 0.01);
}

TEST(NnDropout, AcceptsProbabilitiesZeroAndOneAndRefusesJustOutside) {
    const Tensor x = kael::ones({10});
    kael::nn::Dropout none(0.0);
    EXPECT_EQ(values<float>(none(x)), values<float>(x));
    kael::nn::Dropout all(1.0);
    EXPECT_EQ(values<float>(all(x)), std::vector<float>(10, 0.0f));
    EXPECT_THROW(kael::nn::Dropout(1.0000001), kael::ValueError);
    EXPECT_THROW(kael::nn::Dropout(-1e-9), kael::ValueError);
}

TEST(NnActivation, ReluAndGeluMatchTheirFunctions) {
    const Tensor x = kael::randn({16});
    EXPECT_EQ(values<float>(kael::nn::ReLU()(x)), values<float>(kael::relu(x)));
    EXPECT_EQ(values<float>(kael::nn::GELU()(x)), values<float>(kael::gelu(x)));
    EXPECT_EQ(values<float>(kael::nn::GELU("tanh")(x)), values<float>(kael::gelu(x, "tanh")));
    EXPECT_THROW(kael::nn::GELU("erf"), kael::ValueError);
}

TEST(NnSequential, ChainsItsModulesAndChecksIndices) {
    kael::nn::Sequential empty;
    const Tensor x = kael::randn({2, 3});
    EXPECT_TRUE(empty(x).is_same(x));
    auto linear = std::make_shared<kael::nn::Linear>(3, 3);
    kael::nn::Sequential chain({linear, std::make_shared<kael::nn::ReLU>()});
    EXPECT_EQ(values<float>(chain(x)), values<float>(kael::relu((*linear)(x))));
    EXPECT_NO_THROW((void)chain[1]);
    EXPECT_THROW((void)chain[2], kael::IndexError);
    EXPECT_THROW(kael::nn::Sequential({nullptr}), kael::ValueError);
}

TEST(NnClipGradNorm, ScalesOnlyAboveTheLimit) {
    Tensor a = kael::zeros({2});
    Tensor b = kael::zeros({1});
    a.set_grad(kael::from_vector<float>({3, 0}));
    b.set_grad(kael::from_vector<float>({4}));
    // The norm of (3, 0, 4) is 5: a limit above it leaves the gradients exactly as they were.
    EXPECT_DOUBLE_EQ(kael::nn::clip_grad_norm_({a, b}, 10.0).item(), 5.0);
    EXPECT_EQ(values<float>(*a.grad()), (std::vector<float>{3, 0}));
    const Tensor total = kael::nn::clip_grad_norm_({a, b}, 1.0);
    EXPECT_DOUBLE_EQ(total.item(), 5.0);
    EXPECT_NEAR(values<float>(*a.grad())[0], 0.6, 1e-6);
    EXPECT_NEAR(values<float>(*b.grad())[0], 0.8, 1e-6);
}

TEST(NnClipGradNorm, InfinityNormSkippedGradientsAndBadArguments) {
    Tensor a = kael::zeros({3});
    Tensor no_grad = kael::zeros({3});
    a.set_grad(kael::from_vector<float>({-7, 2, 1}));
    EXPECT_DOUBLE_EQ(kael::nn::clip_grad_norm_({a, no_grad}, 100.0, INFINITY).item(), 7.0);
    EXPECT_DOUBLE_EQ(kael::nn::clip_grad_norm_({no_grad}, 1.0).item(), 0.0);
    EXPECT_THROW((void)kael::nn::clip_grad_norm_({a}, -1e-9), kael::ValueError);
    EXPECT_THROW((void)kael::nn::clip_grad_norm_({a}, 1.0, 0.5), kael::ValueError);
    a.set_grad(kael::from_vector<float>({NAN, 1, 1}));
    EXPECT_THROW((void)kael::nn::clip_grad_norm_({a}, 1.0, 2.0, /*error_if_nonfinite=*/true), kael::Error);
    EXPECT_TRUE(std::isnan(values<float>(*a.grad())[0]));  // refused: nothing was scaled
    EXPECT_FALSE(std::isnan(values<float>(*a.grad())[1]));
    (void)kael::nn::clip_grad_norm_({a}, 1.0);  // allowed: every gradient becomes NaN, as in PyTorch
    EXPECT_TRUE(std::isnan(values<float>(*a.grad())[1]));
}

}  // namespace

// nn::init: gains and fans as PyTorch computes them, and each distribution's bounds and
// spread on enough draws to tell a wrong formula from noise.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "helpers.h"
#include "kael/factory.h"
#include "kael/nn/init.h"
#include "kael/random.h"

namespace {

using kael::Tensor;
using kael::testing::values;
namespace init = kael::nn::init;

double std_of(const Tensor& t) {
    const std::vector<float> v = values<float>(t);
    double sum = 0;
    double squares = 0;
    for (float x : v) {
        sum += x;
        squares += static_cast<double>(x) * x;
    }
    const double n = static_cast<double>(v.size());
    return std::sqrt(squares / n - (sum / n) * (sum / n));
}

TEST(NnInit, GainsMatchPyTorch) {
    EXPECT_DOUBLE_EQ(init::calculate_gain(init::Nonlinearity::Linear), 1.0);
    EXPECT_DOUBLE_EQ(init::calculate_gain(init::Nonlinearity::Sigmoid), 1.0);
    EXPECT_DOUBLE_EQ(init::calculate_gain(init::Nonlinearity::Tanh), 5.0 / 3.0);
    EXPECT_DOUBLE_EQ(init::calculate_gain(init::Nonlinearity::Relu), std::sqrt(2.0));
    EXPECT_DOUBLE_EQ(init::calculate_gain(init::Nonlinearity::LeakyRelu, std::sqrt(5.0)), std::sqrt(1.0 / 3.0));
}

TEST(NnInit, FansCountTheReceptiveFieldAndNeedTwoDimensions) {
    EXPECT_EQ(init::calculate_fan_in_and_fan_out(kael::empty({8, 3})), (std::pair<std::int64_t, std::int64_t>{3, 8}));
    EXPECT_EQ(init::calculate_fan_in_and_fan_out(kael::empty({16, 3, 5, 5})),
              (std::pair<std::int64_t, std::int64_t>{75, 400}));
    EXPECT_THROW((void)init::calculate_fan_in_and_fan_out(kael::empty({8})), kael::ValueError);
}

TEST(NnInit, KaimingUniformStaysInsideItsBound) {
    kael::manual_seed(3);
    Tensor w = kael::empty({256, 400});
    init::kaiming_uniform_(w, 0.0, init::FanMode::FanIn, init::Nonlinearity::Relu);
    const double bound = std::sqrt(2.0) * std::sqrt(3.0 / 400.0);
    for (float x : values<float>(w)) {
        ASSERT_LE(std::abs(x), bound);
    }
    EXPECT_NEAR(std_of(w), bound / std::sqrt(3.0), 0.01 * bound);
    // Fan out: the bound follows dimension 0 instead.
    init::kaiming_uniform_(w, 0.0, init::FanMode::FanOut, init::Nonlinearity::Relu);
    EXPECT_NEAR(std_of(w), std::sqrt(2.0 / 256.0), 0.01 * std::sqrt(2.0 / 256.0));
}

TEST(NnInit, KaimingAndXavierNormalHaveTheirStandardDeviation) {
    kael::manual_seed(4);
    Tensor w = kael::empty({300, 500});
    init::kaiming_normal_(w, 0.0, init::FanMode::FanIn, init::Nonlinearity::Relu);
    EXPECT_NEAR(std_of(w), std::sqrt(2.0 / 500.0), 0.01 * std::sqrt(2.0 / 500.0));
    init::xavier_normal_(w, 2.0);
    EXPECT_NEAR(std_of(w), 2.0 * std::sqrt(2.0 / 800.0), 0.01 * 2.0 * std::sqrt(2.0 / 800.0));
}

TEST(NnInit, XavierUniformBound) {
    kael::manual_seed(5);
    Tensor w = kael::empty({300, 500});
    init::xavier_uniform_(w);
    const double bound = std::sqrt(6.0 / 800.0);
    double largest = 0;
    for (float x : values<float>(w)) {
        largest = std::max(largest, static_cast<double>(std::abs(x)));
    }
    EXPECT_LE(largest, bound);
    EXPECT_GT(largest, 0.99 * bound);  // 150k draws reach the edge
}

TEST(NnInit, ConstantsAndRefusals) {
    Tensor w = kael::empty({2, 2});
    EXPECT_EQ(values<float>(init::ones_(w)), std::vector<float>(4, 1.0f));
    EXPECT_EQ(values<float>(init::zeros_(w)), std::vector<float>(4, 0.0f));
    EXPECT_EQ(values<float>(init::constant_(w, 0.5)), std::vector<float>(4, 0.5f));
    init::uniform_(w, 2.0, 2.0);  // a == b is a point, not an error
    EXPECT_EQ(values<float>(w), std::vector<float>(4, 2.0f));
    EXPECT_THROW(init::uniform_(w, 2.0, 1.999), kael::ValueError);
    EXPECT_THROW(init::normal_(w, 0.0, -1e-12), kael::ValueError);
    Tensor integers = kael::zeros({2}, kael::DType::I64);
    EXPECT_THROW(init::normal_(integers), kael::TypeError);
    EXPECT_THROW(init::ones_(integers), kael::TypeError);
}

TEST(NnInit, WritesIntoParametersWithoutRecording) {
    Tensor w = kael::empty({3, 3});
    w.requires_grad_();
    init::xavier_uniform_(w);  // an in-place write to a leaf that requires grad: allowed here
    EXPECT_TRUE(w.is_leaf());
    EXPECT_TRUE(w.requires_grad());
}

}  // namespace

// Tests of exercise 06.1. Every test fails until softplus is implemented.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "exercise.h"
#include "kael/autograd.h"
#include "kael/factory.h"
#include "kael/ops.h"
#include "kael/random.h"

namespace {

using exercise::softplus;
using kael::DType;
using kael::Tensor;

std::vector<double> values(const Tensor& t) {
    const Tensor c = t.contiguous().to(DType::F64);
    return {c.data_ptr<double>(), c.data_ptr<double>() + c.numel()};
}

Tensor leaf(std::vector<double> data) {
    Tensor t = kael::from_vector(data);
    t.requires_grad_();
    return t;
}

TEST(Softplus, ValuesBelowAndAboveTheThreshold) {
    const std::vector<double> xs{-30, -1, 0, 0.5, 19.9, 20, 20.1, 100};
    const std::vector<double> got = values(softplus(kael::from_vector(xs)));
    for (std::size_t i = 0; i < xs.size(); ++i) {
        const double expected = xs[i] > 20 ? xs[i] : std::log1p(std::exp(xs[i]));
        EXPECT_NEAR(got[i], expected, 1e-12 * std::max(1.0, std::abs(expected))) << "x = " << xs[i];
    }
    // beta scales the input and the result; the threshold applies to beta * x.
    const std::vector<double> scaled = values(softplus(kael::from_vector<double>({1.0, 6.0}), 2.0, 10.0));
    EXPECT_NEAR(scaled[0], std::log1p(std::exp(2.0)) / 2, 1e-12);
    EXPECT_EQ(scaled[1], 6.0);
}

TEST(Softplus, Float32StridedAndRefusals) {
    const Tensor base = kael::from_vector<float>({-1, 0, 1, 2, 3, 4}, {2, 3});
    const std::vector<double> got = values(softplus(base.T()));
    EXPECT_NEAR(got[1], std::log1p(std::exp(2.0)), 1e-6);  // [0][1] of the transpose is base[1][0]
    EXPECT_EQ(softplus(base).dtype(), DType::F32);
    EXPECT_THROW((void)softplus(kael::from_vector<std::int64_t>({1})), kael::TypeError);
    EXPECT_THROW((void)softplus(kael::from_vector<double>({1}), 0.0), kael::ValueError);
}

TEST(Softplus, RecordsOneNodeOfItsOwn) {
    Tensor x = leaf({-1, 0, 2});
    const Tensor y = softplus(x);
    ASSERT_NE(y.grad_fn(), nullptr);
    EXPECT_EQ(y.grad_fn()->name(), "SoftplusBackward");
    ASSERT_EQ(y.grad_fn()->next_edges().size(), 1u);
    EXPECT_EQ(y.grad_fn()->next_edges()[0].node->name(), "AccumulateGrad");
}

TEST(Softplus, GradientIsTheSigmoidAndOneAboveTheThreshold) {
    Tensor x = leaf({-1, 0, 2, 25});
    softplus(x).sum().backward();
    const std::vector<double> got = values(*x.grad());
    EXPECT_NEAR(got[0], 1 / (1 + std::exp(1.0)), 1e-12);
    EXPECT_NEAR(got[1], 0.5, 1e-12);
    EXPECT_NEAR(got[2], 1 / (1 + std::exp(-2.0)), 1e-12);
    EXPECT_EQ(got[3], 1.0);
}

TEST(Softplus, PassesGradcheckOnContiguousAndStridedInputs) {
    kael::manual_seed(5);
    Tensor contiguous = kael::randn({3, 4}, DType::F64) * 3;
    contiguous.requires_grad_();
    Tensor strided = (kael::randn({4, 3}, DType::F64) * 3).T();
    strided.requires_grad_();
    for (const Tensor& x : {contiguous, strided}) {
        const auto result = kael::autograd::gradcheck(
            [](const std::vector<Tensor>& in) { return softplus(in[0], 1.5, 4.0); }, {x});
        EXPECT_TRUE(result.ok) << result.report;
    }
}

TEST(Softplus, SecondDerivativePassesGradcheck) {
    kael::manual_seed(6);
    Tensor x = kael::randn({5}, DType::F64);
    x.requires_grad_();
    const auto result = kael::autograd::gradcheck(
        [](const std::vector<Tensor>& in) {
            return *kael::autograd::grad({softplus(in[0]).sum()}, {in[0]}, {}, std::nullopt, true)[0];
        },
        {x});
    EXPECT_TRUE(result.ok) << result.report;
}

TEST(Softplus, RecordsNothingWithoutGrad) {
    Tensor x = leaf({1, 2});
    {
        const kael::autograd::NoGradGuard no_grad;
        EXPECT_FALSE(softplus(x).requires_grad());
    }
    EXPECT_FALSE(softplus(kael::from_vector<double>({1, 2})).requires_grad());
}

TEST(Softplus, WritingTheSavedInputInPlaceIsCaught) {
    Tensor w = leaf({3, 4});
    Tensor y = w * 1.0;
    const Tensor loss = softplus(y).sum();  // SoftplusBackward saves y at version 0
    {
        const kael::autograd::NoGradGuard no_grad;
        y.add_(1);  // version 1
    }
    EXPECT_THROW(loss.backward(), kael::Error);
    Tensor z = w * 1.0;
    const Tensor untouched = softplus(z).sum();
    EXPECT_NO_THROW(untouched.backward());
}

}  // namespace

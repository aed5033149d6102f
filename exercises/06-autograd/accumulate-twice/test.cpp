// Tests of exercise 06.3. Every test fails until backward is implemented.
#include <gtest/gtest.h>

#include <vector>

#include "exercise.h"
#include "kael/autograd.h"
#include "kael/factory.h"
#include "kael/ops.h"
#include "kael/random.h"

namespace {

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

TEST(MyBackward, ATensorUsedTwiceGetsTheSum) {
    Tensor x = leaf({1, 2, 3});
    exercise::backward((x * x + x).sum());  // 2x + 1
    ASSERT_TRUE(x.grad().has_value());
    EXPECT_EQ(values(*x.grad()), (std::vector<double>{3, 5, 7}));
}

TEST(MyBackward, TheSharedNodeRunsOnceWithTheSummedGradient) {
    Tensor x = leaf({2});
    const Tensor y = x * 3;
    int runs = 0;
    double seen = 0;
    y.register_hook([&](const Tensor& g) -> std::optional<Tensor> {
        ++runs;
        seen = g.item();
        return std::nullopt;
    });
    exercise::backward((y * 2 + y * 5).sum());
    EXPECT_EQ(runs, 1);
    EXPECT_EQ(seen, 7.0);
    EXPECT_EQ(x.grad()->item(), 21.0);
}

TEST(MyBackward, AgreesWithTheEngineOnALargerGraph) {
    kael::manual_seed(3);
    auto build = [](const Tensor& x, const Tensor& w, const Tensor& b) {
        const Tensor h = kael::tanh(kael::matmul(x, w) + b);
        return (kael::softmax(h, 1) * h).sum() + kael::logsumexp(h, {0}).mean();
    };
    Tensor x = kael::randn({4, 3}, DType::F64);
    Tensor w = kael::randn({3, 5}, DType::F64);
    Tensor b = kael::randn({5}, DType::F64);
    for (Tensor* t : {&x, &w, &b}) {
        t->requires_grad_();
    }
    build(x, w, b).backward();
    const std::vector<std::vector<double>> expected{values(*x.grad()), values(*w.grad()), values(*b.grad())};
    kael::autograd::zero_grad({x, w, b});
    exercise::backward(build(x, w, b));
    const std::vector<std::vector<double>> got{values(*x.grad()), values(*w.grad()), values(*b.grad())};
    for (std::size_t i = 0; i < 3; ++i) {
        ASSERT_EQ(got[i].size(), expected[i].size());
        for (std::size_t k = 0; k < got[i].size(); ++k) {
            EXPECT_NEAR(got[i][k], expected[i][k], 1e-12);
        }
    }
}

TEST(MyBackward, InputsOutsideTheGraphGetNothing) {
    Tensor x = leaf({1, 2});
    const Tensor constant = kael::from_vector<double>({5, 6});
    exercise::backward((x * constant).sum());
    EXPECT_EQ(values(*x.grad()), (std::vector<double>{5, 6}));
    EXPECT_FALSE(constant.grad().has_value());
}

TEST(MyBackward, GradientsAreConvertedToTheInputsDtype) {
    Tensor x = kael::from_vector<float>({1, 2});
    x.requires_grad_();
    exercise::backward((x * kael::from_vector<double>({0.5, 4})).sum());
    EXPECT_EQ(x.grad()->dtype(), DType::F32);
    EXPECT_EQ(values(*x.grad()), (std::vector<double>{0.5, 4}));
}

TEST(MyBackward, TwoCallsAccumulateAndBadOutputsAreRefused) {
    Tensor x = leaf({1, 2});
    exercise::backward((x * 3).sum());
    exercise::backward((x * 4).sum());
    EXPECT_EQ(values(*x.grad()), (std::vector<double>{7, 7}));
    EXPECT_THROW(exercise::backward(x * 2), kael::Error);                      // two elements
    EXPECT_THROW(exercise::backward(kael::ones({1}, DType::F64)), kael::Error);  // no grad
}

}  // namespace

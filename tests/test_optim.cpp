// Optimizers: each update rule against the formula written out, step by step, and the
// checks on parameters and hyperparameters at and just past their limits. The PyTorch
// reference check (tests/torch_reference) compares whole trajectories with torch.optim.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "helpers.h"
#include "kael/autograd.h"
#include "kael/factory.h"
#include "kael/ops.h"
#include "kael/optim/adam.h"
#include "kael/optim/sgd.h"
#include "kael/random.h"

namespace {

using kael::Tensor;
using kael::testing::grad_leaf;
using kael::testing::values;

// Sets p's gradient to `g` (as backward would) and runs one step.
void step_with(kael::optim::Optimizer& optimizer, Tensor& p, const std::vector<double>& g) {
    p.set_grad(kael::from_vector(g));
    optimizer.step();
}

TEST(OptimSgd, PlainStepMovesAgainstTheGradient) {
    Tensor p = grad_leaf({1.0, -2.0});
    kael::optim::Sgd sgd({p}, {.lr = 0.1});
    step_with(sgd, p, {0.5, -1.0});
    EXPECT_EQ(values<double>(p), (std::vector<double>{1.0 - 0.05, -2.0 + 0.1}));
    EXPECT_TRUE(p.is_leaf());  // the update was not recorded
}

TEST(OptimSgd, MomentumDampeningNesterovAndWeightDecay) {
    const kael::optim::SgdOptions options{.lr = 0.1, .momentum = 0.9, .dampening = 0.25, .weight_decay = 0.01};
    Tensor p = grad_leaf({1.0});
    kael::optim::Sgd sgd({p}, options);
    double x = 1.0;
    double buffer = 0;
    const std::vector<double> grads{0.5, -0.2, 0.3};
    for (std::size_t t = 0; t < grads.size(); ++t) {
        const double d = grads[t] + 0.01 * x;
        buffer = t == 0 ? d : 0.9 * buffer + 0.75 * d;  // the first step is not dampened
        x -= 0.1 * buffer;
        step_with(sgd, p, {grads[t]});
        EXPECT_NEAR(p.item(), x, 1e-15) << "step " << t + 1;
    }
    Tensor q = grad_leaf({1.0});
    kael::optim::Sgd nesterov({q}, {.lr = 0.1, .momentum = 0.9, .nesterov = true});
    step_with(nesterov, q, {0.5});  // b = 0.5, d' = 0.5 + 0.9 * 0.5
    EXPECT_NEAR(q.item(), 1.0 - 0.1 * 0.95, 1e-15);
}

TEST(OptimAdam, StepsFollowTheBiasCorrectedFormula) {
    const kael::optim::AdamOptions options{.lr = 0.01, .beta1 = 0.8, .beta2 = 0.95, .eps = 1e-6, .weight_decay = 0.1};
    Tensor p = grad_leaf({0.5});
    kael::optim::Adam adam({p}, options);
    double x = 0.5;
    double m = 0;
    double v = 0;
    const std::vector<double> grads{1.0, -0.5, 0.25, 2.0};
    for (std::size_t i = 0; i < grads.size(); ++i) {
        const double t = static_cast<double>(i + 1);
        const double g = grads[i] + 0.1 * x;  // Adam: L2 through the gradient
        m = 0.8 * m + 0.2 * g;
        v = 0.95 * v + 0.05 * g * g;
        x -= 0.01 / (1 - std::pow(0.8, t)) * m / (std::sqrt(v) / std::sqrt(1 - std::pow(0.95, t)) + 1e-6);
        step_with(adam, p, {grads[i]});
        EXPECT_NEAR(p.item(), x, 1e-14) << "step " << i + 1;
    }
}

TEST(OptimAdam, AdamWDecaysTheParameterNotTheGradient) {
    kael::optim::AdamOptions options = kael::optim::AdamW::default_options();
    EXPECT_EQ(options.weight_decay, 1e-2);
    options.lr = 0.1;
    Tensor p = grad_leaf({2.0});
    kael::optim::AdamW adamw({p}, options);
    step_with(adamw, p, {0.5});
    // p *= 1 - lr * wd, then the first Adam step moves by lr * m^ / (sqrt(v^) + eps) = lr * sign(g).
    EXPECT_NEAR(p.item(), 2.0 * (1 - 0.1 * 0.01) - 0.1 * 0.5 / (0.5 + 1e-8), 1e-14);
    // With Adam's L2 the same decay enters the gradient, which the first step normalises away.
    Tensor q = grad_leaf({2.0});
    kael::optim::Adam adam({q}, {.lr = 0.1, .weight_decay = 0.01});
    step_with(adam, q, {0.5});
    EXPECT_NEAR(q.item(), 2.0 - 0.1 * 0.52 / (0.52 + 1e-8), 1e-14);
}

TEST(OptimAdam, AmsgradKeepsTheLargestSecondMoment) {
    Tensor p = grad_leaf({0.0});
    Tensor q = grad_leaf({0.0});
    kael::optim::Adam with({p}, {.lr = 0.1, .beta2 = 0.5, .amsgrad = true});
    kael::optim::Adam without({q}, {.lr = 0.1, .beta2 = 0.5});
    step_with(with, p, {10.0});
    step_with(without, q, {10.0});
    EXPECT_EQ(p.item(), q.item());  // v is still the largest after one step
    const double before_p = p.item();
    const double before_q = q.item();
    step_with(with, p, {0.1});  // v shrinks; AMSGrad divides by the old, larger one
    step_with(without, q, {0.1});
    EXPECT_LT(std::abs(p.item() - before_p), std::abs(q.item() - before_q));
}

// A contiguous CPU parameter takes the fused loop, a strided one the tensor operations: the
// two must agree step for step, in float32 (where rounding differences would show) and in
// every variant.
TEST(OptimAdam, FusedLoopAndTensorOperationsAgree) {
    for (const bool amsgrad : {false, true}) {
        for (const bool decoupled : {false, true}) {
            kael::manual_seed(7);
            const Tensor start = kael::randn({4, 6});
            Tensor fused = start.clone();
            // The same values stored transposed: a leaf that is not contiguous.
            Tensor strided = start.T().contiguous().T();
            ASSERT_FALSE(strided.is_contiguous());
            fused.requires_grad_();
            strided.requires_grad_();
            const kael::optim::AdamOptions options{.lr = 0.05, .weight_decay = 0.1, .amsgrad = amsgrad};
            std::unique_ptr<kael::optim::Adam> a;
            std::unique_ptr<kael::optim::Adam> b;
            if (decoupled) {
                a = std::make_unique<kael::optim::AdamW>(std::vector<Tensor>{fused}, options);
                b = std::make_unique<kael::optim::AdamW>(std::vector<Tensor>{strided}, options);
            } else {
                a = std::make_unique<kael::optim::Adam>(std::vector<Tensor>{fused}, options);
                b = std::make_unique<kael::optim::Adam>(std::vector<Tensor>{strided}, options);
            }
            for (int step = 0; step < 5; ++step) {
                const Tensor g = kael::randn({4, 6}) * (step == 3 ? 0.01 : 1.0);  // v shrinks at step 3
                fused.set_grad(g.clone());
                strided.set_grad(g.clone());
                a->step();
                b->step();
                const std::vector<float> x = values<float>(fused);
                const std::vector<float> y = values<float>(strided);
                for (std::size_t i = 0; i < x.size(); ++i) {
                    ASSERT_NEAR(x[i], y[i], 2e-7 * (1 + std::abs(y[i])))
                        << "amsgrad " << amsgrad << ", AdamW " << decoupled << ", step " << step << ", element " << i;
                }
            }
        }
    }
}

TEST(OptimAdam, FusedStepBumpsTheParameterVersion) {
    Tensor p = grad_leaf({1.0, 2.0});
    kael::optim::Adam adam({p}, {});
    const Tensor saved_by_graph = p * p;  // saves p for its backward
    step_with(adam, p, {0.1, 0.1});
    EXPECT_THROW(saved_by_graph.sum().backward(), kael::Error);  // p changed after it was saved
}

TEST(Optim, ParametersWithoutGradientAreSkippedAndZeroGradClears) {
    Tensor a = grad_leaf({1.0});
    Tensor b = grad_leaf({1.0});
    kael::optim::Sgd sgd({a, b}, {.lr = 1.0});
    a.set_grad(kael::from_vector<double>({0.5}));
    sgd.step();
    EXPECT_EQ(a.item(), 0.5);
    EXPECT_EQ(b.item(), 1.0);
    sgd.zero_grad(false);
    EXPECT_EQ(a.grad()->item(), 0.0);
    sgd.zero_grad();
    EXPECT_FALSE(a.grad().has_value());
}

TEST(Optim, TrainingLoopLowersTheLoss) {
    Tensor w = grad_leaf({0.0, 0.0});
    const Tensor x = kael::from_vector<double>({1, 2, 3, 4, -1, 0.5}, {3, 2});
    const Tensor y = kael::from_vector<double>({-1, -1, -1.5});  // x @ [1, -1]
    kael::optim::Adam adam({w}, {.lr = 0.1});
    double first = 0;
    double last = 0;
    for (int step = 0; step < 200; ++step) {
        adam.zero_grad();
        const Tensor loss = kael::mse_loss(kael::matmul(x, w), y);
        loss.backward();
        adam.step();
        (step == 0 ? first : last) = loss.item();
    }
    EXPECT_LT(last, first * 1e-3);
    EXPECT_NEAR(values<double>(w)[0], 1.0, 1e-2);
    EXPECT_NEAR(values<double>(w)[1], -1.0, 1e-2);
}

TEST(Optim, BadParametersAndHyperparametersAreRefused) {
    Tensor p = grad_leaf({1.0});
    EXPECT_THROW(kael::optim::Sgd({p * 2}, {}), kael::Error);                 // not a leaf
    EXPECT_THROW(kael::optim::Sgd({p, Tensor(p)}, {}), kael::ValueError);      // the same tensor twice
    EXPECT_THROW(kael::optim::Sgd({kael::ones({1}, kael::DType::I64)}, {}), kael::Error);
    EXPECT_NO_THROW(kael::optim::Sgd({p}, {.lr = 0.0}));                      // at the limit
    EXPECT_THROW(kael::optim::Sgd({p}, {.lr = -1e-12}), kael::ValueError);    // just past it
    EXPECT_THROW(kael::optim::Sgd({p}, {.momentum = -0.1}), kael::ValueError);
    EXPECT_THROW(kael::optim::Sgd({p}, {.nesterov = true}), kael::ValueError);
    EXPECT_THROW(kael::optim::Sgd({p}, {.momentum = 0.9, .dampening = 0.1, .nesterov = true}), kael::ValueError);
    EXPECT_NO_THROW(kael::optim::Adam({p}, {.beta1 = 0.0}));
    EXPECT_THROW(kael::optim::Adam({p}, {.beta1 = 1.0}), kael::ValueError);
    EXPECT_THROW(kael::optim::Adam({p}, {.beta2 = -0.1}), kael::ValueError);
    EXPECT_THROW(kael::optim::Adam({p}, {.eps = -1e-9}), kael::ValueError);
    EXPECT_THROW(kael::optim::AdamW({p}, {.weight_decay = -0.01}), kael::ValueError);
    kael::optim::Sgd sgd({p}, {.lr = 0.1});
    EXPECT_THROW(sgd.set_learning_rate(-0.5), kael::ValueError);
    sgd.set_learning_rate(0.5);
    EXPECT_EQ(sgd.learning_rate(), 0.5);
}

}  // namespace

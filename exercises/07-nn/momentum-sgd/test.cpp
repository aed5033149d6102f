// Tests of exercise 07.2. Every test fails until MomentumSgd is implemented.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "exercise.h"
#include "kael/autograd.h"
#include "kael/factory.h"
#include "kael/ops.h"
#include "kael/optim/schedule.h"
#include "kael/optim/sgd.h"
#include "kael/random.h"

namespace {

using exercise::MomentumOptions;
using exercise::MomentumSgd;
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

// Sets p's gradient to `g`, as backward would, and runs one step.
void step_with(kael::optim::Optimizer& optimizer, Tensor& p, const std::vector<double>& g) {
    p.set_grad(kael::from_vector(g));
    optimizer.step();
}

TEST(MomentumSgd, TheFirstStepStartsTheBufferAtTheGradientUndamped) {
    Tensor p = leaf({1.0, -2.0});
    MomentumSgd sgd({p}, {.lr = 0.1, .momentum = 0.9, .dampening = 0.5});
    EXPECT_FALSE(sgd.momentum_buffer(0).has_value());  // no step, no buffer
    step_with(sgd, p, {0.5, -1.0});
    EXPECT_EQ(values(p), (std::vector<double>{1.0 - 0.05, -2.0 + 0.1}));
    ASSERT_TRUE(sgd.momentum_buffer(0).has_value());
    EXPECT_EQ(values(*sgd.momentum_buffer(0)), (std::vector<double>{0.5, -1.0}));  // not halved
    EXPECT_NE(sgd.momentum_buffer(0)->impl(), p.grad()->impl());                   // a copy of it
    // The update wrote into the tensor, outside the graph.
    EXPECT_TRUE(p.is_leaf());
    EXPECT_TRUE(p.requires_grad());
    EXPECT_EQ(p.grad_fn(), nullptr);
}

TEST(MomentumSgd, TheTrajectoryFollowsTheFormulaStepByStep) {
    const double lr = 0.1;
    const double momentum = 0.9;
    const double dampening = 0.25;
    Tensor p = leaf({1.0});
    MomentumSgd sgd({p}, {.lr = lr, .momentum = momentum, .dampening = dampening});
    double x = 1.0;
    double buffer = 0;
    const std::vector<double> grads{0.5, -0.2, 0.3, 1.5, -0.75};
    for (std::size_t t = 0; t < grads.size(); ++t) {
        buffer = t == 0 ? grads[t] : momentum * buffer + (1 - dampening) * grads[t];
        x -= lr * buffer;
        step_with(sgd, p, {grads[t]});
        EXPECT_NEAR(p.item(), x, 1e-15) << "step " << t + 1;
        EXPECT_NEAR(sgd.momentum_buffer(0)->item(), buffer, 1e-15) << "step " << t + 1;
    }
}

TEST(MomentumSgd, NesterovStepsAlongTheGradientPlusTheBuffer) {
    const double lr = 0.1;
    const double momentum = 0.8;
    Tensor p = leaf({2.0});
    MomentumSgd sgd({p}, {.lr = lr, .momentum = momentum, .nesterov = true});
    double x = 2.0;
    double buffer = 0;
    const std::vector<double> grads{1.0, 0.5, -2.0, 0.25};
    for (std::size_t t = 0; t < grads.size(); ++t) {
        buffer = t == 0 ? grads[t] : momentum * buffer + grads[t];
        x -= lr * (grads[t] + momentum * buffer);
        step_with(sgd, p, {grads[t]});
        EXPECT_NEAR(p.item(), x, 1e-15) << "step " << t + 1;
        EXPECT_NEAR(sgd.momentum_buffer(0)->item(), buffer, 1e-15) << "step " << t + 1;
    }
}

TEST(MomentumSgd, ZeroMomentumIsPlainSgdWhateverTheDampening) {
    Tensor p = leaf({1.0, 1.0});
    MomentumSgd sgd({p}, {.lr = 0.5, .momentum = 0.0, .dampening = 0.5});
    step_with(sgd, p, {1.0, -1.0});
    step_with(sgd, p, {0.5, 0.25});
    EXPECT_EQ(values(p), (std::vector<double>{1.0 - 0.5 - 0.25, 1.0 + 0.5 - 0.125}));
    EXPECT_FALSE(sgd.momentum_buffer(0).has_value());
}

// Both optimizers on their own copy of two parameters, the gradients of a loss that moves
// from step to step, every step compared. kael's Sgd is itself checked against
// torch.optim.SGD by the reference tests (tests/torch_reference).
TEST(MomentumSgd, MatchesKaelsSgdWithTheSameOptions) {
    struct Case {
        double momentum;
        double dampening;
        bool nesterov;
    };
    const Case cases[] = {{0.9, 0.0, false}, {0.5, 0.3, false}, {0.9, 0.0, true}, {0.0, 0.5, false},
                          {1.0, 1.0, false}};
    for (const Case c : cases) {
        SCOPED_TRACE("momentum " + std::to_string(c.momentum) + ", dampening " +
                     std::to_string(c.dampening) + (c.nesterov ? ", nesterov" : ""));
        kael::manual_seed(11);
        const Tensor w0 = kael::randn({2, 3}, DType::F64);
        const Tensor v0 = kael::randn({4}, DType::F64);
        Tensor w_mine = w0.clone().requires_grad_();
        Tensor v_mine = v0.clone().requires_grad_();
        Tensor w_sgd = w0.clone().requires_grad_();
        Tensor v_sgd = v0.clone().requires_grad_();
        MomentumSgd mine({w_mine, v_mine}, {.lr = 0.05, .momentum = c.momentum, .dampening = c.dampening,
                                            .nesterov = c.nesterov});
        kael::optim::Sgd sgd({w_sgd, v_sgd}, {.lr = 0.05, .momentum = c.momentum, .dampening = c.dampening,
                                              .nesterov = c.nesterov});
        for (int step = 0; step < 6; ++step) {
            const Tensor target = kael::randn({2, 3}, DType::F64);
            auto loss = [&](const Tensor& w, const Tensor& v) {
                const Tensor diff = w - target;
                return (diff * diff).sum() + (kael::tanh(v) * v).sum() * static_cast<double>(step + 1);
            };
            mine.zero_grad();
            loss(w_mine, v_mine).backward();
            mine.step();
            sgd.zero_grad();
            loss(w_sgd, v_sgd).backward();
            sgd.step();
            const std::vector<double> mine_values = values(kael::cat({w_mine.flatten(), v_mine}));
            const std::vector<double> sgd_values = values(kael::cat({w_sgd.flatten(), v_sgd}));
            for (std::size_t i = 0; i < mine_values.size(); ++i) {
                EXPECT_NEAR(mine_values[i], sgd_values[i], 1e-12) << "step " << step + 1 << ", element " << i;
            }
        }
    }
}

TEST(MomentumSgd, EachParameterStartsItsOwnBufferAtItsFirstGradient) {
    Tensor a = leaf({1.0});
    Tensor b = leaf({1.0});
    MomentumSgd sgd({a, b}, {.lr = 0.1, .momentum = 0.5, .dampening = 0.5});
    a.set_grad(kael::from_vector<double>({1.0}));
    sgd.step();  // b has no gradient yet: skipped, and no buffer
    EXPECT_EQ(b.item(), 1.0);
    EXPECT_FALSE(sgd.momentum_buffer(1).has_value());
    a.set_grad(kael::from_vector<double>({2.0}));
    b.set_grad(kael::from_vector<double>({2.0}));
    sgd.step();
    EXPECT_DOUBLE_EQ(sgd.momentum_buffer(0)->item(), 0.5 * 1.0 + 0.5 * 2.0);  // a's second step
    EXPECT_DOUBLE_EQ(sgd.momentum_buffer(1)->item(), 2.0);                    // b's first, undamped
    EXPECT_DOUBLE_EQ(a.item(), 1.0 - 0.1 - 0.1 * 1.5);
    EXPECT_DOUBLE_EQ(b.item(), 1.0 - 0.2);
    EXPECT_THROW((void)sgd.momentum_buffer(2), kael::IndexError);
}

TEST(MomentumSgd, TheBufferIsACopyThatZeroGradInPlaceCannotTouch) {
    Tensor p = leaf({1.0});
    MomentumSgd sgd({p}, {.lr = 0.1, .momentum = 0.9});
    (p * 2.0).sum().backward();  // grad 2
    sgd.step();                  // buffer 2, p = 0.8
    sgd.zero_grad(/*set_to_none=*/false);  // zeroes the gradient tensor in place
    ASSERT_EQ(p.grad()->item(), 0.0);
    EXPECT_EQ(sgd.momentum_buffer(0)->item(), 2.0);
    (p * 3.0).sum().backward();  // accumulates into the same tensor: grad 3
    sgd.step();                  // buffer 0.9 * 2 + 3, p = 0.8 - 0.1 * 4.8
    EXPECT_DOUBLE_EQ(sgd.momentum_buffer(0)->item(), 4.8);
    EXPECT_DOUBLE_EQ(p.item(), 0.8 - 0.48);
    EXPECT_EQ(p.grad()->item(), 3.0);  // the step leaves the gradient alone
}

TEST(MomentumSgd, EveryStepReadsTheLearningRateASchedulerSet) {
    Tensor p = leaf({0.0});
    MomentumSgd sgd({p}, {.lr = 0.4, .momentum = 0.5});
    kael::optim::StepLR schedule(sgd, 1, 0.5);  // 0.4, 0.2, 0.1
    double x = 0.0;
    double buffer = 0;
    double rate = 0.4;
    for (int t = 0; t < 3; ++t) {
        buffer = t == 0 ? 1.0 : 0.5 * buffer + 1.0;
        x -= rate * buffer;
        step_with(sgd, p, {1.0});
        schedule.step();
        rate *= 0.5;
        EXPECT_DOUBLE_EQ(p.item(), x) << "step " << t + 1;
    }
}

TEST(MomentumSgd, RefusesNegativeMomentumAndImpossibleNesterov) {
    Tensor p = leaf({1.0});
    EXPECT_NO_THROW(MomentumSgd({p}, {.momentum = 0.0}));  // at the limit
    EXPECT_NO_THROW(MomentumSgd({p}, {.momentum = 0.9, .nesterov = true}));
    EXPECT_THROW(MomentumSgd({p}, {.momentum = -1e-12}), kael::ValueError);  // just past it
    EXPECT_THROW(MomentumSgd({p}, {.momentum = 0.0, .nesterov = true}), kael::ValueError);
    EXPECT_THROW(MomentumSgd({p}, {.momentum = 0.9, .dampening = 0.1, .nesterov = true}), kael::ValueError);
    // The base class's checks still apply.
    EXPECT_THROW(MomentumSgd({p}, {.lr = -0.1}), kael::ValueError);
    EXPECT_THROW(MomentumSgd({p * 2}, {}), kael::Error);  // not a leaf
}

}  // namespace

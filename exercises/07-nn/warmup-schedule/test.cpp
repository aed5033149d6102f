// Tests of exercise 07.3. Every test fails until LinearWarmupLR is implemented.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "exercise.h"
#include "kael/factory.h"
#include "kael/optim/sgd.h"

namespace {

using exercise::LinearWarmupLR;
using kael::Tensor;

Tensor leaf(std::vector<double> data) {
    Tensor t = kael::from_vector(data);
    t.requires_grad_();
    return t;
}

// The rate of step 0, then the rate after each of `steps` calls of step().
std::vector<double> rates(kael::optim::LRScheduler& schedule, int steps) {
    std::vector<double> out{schedule.last_lr()};
    for (int i = 0; i < steps; ++i) {
        schedule.step();
        out.push_back(schedule.last_lr());
    }
    return out;
}

TEST(LinearWarmup, StepZeroTrainsAtStartFactorTimesTheBaseRate) {
    Tensor p = leaf({1.0});
    kael::optim::Sgd sgd({p}, {.lr = 0.1});
    const LinearWarmupLR schedule(sgd, 4, 0.25);
    EXPECT_DOUBLE_EQ(sgd.learning_rate(), 0.025);  // set at construction, before any step
    EXPECT_DOUBLE_EQ(schedule.last_lr(), 0.025);
    EXPECT_EQ(schedule.last_epoch(), 0);
    EXPECT_EQ(schedule.base_lr(), 0.1);  // the optimizer's rate when the schedule was made
    EXPECT_EQ(schedule.warmup_steps(), 4);
    EXPECT_EQ(schedule.start_factor(), 0.25);

    Tensor q = leaf({1.0});
    kael::optim::Sgd other({q}, {.lr = 0.3});
    const LinearWarmupLR by_default(other, 5);  // PyTorch's default start_factor, 1/3
    EXPECT_DOUBLE_EQ(other.learning_rate(), 0.1);
    EXPECT_EQ(by_default.start_factor(), 1.0 / 3);
}

TEST(LinearWarmup, RisesByEqualStepsToExactlyTheBaseRate) {
    Tensor p = leaf({1.0});
    kael::optim::Sgd sgd({p}, {.lr = 0.1});
    LinearWarmupLR schedule(sgd, 4, 0.25);
    const std::vector<double> r = rates(schedule, 4);
    const std::vector<double> expected{0.025, 0.04375, 0.0625, 0.08125, 0.1};
    for (std::size_t t = 0; t < 4; ++t) {
        EXPECT_NEAR(r[t], expected[t], 1e-15) << "step " << t;
    }
    EXPECT_EQ(r[4], 0.1);  // the end of warmup: the base rate itself, to the last bit
    Tensor q = leaf({1.0});
    kael::optim::Sgd other({q}, {.lr = 3e-4});
    LinearWarmupLR thirds(other, 3);
    EXPECT_EQ(rates(thirds, 3).back(), 3e-4);
}

TEST(LinearWarmup, OneStepPastWarmupAndEverAfterTheRateIsTheBaseRate) {
    Tensor p = leaf({1.0});
    kael::optim::Sgd sgd({p}, {.lr = 0.1});
    LinearWarmupLR schedule(sgd, 4, 0.25);
    const std::vector<double> r = rates(schedule, 60);
    for (std::size_t t = 4; t < r.size(); ++t) {
        EXPECT_EQ(r[t], 0.1) << "step " << t;
    }
    EXPECT_EQ(schedule.last_epoch(), 60);
}

// torch.optim.lr_scheduler.LinearLR(optimizer, start_factor, end_factor=1, total_iters)
// computes each rate from the one before (its get_lr); this is that recurrence, line for line.
std::vector<double> pytorch_linear_lr(double base_lr, double start, std::int64_t total_iters, int steps) {
    const double end = 1.0;
    std::vector<double> out{base_lr * start};
    for (std::int64_t epoch = 1; epoch <= steps; ++epoch) {
        const double lr = out.back();
        if (epoch > total_iters) {
            out.push_back(lr);
        } else {
            out.push_back(lr * (1.0 + (end - start) / (static_cast<double>(total_iters) * start +
                                                       static_cast<double>(epoch - 1) * (end - start))));
        }
    }
    return out;
}

TEST(LinearWarmup, AgreesWithPyTorchsLinearLR) {
    struct Case {
        double lr;
        std::int64_t warmup_steps;
        double start_factor;
    };
    for (const Case c : {Case{0.5, 5, 0.1}, Case{3e-4, 10, 1.0 / 3}, Case{1.0, 1, 0.5}, Case{0.01, 7, 1e-3}}) {
        SCOPED_TRACE("lr " + std::to_string(c.lr) + ", warmup_steps " + std::to_string(c.warmup_steps) +
                     ", start_factor " + std::to_string(c.start_factor));
        Tensor p = leaf({1.0});
        kael::optim::Sgd sgd({p}, {.lr = c.lr});
        LinearWarmupLR schedule(sgd, c.warmup_steps, c.start_factor);
        const std::vector<double> mine = rates(schedule, 20);
        const std::vector<double> torch = pytorch_linear_lr(c.lr, c.start_factor, c.warmup_steps, 20);
        for (std::size_t t = 0; t < mine.size(); ++t) {
            EXPECT_NEAR(mine[t], torch[t], 1e-12 * c.lr) << "step " << t;
        }
    }
}

TEST(LinearWarmup, OneWarmupStepAndAStartFactorOfOneAreAllowed) {
    Tensor p = leaf({1.0});
    kael::optim::Sgd sgd({p}, {.lr = 0.1});
    LinearWarmupLR one_step(sgd, 1, 0.5);
    EXPECT_EQ(rates(one_step, 3), (std::vector<double>{0.05, 0.1, 0.1, 0.1}));
    Tensor q = leaf({1.0});
    kael::optim::Sgd other({q}, {.lr = 0.1});
    LinearWarmupLR constant(other, 3, 1.0);  // no warmup at all: every rate is the base rate
    EXPECT_EQ(rates(constant, 5), (std::vector<double>(6, 0.1)));
}

TEST(LinearWarmup, TheOptimizerStepsWithTheScheduledRate) {
    Tensor p = leaf({0.0});
    kael::optim::Sgd sgd({p}, {.lr = 0.2});
    LinearWarmupLR schedule(sgd, 2, 0.5);  // 0.1, 0.15, 0.2, 0.2
    for (int t = 0; t < 4; ++t) {
        p.set_grad(kael::from_vector<double>({1.0}));
        sgd.step();
        schedule.step();  // after optimizer.step(), as in PyTorch
    }
    EXPECT_DOUBLE_EQ(p.item(), -(0.1 + 0.15 + 0.2 + 0.2));
}

TEST(LinearWarmup, RefusesWarmupBelowOneAndStartFactorsOutsideZeroToOne) {
    Tensor p = leaf({1.0});
    kael::optim::Sgd sgd({p}, {.lr = 0.1});
    EXPECT_THROW(LinearWarmupLR(sgd, 0), kael::ValueError);
    EXPECT_THROW(LinearWarmupLR(sgd, -3), kael::ValueError);
    EXPECT_THROW(LinearWarmupLR(sgd, 4, 0.0), kael::ValueError);
    EXPECT_THROW(LinearWarmupLR(sgd, 4, -0.5), kael::ValueError);
    EXPECT_THROW(LinearWarmupLR(sgd, 4, 1.0 + 1e-12), kael::ValueError);  // just past the limit
    EXPECT_THROW(LinearWarmupLR(sgd, 4, std::numeric_limits<double>::quiet_NaN()), kael::ValueError);
    EXPECT_EQ(sgd.learning_rate(), 0.1);  // a refused schedule leaves the optimizer's rate alone
    EXPECT_NO_THROW(LinearWarmupLR(sgd, 1, 1e-12));  // small but positive
    EXPECT_DOUBLE_EQ(sgd.learning_rate(), 0.1 * 1e-12);
}

}  // namespace

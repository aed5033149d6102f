// Learning-rate schedules: the rate of each step, at and around every boundary.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "helpers.h"
#include "kael/optim/schedule.h"
#include "kael/optim/sgd.h"

namespace {

using kael::Tensor;
using kael::testing::grad_leaf;

std::vector<double> rates(kael::optim::LRScheduler& schedule, int steps) {
    std::vector<double> out{schedule.last_lr()};
    for (int i = 0; i < steps; ++i) {
        schedule.step();
        out.push_back(schedule.last_lr());
    }
    return out;
}

TEST(OptimStepLR, DecaysEveryStepSizeSteps) {
    Tensor p = grad_leaf({1.0});
    kael::optim::Sgd sgd({p}, {.lr = 1.0});
    kael::optim::StepLR schedule(sgd, 2, 0.5);
    EXPECT_EQ(rates(schedule, 5), (std::vector<double>{1.0, 1.0, 0.5, 0.5, 0.25, 0.25}));
    EXPECT_EQ(schedule.last_epoch(), 5);
    EXPECT_DOUBLE_EQ(sgd.learning_rate(), 0.25);  // the optimizer's rate is the schedule's
    EXPECT_DOUBLE_EQ(schedule.base_lr(), 1.0);
}

TEST(OptimStepLR, RefusesStepSizeZeroAndNegativeGamma) {
    Tensor p = grad_leaf({1.0});
    kael::optim::Sgd sgd({p}, {.lr = 1.0});
    EXPECT_NO_THROW(kael::optim::StepLR(sgd, 1, 0.0));
    EXPECT_THROW(kael::optim::StepLR(sgd, 0), kael::ValueError);
    EXPECT_THROW(kael::optim::StepLR(sgd, 1, -1e-12), kael::ValueError);
}

TEST(OptimCosineWithWarmup, RisesLinearlyThenFollowsHalfACosineToZero) {
    Tensor p = grad_leaf({1.0});
    kael::optim::Sgd sgd({p}, {.lr = 0.1});
    kael::optim::CosineWithWarmupLR schedule(sgd, 4, 12);
    const std::vector<double> r = rates(schedule, 14);
    EXPECT_DOUBLE_EQ(r[0], 0.0);         // step 0 of a warmup trains with rate 0, as Hugging Face's
    EXPECT_DOUBLE_EQ(r[1], 0.1 * 0.25);  // linear warmup
    EXPECT_DOUBLE_EQ(r[3], 0.1 * 0.75);
    EXPECT_DOUBLE_EQ(r[4], 0.1);         // the peak, exactly at warmup_steps
    EXPECT_DOUBLE_EQ(r[8], 0.1 * 0.5 * (1 + std::cos(std::numbers::pi * 0.5)));  // half way down
    EXPECT_NEAR(r[12], 0.0, 1e-18);     // total_steps
    EXPECT_EQ(r[13], 0.0);              // and it stays there
    EXPECT_EQ(r[14], 0.0);
    for (std::size_t i = 5; i <= 12; ++i) {
        EXPECT_LT(r[i], r[i - 1]);
    }
}

TEST(OptimCosineWithWarmup, WithoutWarmupStartsAtTheBaseRate) {
    Tensor p = grad_leaf({1.0});
    kael::optim::Sgd sgd({p}, {.lr = 0.1});
    kael::optim::CosineWithWarmupLR schedule(sgd, 0, 1);
    EXPECT_EQ(rates(schedule, 1), (std::vector<double>{0.1, 0.0}));
}

TEST(OptimCosineWithWarmup, RefusesImpossibleStepCounts) {
    Tensor p = grad_leaf({1.0});
    kael::optim::Sgd sgd({p}, {.lr = 0.1});
    EXPECT_NO_THROW(kael::optim::CosineWithWarmupLR(sgd, 5, 5));
    EXPECT_THROW(kael::optim::CosineWithWarmupLR(sgd, 6, 5), kael::ValueError);
    EXPECT_THROW(kael::optim::CosineWithWarmupLR(sgd, -1, 5), kael::ValueError);
    EXPECT_THROW(kael::optim::CosineWithWarmupLR(sgd, 0, 0), kael::ValueError);
}

TEST(OptimLambdaLR, MultipliesTheBaseRateAndNeedsAFunction) {
    Tensor p = grad_leaf({1.0});
    kael::optim::Sgd sgd({p}, {.lr = 2.0});
    kael::optim::LambdaLR schedule(sgd, [](std::int64_t step) { return 1.0 / static_cast<double>(step + 1); });
    EXPECT_EQ(rates(schedule, 3), (std::vector<double>{2.0, 1.0, 2.0 / 3.0, 0.5}));
    EXPECT_THROW(kael::optim::LambdaLR(sgd, nullptr), kael::ValueError);
}

}  // namespace

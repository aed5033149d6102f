// Learning-rate schedules: the rate of each step, at and around every boundary, the
// refusals, and the state dicts in PyTorch's keys that load all or nothing. The values
// written out below are PyTorch 1.13's (tests/torch_reference compares whole runs).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include "helpers.h"
#include "kael/factory.h"
#include "kael/optim/adam.h"
#include "kael/optim/one_cycle.h"
#include "kael/optim/schedule.h"
#include "kael/optim/sequential.h"
#include "kael/optim/sgd.h"

namespace {

using kael::DType;
using kael::Tensor;
using kael::nn::StateDict;
using kael::optim::LRScheduler;
using kael::testing::edited;
using kael::testing::grad_leaf;
using kael::testing::values;

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

// The message of the ValueError that `f` throws; a test failure if it throws none.
std::string value_error(const std::function<void()>& f) {
    try {
        f();
    } catch (const kael::ValueError& error) {
        return error.what();
    }
    ADD_FAILURE() << "no ValueError";
    return "";
}

TEST(OptimMultiStepLR, MultipliesAtEachMilestoneInAnyOrderAndKeepsTheRateBetween) {
    Tensor p = grad_leaf({1.0});
    kael::optim::Sgd sgd({p}, {.lr = 1.0});
    kael::optim::MultiStepLR schedule(sgd, {4, 2}, 0.5);
    // Step 2 is a milestone, step 3 one past it.
    EXPECT_EQ(rates(schedule, 5), (std::vector<double>{1.0, 1.0, 0.5, 0.5, 0.25, 0.25}));
}

TEST(OptimMultiStepLR, AMilestoneTwiceMultipliesTwiceAndZeroAppliesToTheFirstRate) {
    Tensor p = grad_leaf({1.0});
    kael::optim::Sgd sgd({p}, {.lr = 1.0});
    kael::optim::MultiStepLR schedule(sgd, {0, 2, 2}, 0.5);
    EXPECT_EQ(rates(schedule, 3), (std::vector<double>{0.5, 0.5, 0.125, 0.125}));
    EXPECT_NO_THROW(kael::optim::MultiStepLR(sgd, {}, 0.0));
    EXPECT_THROW(kael::optim::MultiStepLR(sgd, {1}, -1e-12), kael::ValueError);
}

TEST(OptimExponentialLR, MultipliesEveryStep) {
    Tensor p = grad_leaf({1.0});
    kael::optim::Sgd sgd({p}, {.lr = 1.0});
    kael::optim::ExponentialLR schedule(sgd, 0.5);
    EXPECT_EQ(rates(schedule, 3), (std::vector<double>{1.0, 0.5, 0.25, 0.125}));
    EXPECT_NO_THROW(kael::optim::ExponentialLR(sgd, 0.0));
    EXPECT_THROW(kael::optim::ExponentialLR(sgd, -1e-12), kael::ValueError);
}

TEST(OptimLinearLR, RisesToEndFactorAtTotalItersAndStaysThere) {
    Tensor p = grad_leaf({1.0});
    kael::optim::Sgd sgd({p}, {.lr = 1.0});
    kael::optim::LinearLR schedule(sgd, 0.5, 1.0, 2);
    const std::vector<double> r = rates(schedule, 4);
    EXPECT_EQ(r[0], 0.5);
    EXPECT_EQ(r[1], 0.75);
    EXPECT_DOUBLE_EQ(r[2], 1.0);  // total_iters
    EXPECT_EQ(r[3], r[2]);        // one past
    EXPECT_EQ(r[4], r[2]);
}

TEST(OptimLinearLR, RefusesFactorsOutsideTheirRangesAndNoSteps) {
    Tensor p = grad_leaf({1.0});
    kael::optim::Sgd sgd({p}, {.lr = 1.0});
    EXPECT_NO_THROW(kael::optim::LinearLR(sgd, 1.0, 0.0, 1));  // both ends of the ranges
    // PyTorch 1.13 accepts 0 and then divides by zero at step 1; its check says greater than 0.
    EXPECT_NE(value_error([&] { kael::optim::LinearLR(sgd, 0.0); }).find("greater than 0 and less or equal to 1"),
              std::string::npos);
    EXPECT_THROW(kael::optim::LinearLR(sgd, 1.0 + 1e-12), kael::ValueError);
    EXPECT_THROW(kael::optim::LinearLR(sgd, 0.5, 1.0 + 1e-12), kael::ValueError);
    EXPECT_THROW(kael::optim::LinearLR(sgd, 0.5, -1e-12), kael::ValueError);
    EXPECT_THROW(kael::optim::LinearLR(sgd, std::nan(""), 1.0), kael::ValueError);
    EXPECT_THROW(kael::optim::LinearLR(sgd, 0.5, 1.0, 0), kael::ValueError);
    EXPECT_EQ(sgd.learning_rate(), 1.0);  // the refused schedules set nothing
}

TEST(OptimCosineAnnealingLR, ReachesEtaMinAtTMaxThenClimbsBackAsPyTorchsRecursionDoes) {
    Tensor p = grad_leaf({1.0});
    kael::optim::Sgd sgd({p}, {.lr = 1.0});
    kael::optim::CosineAnnealingLR schedule(sgd, 2, 0.5);
    const std::vector<double> r = rates(schedule, 5);
    EXPECT_EQ(r[0], 1.0);
    EXPECT_DOUBLE_EQ(r[1], 0.75);
    EXPECT_DOUBLE_EQ(r[2], 0.5);   // T_max: eta_min
    EXPECT_DOUBLE_EQ(r[3], 0.75);  // one past: up again, not held at eta_min
    EXPECT_DOUBLE_EQ(r[4], 1.0);   // 2 T_max: the base rate
    EXPECT_DOUBLE_EQ(r[5], 0.75);
}

TEST(OptimCosineAnnealingLR, ReachesZeroExactlyAndRefusesTMaxZero) {
    Tensor p = grad_leaf({1.0});
    kael::optim::Sgd sgd({p}, {.lr = 1.0});
    kael::optim::CosineAnnealingLR schedule(sgd, 1);
    EXPECT_EQ(rates(schedule, 2), (std::vector<double>{1.0, 0.0, 1.0}));
    EXPECT_THROW(kael::optim::CosineAnnealingLR(sgd, 0), kael::ValueError);  // PyTorch divides by zero
    EXPECT_THROW(kael::optim::CosineAnnealingLR(sgd, 5, -1e-12), kael::ValueError);
}

TEST(OptimOneCycleLR, HasPyTorchsDefaults) {
    const kael::optim::OneCycleOptions defaults;
    EXPECT_EQ(defaults.pct_start, 0.3);
    EXPECT_EQ(defaults.anneal_strategy, kael::optim::Anneal::Cos);
    EXPECT_TRUE(defaults.cycle_momentum);
    EXPECT_EQ(defaults.base_momentum, 0.85);
    EXPECT_EQ(defaults.max_momentum, 0.95);
    EXPECT_EQ(defaults.div_factor, 25.0);
    EXPECT_EQ(defaults.final_div_factor, 1e4);
    EXPECT_FALSE(defaults.three_phase);
    EXPECT_FALSE(defaults.total_steps || defaults.epochs || defaults.steps_per_epoch);
}

TEST(OptimOneCycleLR, StepTotalStepsIsAllowedAndTheNextIsRefusedWithoutAChange) {
    Tensor p = grad_leaf({1.0});
    kael::optim::Sgd sgd({p}, {.lr = 0.1, .momentum = 0.9});
    kael::optim::OneCycleLR schedule(sgd, {.max_lr = 1.0, .total_steps = 10});
    EXPECT_EQ(schedule.total_steps(), 10);
    // The initial rate is max_lr / div_factor, whatever the optimizer had; the rate of step 0
    // is the cosine's value there, off by rounding as PyTorch's is.
    EXPECT_EQ(*sgd.initial_learning_rate(), 0.04);
    EXPECT_EQ(sgd.learning_rate(), 0.040000000000000036);
    EXPECT_EQ(sgd.momentum(), 0.95);
    std::vector<double> r = rates(schedule, 10);
    EXPECT_DOUBLE_EQ(r[1], 0.52);
    EXPECT_DOUBLE_EQ(r[2], 1.0);  // the peak, at pct_start * total_steps - 1
    EXPECT_NEAR(r[9], 4e-6, 1e-18);  // total_steps - 1: the last rate of the cycle
    EXPECT_DOUBLE_EQ(r[10], 0.04951936798652623);  // total_steps: PyTorch's cosine carried on
    EXPECT_EQ(schedule.last_epoch(), 10);
    const double momentum = *sgd.momentum();
    const std::string message = value_error([&] { schedule.step(); });
    EXPECT_NE(message.find("Tried to step 12 times. The specified number of total steps is 10"), std::string::npos)
        << message;
    EXPECT_EQ(schedule.last_epoch(), 10);
    EXPECT_EQ(sgd.learning_rate(), r[10]);
    EXPECT_EQ(sgd.momentum(), momentum);
}

TEST(OptimOneCycleLR, CyclesMomentumAgainstTheRateAndAdamsBeta1) {
    Tensor p = grad_leaf({1.0});
    kael::optim::Adam adam({p}, {.lr = 0.1});
    kael::optim::OneCycleLR schedule(adam, {.max_lr = 1.0, .total_steps = 10});
    EXPECT_EQ(adam.momentum(), 0.95);
    schedule.step();
    schedule.step();
    EXPECT_DOUBLE_EQ(*adam.momentum(), 0.85);  // at the peak
    for (int i = 0; i < 7; ++i) {
        schedule.step();
    }
    EXPECT_DOUBLE_EQ(*adam.momentum(), 0.95);  // at the end
}

TEST(OptimOneCycleLR, EpochsTimesStepsPerEpochAndTheRefusals) {
    Tensor p = grad_leaf({1.0});
    kael::optim::Sgd sgd({p}, {.lr = 0.1, .momentum = 0.9});
    EXPECT_EQ(kael::optim::OneCycleLR(sgd, {.max_lr = 1.0, .epochs = 4, .steps_per_epoch = 5}).total_steps(), 20);
    Tensor q = grad_leaf({1.0});
    kael::optim::Sgd untouched({q}, {.lr = 0.1, .momentum = 0.9});
    const auto refused = [&](const kael::optim::OneCycleOptions& options, const std::string& expected) {
        const std::string message = value_error([&] { kael::optim::OneCycleLR(untouched, options); });
        EXPECT_NE(message.find(expected), std::string::npos) << message;
        EXPECT_EQ(untouched.learning_rate(), 0.1);
        EXPECT_EQ(untouched.momentum(), 0.9);
        EXPECT_FALSE(untouched.initial_learning_rate().has_value());
    };
    refused({.max_lr = 1.0}, "You must define either total_steps OR (epochs AND steps_per_epoch)");
    refused({.max_lr = 1.0, .total_steps = 0}, "Expected positive integer total_steps, but got 0");
    refused({.max_lr = 1.0, .epochs = 0, .steps_per_epoch = 5}, "Expected positive integer epochs, but got 0");
    refused({.max_lr = 1.0, .total_steps = 10, .pct_start = 1.5}, "Expected float between 0 and 1 pct_start");
    refused({.max_lr = 1.0, .total_steps = 10, .pct_start = -1e-12}, "Expected float between 0 and 1 pct_start");
    // 0.05 * 20 - 1 = 0: a first phase of no steps, where PyTorch divides by zero at once.
    refused({.max_lr = 1.0, .total_steps = 20, .pct_start = 0.05}, "phase 0 has no steps");
    refused({.max_lr = 1.0, .total_steps = 10, .base_momentum = -0.1}, "momentum");  // SGD refuses it
    EXPECT_NO_THROW(kael::optim::OneCycleLR(untouched, {.max_lr = 1.0, .total_steps = 20, .pct_start = 0.1}));
}

TEST(OptimOneCycleLR, AnEmptyLastPhaseIsRefusedWhenTheStepReachesIt) {
    Tensor p = grad_leaf({1.0});
    kael::optim::Sgd sgd({p}, {.lr = 0.1, .momentum = 0.9});
    kael::optim::OneCycleLR schedule(sgd, {.max_lr = 1.0, .total_steps = 10, .pct_start = 1.0});
    const std::vector<double> r = rates(schedule, 9);
    EXPECT_DOUBLE_EQ(r[9], 1.0);  // the peak is the last step of the cycle
    EXPECT_NE(value_error([&] { schedule.step(); }).find("phase 1 has no steps"), std::string::npos);
    EXPECT_EQ(schedule.last_epoch(), 9);
}

std::vector<std::shared_ptr<LRScheduler>> warmup_then_halving(kael::optim::Optimizer& optimizer) {
    return {std::make_shared<kael::optim::LinearLR>(optimizer, 0.5, 1.0, 2),
            std::make_shared<kael::optim::ExponentialLR>(optimizer, 0.5)};
}

TEST(OptimSequentialLR, TheNextScheduleStartsAtItsStepZeroOnTheMilestone) {
    Tensor p = grad_leaf({1.0});
    kael::optim::Sgd sgd({p}, {.lr = 1.0});
    kael::optim::SequentialLR schedule(sgd, warmup_then_halving(sgd), {2});
    EXPECT_EQ(sgd.learning_rate(), 0.5);  // building undid the exponential schedule's step 0
    // Step 2 is the milestone: the exponential schedule restarts at the base rate; step 3
    // is one past it.
    EXPECT_EQ(rates(schedule, 4), (std::vector<double>{0.5, 0.75, 1.0, 0.5, 0.25}));
    EXPECT_EQ(schedule.last_epoch(), 4);
    EXPECT_EQ(schedule.schedules()[1]->last_epoch(), 2);
}

TEST(OptimSequentialLR, AClosedFormRestartsACosineAtTheBaseRate) {
    Tensor p = grad_leaf({1.0});
    kael::optim::Sgd sgd({p}, {.lr = 1.0});
    kael::optim::SequentialLR schedule(
        sgd,
        {std::make_shared<kael::optim::ExponentialLR>(sgd, 0.5),
         std::make_shared<kael::optim::CosineAnnealingLR>(sgd, 2)},
        {2});
    const std::vector<double> r = rates(schedule, 5);
    EXPECT_EQ(r[1], 0.5);
    EXPECT_EQ(r[2], 1.0);  // the milestone
    EXPECT_DOUBLE_EQ(r[3], 0.5);
    EXPECT_EQ(r[4], 0.0);  // the cosine's T_max
}

TEST(OptimSequentialLR, RefusesMilestonesThatDoNotFitTheSchedules) {
    Tensor p = grad_leaf({1.0});
    kael::optim::Sgd sgd({p}, {.lr = 1.0});
    const std::string message = value_error([&] { kael::optim::SequentialLR(sgd, warmup_then_halving(sgd), {2, 4}); });
    EXPECT_NE(message.find("number of schedulers 2 and the number of milestones to be equal to 2"), std::string::npos)
        << message;
    EXPECT_THROW(kael::optim::SequentialLR(sgd, warmup_then_halving(sgd), {}), kael::ValueError);
    EXPECT_THROW(kael::optim::SequentialLR(sgd, {}, {}), kael::ValueError);
    auto three = warmup_then_halving(sgd);
    three.push_back(std::make_shared<kael::optim::ExponentialLR>(sgd, 0.9));
    EXPECT_THROW(kael::optim::SequentialLR(sgd, three, {4, 2}), kael::ValueError);
    EXPECT_NO_THROW(kael::optim::SequentialLR(sgd, three, {2, 2}));
    EXPECT_THROW(kael::optim::SequentialLR(sgd, {nullptr, std::make_shared<kael::optim::ExponentialLR>(sgd, 0.5)}, {1}),
                 kael::ValueError);
    Tensor q = grad_leaf({1.0});
    kael::optim::Sgd other({q}, {.lr = 1.0});
    EXPECT_NE(value_error([&] {
                  kael::optim::SequentialLR(
                      sgd, {std::make_shared<kael::optim::ExponentialLR>(sgd, 0.5),
                            std::make_shared<kael::optim::ExponentialLR>(other, 0.5)},
                      {1});
              }).find("to belong to the same optimizer"),
              std::string::npos);
    auto inner =
        std::make_shared<kael::optim::SequentialLR>(sgd, warmup_then_halving(sgd), std::vector<std::int64_t>{2});
    EXPECT_THROW(kael::optim::SequentialLR(sgd, {std::make_shared<kael::optim::ExponentialLR>(sgd, 0.5), inner}, {1}),
                 kael::ValueError);
}

TEST(OptimScheduleStateDict, HoldsPyTorchsKeysAndCounters) {
    Tensor p = grad_leaf({1.0});
    kael::optim::Sgd sgd({p}, {.lr = 1.0});
    kael::optim::StepLR schedule(sgd, 2, 0.5);
    rates(schedule, 3);
    const StateDict state = schedule.state_dict();
    EXPECT_EQ(state.keys(),
              (std::vector<std::string>{"step_size", "gamma", "base_lrs", "last_epoch", "_step_count", "_last_lr"}));
    EXPECT_EQ(state.at("step_size").item<std::int64_t>(), 2);
    EXPECT_EQ(state.at("gamma").item<double>(), 0.5);
    EXPECT_EQ(state.at("last_epoch").item<std::int64_t>(), 3);
    EXPECT_EQ(state.at("_step_count").item<std::int64_t>(), 4);  // the rate of step 0 counts
    EXPECT_EQ(state.at("base_lrs").dtype(), DType::F64);
    EXPECT_EQ(state.at("base_lrs").shape(), (kael::Shape{1}));
    EXPECT_EQ(state.at("_last_lr").select(0, 0).item<double>(), 0.5);

    kael::optim::SequentialLR sequential(sgd, warmup_then_halving(sgd), {2});
    EXPECT_EQ(sequential.state_dict().keys(),
              (std::vector<std::string>{"_milestones", "last_epoch", "_last_lr", "_schedulers.0.start_factor",
                                        "_schedulers.0.end_factor", "_schedulers.0.total_iters",
                                        "_schedulers.0.base_lrs", "_schedulers.0.last_epoch",
                                        "_schedulers.0._step_count", "_schedulers.0._last_lr", "_schedulers.1.gamma",
                                        "_schedulers.1.base_lrs", "_schedulers.1.last_epoch",
                                        "_schedulers.1._step_count", "_schedulers.1._last_lr"}));
}

// Runs `steps` steps of the schedule `make` builds, loads its state into a second one on
// another optimizer, and checks that both go on with the same rates and momenta.
void expect_resume_matches(const std::function<std::unique_ptr<LRScheduler>(kael::optim::Optimizer&)>& make,
                           int steps, int more) {
    Tensor p = grad_leaf({1.0});
    kael::optim::Sgd sgd({p}, {.lr = 1.0, .momentum = 0.9});
    const auto schedule = make(sgd);
    rates(*schedule, steps);
    Tensor q = grad_leaf({1.0});
    kael::optim::Sgd other({q}, {.lr = 0.5, .momentum = 0.9});
    const auto resumed = make(other);
    resumed->load_state_dict(schedule->state_dict());
    EXPECT_EQ(other.learning_rate(), sgd.learning_rate());  // written at once
    EXPECT_EQ(other.momentum(), sgd.momentum());
    EXPECT_EQ(resumed->last_epoch(), schedule->last_epoch());
    EXPECT_EQ(rates(*resumed, more), rates(*schedule, more));
    EXPECT_EQ(other.momentum(), sgd.momentum());
}

TEST(OptimScheduleStateDict, EverySchedulesStateResumesItsRates) {
    expect_resume_matches([](auto& o) { return std::make_unique<kael::optim::StepLR>(o, 3, 0.5); }, 4, 6);
    expect_resume_matches(
        [](auto& o) { return std::make_unique<kael::optim::MultiStepLR>(o, std::vector<std::int64_t>{2, 5}); }, 3, 5);
    expect_resume_matches([](auto& o) { return std::make_unique<kael::optim::ExponentialLR>(o, 0.9); }, 3, 3);
    expect_resume_matches([](auto& o) { return std::make_unique<kael::optim::LinearLR>(o, 0.25, 1.0, 4); }, 2, 5);
    expect_resume_matches([](auto& o) { return std::make_unique<kael::optim::CosineAnnealingLR>(o, 5, 0.01); }, 5, 8);
    expect_resume_matches([](auto& o) { return std::make_unique<kael::optim::CosineWithWarmupLR>(o, 3, 10); }, 4, 6);
    expect_resume_matches(
        [](auto& o) {
            return std::make_unique<kael::optim::OneCycleLR>(
                o, kael::optim::OneCycleOptions{.max_lr = 1.0, .total_steps = 12});
        },
        4, 8);
    expect_resume_matches(
        [](auto& o) {
            return std::make_unique<kael::optim::SequentialLR>(o, warmup_then_halving(o), std::vector<std::int64_t>{2});
        },
        1, 4);  // stopped before the milestone, resumed across it
}

TEST(OptimScheduleStateDict, RefusesAStateThatDoesNotMatchAndChangesNothing) {
    Tensor p = grad_leaf({1.0});
    kael::optim::Sgd sgd({p}, {.lr = 1.0});
    kael::optim::StepLR source(sgd, 2, 0.5);
    rates(source, 3);
    const StateDict good = source.state_dict();
    Tensor q = grad_leaf({1.0});
    kael::optim::Sgd other({q}, {.lr = 0.3});
    kael::optim::StepLR target(other, 2, 0.5);
    target.step();
    const auto refused = [&](const StateDict& state, const std::string& expected) {
        const std::string message = value_error([&] { target.load_state_dict(state); });
        EXPECT_NE(message.find("StepLR.load_state_dict: " + expected), std::string::npos) << message;
        EXPECT_EQ(target.last_epoch(), 1);
        EXPECT_EQ(target.last_lr(), 0.3);
        EXPECT_EQ(target.base_lr(), 0.3);
        EXPECT_EQ(other.learning_rate(), 0.3);
        EXPECT_EQ(target.state_dict().at("_step_count").item<std::int64_t>(), 2);
    };
    refused(edited(good, "_step_count", std::nullopt), "the state dict has no '_step_count'");
    refused(edited(good, "gamma", std::nullopt), "the state dict has no 'gamma'");
    refused(edited(good, "verbose", kael::scalar(false, DType::Bool)), "unexpected key(s) in state_dict: \"verbose\"");
    refused(edited(good, "last_epoch", kael::scalar(true, DType::Bool)), "'last_epoch' must be a 0-d tensor holding");
    refused(edited(good, "last_epoch", kael::scalar(2.5, DType::F64)), "'last_epoch' must hold a whole number");
    refused(edited(good, "_last_lr", kael::scalar(0.5, DType::F64)),
            "'_last_lr' must be a float64 tensor of shape [1]");
    refused(edited(good, "base_lrs", kael::from_vector<double>({1.0, 1.0})), "'base_lrs' must be a float64 tensor");
    refused(edited(good, "gamma", kael::scalar(0.5, DType::F32)), "'gamma' must be float64");
    refused(edited(good, "gamma", kael::scalar(0.25, DType::F64)), "the state was saved with gamma = 0.25");
    refused(edited(good, "last_epoch", kael::scalar(-2, DType::I64)), "impossible progress");
    refused(edited(good, "_last_lr", kael::from_vector<double>({-1.0})), "Invalid learning rate in '_last_lr': -1");
    refused(edited(good, "_last_lr", kael::from_vector<double>({std::nan("")})), "Invalid learning rate");
    Tensor r = grad_leaf({1.0});
    kael::optim::Sgd third({r}, {.lr = 1.0});
    refused(kael::optim::ExponentialLR(third, 0.5).state_dict(), "the state dict has no 'step_size'");
    target.load_state_dict(good);  // and the good one loads
    EXPECT_EQ(target.last_epoch(), 3);
    EXPECT_EQ(other.learning_rate(), 0.5);
}

TEST(OptimScheduleStateDict, SequentialLoadsAllItsSchedulesOrNone) {
    Tensor p = grad_leaf({1.0});
    kael::optim::Sgd sgd({p}, {.lr = 1.0});
    kael::optim::SequentialLR source(sgd, warmup_then_halving(sgd), {2});
    rates(source, 4);
    const StateDict good = source.state_dict();
    Tensor q = grad_leaf({1.0});
    kael::optim::Sgd other({q}, {.lr = 1.0});
    kael::optim::SequentialLR target(other, warmup_then_halving(other), {2});
    target.step();
    const StateDict before = target.state_dict();
    const auto refused = [&](const StateDict& state, const std::string& expected) {
        const std::string message = value_error([&] { target.load_state_dict(state); });
        EXPECT_NE(message.find(expected), std::string::npos) << message;
        EXPECT_EQ(other.learning_rate(), 0.75);
        const StateDict now = target.state_dict();
        EXPECT_EQ(now.keys(), before.keys());
        for (const auto& [key, tensor] : before) {
            EXPECT_EQ(now.at(key).dtype(), tensor.dtype()) << key;
            EXPECT_EQ(values<double>(now.at(key).to(DType::F64)), values<double>(tensor.to(DType::F64))) << key;
        }
    };
    // The second schedule's part refuses after the first has loaded: the first is put back.
    refused(edited(good, "_schedulers.1.gamma", kael::scalar(0.25, DType::F64)),
            "ExponentialLR.load_state_dict: the state was saved with gamma = 0.25");
    refused(edited(good, "_schedulers.1._step_count", std::nullopt), "has no '_step_count'");
    refused(edited(good, "_schedulers.2.gamma", kael::scalar(0.5, DType::F64)), "unexpected key(s)");
    refused(edited(good, "_milestones", kael::from_vector(std::vector<std::int64_t>{3})),
            "SequentialLR.load_state_dict: the state was saved with _milestones = [3]");
    refused(edited(good, "last_epoch", std::nullopt),
            "SequentialLR.load_state_dict: the state dict has no 'last_epoch'");
    target.load_state_dict(good);
    EXPECT_EQ(target.last_epoch(), 4);
    EXPECT_EQ(other.learning_rate(), 0.25);
    target.step();
    EXPECT_EQ(other.learning_rate(), 0.125);
}

}  // namespace

#pragma once
/// \file
/// \brief OneCycleLR: up to a peak rate and down far below the start, with momentum
/// cycled the other way (Smith's 1cycle policy).

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "kael/optim/schedule.h"

namespace kael::optim {

/// How OneCycleLR moves between two values within a phase.
enum class Anneal {
    /// Half a cosine: slow at both ends, fastest in the middle (PyTorch's "cos").
    Cos,
    /// A straight line (PyTorch's "linear").
    Linear,
};

/// The settings of OneCycleLR, with PyTorch's defaults. Give either total_steps, or epochs
/// and steps_per_epoch (total_steps wins when both are given).
struct OneCycleOptions {
    /// The peak learning rate.
    double max_lr = 0;
    /// The number of steps in the cycle.
    std::optional<std::int64_t> total_steps = std::nullopt;
    /// With steps_per_epoch, the cycle has epochs * steps_per_epoch steps.
    std::optional<std::int64_t> epochs = std::nullopt;
    /// See epochs.
    std::optional<std::int64_t> steps_per_epoch = std::nullopt;
    /// The fraction of the cycle spent raising the rate.
    double pct_start = 0.3;
    /// How the rate and the momentum move within a phase.
    Anneal anneal_strategy = Anneal::Cos;
    /// Move the optimizer's momentum (SGD) or beta1 (Adam) against the rate, between
    /// max_momentum (at the start and the end) and base_momentum (at the peak).
    bool cycle_momentum = true;
    /// The momentum at the peak of the rate.
    double base_momentum = 0.85;
    /// The momentum at the start of the cycle.
    double max_momentum = 0.95;
    /// The rate of step 0 is max_lr / div_factor.
    double div_factor = 25;
    /// The last rate is max_lr / div_factor / final_div_factor.
    double final_div_factor = 1e4;
    /// Three phases, as in the paper: up to the peak, back down to the starting rate in as
    /// many steps, then down to the last rate. With false (fastai's default) the second
    /// phase goes from the peak straight to the last rate.
    bool three_phase = false;
};

/// `torch.optim.lr_scheduler.OneCycleLR`. The rate starts at max_lr / div_factor (which
/// becomes the optimizer's initial rate and the schedule's base rate, whatever the
/// optimizer's rate was), reaches max_lr at step pct_start * total_steps - 1, and ends at
/// the initial rate / final_div_factor at step total_steps - 1. The rate is a function of
/// the step alone, not chained to the one before.
///
/// As in PyTorch, step total_steps is still allowed (the last phase carried one step
/// further: with linear annealing that rate is below the last one, and usually negative,
/// which kael's optimizers refuse with ValueError where PyTorch would train uphill), and
/// the step after it throws ValueError: "Tried to step total_steps + 2 times. The specified
/// number of total steps is total_steps". A phase of no steps, where PyTorch divides by
/// zero when it reaches it, throws ValueError at the same step.
///
/// ValueError, with PyTorch's messages, for a missing or non-positive total_steps (or
/// epochs, or steps_per_epoch), a pct_start outside [0, 1], and cycle_momentum with an
/// optimizer that has no momentum; and for a negative max_lr, a div_factor or
/// final_div_factor that is not positive, and momenta the optimizer refuses.
///
/// Its state dict adds to the base's "total_steps", the "end_step" of each phase
/// ("_schedule_phases.<k>.end_step"), "cycle_momentum", and the values PyTorch keeps in the
/// optimizer's param group: "max_lr", "min_lr", and with momentum "max_momentum" and
/// "base_momentum". The annealing strategy, a function in PyTorch's state dict, is a
/// setting of the constructor that has no tensor form and is not saved.
class OneCycleLR final : public LRScheduler {
public:
    /// See the class.
    OneCycleLR(Optimizer& optimizer, const OneCycleOptions& options);
    [[nodiscard]] std::string_view name() const override { return "OneCycleLR"; }
    /// The number of steps in the cycle.
    [[nodiscard]] std::int64_t total_steps() const noexcept { return total_steps_; }

private:
    /// One phase: from its start values at the previous phase's end step to its end values
    /// at end_step.
    struct Phase {
        double end_step;
        double start_lr, end_lr;
        double start_momentum, end_momentum;
    };
    /// Where step `epoch` lies: its phase and the fraction of the phase done.
    struct Position {
        const Phase* phase;
        double pct;
    };

    [[nodiscard]] Position locate(std::int64_t epoch) const;
    [[nodiscard]] double anneal(double start, double end, double pct) const;
    [[nodiscard]] double rate_at(std::int64_t epoch, double previous) const override;
    [[nodiscard]] std::optional<double> momentum_at(std::int64_t epoch) const override;
    [[nodiscard]] nn::StateDict settings() const override;

    OneCycleOptions options_;
    std::int64_t total_steps_;
    double initial_lr_;
    double min_lr_;
    std::vector<Phase> phases_;
};

}  // namespace kael::optim

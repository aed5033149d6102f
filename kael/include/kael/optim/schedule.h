#pragma once
/// \file
/// \brief Learning-rate schedules: the base class and the schedules that chain one rate to
/// the next (StepLR, MultiStepLR, ExponentialLR, LinearLR, CosineAnnealingLR), LambdaLR, and
/// cosine decay with linear warmup.

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "kael/nn/state_dict.h"
#include "kael/optim/optimizer.h"

namespace kael::optim {

class SequentialLR;

/// The base of the schedules, as `torch.optim.lr_scheduler.LRScheduler`: it takes the
/// optimizer's initial rate as the base rate, sets the rate of step 0 at once, and sets the
/// next one on every step(). Call step() after optimizer.step().
///
/// The first schedule of an optimizer records the optimizer's rate as its initial rate
/// (PyTorch's "initial_lr"), and every later schedule of that optimizer takes that as its
/// base rate, not the rate the earlier ones have set since: that is what lets SequentialLR
/// chain a warmup and a decay that both start from one base rate.
///
/// The optimizer must outlive the schedule.
class LRScheduler {
public:
    virtual ~LRScheduler() = default;
    LRScheduler(const LRScheduler&) = delete;
    LRScheduler& operator=(const LRScheduler&) = delete;

    /// Moves to the next step and writes its learning rate into the optimizer.
    virtual void step();
    /// The learning rate this schedule set last (PyTorch's get_last_lr()).
    [[nodiscard]] double last_lr() const noexcept { return last_lr_; }
    /// The number of step() calls so far (PyTorch's last_epoch).
    [[nodiscard]] std::int64_t last_epoch() const noexcept { return epoch_; }
    /// The optimizer's initial learning rate when the schedule was made.
    [[nodiscard]] double base_lr() const noexcept { return base_lr_; }
    /// The optimizer whose rate the schedule sets.
    [[nodiscard]] const Optimizer& optimizer() const noexcept { return optimizer_; }
    /// The class's name as PyTorch spells it ("StepLR"), for messages.
    [[nodiscard]] virtual std::string_view name() const { return "LRScheduler"; }

    /// PyTorch's state_dict() under the same keys: the schedule's settings (such as
    /// "step_size" and "gamma"), then "base_lrs" and "_last_lr" (float64 tensors of one
    /// element, one per parameter group), "last_epoch" and "_step_count" (0-d int64; the
    /// second counts every rate set, the one of step 0 included).
    [[nodiscard]] virtual nn::StateDict state_dict() const;
    /// Restores the progress of a state_dict(): the counters, the base rate and the last
    /// rate, which it also writes into the optimizer (with OneCycleLR's momentum), so that
    /// a run may restore its optimizer and its schedule in either order; PyTorch's leaves
    /// the optimizer alone. The settings are the constructor's: a state dict whose settings
    /// differ is refused, as one of another kind of schedule is. ValueError, naming the key,
    /// for that and for a missing, mistyped or unexpected key; a refused state dict changes
    /// nothing.
    virtual void load_state_dict(const nn::StateDict& state);

protected:
    /// Keeps the optimizer; the subclass calls start() once it is fully built.
    explicit LRScheduler(Optimizer& optimizer);
    /// Fixes the base rate and sets the rate of step 0 (a virtual call, so not from the base
    /// constructor). Call it after the subclass's checks, so that a refused schedule leaves
    /// the optimizer untouched.
    void start();
    /// The rate of step `epoch`, given the rate of the step before.
    [[nodiscard]] virtual double rate_at(std::int64_t epoch, double previous) const = 0;
    /// PyTorch's _get_closed_form_lr: the rate of step `epoch` from the base rate alone,
    /// for the schedules that have one. SequentialLR uses it to restart a schedule.
    [[nodiscard]] virtual std::optional<double> closed_form_rate(std::int64_t /*epoch*/) const { return std::nullopt; }
    /// The momentum (or Adam's beta1) of step `epoch`, for a schedule that sets one.
    [[nodiscard]] virtual std::optional<double> momentum_at(std::int64_t /*epoch*/) const { return std::nullopt; }
    /// The settings given to the constructor, under PyTorch's attribute names: saved in the
    /// state dict, and checked against it on load.
    [[nodiscard]] virtual nn::StateDict settings() const { return {}; }

private:
    // SequentialLR moves its schedules as PyTorch's does, through the two calls below.
    friend class SequentialLR;

    /// PyTorch's _initial_step(): counts from zero again and sets the next step's rate.
    void initial_step();
    /// PyTorch's step(0): jumps to step 0, taking its rate from the closed form if the
    /// schedule has one.
    void restart();
    /// Sets the rate (and the momentum) of step `epoch` and makes it the current step.
    void enter(std::int64_t epoch, double rate);

    Optimizer& optimizer_;
    double base_lr_;
    double last_lr_ = 0;
    std::int64_t epoch_ = -1;
    std::int64_t step_count_ = 0;
};

/// `torch.optim.lr_scheduler.StepLR`: the rate is multiplied by `gamma` every `step_size`
/// steps. ValueError for step_size < 1 or a negative gamma.
class StepLR final : public LRScheduler {
public:
    /// See the class.
    StepLR(Optimizer& optimizer, std::int64_t step_size, double gamma = 0.1);
    [[nodiscard]] std::string_view name() const override { return "StepLR"; }

private:
    [[nodiscard]] double rate_at(std::int64_t epoch, double previous) const override;
    [[nodiscard]] std::optional<double> closed_form_rate(std::int64_t epoch) const override;
    [[nodiscard]] nn::StateDict settings() const override;
    std::int64_t step_size_;
    double gamma_;
};

/// `torch.optim.lr_scheduler.MultiStepLR`: the rate is multiplied by `gamma` at each
/// milestone step; a milestone listed k times multiplies by gamma^k. The order of the list
/// does not matter, and a milestone of 0 applies to the rate of step 0, as in PyTorch.
/// ValueError for a negative gamma.
class MultiStepLR final : public LRScheduler {
public:
    /// See the class.
    MultiStepLR(Optimizer& optimizer, std::vector<std::int64_t> milestones, double gamma = 0.1);
    [[nodiscard]] std::string_view name() const override { return "MultiStepLR"; }

private:
    [[nodiscard]] double rate_at(std::int64_t epoch, double previous) const override;
    [[nodiscard]] std::optional<double> closed_form_rate(std::int64_t epoch) const override;
    [[nodiscard]] nn::StateDict settings() const override;
    std::vector<std::int64_t> milestones_;  // sorted, repeats kept: PyTorch's Counter, as a list
    double gamma_;
};

/// `torch.optim.lr_scheduler.ExponentialLR`: the rate is multiplied by `gamma` on every
/// step. ValueError for a negative gamma.
class ExponentialLR final : public LRScheduler {
public:
    /// See the class.
    ExponentialLR(Optimizer& optimizer, double gamma);
    [[nodiscard]] std::string_view name() const override { return "ExponentialLR"; }

private:
    [[nodiscard]] double rate_at(std::int64_t epoch, double previous) const override;
    [[nodiscard]] std::optional<double> closed_form_rate(std::int64_t epoch) const override;
    [[nodiscard]] nn::StateDict settings() const override;
    double gamma_;
};

/// `torch.optim.lr_scheduler.LinearLR`: the rate goes linearly from base_lr * start_factor
/// at step 0 to base_lr * end_factor at step total_iters, and stays there. ValueError, with
/// PyTorch's messages, for a start_factor outside (0, 1] or an end_factor outside [0, 1]
/// (PyTorch 1.13 accepts a start_factor of 0 and then divides by zero on the first step),
/// and for total_iters < 1.
class LinearLR final : public LRScheduler {
public:
    /// See the class.
    explicit LinearLR(Optimizer& optimizer, double start_factor = 1.0 / 3, double end_factor = 1.0,
                      std::int64_t total_iters = 5);
    [[nodiscard]] std::string_view name() const override { return "LinearLR"; }

private:
    [[nodiscard]] double rate_at(std::int64_t epoch, double previous) const override;
    [[nodiscard]] std::optional<double> closed_form_rate(std::int64_t epoch) const override;
    [[nodiscard]] nn::StateDict settings() const override;
    double start_factor_;
    double end_factor_;
    std::int64_t total_iters_;
};

/// `torch.optim.lr_scheduler.CosineAnnealingLR`: half a cosine from base_lr down to
/// eta_min over T_max steps. It is computed as PyTorch computes it, each rate from the one
/// before, and so it behaves as PyTorch's does past T_max: the rate climbs back to base_lr
/// at 2 T_max, falls to eta_min at 3 T_max, and so on, a cosine of period 2 T_max (the
/// closed form would give the same values, up to rounding). ValueError for T_max < 1 (a
/// division by zero in PyTorch) or a negative eta_min.
class CosineAnnealingLR final : public LRScheduler {
public:
    /// See the class.
    CosineAnnealingLR(Optimizer& optimizer, std::int64_t T_max, double eta_min = 0);
    [[nodiscard]] std::string_view name() const override { return "CosineAnnealingLR"; }

private:
    [[nodiscard]] double rate_at(std::int64_t epoch, double previous) const override;
    [[nodiscard]] std::optional<double> closed_form_rate(std::int64_t epoch) const override;
    [[nodiscard]] nn::StateDict settings() const override;
    std::int64_t t_max_;
    double eta_min_;
};

/// `torch.optim.lr_scheduler.LambdaLR`: the rate of step t is base_lr * factor(t). The
/// function is not part of the state dict (PyTorch saves None for a plain function too):
/// build the schedule with the same function before loading its state.
class LambdaLR : public LRScheduler {
public:
    /// The multiplier of the base rate at each step.
    using Factor = std::function<double(std::int64_t step)>;
    /// ValueError for an empty function.
    LambdaLR(Optimizer& optimizer, Factor factor);
    [[nodiscard]] std::string_view name() const override { return "LambdaLR"; }

private:
    [[nodiscard]] double rate_at(std::int64_t epoch, double previous) const override;
    Factor factor_;
};

/// Linear warmup from 0 to base_lr over `warmup_steps`, then half a cosine from base_lr
/// down to 0 at `total_steps`, and 0 after: the schedule most transformers train with
/// (Hugging Face's get_cosine_schedule_with_warmup, except that past total_steps the rate
/// stays at 0 where theirs would rise along the cosine again). Step 0 has rate 0 when
/// warmup_steps > 0.
/// ValueError unless 0 <= warmup_steps <= total_steps and total_steps > 0.
class CosineWithWarmupLR final : public LambdaLR {
public:
    /// See the class.
    CosineWithWarmupLR(Optimizer& optimizer, std::int64_t warmup_steps, std::int64_t total_steps);
    [[nodiscard]] std::string_view name() const override { return "CosineWithWarmupLR"; }

private:
    [[nodiscard]] nn::StateDict settings() const override;
    std::int64_t warmup_steps_;
    std::int64_t total_steps_;
};

}  // namespace kael::optim

#pragma once
/// \file
/// \brief Learning-rate schedules: StepLR, LambdaLR and cosine decay with linear warmup.

#include <cstdint>
#include <functional>

#include "kael/optim/optimizer.h"

namespace kael::optim {

/// The base of the schedules, as `torch.optim.lr_scheduler.LRScheduler`: it remembers the
/// optimizer's learning rate at construction as the base rate, sets the rate of step 0 at
/// once, and sets the next one on every step(). Call step() after optimizer.step().
///
/// The optimizer must outlive the schedule.
class LRScheduler {
public:
    virtual ~LRScheduler() = default;
    LRScheduler(const LRScheduler&) = delete;
    LRScheduler& operator=(const LRScheduler&) = delete;

    /// Moves to the next step and writes its learning rate into the optimizer.
    void step();
    /// The learning rate set last (PyTorch's get_last_lr()).
    [[nodiscard]] double last_lr() const noexcept { return optimizer_.learning_rate(); }
    /// The number of step() calls so far (PyTorch's last_epoch).
    [[nodiscard]] std::int64_t last_epoch() const noexcept { return epoch_; }
    /// The optimizer's learning rate when the schedule was made.
    [[nodiscard]] double base_lr() const noexcept { return base_lr_; }

protected:
    /// Remembers the base rate; the subclass calls start() once it is fully built.
    explicit LRScheduler(Optimizer& optimizer);
    /// Sets the rate of step 0 (a virtual call, so not from the base constructor).
    void start();
    /// The rate of step `epoch`, given the rate of the step before.
    [[nodiscard]] virtual double rate_at(std::int64_t epoch, double previous) const = 0;

private:
    Optimizer& optimizer_;
    double base_lr_;
    std::int64_t epoch_ = 0;
};

/// `torch.optim.lr_scheduler.StepLR`: the rate is multiplied by `gamma` every `step_size`
/// steps. ValueError for step_size < 1 or a negative gamma.
class StepLR final : public LRScheduler {
public:
    /// See the class.
    StepLR(Optimizer& optimizer, std::int64_t step_size, double gamma = 0.1);

private:
    [[nodiscard]] double rate_at(std::int64_t epoch, double previous) const override;
    std::int64_t step_size_;
    double gamma_;
};

/// `torch.optim.lr_scheduler.LambdaLR`: the rate of step t is base_lr * factor(t).
class LambdaLR : public LRScheduler {
public:
    /// The multiplier of the base rate at each step.
    using Factor = std::function<double(std::int64_t step)>;
    /// ValueError for an empty function.
    LambdaLR(Optimizer& optimizer, Factor factor);

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
};

}  // namespace kael::optim

#pragma once
// Exercise 07.3: a learning-rate schedule that warms up linearly, then holds the base rate.

#include <cstdint>

#include "kael/optim/schedule.h"

namespace exercise {

/// `torch.optim.lr_scheduler.LinearLR` with end_factor 1: the rate of step t is
/// base_lr * (start_factor + (1 - start_factor) * t / warmup_steps) while t < warmup_steps,
/// and base_lr from step warmup_steps on. See README.md for the rules.
class LinearWarmupLR final : public kael::optim::LRScheduler {
public:
    /// Sets the optimizer's rate to base_lr * start_factor at once. ValueError for
    /// warmup_steps < 1 or a start_factor outside (0, 1], before the rate is touched.
    LinearWarmupLR(kael::optim::Optimizer& optimizer, std::int64_t warmup_steps, double start_factor = 1.0 / 3);

    /// The number of steps the rate takes to reach base_lr.
    [[nodiscard]] std::int64_t warmup_steps() const noexcept { return warmup_steps_; }
    /// The fraction of base_lr at step 0.
    [[nodiscard]] double start_factor() const noexcept { return start_factor_; }

private:
    [[nodiscard]] double rate_at(std::int64_t epoch, double previous) const override;
    std::int64_t warmup_steps_;
    double start_factor_;
};

}  // namespace exercise

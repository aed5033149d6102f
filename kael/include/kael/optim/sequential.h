#pragma once
/// \file
/// \brief SequentialLR: one schedule after another, switching at milestone steps.

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "kael/optim/schedule.h"

namespace kael::optim {

/// `torch.optim.lr_scheduler.SequentialLR`: schedule i sets the rates from milestone i - 1
/// to milestone i. Warmup then cosine, the GPT recipe, is
///
///     auto warmup = std::make_shared<LinearLR>(adamw, 0.01, 1.0, 100);
///     auto decay = std::make_shared<CosineAnnealingLR>(adamw, 900, 6e-5);
///     SequentialLR schedule(adamw, {warmup, decay}, {100});
///
/// The schedules are built first, on the same optimizer; building each sets a rate of its
/// own, and SequentialLR undoes that as PyTorch 1.13 does: it resets the optimizer's rate to
/// the initial one, moves every schedule back one step, and restarts the first. At a
/// milestone it calls what PyTorch calls step(0) on the next schedule: that schedule jumps
/// to its step 0 and takes the rate of its closed form there (the base rate, for a cosine),
/// or, if it has none (LambdaLR, OneCycleLR), its usual rate of step 0 given the rate the
/// previous schedule left. One step later it goes on by its usual rule.
///
/// ValueError, with PyTorch's messages, unless there is one milestone fewer than schedules
/// and every schedule belongs to `optimizer`; and for an empty pointer, decreasing
/// milestones, and a SequentialLR among the schedules (PyTorch 1.13 fails at its milestone:
/// a SequentialLR cannot be stepped to step 0).
///
/// Its state dict holds "_milestones", "last_epoch", "_last_lr", and the state dict of
/// schedule i under "_schedulers.<i>.", as PyTorch's does.
class SequentialLR final : public LRScheduler {
public:
    /// See the class.
    SequentialLR(Optimizer& optimizer, std::vector<std::shared_ptr<LRScheduler>> schedules,
                 std::vector<std::int64_t> milestones);
    void step() override;
    [[nodiscard]] std::string_view name() const override { return "SequentialLR"; }
    [[nodiscard]] nn::StateDict state_dict() const override;
    /// Loads every schedule's part, and all or none of them.
    void load_state_dict(const nn::StateDict& state) override;

    /// The schedules, in order.
    [[nodiscard]] const std::vector<std::shared_ptr<LRScheduler>>& schedules() const noexcept { return schedules_; }
    /// The steps at which the next schedule takes over.
    [[nodiscard]] const std::vector<std::int64_t>& milestones() const noexcept { return milestones_; }

private:
    [[nodiscard]] double rate_at(std::int64_t epoch, double previous) const override;
    std::vector<std::shared_ptr<LRScheduler>> schedules_;
    std::vector<std::int64_t> milestones_;
};

}  // namespace kael::optim

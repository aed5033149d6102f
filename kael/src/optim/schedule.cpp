// Learning-rate schedules: a step counter that rewrites the optimizer's rate.
#include "kael/optim/schedule.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "kael/error.h"

namespace kael::optim {

LRScheduler::LRScheduler(Optimizer& optimizer) : optimizer_(optimizer), base_lr_(optimizer.learning_rate()) {}

void LRScheduler::start() { optimizer_.set_learning_rate(rate_at(0, base_lr_)); }

void LRScheduler::step() {
    ++epoch_;
    optimizer_.set_learning_rate(rate_at(epoch_, optimizer_.learning_rate()));
}

StepLR::StepLR(Optimizer& optimizer, std::int64_t step_size, double gamma)
    : LRScheduler(optimizer), step_size_(step_size), gamma_(gamma) {
    KAEL_CHECK_VALUE(step_size >= 1, "StepLR needs step_size >= 1, got " << step_size);
    KAEL_CHECK_VALUE(gamma >= 0, "StepLR needs gamma >= 0, got " << gamma);
    start();
}

double StepLR::rate_at(std::int64_t epoch, double previous) const {
    // Chained, one multiplication at each boundary, as PyTorch computes it: the rates then
    // agree with PyTorch's to the last bit, which gamma^(epoch / step_size) would not.
    return epoch > 0 && epoch % step_size_ == 0 ? previous * gamma_ : previous;
}

LambdaLR::LambdaLR(Optimizer& optimizer, Factor factor) : LRScheduler(optimizer), factor_(std::move(factor)) {
    KAEL_CHECK_VALUE(static_cast<bool>(factor_), "LambdaLR needs a factor function");
    start();
}

double LambdaLR::rate_at(std::int64_t epoch, double /*previous*/) const { return base_lr() * factor_(epoch); }

namespace {

LambdaLR::Factor cosine_with_warmup(std::int64_t warmup_steps, std::int64_t total_steps) {
    KAEL_CHECK_VALUE(total_steps > 0 && warmup_steps >= 0 && warmup_steps <= total_steps,
                     "CosineWithWarmupLR needs 0 <= warmup_steps <= total_steps and total_steps > 0, got warmup_steps="
                         << warmup_steps << ", total_steps=" << total_steps);
    return [warmup_steps, total_steps](std::int64_t step) {
        if (step < warmup_steps) {
            return static_cast<double>(step) / static_cast<double>(std::max<std::int64_t>(1, warmup_steps));
        }
        const double progress = static_cast<double>(step - warmup_steps) /
                                static_cast<double>(std::max<std::int64_t>(1, total_steps - warmup_steps));
        return std::max(0.0, 0.5 * (1.0 + std::cos(std::numbers::pi * std::min(progress, 1.0))));
    };
}

}  // namespace

CosineWithWarmupLR::CosineWithWarmupLR(Optimizer& optimizer, std::int64_t warmup_steps, std::int64_t total_steps)
    : LambdaLR(optimizer, cosine_with_warmup(warmup_steps, total_steps)) {}

}  // namespace kael::optim

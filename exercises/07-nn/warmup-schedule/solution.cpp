// Reference solution of exercise 07.3.
#include "exercise.h"
#include "kael/error.h"

namespace exercise {

LinearWarmupLR::LinearWarmupLR(kael::optim::Optimizer& optimizer, std::int64_t warmup_steps, double start_factor)
    : LRScheduler(optimizer), warmup_steps_(warmup_steps), start_factor_(start_factor) {
    KAEL_CHECK_VALUE(warmup_steps >= 1, "LinearWarmupLR needs warmup_steps >= 1, got " << warmup_steps);
    // A NaN fails both comparisons, so it is refused too.
    KAEL_CHECK_VALUE(start_factor > 0 && start_factor <= 1,
                     "LinearWarmupLR needs a start_factor in (0, 1], got " << start_factor);
    start();  // the rate of step 0; the checks above come first, so a refusal changes nothing
}

double LinearWarmupLR::rate_at(std::int64_t epoch, double /*previous*/) const {
    if (epoch >= warmup_steps_) {
        return base_lr();  // exactly the base rate, not a sum that rounds near it
    }
    const double progress = static_cast<double>(epoch) / static_cast<double>(warmup_steps_);
    return base_lr() * (start_factor_ + (1 - start_factor_) * progress);
}

}  // namespace exercise

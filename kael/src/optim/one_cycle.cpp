// OneCycleLR, phase for phase as torch.optim.lr_scheduler.OneCycleLR.
#include "kael/optim/one_cycle.h"

#include <cmath>
#include <numbers>

#include "kael/checked_math.h"
#include "kael/error.h"
#include "kael/factory.h"

namespace kael::optim {

namespace {

// The length of the cycle, from total_steps or from epochs * steps_per_epoch.
std::int64_t cycle_length(const OneCycleOptions& options) {
    if (options.total_steps) {
        KAEL_CHECK_VALUE(*options.total_steps > 0,
                         "Expected positive integer total_steps, but got " << *options.total_steps);
        return *options.total_steps;
    }
    KAEL_CHECK_VALUE(options.epochs && options.steps_per_epoch,
                     "You must define either total_steps OR (epochs AND steps_per_epoch)");
    KAEL_CHECK_VALUE(*options.epochs > 0, "Expected positive integer epochs, but got " << *options.epochs);
    KAEL_CHECK_VALUE(*options.steps_per_epoch > 0,
                     "Expected positive integer steps_per_epoch, but got " << *options.steps_per_epoch);
    return detail::checked_mul(*options.epochs, *options.steps_per_epoch, "OneCycleLR total steps");
}

}  // namespace

OneCycleLR::OneCycleLR(Optimizer& optimizer, const OneCycleOptions& options)
    : LRScheduler(optimizer), options_(options), total_steps_(cycle_length(options)),
      initial_lr_(options.max_lr / options.div_factor), min_lr_(initial_lr_ / options.final_div_factor) {
    KAEL_CHECK_VALUE(options.pct_start >= 0 && options.pct_start <= 1,
                     "Expected float between 0 and 1 pct_start, but got " << options.pct_start);
    KAEL_CHECK_VALUE(options.max_lr >= 0, "OneCycleLR needs max_lr >= 0, got " << options.max_lr);
    KAEL_CHECK_VALUE(options.div_factor > 0 && options.final_div_factor > 0,
                     "OneCycleLR needs div_factor > 0 and final_div_factor > 0, got " << options.div_factor << " and "
                                                                                     << options.final_div_factor);
    KAEL_CHECK_VALUE(!options.cycle_momentum || optimizer.momentum().has_value(),
                     "optimizer must support momentum with `cycle_momentum` option enabled");
    // The phases' end steps are PyTorch's floats: the peak is at pct_start * total_steps - 1,
    // which need not be a whole step.
    const auto total = static_cast<double>(total_steps_);
    const double peak = options.pct_start * total - 1;
    // The momentum moves against the rate: max_momentum where the rate is low.
    const double max_momentum = options.max_momentum;
    const double base_momentum = options.base_momentum;
    if (options.three_phase) {
        phases_ = {{peak, initial_lr_, options.max_lr, max_momentum, base_momentum},
                   {2 * options.pct_start * total - 2, options.max_lr, initial_lr_, base_momentum, max_momentum},
                   {total - 1, initial_lr_, min_lr_, max_momentum, max_momentum}};
    } else {
        phases_ = {{peak, initial_lr_, options.max_lr, max_momentum, base_momentum},
                   {total - 1, options.max_lr, min_lr_, base_momentum, max_momentum}};
    }
    (void)locate(0);  // a first phase of no steps: PyTorch divides by zero at once; refuse before any change
    if (options.cycle_momentum) {
        // Setting both momenta checks that the optimizer accepts them; on a refusal the
        // optimizer gets its own back.
        const double original = *optimizer.momentum();
        try {
            optimizer.set_momentum(options.base_momentum);
            optimizer.set_momentum(options.max_momentum);
        } catch (...) {
            optimizer.set_momentum(original);
            throw;
        }
    }
    // PyTorch overwrites the group's initial_lr: this schedule's base rate is its own.
    optimizer.set_initial_learning_rate(initial_lr_);
    start();
}

OneCycleLR::Position OneCycleLR::locate(std::int64_t epoch) const {
    const auto step = static_cast<double>(epoch);
    double start_step = 0;
    std::size_t index = 0;
    // The first phase whose end the step has not passed; the last phase takes any step past
    // the cycle's end, carried on beyond its end values.
    while (index + 1 < phases_.size() && step > phases_[index].end_step) {
        start_step = phases_[index].end_step;
        ++index;
    }
    const Phase& phase = phases_[index];
    KAEL_CHECK_VALUE(phase.end_step != start_step,
                     "OneCycleLR: phase " << index << " has no steps (it starts and ends at step " << start_step
                                          << "), so step " << epoch
                                          << " has no rate; choose another pct_start or total_steps");
    return {&phase, (step - start_step) / (phase.end_step - start_step)};
}

double OneCycleLR::anneal(double start, double end, double pct) const {
    switch (options_.anneal_strategy) {
        case Anneal::Cos:
            return end + (start - end) / 2.0 * (std::cos(std::numbers::pi * pct) + 1);
        case Anneal::Linear:
            return (end - start) * pct + start;
    }
    throw Error("OneCycleLR: unknown anneal strategy");
}

double OneCycleLR::rate_at(std::int64_t epoch, double /*previous*/) const {
    // PyTorch's check, step total_steps included; its count is of step() calls, one more
    // than the step number.
    KAEL_CHECK_VALUE(epoch <= total_steps_,
                     "Tried to step " << epoch + 1 << " times. The specified number of total steps is " << total_steps_);
    const Position at = locate(epoch);
    return anneal(at.phase->start_lr, at.phase->end_lr, at.pct);
}

std::optional<double> OneCycleLR::momentum_at(std::int64_t epoch) const {
    if (!options_.cycle_momentum) {
        return std::nullopt;
    }
    const Position at = locate(epoch);
    return anneal(at.phase->start_momentum, at.phase->end_momentum, at.pct);
}

nn::StateDict OneCycleLR::settings() const {
    nn::StateDict out;
    out.insert("total_steps", scalar(total_steps_, DType::I64));
    for (std::size_t k = 0; k < phases_.size(); ++k) {
        out.insert("_schedule_phases." + std::to_string(k) + ".end_step", scalar(phases_[k].end_step, DType::F64));
    }
    out.insert("cycle_momentum", scalar(options_.cycle_momentum, DType::Bool));
    out.insert("max_lr", scalar(options_.max_lr, DType::F64));
    out.insert("min_lr", scalar(min_lr_, DType::F64));
    if (options_.cycle_momentum) {
        out.insert("max_momentum", scalar(options_.max_momentum, DType::F64));
        out.insert("base_momentum", scalar(options_.base_momentum, DType::F64));
    }
    return out;
}

}  // namespace kael::optim

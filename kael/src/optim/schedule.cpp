// Learning-rate schedules: a step counter that rewrites the optimizer's rate.
#include "kael/optim/schedule.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "kael/error.h"
#include "kael/factory.h"
#include "kael/optim/state_dict.h"

namespace kael::optim {

LRScheduler::LRScheduler(Optimizer& optimizer) : optimizer_(optimizer), base_lr_(optimizer.learning_rate()) {}

void LRScheduler::start() {
    // PyTorch's group.setdefault("initial_lr", group["lr"]): the first schedule of an
    // optimizer fixes the base rate of all of them.
    if (!optimizer_.initial_learning_rate()) {
        optimizer_.set_initial_learning_rate(optimizer_.learning_rate());
    }
    base_lr_ = *optimizer_.initial_learning_rate();
    initial_step();
}

void LRScheduler::step() {
    const std::int64_t next = epoch_ + 1;
    enter(next, rate_at(next, optimizer_.learning_rate()));
}

void LRScheduler::initial_step() {
    step_count_ = 0;
    step();
}

void LRScheduler::restart() {
    const std::optional<double> closed_form = closed_form_rate(0);
    enter(0, closed_form ? *closed_form : rate_at(0, optimizer_.learning_rate()));
}

void LRScheduler::enter(std::int64_t epoch, double rate) {
    // The optimizer checks the rate before anything here changes, so a refused rate
    // leaves the schedule where it was.
    optimizer_.set_learning_rate(rate);
    if (const std::optional<double> momentum = momentum_at(epoch)) {
        optimizer_.set_momentum(*momentum);
    }
    last_lr_ = rate;
    epoch_ = epoch;
    ++step_count_;
}

nn::StateDict LRScheduler::state_dict() const {
    nn::StateDict out = settings();
    out.insert("base_lrs", from_vector(std::vector<double>{base_lr_}));
    out.insert("last_epoch", scalar(epoch_, DType::I64));
    out.insert("_step_count", scalar(step_count_, DType::I64));
    out.insert("_last_lr", from_vector(std::vector<double>{last_lr_}));
    return out;
}

void LRScheduler::load_state_dict(const nn::StateDict& state) {
    StateDictReader reader(state, std::string(name()));
    for (const auto& [key, setting] : settings()) {
        reader.expect_equal(key, setting);
    }
    const double base_lr = reader.numbers("base_lrs", 1)[0];
    const std::int64_t epoch = reader.integer("last_epoch");
    const std::int64_t step_count = reader.integer("_step_count");
    const double last_lr = reader.numbers("_last_lr", 1)[0];
    reader.finish();
    // -1 is the epoch of a schedule that SequentialLR has not started yet.
    KAEL_CHECK_VALUE(base_lr >= 0 && epoch >= -1 && step_count >= 0,
                     name() << ".load_state_dict: impossible progress: base_lrs [" << base_lr << "], last_epoch "
                            << epoch << ", _step_count " << step_count);
    KAEL_CHECK_VALUE(last_lr >= 0, name() << ".load_state_dict: Invalid learning rate in '_last_lr': " << last_lr);
    // The momentum first: OneCycleLR's may refuse the step (a phase of no steps), and then
    // the optimizer has not changed yet. The optimizer accepted both of its momenta when
    // the schedule was built. A schedule that SequentialLR has not started has no step yet,
    // and leaves the momentum as building it did.
    const std::optional<double> momentum = epoch >= 0 ? momentum_at(epoch) : std::nullopt;
    optimizer_.set_learning_rate(last_lr);
    if (momentum) {
        optimizer_.set_momentum(*momentum);
    }
    base_lr_ = base_lr;
    last_lr_ = last_lr;
    epoch_ = epoch;
    step_count_ = step_count;
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

std::optional<double> StepLR::closed_form_rate(std::int64_t epoch) const {
    return base_lr() * std::pow(gamma_, static_cast<double>(epoch / step_size_));
}

nn::StateDict StepLR::settings() const {
    nn::StateDict out;
    out.insert("step_size", scalar(step_size_, DType::I64));
    out.insert("gamma", scalar(gamma_, DType::F64));
    return out;
}

MultiStepLR::MultiStepLR(Optimizer& optimizer, std::vector<std::int64_t> milestones, double gamma)
    : LRScheduler(optimizer), milestones_(std::move(milestones)), gamma_(gamma) {
    KAEL_CHECK_VALUE(gamma >= 0, "MultiStepLR needs gamma >= 0, got " << gamma);
    std::sort(milestones_.begin(), milestones_.end());
    start();
}

double MultiStepLR::rate_at(std::int64_t epoch, double previous) const {
    // No exception for step 0: PyTorch applies a milestone of 0 to the first rate.
    const auto [first, last] = std::equal_range(milestones_.begin(), milestones_.end(), epoch);
    if (first == last) {
        return previous;
    }
    return previous * std::pow(gamma_, static_cast<double>(last - first));
}

std::optional<double> MultiStepLR::closed_form_rate(std::int64_t epoch) const {
    const auto passed = std::upper_bound(milestones_.begin(), milestones_.end(), epoch) - milestones_.begin();
    return base_lr() * std::pow(gamma_, static_cast<double>(passed));
}

nn::StateDict MultiStepLR::settings() const {
    nn::StateDict out;
    out.insert("milestones", from_vector(milestones_));
    out.insert("gamma", scalar(gamma_, DType::F64));
    return out;
}

ExponentialLR::ExponentialLR(Optimizer& optimizer, double gamma) : LRScheduler(optimizer), gamma_(gamma) {
    KAEL_CHECK_VALUE(gamma >= 0, "ExponentialLR needs gamma >= 0, got " << gamma);
    start();
}

double ExponentialLR::rate_at(std::int64_t epoch, double previous) const {
    return epoch == 0 ? previous : previous * gamma_;
}

std::optional<double> ExponentialLR::closed_form_rate(std::int64_t epoch) const {
    return base_lr() * std::pow(gamma_, static_cast<double>(epoch));
}

nn::StateDict ExponentialLR::settings() const {
    nn::StateDict out;
    out.insert("gamma", scalar(gamma_, DType::F64));
    return out;
}

LinearLR::LinearLR(Optimizer& optimizer, double start_factor, double end_factor, std::int64_t total_iters)
    : LRScheduler(optimizer), start_factor_(start_factor), end_factor_(end_factor), total_iters_(total_iters) {
    // Written so that NaN fails them too.
    KAEL_CHECK_VALUE(start_factor > 0 && start_factor <= 1,
                     "Starting multiplicative factor expected to be greater than 0 and less or equal to 1.");
    KAEL_CHECK_VALUE(end_factor >= 0 && end_factor <= 1, "Ending multiplicative factor expected to be between 0 and 1.");
    KAEL_CHECK_VALUE(total_iters >= 1, "LinearLR needs total_iters >= 1, got " << total_iters);
    start();
}

double LinearLR::rate_at(std::int64_t epoch, double previous) const {
    if (epoch == 0) {
        return previous * start_factor_;
    }
    if (epoch > total_iters_) {
        return previous;
    }
    // The ratio of the factor of this step to the factor of the one before, written as
    // PyTorch writes it, so that the rounding matches: start + (end - start) * t / T over
    // start + (end - start) * (t - 1) / T, multiplied out by T.
    const double change = end_factor_ - start_factor_;
    return previous * (1.0 + change / (static_cast<double>(total_iters_) * start_factor_ +
                                       static_cast<double>(epoch - 1) * change));
}

std::optional<double> LinearLR::closed_form_rate(std::int64_t epoch) const {
    const auto done = static_cast<double>(std::min(total_iters_, epoch));
    return base_lr() * (start_factor_ + (end_factor_ - start_factor_) * done / static_cast<double>(total_iters_));
}

nn::StateDict LinearLR::settings() const {
    nn::StateDict out;
    out.insert("start_factor", scalar(start_factor_, DType::F64));
    out.insert("end_factor", scalar(end_factor_, DType::F64));
    out.insert("total_iters", scalar(total_iters_, DType::I64));
    return out;
}

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, std::int64_t T_max, double eta_min)
    : LRScheduler(optimizer), t_max_(T_max), eta_min_(eta_min) {
    KAEL_CHECK_VALUE(T_max >= 1, "CosineAnnealingLR needs T_max >= 1, got " << T_max);
    KAEL_CHECK_VALUE(eta_min >= 0, "CosineAnnealingLR needs eta_min >= 0, got " << eta_min);
    start();
}

double CosineAnnealingLR::rate_at(std::int64_t epoch, double previous) const {
    // PyTorch's recursion, case for case. (Its fourth case, for a schedule built at a
    // last_epoch > 0, has no counterpart: a kael schedule starts at step 0.)
    const double pi = std::numbers::pi;
    const auto t_max = static_cast<double>(t_max_);
    if (epoch == 0) {
        return previous;
    }
    if ((epoch - 1 - t_max_) % (2 * t_max_) == 0) {
        // One step past a trough (T_max, 3 T_max, ...), where the ratio below would divide
        // by 1 + cos(pi) = 0: the rate climbs by the first step of the cosine instead.
        return previous + (base_lr() - eta_min_) * (1 - std::cos(pi / t_max)) / 2;
    }
    // The ratio of this step's cosine factor to the last one's, applied to the distance
    // above eta_min.
    return (1 + std::cos(pi * static_cast<double>(epoch) / t_max)) /
               (1 + std::cos(pi * static_cast<double>(epoch - 1) / t_max)) * (previous - eta_min_) +
           eta_min_;
}

std::optional<double> CosineAnnealingLR::closed_form_rate(std::int64_t epoch) const {
    const double pi = std::numbers::pi;
    return eta_min_ +
           (base_lr() - eta_min_) * (1 + std::cos(pi * static_cast<double>(epoch) / static_cast<double>(t_max_))) / 2;
}

nn::StateDict CosineAnnealingLR::settings() const {
    nn::StateDict out;
    out.insert("T_max", scalar(t_max_, DType::I64));
    out.insert("eta_min", scalar(eta_min_, DType::F64));
    return out;
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
    : LambdaLR(optimizer, cosine_with_warmup(warmup_steps, total_steps)), warmup_steps_(warmup_steps),
      total_steps_(total_steps) {}

nn::StateDict CosineWithWarmupLR::settings() const {
    nn::StateDict out;
    out.insert("warmup_steps", scalar(warmup_steps_, DType::I64));
    out.insert("total_steps", scalar(total_steps_, DType::I64));
    return out;
}

}  // namespace kael::optim

// SequentialLR, switch for switch as torch.optim.lr_scheduler.SequentialLR in PyTorch 1.13.
#include "kael/optim/sequential.h"

#include <algorithm>

#include "kael/error.h"
#include "kael/factory.h"
#include "kael/optim/state_dict.h"

namespace kael::optim {

SequentialLR::SequentialLR(Optimizer& optimizer, std::vector<std::shared_ptr<LRScheduler>> schedules,
                           std::vector<std::int64_t> milestones)
    : LRScheduler(optimizer), schedules_(std::move(schedules)), milestones_(std::move(milestones)) {
    for (std::size_t i = 0; i < schedules_.size(); ++i) {
        KAEL_CHECK_VALUE(schedules_[i] != nullptr, "SequentialLR: the schedule at index " << i << " is empty");
        KAEL_CHECK_VALUE(&schedules_[i]->optimizer_ == &optimizer,
                         "Sequential Schedulers expects all schedulers to belong to the same optimizer, but got "
                         "schedulers at index "
                             << i << " to be different than the optimizer passed in.");
        KAEL_CHECK_VALUE(dynamic_cast<const SequentialLR*>(schedules_[i].get()) == nullptr,
                         "SequentialLR: the schedule at index " << i << " is a SequentialLR, which cannot be restarted");
    }
    KAEL_CHECK_VALUE(milestones_.size() + 1 == schedules_.size(),
                     "Sequential Schedulers expects number of schedulers provided to be one more than the number of "
                     "milestone points, but got number of schedulers "
                         << schedules_.size() << " and the number of milestones to be equal to " << milestones_.size());
    KAEL_CHECK_VALUE(std::is_sorted(milestones_.begin(), milestones_.end()),
                     "SequentialLR needs milestones in increasing order");
    // Undo what building the schedules did: back to the initial rate (which the first of
    // them recorded), every schedule one step back, and the first one started again.
    optimizer.set_learning_rate(optimizer.initial_learning_rate().value());
    for (const auto& schedule : schedules_) {
        schedule->epoch_ -= 1;
    }
    schedules_.front()->initial_step();
    last_lr_ = schedules_.front()->last_lr_;
    base_lr_ = optimizer.initial_learning_rate().value();
    epoch_ = 0;
}

void SequentialLR::step() {
    const std::int64_t epoch = epoch_ + 1;
    // PyTorch's bisect_right: the schedule after every milestone at or before this step.
    const auto index = static_cast<std::size_t>(std::upper_bound(milestones_.begin(), milestones_.end(), epoch) -
                                                milestones_.begin());
    LRScheduler& active = *schedules_[index];
    if (index > 0 && milestones_[index - 1] == epoch) {
        active.restart();
    } else {
        active.step();
    }
    last_lr_ = active.last_lr_;
    epoch_ = epoch;
    ++step_count_;
}

double SequentialLR::rate_at(std::int64_t /*epoch*/, double previous) const {
    // A SequentialLR has no formula of its own: step() hands every step to one of its
    // schedules, so nothing asks it for a rate (PyTorch's leaves get_lr unimplemented).
    return previous;
}

nn::StateDict SequentialLR::state_dict() const {
    nn::StateDict out;
    out.insert("_milestones", from_vector(milestones_));
    out.insert("last_epoch", scalar(epoch_, DType::I64));
    out.insert("_last_lr", from_vector(std::vector<double>{last_lr_}));
    for (std::size_t i = 0; i < schedules_.size(); ++i) {
        const std::string prefix = "_schedulers." + std::to_string(i) + ".";
        for (const auto& [key, tensor] : schedules_[i]->state_dict()) {
            out.insert(prefix + key, tensor);
        }
    }
    return out;
}

void SequentialLR::load_state_dict(const nn::StateDict& state) {
    StateDictReader reader(state, "SequentialLR");
    reader.expect_equal("_milestones", from_vector(milestones_));
    const std::int64_t epoch = reader.integer("last_epoch");
    const double last_lr = reader.numbers("_last_lr", 1)[0];
    std::vector<nn::StateDict> parts;
    for (std::size_t i = 0; i < schedules_.size(); ++i) {
        parts.push_back(reader.section("_schedulers." + std::to_string(i) + "."));
    }
    reader.finish();
    KAEL_CHECK_VALUE(epoch >= 0, "SequentialLR.load_state_dict: 'last_epoch' is negative: " << epoch);
    KAEL_CHECK_VALUE(last_lr >= 0, "SequentialLR.load_state_dict: Invalid learning rate: " << last_lr);
    // Each schedule checks its own part as it loads it; if one refuses, the ones loaded
    // before it get their old state back, and the optimizer its old rate.
    const double rate_before = optimizer_.learning_rate();
    std::vector<nn::StateDict> before;
    for (const auto& schedule : schedules_) {
        before.push_back(schedule->state_dict());
    }
    std::size_t loaded = 0;
    try {
        for (; loaded < schedules_.size(); ++loaded) {
            schedules_[loaded]->load_state_dict(parts[loaded]);
        }
    } catch (...) {
        for (std::size_t i = 0; i < loaded; ++i) {
            schedules_[i]->load_state_dict(before[i]);
        }
        optimizer_.set_learning_rate(rate_before);
        throw;
    }
    optimizer_.set_learning_rate(last_lr);
    last_lr_ = last_lr;
    epoch_ = epoch;
}

}  // namespace kael::optim

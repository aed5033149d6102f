// StateDict: the ordered, name-indexed collection that modules and checkpoints exchange.
#include "kael/nn/state_dict.h"

#include "kael/error.h"

namespace kael::nn {

void StateDict::insert(std::string name, Tensor t) {
    KAEL_CHECK_VALUE(!contains(name), "StateDict already has a tensor named '" << name << "'");
    entries_.emplace_back(std::move(name), std::move(t));
    try {
        index_.emplace(entries_.back().first, entries_.size() - 1);
    } catch (...) {
        // Keep the vector and the index in step if the index cannot grow.
        entries_.pop_back();
        throw;
    }
}

const Tensor* StateDict::find(std::string_view name) const {
    const auto found = index_.find(name);
    return found == index_.end() ? nullptr : &entries_[found->second].second;
}

const Tensor& StateDict::at(std::string_view name) const {
    const Tensor* t = find(name);
    KAEL_CHECK_INDEX(t != nullptr, "StateDict has no tensor named '" << name << "'");
    return *t;
}

std::vector<std::string> StateDict::keys() const {
    std::vector<std::string> names;
    names.reserve(entries_.size());
    for (const auto& [name, tensor] : entries_) {
        names.push_back(name);
    }
    return names;
}

}  // namespace kael::nn

// The optimizer base: parameter checks, zero_grad, the learning rate, the state dict.
#include "kael/optim/optimizer.h"

#include <numeric>
#include <unordered_set>

#include "kael/autograd/engine.h"
#include "kael/error.h"
#include "kael/factory.h"

namespace kael::optim {

Optimizer::Optimizer(std::vector<Tensor> parameters, double learning_rate)
    : parameters_(std::move(parameters)), learning_rate_(learning_rate) {
    KAEL_CHECK_VALUE(learning_rate >= 0, "Invalid learning rate: " << learning_rate);
    std::unordered_set<const TensorImpl*> seen;
    for (std::size_t i = 0; i < parameters_.size(); ++i) {
        const Tensor& p = parameters_[i];
        KAEL_CHECK(p.is_leaf(), "can't optimize a non-leaf tensor (parameter " << i
                                    << " was computed from other tensors; optimize those, or detach() it)");
        KAEL_CHECK(is_floating_point(p.dtype()),
                   "optimizer parameters must be floating point, parameter " << i << " has dtype " << p.dtype());
        // PyTorch accepts such a tensor and never updates it; refusing it finds the forgotten
        // requires_grad_() on the first line instead of after an epoch of a frozen model.
        KAEL_CHECK_VALUE(p.requires_grad(), "optimizer parameter " << i << " does not require grad, so it would "
                                            "never get a gradient to step with; call requires_grad_() on it");
        // Keyed on the impl: two handles of one tensor are one parameter, updated once.
        KAEL_CHECK_VALUE(seen.insert(p.impl().get()).second, "parameter " << i << " appears twice in the list");
    }
}

void Optimizer::zero_grad(bool set_to_none) { autograd::zero_grad(parameters_, set_to_none); }

void Optimizer::set_learning_rate(double learning_rate) {
    KAEL_CHECK_VALUE(learning_rate >= 0, "Invalid learning rate: " << learning_rate);
    learning_rate_ = learning_rate;
}

void Optimizer::set_initial_learning_rate(double learning_rate) {
    KAEL_CHECK_VALUE(learning_rate >= 0, "Invalid initial learning rate: " << learning_rate);
    initial_learning_rate_ = learning_rate;
}

void Optimizer::set_momentum(double /*momentum*/) {
    KAEL_CHECK_VALUE(false, name() << " has no momentum (nor an Adam beta1) to set");
}

nn::StateDict Optimizer::state_dict() const {
    nn::StateDict out;
    for (std::size_t i = 0; i < parameters_.size(); ++i) {
        save_parameter_state(i, out);
    }
    // The group, in PyTorch's order: "lr", the optimizer's own hyperparameters, what a
    // schedule added, and the parameters' indices last.
    out.insert(group_key("lr"), scalar(learning_rate_, DType::F64));
    save_hyperparameters(out);
    if (initial_learning_rate_) {
        out.insert(group_key("initial_lr"), scalar(*initial_learning_rate_, DType::F64));
    }
    std::vector<std::int64_t> indices(parameters_.size());
    std::iota(indices.begin(), indices.end(), std::int64_t{0});
    out.insert(group_key("params"), from_vector(indices));
    return out;
}

void Optimizer::load_state_dict(const nn::StateDict& state) {
    StateDictReader reader(state, std::string(name()));
    for (const auto& [key, tensor] : state) {
        KAEL_CHECK_VALUE(!key.starts_with("param_groups.") || key.starts_with("param_groups.0."),
                         name() << ".load_state_dict: loaded state dict has a different number of parameter groups ('"
                                << key << "'; kael's optimizers have one group)");
    }
    const std::vector<std::int64_t> saved_ids = reader.integers(group_key("params"));
    KAEL_CHECK_VALUE(saved_ids.size() == parameters_.size(),
                     name() << ".load_state_dict: loaded state dict contains a parameter group that doesn't match the "
                               "size of optimizer's group ("
                            << saved_ids.size() << " parameters in the state dict, " << parameters_.size()
                            << " in the optimizer)");
    std::unordered_set<std::int64_t> distinct;
    for (const std::int64_t id : saved_ids) {
        KAEL_CHECK_VALUE(distinct.insert(id).second,
                         name() << ".load_state_dict: 'param_groups.0.params' lists parameter " << id << " twice");
    }
    const double learning_rate = reader.number(group_key("lr"));
    KAEL_CHECK_VALUE(learning_rate >= 0, name() << ".load_state_dict: Invalid learning rate: " << learning_rate);
    std::optional<double> initial_learning_rate;
    if (reader.find(group_key("initial_lr")) != nullptr) {
        initial_learning_rate = reader.number(group_key("initial_lr"));
        KAEL_CHECK_VALUE(*initial_learning_rate >= 0,
                         name() << ".load_state_dict: Invalid initial learning rate: " << *initial_learning_rate);
    }
    load_state(reader, saved_ids);  // checks the rest and finishes, then commits its part
    learning_rate_ = learning_rate;
    initial_learning_rate_ = initial_learning_rate;
}

void Optimizer::save_parameter_state(std::size_t /*index*/, nn::StateDict& /*out*/) const {}

void Optimizer::save_hyperparameters(nn::StateDict& /*out*/) const {}

void Optimizer::load_state(StateDictReader& reader, const std::vector<std::int64_t>& /*saved_ids*/) {
    reader.finish();
}

}  // namespace kael::optim

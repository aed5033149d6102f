// nn::Module: registration, the deduplicated parameter walk, modes, moves, state dicts
// and printing.
#include "kael/nn/module.h"

#include <algorithm>
#include <ostream>
#include <sstream>
#include <unordered_set>

#include "kael/autograd/grad_mode.h"
#include "kael/error.h"
#include "kael/factory.h"

namespace kael::nn {

void Module::check_new_name(const std::string& name) const {
    KAEL_CHECK_VALUE(!name.empty(), "a module attribute name can't be empty");
    KAEL_CHECK_VALUE(name.find('.') == std::string::npos,
                     "a module attribute name can't contain \".\", got \"" << name << "\"");
    const auto has_name = [&](const auto& entry) { return entry.name == name; };
    const bool used = std::ranges::any_of(parameters_, has_name) || std::ranges::any_of(buffers_, has_name) ||
                      std::ranges::any_of(children_, [&](const auto& child) { return child.first == name; });
    KAEL_CHECK_VALUE(!used, "attribute \"" << name << "\" already exists in " << this->name());
}

Tensor Module::register_parameter(std::string name, Tensor tensor, bool requires_grad) {
    check_new_name(name);
    KAEL_CHECK(tensor.is_leaf(), "parameter \"" << name << "\" was computed by a recorded operation; "
                                 "a parameter must be a leaf (detach() it first)");
    tensor.requires_grad_(requires_grad);
    parameters_.push_back({std::move(name), tensor, true});
    return tensor;
}

Tensor Module::register_buffer(std::string name, Tensor tensor, bool persistent) {
    check_new_name(name);
    buffers_.push_back({std::move(name), tensor, persistent});
    return tensor;
}

void Module::add_child(std::string name, std::shared_ptr<Module> module) {
    KAEL_CHECK_VALUE(module != nullptr, "submodule \"" << name << "\" is null");
    check_new_name(name);
    children_.emplace_back(std::move(name), std::move(module));
}

template <typename Visit>
void Module::walk(bool buffers, bool recurse, const std::string& prefix, Visit&& visit) const {
    for (const Entry& entry : buffers ? buffers_ : parameters_) {
        visit(prefix + entry.name, entry);
    }
    if (recurse) {
        for (const auto& [child_name, child] : children_) {
            child->walk(buffers, recurse, prefix + child_name + ".", visit);
        }
    }
}

std::vector<NamedTensor> Module::named_unique(bool buffers, bool recurse) const {
    // Keyed on the impl, not the name: a tied weight is one tensor, and an optimizer given
    // it twice would update it twice per step (ADR 0002).
    std::unordered_set<const TensorImpl*> seen;
    std::vector<NamedTensor> out;
    walk(buffers, recurse, "", [&](const std::string& name, const Entry& entry) {
        if (seen.insert(entry.tensor.impl().get()).second) {
            out.emplace_back(name, entry.tensor);
        }
    });
    return out;
}

std::vector<NamedTensor> Module::named_parameters(bool recurse) const { return named_unique(false, recurse); }

std::vector<NamedTensor> Module::named_buffers(bool recurse) const { return named_unique(true, recurse); }

namespace {

std::vector<Tensor> tensors_of(const std::vector<NamedTensor>& named) {
    std::vector<Tensor> out;
    out.reserve(named.size());
    for (const auto& [name, tensor] : named) {
        out.push_back(tensor);
    }
    return out;
}

}  // namespace

std::vector<Tensor> Module::parameters(bool recurse) const { return tensors_of(named_parameters(recurse)); }

std::vector<Tensor> Module::buffers(bool recurse) const { return tensors_of(named_buffers(recurse)); }

Module& Module::train(bool on) {
    training_ = on;
    for (const auto& child : children_) {
        child.second->train(on);
    }
    return *this;
}

void Module::zero_grad(bool set_to_none) {
    for (Tensor& p : parameters()) {
        if (set_to_none || !p.grad()) {
            p.set_grad(std::nullopt);
        } else {
            const autograd::NoGradGuard no_grad;
            p.grad()->zero_();
        }
    }
}

Module& Module::to(Device device) {
    // One small allocation on the target first: a missing device fails here, before any
    // parameter has moved, so the model is never left half on one device and half on the other.
    (void)empty({1}, DType::F32, device);
    for (Tensor& t : parameters()) {
        t.move_to_(device);
    }
    for (Tensor& t : buffers()) {
        t.move_to_(device);
    }
    return *this;
}

Module& Module::to(DType dtype) {
    KAEL_CHECK_TYPE(is_floating_point(dtype), "nn::Module::to only accepts floating point dtypes, but got " << dtype);
    for (Tensor& t : parameters()) {
        if (is_floating_point(t.dtype())) {
            t.move_to_(dtype);
        }
    }
    for (Tensor& t : buffers()) {
        if (is_floating_point(t.dtype())) {
            t.move_to_(dtype);
        }
    }
    return *this;
}

StateDict Module::state_dict() const {
    StateDict state;
    walk(false, true, "", [&](const std::string& name, const Entry& entry) { state.insert(name, entry.tensor); });
    walk(true, true, "", [&](const std::string& name, const Entry& entry) {
        if (entry.persistent) {
            state.insert(name, entry.tensor);
        }
    });
    return state;
}

namespace {

// "a", "b" as PyTorch lists keys in its load_state_dict message.
std::string quoted_list(const std::vector<std::string>& keys) {
    std::ostringstream os;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        os << (i == 0 ? "" : ", ") << '"' << keys[i] << '"';
    }
    return os.str();
}

}  // namespace

void Module::load_state_dict(const StateDict& state, bool strict) {
    const StateDict own = state_dict();
    std::vector<std::string> missing;
    std::vector<std::string> unexpected;
    for (const auto& [key, tensor] : own) {
        if (!state.contains(key)) {
            missing.push_back(key);
        }
    }
    for (const auto& [key, tensor] : state) {
        if (!own.contains(key)) {
            unexpected.push_back(key);
        }
    }
    if (strict && (!missing.empty() || !unexpected.empty())) {
        std::ostringstream message;
        message << "Error(s) in loading state_dict for " << name() << ":";
        if (!missing.empty()) {
            message << " Missing key(s) in state_dict: " << quoted_list(missing) << ".";
        }
        if (!unexpected.empty()) {
            message << " Unexpected key(s) in state_dict: " << quoted_list(unexpected) << ".";
        }
        throw ValueError(message.str());
    }
    // Shapes and dtypes of every key are checked before the first copy: nothing is half-loaded.
    for (const auto& [key, target] : own) {
        const Tensor* source = state.find(key);
        if (source == nullptr) {
            continue;
        }
        KAEL_CHECK_VALUE(source->shape() == target.shape(),
                         "Error(s) in loading state_dict for " << name() << ": size mismatch for " << key
                             << ": copying a param with shape " << to_string(source->shape())
                             << " from checkpoint, the shape in current model is " << to_string(target.shape()) << ".");
        KAEL_CHECK_TYPE(source->dtype() == target.dtype(),
                        "Error(s) in loading state_dict for " << name() << ": dtype mismatch for " << key
                            << ": the checkpoint holds " << source->dtype() << ", the model " << target.dtype()
                            << "; convert one with to(dtype) first.");
    }
    const autograd::NoGradGuard no_grad;  // loading is not a step the graph should see
    for (const auto& [key, target] : own) {
        if (const Tensor* source = state.find(key)) {
            Tensor destination = target;
            destination.copy_(source->device() == target.device() ? *source : source->to(target.device()));
        }
    }
}

namespace {

void print_tree(std::ostream& os, const Module& module, int indent) {
    os << module.name() << "(" << module.extra_repr();
    if (module.named_children().empty()) {
        os << ")";
        return;
    }
    os << "\n";
    const std::string pad(static_cast<std::size_t>(indent + 2), ' ');
    for (const auto& [child_name, child] : module.named_children()) {
        os << pad << "(" << child_name << "): ";
        print_tree(os, *child, indent + 2);
        os << "\n";
    }
    os << std::string(static_cast<std::size_t>(indent), ' ') << ")";
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const Module& module) {
    print_tree(os, module, 0);
    return os;
}

//> stage 14

Tensor UnaryModule::profiled_forward(const Tensor& input) {
    const std::string module = name();  // outlives the call's record
    const profiler::Scope call(module.c_str(), "module", {&input});
    return forward(input);
}
//< stage 14

}  // namespace kael::nn

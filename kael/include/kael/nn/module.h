#pragma once
/// \file
/// \brief nn::Module: the parameters, buffers and submodules of a model (chapter 07).

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kael/dtype.h"
#include "kael/nn/state_dict.h"
//> stage 14
#include "kael/profiler.h"
//< stage 14
#include "kael/tensor.h"

namespace kael::nn {

/// A name and the tensor registered under it, as named_parameters() returns them.
using NamedTensor = std::pair<std::string, Tensor>;

/// The base of every layer and model, as `torch.nn.Module`.
///
/// A module owns three registries, filled by its constructor: parameters (tensors an
/// optimizer trains), buffers (tensors saved with the model but not trained) and submodules.
/// A subclass keeps its own handles to what it registers (`weight = register_parameter(...)`);
/// both handles share one impl (ADR 0002), so a move or a loaded checkpoint seen through
/// the registry is seen through the member too.
///
/// Modules are not copyable: a copy would either share the parameters (surprising) or copy
/// them (expensive and rarely meant). Hold them by std::shared_ptr, as the containers do.
class Module {
public:
    virtual ~Module() = default;
    Module(const Module&) = delete;
    Module& operator=(const Module&) = delete;

    /// The class name printed for this module, such as "Linear".
    [[nodiscard]] virtual std::string name() const = 0;
    /// The settings printed in parentheses after the name, such as
    /// "in_features=784, out_features=512, bias=true"; empty by default.
    [[nodiscard]] virtual std::string extra_repr() const { return {}; }

    /// Every parameter of this module and its submodules, each tensor once even when it is
    /// registered under two names (weight tying), in registration order.
    [[nodiscard]] std::vector<Tensor> parameters(bool recurse = true) const;
    /// parameters() with their dotted names ("layers.0.weight"); a tensor registered twice
    /// appears under the first name it was registered with.
    [[nodiscard]] std::vector<NamedTensor> named_parameters(bool recurse = true) const;
    /// Every buffer, deduplicated like parameters().
    [[nodiscard]] std::vector<Tensor> buffers(bool recurse = true) const;
    /// buffers() with their dotted names.
    [[nodiscard]] std::vector<NamedTensor> named_buffers(bool recurse = true) const;
    /// The direct submodules with their names, in registration order.
    [[nodiscard]] const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& named_children() const noexcept {
        return children_;
    }

    /// Sets training mode on this module and every submodule (Dropout reads it).
    Module& train(bool on = true);
    /// train(false).
    Module& eval() { return train(false); }
    /// True in training mode, the mode a new module starts in.
    [[nodiscard]] bool is_training() const noexcept { return training_; }

    /// Clears the gradient of every parameter: empty by default, zeros in place otherwise.
    void zero_grad(bool set_to_none = true);

    /// Moves every parameter and buffer to `device` in place with Tensor::move_to_, so an
    /// optimizer built before the move keeps updating the same tensors. kael::Error before
    /// anything moves when the device is not available.
    Module& to(Device device);
    /// Converts every floating-point parameter and buffer to `dtype` in place (integer
    /// buffers such as indices keep theirs, as in PyTorch). TypeError for a dtype that is
    /// not floating point.
    Module& to(DType dtype);

    /// Every parameter and persistent buffer under its dotted name. Unlike parameters(), a
    /// tensor registered under two names is listed under both, as PyTorch's state_dict is,
    /// so a checkpoint has every key a loader may ask for. The tensors are the module's own
    /// (not copies): detach or clone them to keep a snapshot.
    [[nodiscard]] StateDict state_dict() const;
    /// Copies the tensors of `state` into the parameters and buffers of the same names.
    /// Everything is checked before anything is copied, so a refused checkpoint leaves the
    /// module unchanged. With `strict`, a key the module lacks (unexpected) or a name
    /// missing from `state` is a ValueError naming the keys; in any mode a tensor of another
    /// shape is a ValueError and of another dtype a TypeError, naming the key.
    void load_state_dict(const StateDict& state, bool strict = true);

protected:
    Module() = default;

    /// Registers a parameter and returns a handle to it. The tensor becomes a leaf that
    /// requires grad unless `requires_grad` is false. ValueError for a name already used or
    /// containing a dot; kael::Error for a tensor computed by a recorded operation.
    Tensor register_parameter(std::string name, Tensor tensor, bool requires_grad = true);
    /// Registers a buffer: saved in state_dict() when `persistent`, moved by to(), never
    /// trained.
    Tensor register_buffer(std::string name, Tensor tensor, bool persistent = true);
    /// Registers a submodule and returns it; its names are prefixed with `name` and a dot.
    template <typename M> std::shared_ptr<M> register_module(std::string name, std::shared_ptr<M> module) {
        add_child(std::move(name), module);
        return module;
    }

private:
    struct Entry {
        std::string name;
        Tensor tensor;
        bool persistent;
    };
    // Calls visit(dotted name, entry) for every parameter (or buffer) of this module and,
    // with `recurse`, of every submodule, depth first in registration order.
    template <typename Visit> void walk(bool buffers, bool recurse, const std::string& prefix, Visit&& visit) const;
    [[nodiscard]] std::vector<NamedTensor> named_unique(bool buffers, bool recurse) const;
    void add_child(std::string name, std::shared_ptr<Module> module);
    void check_new_name(const std::string& name) const;

    std::vector<Entry> parameters_;
    std::vector<Entry> buffers_;
    std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
    bool training_ = true;
};

/// Prints the module tree as PyTorch does: the name, the settings, and each submodule
/// indented on its own line under its name.
std::ostream& operator<<(std::ostream& os, const Module& module);

/// A module that maps one tensor to one tensor, the kind Sequential chains: Linear,
/// LayerNorm, the activations, Dropout, and most models.
class UnaryModule : public Module {
public:
    /// Computes the module's output.
    [[nodiscard]] virtual Tensor forward(const Tensor& input) = 0;
    /// forward(input), so a module can be called like a function.
//> until 14
//|     [[nodiscard]] Tensor operator()(const Tensor& input) { return forward(input); }
//< until 14
//> stage 14
    /// While a Profiler records, the call is recorded under the module's name (chapter 13).
    [[nodiscard]] Tensor operator()(const Tensor& input) {
        if (profiler::enabled()) {
            return profiled_forward(input);
        }
        return forward(input);
    }

private:
    // forward(input) as a call the profiler records, named by name().
    [[nodiscard]] Tensor profiled_forward(const Tensor& input);
//< stage 14
};

}  // namespace kael::nn

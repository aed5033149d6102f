#pragma once
/// \file
/// \brief Optimizer: the base of SGD, Adam and AdamW (chapter 07).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "kael/nn/state_dict.h"
#include "kael/optim/state_dict.h"
#include "kael/tensor.h"

namespace kael::optim {

/// Updates a list of parameters from their gradients, as `torch.optim.Optimizer` does.
///
/// The optimizer keeps handles to the parameters, not copies: an update writes into the
/// tensors the model holds, and it sees the gradients backward() accumulated into them.
/// step() runs inside a NoGradGuard, so the update is not recorded. Parameters whose
/// grad() is empty are skipped, as in PyTorch.
///
/// The parameters form one group, PyTorch's param_groups[0]: one set of hyperparameters
/// for all of them.
class Optimizer {
public:
    /// Takes the parameters and the learning rate. ValueError for a negative learning rate,
    /// a parameter that does not require grad, or a parameter listed twice; kael::Error for a parameter that is not a leaf (its
    /// values come from other tensors, so writing into it would be lost) or not floating point.
    Optimizer(std::vector<Tensor> parameters, double learning_rate);
    virtual ~Optimizer() = default;
    Optimizer(const Optimizer&) = delete;
    Optimizer& operator=(const Optimizer&) = delete;

    /// Applies one update to every parameter that has a gradient.
    virtual void step() = 0;
    /// Clears the gradients: empty (the default, as PyTorch 2) or zeros in place.
    void zero_grad(bool set_to_none = true);

    /// The class's name as PyTorch spells it ("SGD", "Adam"), for messages.
    [[nodiscard]] virtual std::string_view name() const { return "Optimizer"; }

    /// The learning rate of the next step; schedules change it between steps.
    [[nodiscard]] double learning_rate() const noexcept { return learning_rate_; }
    /// Sets the learning rate of the next step. ValueError when negative.
    void set_learning_rate(double learning_rate);
    /// The parameters, in the order given.
    [[nodiscard]] const std::vector<Tensor>& parameters() const noexcept { return parameters_; }

    /// PyTorch's param_groups[0]["initial_lr"]: the learning rate when the first schedule
    /// was attached, which every schedule of this optimizer takes as its base rate. Empty
    /// until then.
    [[nodiscard]] std::optional<double> initial_learning_rate() const noexcept { return initial_learning_rate_; }
    /// Sets it. ValueError when negative.
    void set_initial_learning_rate(double learning_rate);

    /// The hyperparameter that OneCycleLR cycles against the learning rate: SGD's momentum,
    /// Adam's beta1 (PyTorch's `use_beta1`). Empty for an optimizer that has neither.
    [[nodiscard]] virtual std::optional<double> momentum() const { return std::nullopt; }
    /// Sets it, with the check the constructor makes. ValueError when out of range or when
    /// the optimizer has no such hyperparameter.
    virtual void set_momentum(double momentum);

    /// The state, in PyTorch's layout flattened (see kael/optim/state_dict.h): for each
    /// parameter with state, "state.<index>.<name>" (Adam's "step", "exp_avg", ...; SGD's
    /// "momentum_buffer"), then the group's hyperparameters "param_groups.0.<name>",
    /// ending with "param_groups.0.params", the indices 0, 1, ... of the parameters.
    ///
    /// As in PyTorch, the buffers are the optimizer's own tensors, not copies: the next
    /// step changes them. Save the dict, or clone it, to keep a snapshot.
    [[nodiscard]] nn::StateDict state_dict() const;
    /// Replaces the state and the hyperparameters with those of `state`, which state_dict()
    /// of an optimizer of the same kind over parameters of the same shapes returned (or
    /// PyTorch's, in the same layout). "params" maps the saved indices onto this
    /// optimizer's parameters in order, as in PyTorch; buffers are copied, converted to
    /// their parameter's dtype and device. A training run that loads the state of step N
    /// continues exactly as if it had never stopped.
    ///
    /// ValueError, naming what is wrong, for a state dict of another kind of optimizer, of
    /// another number of parameters or groups, with a buffer of another shape, a missing,
    /// mistyped or unexpected key, or a hyperparameter the constructor would refuse. A
    /// refused state dict changes nothing.
    void load_state_dict(const nn::StateDict& state);

protected:
    /// Adds the state of parameter `index` to `out` under state_key(index, ...). An
    /// optimizer without per-parameter state adds nothing, which is the default.
    virtual void save_parameter_state(std::size_t index, nn::StateDict& out) const;
    /// Adds the group's hyperparameters other than "lr" to `out`, under group_key(...).
    virtual void save_hyperparameters(nn::StateDict& out) const;
    /// Reads the hyperparameters and every parameter's state (that of parameter i under
    /// state_key(saved_ids[i], ...)), checks them, calls reader.finish(), and only then
    /// replaces this optimizer's own. The default reads nothing more and finishes.
    virtual void load_state(StateDictReader& reader, const std::vector<std::int64_t>& saved_ids);

    /// The parameters, in the order given.
    std::vector<Tensor> parameters_;
    /// The learning rate of the next step.
    double learning_rate_;

private:
    std::optional<double> initial_learning_rate_;
};

}  // namespace kael::optim

#pragma once
/// \file
/// \brief Adam and AdamW, with bias correction and the optional AMSGrad variant.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "kael/optim/optimizer.h"

namespace kael::optim {

/// The hyperparameters of Adam and AdamW, with PyTorch's defaults (AdamW's weight decay
/// defaults to 0.01 instead of 0: use AdamW::default_options()).
struct AdamOptions {
    /// The learning rate.
    double lr = 1e-3;
    /// The decay rate of the running mean of the gradients.
    double beta1 = 0.9;
    /// The decay rate of the running mean of the squared gradients.
    double beta2 = 0.999;
    /// Added to the denominator, for numerical stability.
    double eps = 1e-8;
    /// Adam: added to the gradient as weight_decay * p. AdamW: p *= 1 - lr * weight_decay.
    double weight_decay = 0;
    /// Divide by the largest running mean of squared gradients seen so far (AMSGrad).
    bool amsgrad = false;
    /// Step along the gradient instead of against it, to maximise the objective.
    bool maximize = false;
};

/// What Adam keeps for one parameter, under PyTorch's names. The tensors are empty until
/// the parameter's first step with a gradient; max_exp_avg_sq exists only with AMSGrad.
struct AdamParameterState {
    /// The steps this parameter has taken: the t of its bias corrections.
    std::int64_t step = 0;
    /// The running mean of the gradients, m.
    std::optional<Tensor> exp_avg;
    /// The running mean of the squared gradients, v.
    std::optional<Tensor> exp_avg_sq;
    /// The largest v seen so far, element by element (AMSGrad).
    std::optional<Tensor> max_exp_avg_sq;
};

/// `torch.optim.Adam`. Per parameter, at step t (counted from 1):
/// m = beta1 m + (1 - beta1) g, v = beta2 v + (1 - beta2) g^2, and
/// p -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps).
///
/// A contiguous CPU parameter is updated in one fused pass over its four arrays; any other
/// takes the same arithmetic as tensor operations.
///
/// Its state dict holds "state.<i>.step", "exp_avg", "exp_avg_sq" (and "max_exp_avg_sq"
/// with AMSGrad) for each parameter that has stepped, and the group's "lr", "betas", "eps",
/// "weight_decay", "amsgrad", "maximize" and "decoupled_weight_decay". The last is the key
/// PyTorch 2.x added to tell AdamW's state from Adam's (1.13's are indistinguishable); kael
/// writes it so that AdamW refuses Adam's state and the reverse.
class Adam : public Optimizer {
public:
    /// ValueError for a negative learning rate, epsilon or weight decay, or a beta outside [0, 1).
    Adam(std::vector<Tensor> parameters, const AdamOptions& options);
    void step() override;
    [[nodiscard]] std::string_view name() const override { return "Adam"; }

    /// The hyperparameters; `lr` is the one given to the constructor, learning_rate() the
    /// current one.
    [[nodiscard]] const AdamOptions& options() const noexcept { return options_; }
    /// The state of parameter `index`. Its tensors are the optimizer's own, which the next
    /// step updates in place. IndexError past the last parameter.
    [[nodiscard]] const AdamParameterState& state(std::size_t index) const;

    /// beta1, the hyperparameter OneCycleLR cycles.
    [[nodiscard]] std::optional<double> momentum() const override { return options_.beta1; }
    /// Sets beta1. ValueError outside [0, 1).
    void set_momentum(double momentum) override;

protected:
    /// Adam adds the decay to the gradient (L2); AdamW shrinks the parameter instead.
    Adam(std::vector<Tensor> parameters, const AdamOptions& options, bool decoupled_weight_decay);

    void save_parameter_state(std::size_t index, nn::StateDict& out) const override;
    void save_hyperparameters(nn::StateDict& out) const override;
    void load_state(StateDictReader& reader, const std::vector<std::int64_t>& saved_ids) override;

private:
    AdamOptions options_;
    bool decoupled_;
    std::vector<AdamParameterState> state_;
};

/// `torch.optim.AdamW`: Adam with decoupled weight decay, p *= 1 - lr * weight_decay before
/// the Adam step, so the decay does not pass through the adaptive denominator.
class AdamW final : public Adam {
public:
    /// PyTorch's AdamW defaults: Adam's, with weight_decay = 0.01.
    [[nodiscard]] static AdamOptions default_options() {
        AdamOptions options;
        options.weight_decay = 1e-2;
        return options;
    }
    /// See Adam's constructor.
    AdamW(std::vector<Tensor> parameters, const AdamOptions& options = default_options());
    [[nodiscard]] std::string_view name() const override { return "AdamW"; }
};

}  // namespace kael::optim

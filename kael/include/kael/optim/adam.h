#pragma once
/// \file
/// \brief Adam and AdamW, with bias correction and the optional AMSGrad variant.

#include <cstdint>
#include <optional>
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
};

/// `torch.optim.Adam`. Per parameter, at step t (counted from 1):
/// m = beta1 m + (1 - beta1) g, v = beta2 v + (1 - beta2) g^2, and
/// p -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps).
///
/// A contiguous CPU parameter is updated in one fused pass over its four arrays; any other
/// takes the same arithmetic as tensor operations.
class Adam : public Optimizer {
public:
    /// ValueError for a negative learning rate, epsilon or weight decay, or a beta outside [0, 1).
    Adam(std::vector<Tensor> parameters, const AdamOptions& options);
    void step() override;

protected:
    /// Adam adds the decay to the gradient (L2); AdamW shrinks the parameter instead.
    Adam(std::vector<Tensor> parameters, const AdamOptions& options, bool decoupled_weight_decay);

private:
    AdamOptions options_;
    bool decoupled_;
    std::vector<std::int64_t> steps_;
    std::vector<std::optional<Tensor>> exp_avg_;
    std::vector<std::optional<Tensor>> exp_avg_sq_;
    std::vector<std::optional<Tensor>> max_exp_avg_sq_;
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
};

}  // namespace kael::optim

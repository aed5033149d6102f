#pragma once
/// \file
/// \brief SGD with momentum, dampening, Nesterov momentum and weight decay.

#include <optional>
#include <vector>

#include "kael/optim/optimizer.h"

namespace kael::optim {

/// The hyperparameters of SGD, with PyTorch's defaults.
struct SgdOptions {
    /// The learning rate.
    double lr = 1e-3;
    /// The momentum factor; 0 turns momentum off.
    double momentum = 0;
    /// How much of each new gradient the momentum buffer leaves out.
    double dampening = 0;
    /// L2 penalty: weight_decay * p is added to the gradient.
    double weight_decay = 0;
    /// Nesterov momentum (needs momentum > 0 and dampening = 0).
    bool nesterov = false;
};

/// `torch.optim.SGD`: with d = grad + weight_decay * p, the momentum buffer is b = d on the
/// first step and b = momentum * b + (1 - dampening) * d after; the step is p -= lr * d', with
/// d' = b, or d + momentum * b for Nesterov, or d without momentum.
class Sgd final : public Optimizer {
public:
    /// ValueError for a negative learning rate, momentum or weight decay, and for Nesterov
    /// momentum without momentum or with dampening.
    Sgd(std::vector<Tensor> parameters, const SgdOptions& options);
    void step() override;

private:
    SgdOptions options_;
    std::vector<std::optional<Tensor>> momentum_buffers_;
};

}  // namespace kael::optim

#pragma once
// Exercise 07.2: stochastic gradient descent with momentum, as an Optimizer of your own.

#include <cstddef>
#include <optional>
#include <vector>

#include "kael/optim/optimizer.h"

namespace exercise {

/// The hyperparameters of MomentumSgd: kael::optim::SgdOptions without weight decay.
struct MomentumOptions {
    /// The learning rate.
    double lr = 1e-3;
    /// The momentum factor; 0 is plain SGD, with no buffer.
    double momentum = 0.9;
    /// How much of each new gradient the buffer leaves out (never of the first one).
    double dampening = 0;
    /// Nesterov momentum: step along g + momentum * buffer instead of the buffer.
    bool nesterov = false;
};

/// `torch.optim.SGD` with momentum. Per parameter with a gradient g, the buffer b is a copy
/// of g on the parameter's first step and momentum * b + (1 - dampening) * g after it, and
/// p -= lr * b (or lr * (g + momentum * b) with Nesterov). See README.md for the rules.
class MomentumSgd : public kael::optim::Optimizer {
public:
    /// ValueError for a negative learning rate (the base's check) or momentum, and for
    /// Nesterov momentum without momentum or with dampening.
    MomentumSgd(std::vector<kael::Tensor> parameters, const MomentumOptions& options);
    /// One update of every parameter that has a gradient, outside the graph.
    void step() override;
    /// The buffer of parameter `index`: empty until its first step with a gradient, and
    /// always empty without momentum. IndexError past the last parameter.
    [[nodiscard]] const std::optional<kael::Tensor>& momentum_buffer(std::size_t index) const;

private:
    MomentumOptions options_;
    std::vector<std::optional<kael::Tensor>> buffers_;
};

}  // namespace exercise

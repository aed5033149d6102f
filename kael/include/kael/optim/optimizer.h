#pragma once
/// \file
/// \brief Optimizer: the base of SGD, Adam and AdamW (chapter 07).

#include <vector>

#include "kael/tensor.h"

namespace kael::optim {

/// Updates a list of parameters from their gradients, as `torch.optim.Optimizer` does.
///
/// The optimizer keeps handles to the parameters, not copies: an update writes into the
/// tensors the model holds, and it sees the gradients backward() accumulated into them.
/// step() runs inside a NoGradGuard, so the update is not recorded. Parameters whose
/// grad() is empty are skipped, as in PyTorch.
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

    /// The learning rate of the next step; schedules change it between steps.
    [[nodiscard]] double learning_rate() const noexcept { return learning_rate_; }
    /// Sets the learning rate of the next step. ValueError when negative.
    void set_learning_rate(double learning_rate);
    /// The parameters, in the order given.
    [[nodiscard]] const std::vector<Tensor>& parameters() const noexcept { return parameters_; }

protected:
    /// The parameters, in the order given.
    std::vector<Tensor> parameters_;
    /// The learning rate of the next step.
    double learning_rate_;
};

}  // namespace kael::optim

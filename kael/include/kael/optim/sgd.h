#pragma once
/// \file
/// \brief SGD with momentum, dampening, Nesterov momentum and weight decay.

#include <cstddef>
#include <optional>
#include <string_view>
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
    /// Step along the gradient instead of against it, to maximise the objective.
    bool maximize = false;
};

/// `torch.optim.SGD`: with d = grad + weight_decay * p (grad negated first to maximize),
/// the momentum buffer is b = d on the first step and b = momentum * b + (1 - dampening) * d
/// after; the step is p -= lr * d', with d' = b, or d + momentum * b for Nesterov, or d
/// without momentum.
///
/// Its state dict holds "state.<i>.momentum_buffer" for each parameter that has a buffer,
/// and the group's "lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize".
class Sgd final : public Optimizer {
public:
    /// ValueError for a negative learning rate, momentum or weight decay, and for Nesterov
    /// momentum without momentum or with dampening.
    Sgd(std::vector<Tensor> parameters, const SgdOptions& options);
    void step() override;
    [[nodiscard]] std::string_view name() const override { return "SGD"; }

    /// The hyperparameters; `lr` is the one given to the constructor, learning_rate() the
    /// current one.
    [[nodiscard]] const SgdOptions& options() const noexcept { return options_; }
    /// The momentum buffer of parameter `index`: empty until its first step with a gradient,
    /// and always without momentum. It is the optimizer's own tensor, which the next step
    /// updates in place. IndexError past the last parameter.
    [[nodiscard]] const std::optional<Tensor>& momentum_buffer(std::size_t index) const;

    /// The momentum factor.
    [[nodiscard]] std::optional<double> momentum() const override { return options_.momentum; }
    /// Sets the momentum factor. ValueError when negative.
    void set_momentum(double momentum) override;

protected:
    void save_parameter_state(std::size_t index, nn::StateDict& out) const override;
    void save_hyperparameters(nn::StateDict& out) const override;
    void load_state(StateDictReader& reader, const std::vector<std::int64_t>& saved_ids) override;

private:
    SgdOptions options_;
    std::vector<std::optional<Tensor>> momentum_buffers_;
};

}  // namespace kael::optim

#pragma once
/// \file
/// \brief The parameter-free layers: ReLU, GELU and Dropout.

#include <string>

#include "kael/nn/module.h"

namespace kael::nn {

/// `torch.nn.ReLU`: max(x, 0).
class ReLU : public UnaryModule {
public:
    /// kael::relu(input).
    [[nodiscard]] Tensor forward(const Tensor& input) override;
    /// "ReLU".
    [[nodiscard]] std::string name() const override { return "ReLU"; }
};

/// `torch.nn.GELU`: x Phi(x), exactly ("none") or with the tanh approximation ("tanh").
class GELU : public UnaryModule {
public:
    /// ValueError for an approximation other than "none" and "tanh".
    explicit GELU(std::string approximate = "none");
    /// kael::gelu(input, approximate).
    [[nodiscard]] Tensor forward(const Tensor& input) override;
    /// "GELU".
    [[nodiscard]] std::string name() const override { return "GELU"; }
    /// "approximate='tanh'", as PyTorch prints it.
    [[nodiscard]] std::string extra_repr() const override { return "approximate='" + approximate_ + "'"; }

private:
    std::string approximate_;
};

/// `torch.nn.Dropout`: in training mode zeroes each element with probability p and scales
/// the rest by 1 / (1 - p); in eval mode returns its input unchanged.
class Dropout : public UnaryModule {
public:
    /// ValueError unless 0 <= p <= 1.
    explicit Dropout(double p = 0.5);
    /// kael::dropout(input, p, is_training()).
    [[nodiscard]] Tensor forward(const Tensor& input) override;
    /// "Dropout".
    [[nodiscard]] std::string name() const override { return "Dropout"; }
    /// "p=0.5".
    [[nodiscard]] std::string extra_repr() const override;

private:
    double p_;
};

}  // namespace kael::nn

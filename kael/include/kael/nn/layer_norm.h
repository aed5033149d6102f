#pragma once
/// \file
/// \brief nn::LayerNorm: normalisation over the trailing dimensions, with a learned scale and shift.

#include <optional>
#include <string>

#include "kael/nn/module.h"
#include "kael/shape.h"

namespace kael::nn {

/// `torch.nn.LayerNorm`: normalises over the last dimensions `normalized_shape`, then scales
/// by `weight` (initialised to ones) and shifts by `bias` (zeros) when elementwise_affine.
class LayerNorm : public UnaryModule {
public:
    /// ValueError for an empty or negative normalized_shape.
    explicit LayerNorm(Shape normalized_shape, double eps = 1e-5, bool elementwise_affine = true);
    /// kael::layer_norm of `input` with this module's parameters.
    [[nodiscard]] Tensor forward(const Tensor& input) override;
    /// "LayerNorm".
    [[nodiscard]] std::string name() const override { return "LayerNorm"; }
    /// "(768,), eps=1e-05, elementwise_affine=true".
    [[nodiscard]] std::string extra_repr() const override;

    /// The scale, of shape normalized_shape, or empty without elementwise_affine.
    std::optional<Tensor> weight;
    /// The shift, of shape normalized_shape, or empty without elementwise_affine.
    std::optional<Tensor> bias;

private:
    Shape normalized_shape_;
    double eps_;
};

}  // namespace kael::nn

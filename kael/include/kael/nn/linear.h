#pragma once
/// \file
/// \brief nn::Linear: y = x W^T + b.

#include <cstdint>
#include <optional>
#include <string>

#include "kael/nn/module.h"

namespace kael::nn {

/// `torch.nn.Linear`: a weight [out_features, in_features] and an optional bias
/// [out_features], initialised as PyTorch does: the weight with kaiming_uniform_(a = sqrt(5)),
/// which is uniform in +-1/sqrt(in_features), and the bias uniform in the same bound.
class Linear : public UnaryModule {
public:
    /// ValueError for a negative number of features.
    Linear(std::int64_t in_features, std::int64_t out_features, bool with_bias = true);
    /// x W^T + b over the last dimension of `input` ([..., in_features] to [..., out_features]).
    [[nodiscard]] Tensor forward(const Tensor& input) override;
    /// "Linear".
    [[nodiscard]] std::string name() const override { return "Linear"; }
    /// "in_features=.., out_features=.., bias=true".
    [[nodiscard]] std::string extra_repr() const override;

    /// The weight, [out_features, in_features].
    Tensor weight;
    /// The bias, [out_features], or empty when built with bias = false.
    std::optional<Tensor> bias;

private:
    std::int64_t in_features_;
    std::int64_t out_features_;
};

}  // namespace kael::nn

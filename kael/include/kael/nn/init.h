#pragma once
/// \file
/// \brief nn::init: filling parameters in place with the distributions PyTorch uses.
///
/// Every function writes into the tensor it is given, outside the graph (as under
/// `torch.no_grad()`), draws from kael's global generator, and returns the tensor.

#include <cstdint>
#include <utility>

#include "kael/tensor.h"

namespace kael::nn::init {

/// Which fan a Kaiming initialisation preserves the variance of.
enum class FanMode { FanIn, FanOut };

/// The nonlinearity a gain is computed for (torch.nn.init.calculate_gain).
enum class Nonlinearity { Linear, Sigmoid, Tanh, Relu, LeakyRelu };

/// The recommended gain for `nonlinearity`: 1 for Linear and Sigmoid, 5/3 for Tanh,
/// sqrt(2) for Relu and sqrt(2 / (1 + slope^2)) for LeakyRelu with `negative_slope`.
[[nodiscard]] double calculate_gain(Nonlinearity nonlinearity, double negative_slope = 0.01);

/// (fan_in, fan_out) of a weight: dimension 1 and dimension 0, each times the product of
/// the dimensions after the second. ValueError for fewer than two dimensions.
[[nodiscard]] std::pair<std::int64_t, std::int64_t> calculate_fan_in_and_fan_out(const Tensor& tensor);

/// Uniform values in [a, b).
Tensor& uniform_(Tensor& tensor, double a = 0.0, double b = 1.0);
/// Normal values with the given mean and standard deviation.
Tensor& normal_(Tensor& tensor, double mean = 0.0, double std = 1.0);
/// Every element `value`.
Tensor& constant_(Tensor& tensor, double value);
/// Every element 0.
Tensor& zeros_(Tensor& tensor);
/// Every element 1.
Tensor& ones_(Tensor& tensor);

/// Uniform in +-gain * sqrt(3 / fan), the gain of `nonlinearity` with slope `a` (He et al.).
/// PyTorch's Linear calls it with a = sqrt(5), which makes the bound 1 / sqrt(fan_in).
Tensor& kaiming_uniform_(Tensor& tensor, double a = 0.0, FanMode mode = FanMode::FanIn,
                         Nonlinearity nonlinearity = Nonlinearity::LeakyRelu);
/// Normal with standard deviation gain / sqrt(fan).
Tensor& kaiming_normal_(Tensor& tensor, double a = 0.0, FanMode mode = FanMode::FanIn,
                        Nonlinearity nonlinearity = Nonlinearity::LeakyRelu);
/// Uniform in +-gain * sqrt(6 / (fan_in + fan_out)) (Glorot and Bengio).
Tensor& xavier_uniform_(Tensor& tensor, double gain = 1.0);
/// Normal with standard deviation gain * sqrt(2 / (fan_in + fan_out)).
Tensor& xavier_normal_(Tensor& tensor, double gain = 1.0);

}  // namespace kael::nn::init

// nn::init: PyTorch's initialisers, each one distribution written into a tensor in place.
#include "kael/nn/init.h"

#include <cmath>

#include "kael/autograd/grad_mode.h"
#include "kael/error.h"
#include "kael/ops/binary.h"
#include "kael/random.h"

namespace kael::nn::init {
namespace {

// Writes `values` (drawn in float64, so every dtype sees the same draw) into `tensor`.
Tensor& assign(Tensor& tensor, const Tensor& values) {
    KAEL_CHECK_TYPE(is_floating_point(tensor.dtype()),
                    "initialisers fill floating point tensors, got dtype " << tensor.dtype());
    const autograd::NoGradGuard no_grad;  // filling a parameter is not an operation to differentiate
    tensor.copy_(values);
    return tensor;
}

std::int64_t fan(const Tensor& tensor, FanMode mode) {
    const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
    return mode == FanMode::FanIn ? fan_in : fan_out;
}

}  // namespace

double calculate_gain(Nonlinearity nonlinearity, double negative_slope) {
    switch (nonlinearity) {
    case Nonlinearity::Linear:
    case Nonlinearity::Sigmoid:
        return 1.0;
    case Nonlinearity::Tanh:
        return 5.0 / 3.0;
    case Nonlinearity::Relu:
        return std::sqrt(2.0);
    case Nonlinearity::LeakyRelu:
        return std::sqrt(2.0 / (1.0 + negative_slope * negative_slope));
    }
    detail::unreachable();
}

std::pair<std::int64_t, std::int64_t> calculate_fan_in_and_fan_out(const Tensor& tensor) {
    KAEL_CHECK_VALUE(tensor.dim() >= 2, "Fan in and fan out can not be computed for tensor with fewer than 2 "
                                        "dimensions, got shape " << to_string(tensor.shape()));
    std::int64_t receptive_field = 1;
    for (std::int64_t d = 2; d < tensor.dim(); ++d) {
        receptive_field *= tensor.size(d);
    }
    return {tensor.size(1) * receptive_field, tensor.size(0) * receptive_field};
}

Tensor& uniform_(Tensor& tensor, double a, double b) {
    KAEL_CHECK_VALUE(a <= b, "uniform_ expects a <= b, got a=" << a << ", b=" << b);
    return assign(tensor, add(mul(rand(tensor.shape(), DType::F64), b - a), a));
}

Tensor& normal_(Tensor& tensor, double mean, double std) {
    KAEL_CHECK_VALUE(std >= 0, "normal_ expects std >= 0.0, got std=" << std);
    return assign(tensor, add(mul(randn(tensor.shape(), DType::F64), std), mean));
}

Tensor& constant_(Tensor& tensor, double value) {
    KAEL_CHECK_TYPE(is_floating_point(tensor.dtype()),
                    "initialisers fill floating point tensors, got dtype " << tensor.dtype());
    const autograd::NoGradGuard no_grad;
    tensor.fill_(value);
    return tensor;
}

Tensor& zeros_(Tensor& tensor) { return constant_(tensor, 0.0); }

Tensor& ones_(Tensor& tensor) { return constant_(tensor, 1.0); }

Tensor& kaiming_uniform_(Tensor& tensor, double a, FanMode mode, Nonlinearity nonlinearity) {
    if (tensor.numel() == 0) {
        return tensor;  // PyTorch: initialising a zero-element tensor is a no-op
    }
    const double std = calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(fan(tensor, mode)));
    // A uniform distribution on [-b, b] has standard deviation b / sqrt(3).
    const double bound = std::sqrt(3.0) * std;
    return uniform_(tensor, -bound, bound);
}

Tensor& kaiming_normal_(Tensor& tensor, double a, FanMode mode, Nonlinearity nonlinearity) {
    if (tensor.numel() == 0) {
        return tensor;
    }
    const double std = calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(fan(tensor, mode)));
    return normal_(tensor, 0.0, std);
}

Tensor& xavier_uniform_(Tensor& tensor, double gain) {
    const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
    const double std = gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
    const double bound = std::sqrt(3.0) * std;
    return uniform_(tensor, -bound, bound);
}

Tensor& xavier_normal_(Tensor& tensor, double gain) {
    const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
    return normal_(tensor, 0.0, gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out)));
}

}  // namespace kael::nn::init

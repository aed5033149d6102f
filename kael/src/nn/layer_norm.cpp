// nn::LayerNorm: the module around kael::layer_norm.
#include "kael/nn/layer_norm.h"

#include <algorithm>
#include <sstream>

#include "kael/error.h"
#include "kael/factory.h"
#include "kael/ops/nn.h"

namespace kael::nn {

LayerNorm::LayerNorm(Shape normalized_shape, double eps, bool elementwise_affine)
    : normalized_shape_(std::move(normalized_shape)), eps_(eps) {
    KAEL_CHECK_VALUE(!normalized_shape_.empty() &&
                         std::ranges::all_of(normalized_shape_, [](std::int64_t size) { return size >= 0; }),
                     "LayerNorm needs a non-empty normalized_shape of non-negative sizes, got "
                         << to_string(normalized_shape_));
    if (elementwise_affine) {
        weight = register_parameter("weight", ones(normalized_shape_));
        bias = register_parameter("bias", zeros(normalized_shape_));
    }
}

Tensor LayerNorm::forward(const Tensor& input) { return layer_norm(input, normalized_shape_, weight, bias, eps_); }

std::string LayerNorm::extra_repr() const {
    std::ostringstream os;
    os << "(";
    for (const std::int64_t size : normalized_shape_) {
        os << size << ",";
    }
    os << "), eps=" << eps_ << ", elementwise_affine=" << (weight ? "true" : "false");
    return os.str();
}

}  // namespace kael::nn

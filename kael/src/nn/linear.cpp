// nn::Linear: the affine layer and PyTorch's default initialisation of it.
#include "kael/nn/linear.h"

#include <cmath>
#include <sstream>

#include "kael/error.h"
#include "kael/factory.h"
#include "kael/nn/init.h"
#include "kael/ops/binary.h"
#include "kael/ops/linalg.h"

namespace kael::nn {
namespace {

// The weight's storage, after the check that the member initialiser cannot make itself.
Tensor uninitialised_weight(std::int64_t in_features, std::int64_t out_features) {
    KAEL_CHECK_VALUE(in_features >= 0 && out_features >= 0,
                     "Linear needs non-negative feature counts, got in_features=" << in_features
                                                                                 << ", out_features=" << out_features);
    return empty({out_features, in_features});
}

}  // namespace

Linear::Linear(std::int64_t in_features, std::int64_t out_features, bool with_bias)
    : weight(register_parameter("weight", uninitialised_weight(in_features, out_features))),
      in_features_(in_features),
      out_features_(out_features) {
    init::kaiming_uniform_(weight, std::sqrt(5.0));
    if (with_bias) {
        this->bias = register_parameter("bias", empty({out_features}));
        // PyTorch's bound for the bias: 1/sqrt(fan_in), and 0 when there is no input.
        const double bound = in_features > 0 ? 1.0 / std::sqrt(static_cast<double>(in_features)) : 0.0;
        init::uniform_(*this->bias, -bound, bound);
    }
}

Tensor Linear::forward(const Tensor& input) {
    const Tensor product = matmul(input, weight.mT());
    return bias ? add(product, *bias) : product;
}

std::string Linear::extra_repr() const {
    std::ostringstream os;
    os << "in_features=" << in_features_ << ", out_features=" << out_features_
       << ", bias=" << (bias ? "true" : "false");
    return os.str();
}

}  // namespace kael::nn

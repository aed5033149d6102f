// The parameter-free layers: thin modules over kael's functions, so Sequential can hold them.
#include "kael/nn/activation.h"

#include <sstream>

#include "kael/error.h"
#include "kael/ops/nn.h"
#include "kael/ops/unary.h"

namespace kael::nn {

Tensor ReLU::forward(const Tensor& input) { return relu(input); }

GELU::GELU(std::string approximate) : approximate_(std::move(approximate)) {
    KAEL_CHECK_VALUE(approximate_ == "none" || approximate_ == "tanh",
                     "GELU's approximate must be 'none' or 'tanh', got '" << approximate_ << "'");
}

Tensor GELU::forward(const Tensor& input) { return gelu(input, approximate_); }

Dropout::Dropout(double p) : p_(p) {
    KAEL_CHECK_VALUE(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got " << p);
}

Tensor Dropout::forward(const Tensor& input) { return dropout(input, p_, is_training()); }

std::string Dropout::extra_repr() const {
    std::ostringstream os;
    os << "p=" << p_;
    return os.str();
}

}  // namespace kael::nn

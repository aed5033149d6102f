// Reference solution of exercise 07.1.
#include <string>

#include "exercise.h"
#include "kael/error.h"
#include "kael/factory.h"
#include "kael/ops.h"

namespace exercise {

namespace {

// The size, once checked: the members are initialised before the constructor's body runs,
// so the check has to happen inside their initialiser.
std::int64_t checked_features(std::int64_t features) {
    KAEL_CHECK_VALUE(features >= 0, "Affine needs a non-negative number of features, got " << features);
    return features;
}

}  // namespace

Affine::Affine(std::int64_t features)
    : scale(register_parameter("scale", kael::ones({checked_features(features)}))),
      shift(register_parameter("shift", kael::zeros({features}))),
      features_(features) {}

kael::Tensor Affine::forward(const kael::Tensor& input) {
    // Broadcasting alone would accept a last dimension of 1 and stretch it: refuse it here.
    KAEL_CHECK_VALUE(input.dim() >= 1 && input.size(-1) == features_,
                     "Affine(features=" << features_ << ") needs an input whose last dimension is " << features_
                                        << ", got shape " << kael::to_string(input.shape()));
    return input * scale + shift;
}

std::string Affine::extra_repr() const { return "features=" + std::to_string(features_); }

Mlp::Mlp(std::int64_t in_features, std::int64_t hidden_features, std::int64_t out_features)
    : fc1(register_module("fc1", std::make_shared<kael::nn::Linear>(in_features, hidden_features))),
      fc2(register_module("fc2", std::make_shared<kael::nn::Linear>(hidden_features, out_features))),
      affine(register_module("affine", std::make_shared<Affine>(out_features))) {}

kael::Tensor Mlp::forward(const kael::Tensor& input) { return (*affine)((*fc2)(kael::relu((*fc1)(input)))); }

}  // namespace exercise

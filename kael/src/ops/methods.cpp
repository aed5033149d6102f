// Tensor's operation methods: each forwards to the free function of the same name.
#include "kael/ops.h"

namespace kael {

Tensor Tensor::add(const Tensor& other, Scalar alpha) const { return kael::add(*this, other, alpha); }
Tensor Tensor::sub(const Tensor& other, Scalar alpha) const { return kael::sub(*this, other, alpha); }
Tensor Tensor::add(Scalar other, Scalar alpha) const { return kael::add(*this, other, alpha); }
Tensor Tensor::sub(Scalar other, Scalar alpha) const { return kael::sub(*this, other, alpha); }
Tensor Tensor::mul(const Tensor& other) const { return kael::mul(*this, other); }
Tensor Tensor::mul(Scalar other) const { return kael::mul(*this, other); }
Tensor Tensor::div(const Tensor& other) const { return kael::div(*this, other); }
Tensor Tensor::div(Scalar other) const { return kael::div(*this, other); }
Tensor Tensor::pow(Scalar exponent) const { return kael::pow(*this, exponent); }
Tensor Tensor::matmul(const Tensor& other) const { return kael::matmul(*this, other); }
Tensor Tensor::exp() const { return kael::exp(*this); }
Tensor Tensor::log() const { return kael::log(*this); }
Tensor Tensor::sqrt() const { return kael::sqrt(*this); }
Tensor Tensor::abs() const { return kael::abs(*this); }
Tensor Tensor::relu() const { return kael::relu(*this); }
Tensor Tensor::sigmoid() const { return kael::sigmoid(*this); }
Tensor Tensor::tanh() const { return kael::tanh(*this); }

Tensor Tensor::clamp(std::optional<Scalar> min, std::optional<Scalar> max) const {
    return kael::clamp(*this, min, max);
}

Tensor Tensor::softmax(std::int64_t dim) const { return kael::softmax(*this, dim); }
Tensor Tensor::log_softmax(std::int64_t dim) const { return kael::log_softmax(*this, dim); }
Tensor Tensor::sum() const { return kael::sum(*this); }

Tensor Tensor::sum(const std::vector<std::int64_t>& dims, bool keepdim) const {
    return kael::sum(*this, dims, keepdim);
}

Tensor Tensor::mean() const { return kael::mean(*this); }

Tensor Tensor::mean(const std::vector<std::int64_t>& dims, bool keepdim) const {
    return kael::mean(*this, dims, keepdim);
}

Tensor Tensor::max() const { return kael::max(*this); }
Tensor Tensor::min() const { return kael::min(*this); }
Tensor Tensor::argmax(std::int64_t dim, bool keepdim) const { return kael::argmax(*this, dim, keepdim); }
Tensor Tensor::masked_fill(const Tensor& mask, Scalar value) const { return kael::masked_fill(*this, mask, value); }

}  // namespace kael

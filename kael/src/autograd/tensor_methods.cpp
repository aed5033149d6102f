// Tensor's methods that make tensors: the views (chapter 03), the operations and the
// in-place operations (chapter 05), the copies (chapter 02, here from chapter 06 on), and
// the arithmetic operators. Each forwards to the free function of the same name or, like
// reshape's relatives, composes other methods.
//
// They are defined in this layer, the one whose functions users call, and not next to the
// code they reach, because a method must reach the top of the stack of operations. Until
// chapter 06 the functions it names are core's views and the operations layer's; from
// chapter 06 on the same names are the autograd layer's differentiable functions, and every
// method records a graph without a change here. Below this layer nothing calls a method:
// core and the operations call the functions of their own level (core/native.h,
// ops/native.h), which never record.
#include "kael/tensor.h"

#include <cstddef>
#include <numeric>
#include <vector>

#include "kael/view.h"
//> stage 6
#include "kael/ops.h"
#include "ops/elementwise.h"
//< stage 6

namespace kael {

// ---- views (chapter 03) -----------------------------------------------------------------------

Tensor Tensor::as_strided(const Shape& shape, const Strides& strides, std::int64_t offset) const { return kael::as_strided(*this, shape, strides, offset); }
Tensor Tensor::view(const Shape& shape) const { return kael::view(*this, shape); }
Tensor Tensor::transpose(std::int64_t dim0, std::int64_t dim1) const { return kael::transpose(*this, dim0, dim1); }
Tensor Tensor::permute(const std::vector<std::int64_t>& dims) const { return kael::permute(*this, dims); }
Tensor Tensor::slice(std::int64_t dim, std::optional<std::int64_t> start, std::optional<std::int64_t> end, std::int64_t step) const { return kael::slice(*this, dim, start, end, step); }
Tensor Tensor::select(std::int64_t dim, std::int64_t index) const { return kael::select(*this, dim, index); }
Tensor Tensor::expand(const Shape& shape) const { return kael::expand(*this, shape); }
Tensor Tensor::squeeze() const { return kael::squeeze(*this); }
Tensor Tensor::squeeze(std::int64_t dim) const { return kael::squeeze(*this, dim); }
Tensor Tensor::unsqueeze(std::int64_t dim) const { return kael::unsqueeze(*this, dim); }
Tensor Tensor::unflatten(std::int64_t dim, const Shape& sizes) const { return kael::unflatten(*this, dim, sizes); }

// The views made of other views.

Tensor Tensor::reshape(const Shape& shape) const { return kael::reshape(*this, shape); }

Tensor Tensor::T() const {
    std::vector<std::int64_t> reversed(static_cast<std::size_t>(dim()));
    std::iota(reversed.rbegin(), reversed.rend(), 0);
    return permute(reversed);
}

Tensor Tensor::mT() const {
    KAEL_CHECK_VALUE(dim() >= 2, "mT needs a matrix or a batch of matrices, got a " << dim()
                                                                                   << "-d tensor");
    return transpose(-2, -1);
}

Tensor Tensor::narrow(std::int64_t dim, std::int64_t start, std::int64_t length) const {
    KAEL_CHECK_INDEX(this->dim() > 0, "narrow() cannot be applied to a 0-d tensor");
    const std::size_t d = dim_position(dim, this->dim());
    const std::int64_t size = shape()[d];
    KAEL_CHECK_INDEX(start >= -size && start <= size,
                     "narrow(): start " << start << " out of range for dimension " << d
                                        << " of size " << size);
    KAEL_CHECK_VALUE(length >= 0, "narrow(): length must be non-negative, got " << length);
    const std::int64_t first = start < 0 ? start + size : start;
    KAEL_CHECK_INDEX(first <= size - length, "narrow(): start " << first << " + length " << length
                                                                << " exceeds dimension " << d
                                                                << " of size " << size);
    return slice(dim, first, first + length);
}

Tensor Tensor::expand_as(const Tensor& other) const { return expand(other.shape()); }

Tensor Tensor::flatten(std::int64_t start_dim, std::int64_t end_dim) const {
    if (dim() == 0) {
        (void)wrap_dim(start_dim, 0);
        (void)wrap_dim(end_dim, 0);
        return reshape({1});
    }
    const std::int64_t first = wrap_dim(start_dim, dim());
    const std::int64_t last = wrap_dim(end_dim, dim());
    KAEL_CHECK_VALUE(first <= last, "flatten: start_dim " << first << " comes after end_dim " << last);
    if (first == last) {
        return *this;
    }
    Shape shape(this->shape().begin(), this->shape().begin() + first);
    shape.push_back(-1);
    shape.insert(shape.end(), this->shape().begin() + last + 1, this->shape().end());
    if (numel() == 0) {  // -1 cannot be inferred next to a zero size
        shape[static_cast<std::size_t>(first)] = 0;
    }
    return reshape(shape);
}
//> stage 6

// ---- operations (chapter 05) ------------------------------------------------------------------

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

// ---- in place (chapter 05) --------------------------------------------------------------------

Tensor& Tensor::add_(const Tensor& other, Scalar alpha) { return kael::add_(*this, other, alpha); }
Tensor& Tensor::sub_(const Tensor& other, Scalar alpha) { return kael::sub_(*this, other, alpha); }
Tensor& Tensor::mul_(const Tensor& other) { return kael::mul_(*this, other); }
Tensor& Tensor::div_(const Tensor& other) { return kael::div_(*this, other); }
Tensor& Tensor::fill_(Scalar value) { return kael::fill_(*this, value); }
Tensor& Tensor::copy_(const Tensor& src) { return kael::copy_(*this, src); }
Tensor& Tensor::clamp_(std::optional<Scalar> min, std::optional<Scalar> max) { return kael::clamp_(*this, min, max); }
Tensor& Tensor::masked_fill_(const Tensor& mask, Scalar value) { return kael::masked_fill_(*this, mask, value); }
Tensor& Tensor::neg_() { return kael::neg_(*this); }
Tensor& Tensor::add_(Scalar value, Scalar alpha) {
    return add_(scalar(value, promote_with_scalar(dtype(), value)), alpha);
}
Tensor& Tensor::sub_(Scalar value, Scalar alpha) {
    detail::check_no_bool_operand(dtype(), value.dtype());
    return sub_(scalar(value, promote_with_scalar(dtype(), value)), alpha);
}
Tensor& Tensor::mul_(Scalar value) { return mul_(scalar(value, promote_with_scalar(dtype(), value))); }
Tensor& Tensor::div_(Scalar value) { return div_(scalar(value, promote_with_scalar(dtype(), value))); }
Tensor& Tensor::zero_() { return fill_(0); }

// ---- operators (chapter 05) -------------------------------------------------------------------

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator+(const Tensor& t, Scalar s) { return add(t, s); }
Tensor operator+(Scalar s, const Tensor& t) { return add(t, s); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator-(const Tensor& t, Scalar s) { return sub(t, s); }
Tensor operator-(Scalar s, const Tensor& t) { return sub(s, t); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator*(const Tensor& t, Scalar s) { return mul(t, s); }
Tensor operator*(Scalar s, const Tensor& t) { return mul(t, s); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator/(const Tensor& t, Scalar s) { return div(t, s); }
Tensor operator/(Scalar s, const Tensor& t) { return div(s, t); }
Tensor operator-(const Tensor& t) { return neg(t); }
//< stage 6
//> stage 7

// ---- copies (chapter 02) ----------------------------------------------------------------------
// Until chapter 06 core defines these (core/tensor.cpp); from it they record a graph.

Tensor Tensor::to(DType target) const { return target == dtype() ? *this : kael::to_copy(*this, target); }

Tensor Tensor::to(Device target) const { return target == device() ? *this : kael::to_copy(*this, target); }

Tensor Tensor::clone() const { return kael::clone(*this); }

Tensor Tensor::contiguous() const { return is_contiguous() ? *this : clone(); }
//< stage 7

}  // namespace kael

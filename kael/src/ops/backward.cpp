// Operations that only backward passes use (chapter 06): derivatives that have a kernel of
// their own because composing them from other operations would be slower or less exact.
#include "ops/native.h"

#include "ops/elementwise.h"
#include "kael/factory.h"
#include "kernels/cpu/gelu.h"
//> stage 10
#include "ops/device.h"
//< stage 10

namespace kael::native {

Tensor gelu_derivative(const Tensor& x, std::string_view approximate, int order) {
    KAEL_CHECK(order == 1 || order == 2, "gelu_derivative: order must be 1 or 2, got " << order);
    const bool tanh_form = approximate == "tanh";
    const bool second = order == 2;
//> stage 10
    if (detail::on_device(x)) {
        using cuda::UnaryOp;
        const UnaryOp op = tanh_form ? (second ? UnaryOp::GeluTanhSecondDerivative : UnaryOp::GeluTanhDerivative)
                                     : (second ? UnaryOp::GeluExactSecondDerivative : UnaryOp::GeluExactDerivative);
        return detail::device_unary<detail::Dtypes::Floating>(op, x, x.dtype(), "gelu_backward");
    }
//< stage 10
//> stage 12
    if (tanh_form && !second && x.dtype() == DType::F32) {  // the GPT's hot path: see gelu.h
        return detail::unary_kernel<detail::Dtypes::Floating>(x, x.dtype(), "gelu_backward", []<typename T>() {
            return [](T v) { return static_cast<T>(detail::gelu_tanh_derivative_fast(static_cast<float>(v))); };
        });
    }
//< stage 12
    return detail::unary_kernel<detail::Dtypes::Floating>(x, x.dtype(), "gelu_backward", [=]<typename T>() {
        return [=](T v) {
            if (tanh_form) {
                return second ? detail::gelu_tanh_second_derivative(v) : detail::gelu_tanh_derivative(v);
            }
            return second ? detail::gelu_exact_second_derivative(v) : detail::gelu_exact_derivative(v);
        };
    });
}

Tensor index_select_backward(const Tensor& grad, const Shape& shape, std::int64_t dim, const Tensor& positions) {
    Tensor out = zeros(shape, grad.dtype(), grad.device());
//> stage 10
    if (detail::on_device(grad)) {
        Shape along(grad.shape().size(), 1);
        along[static_cast<std::size_t>(dim)] = positions.numel();
        return native::scatter_add(out, dim, native::expand(native::view(positions, along), grad.shape()), grad);
    }
//< stage 10
    // out viewed as [outer, n, inner] and grad as [outer, k, inner]: slice j of grad adds
    // into slice positions[j] of out, in the order of j, as scatter_add would add them.
    const auto d = static_cast<std::size_t>(dim);
    const std::int64_t outer = numel(Shape(shape.begin(), shape.begin() + static_cast<std::ptrdiff_t>(d)));
    const std::int64_t inner = numel(Shape(shape.begin() + static_cast<std::ptrdiff_t>(d) + 1, shape.end()));
    const std::int64_t n = shape[d];
    const std::int64_t k = positions.numel();
    const Tensor source = native::contiguous(grad);
    const Tensor index = native::contiguous(positions);
    const std::int64_t* at = index.data_ptr<std::int64_t>();
    for (std::int64_t j = 0; j < k; ++j) {
        KAEL_CHECK_INDEX(at[j] >= 0 && at[j] < n, "index_select backward: index " << at[j]
                                                      << " is out of bounds for dimension " << dim << " with size "
                                                      << n);
    }
    dispatch_floating(grad.dtype(), "index_select_backward", [&]<typename T>() {
        T* const target = out.data_ptr<T>();
        const T* const from = source.data_ptr<T>();
        for (std::int64_t o = 0; o < outer; ++o) {
            for (std::int64_t j = 0; j < k; ++j) {
                T* const row = target + (o * n + at[j]) * inner;
                const T* const added = from + (o * k + j) * inner;
                for (std::int64_t i = 0; i < inner; ++i) {
                    row[i] += added[i];
                }
            }
        }
    });
    return out;
}

}  // namespace kael::native

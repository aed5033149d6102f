// Operations that only backward passes use (chapter 06): derivatives that have a kernel of
// their own because composing them from other operations would be slower or less exact.
#include "ops/native.h"

#include "ops/elementwise.h"
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

}  // namespace kael::native

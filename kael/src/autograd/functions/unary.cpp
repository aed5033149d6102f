// The differentiable functions of one operand (ops/unary.cpp): each line pairs an
// operation with its derivative.
#include "autograd/functions/function.h"
#include "kael/factory.h"
#include "kael/ops/binary.h"
#include "kael/ops/compare.h"
#include "kael/ops/unary.h"
#include "ops/native.h"

namespace kael {
namespace {

using autograd::linear;
using autograd::with_input_saved;
using autograd::with_output_saved;

// grad * gelu'(x), itself differentiable in both arguments so that GELU has second
// derivatives: d/dgrad = gelu'(x), d/dx = grad * gelu''(x).
Tensor gelu_backward(const Tensor& grad, const Tensor& x, std::string_view approximate) {
    return autograd::differentiable({grad, x}, [&] { return grad * native::gelu_derivative(x, approximate, 1); },
                                    [&](const Tensor& out) {
        autograd::record(out, "GeluBackwardBackward", {grad, x},
                         [g = autograd::SavedTensor(grad), saved_x = autograd::SavedTensor(x),
                          tanh_form = approximate == "tanh"](const Tensor& grad_grad, autograd::Node& node) {
                             // gelu'' comes from a kernel that records nothing, so a third
                             // derivative would silently miss a term: refuse it instead.
                             KAEL_CHECK(!autograd::is_grad_enabled(),
                                        "gelu can be differentiated twice, not three times: the second "
                                        "backward pass must not use create_graph");
                             const Tensor input = saved_x.unpack(node);
                             const std::string_view form = tanh_form ? "tanh" : "none";
                             return autograd::Grads{grad_grad * native::gelu_derivative(input, form, 1),
                                                    grad_grad * g.unpack(node) * native::gelu_derivative(input, form, 2)};
                         });
    });
}

// The gradient of a step function: 0 wherever it exists.
Tensor no_slope(const Tensor& grad) { return zeros_like(grad); }

}  // namespace

Tensor neg(const Tensor& t) {
    return linear(t, "NegBackward", [&] { return native::neg(t); }, [](const Tensor& grad) { return -grad; });
}

// sign(0) = 0: at the kink the gradient is 0, as in PyTorch.
Tensor abs(const Tensor& t) {
    return with_input_saved(t, "AbsBackward", [&] { return native::abs(t); },
                            [](const Tensor& grad, const Tensor& x) { return grad * sign(x); });
}

Tensor sign(const Tensor& t) { return linear(t, "SignBackward", [&] { return native::sign(t); }, no_slope); }

Tensor exp(const Tensor& t) {
    return with_output_saved(t, "ExpBackward", [&] { return native::exp(t); },
                             [](const Tensor& grad, const Tensor& y) { return grad * y; });
}

Tensor log(const Tensor& t) {
    return with_input_saved(t, "LogBackward", [&] { return native::log(t); },
                            [](const Tensor& grad, const Tensor& x) { return grad / x; });
}

Tensor log1p(const Tensor& t) {
    return with_input_saved(t, "Log1PBackward", [&] { return native::log1p(t); },
                            [](const Tensor& grad, const Tensor& x) { return grad / (x + 1); });
}

Tensor expm1(const Tensor& t) {
    return with_output_saved(t, "Expm1Backward", [&] { return native::expm1(t); },
                             [](const Tensor& grad, const Tensor& y) { return grad * (y + 1); });
}

Tensor sqrt(const Tensor& t) {
    return with_output_saved(t, "SqrtBackward", [&] { return native::sqrt(t); },
                             [](const Tensor& grad, const Tensor& y) { return grad / (2 * y); });
}

// d/dx x^(-1/2) = -x^(-3/2) / 2 = -y^3 / 2.
Tensor rsqrt(const Tensor& t) {
    return with_output_saved(t, "RsqrtBackward", [&] { return native::rsqrt(t); },
                             [](const Tensor& grad, const Tensor& y) { return grad * y * y * y * -0.5; });
}

Tensor sin(const Tensor& t) {
    return with_input_saved(t, "SinBackward", [&] { return native::sin(t); },
                            [](const Tensor& grad, const Tensor& x) { return grad * cos(x); });
}

Tensor cos(const Tensor& t) {
    return with_input_saved(t, "CosBackward", [&] { return native::cos(t); },
                            [](const Tensor& grad, const Tensor& x) { return -grad * sin(x); });
}

// tanh' = 1 - tanh^2: the saved output is all the formula needs.
Tensor tanh(const Tensor& t) {
    return with_output_saved(t, "TanhBackward", [&] { return native::tanh(t); },
                             [](const Tensor& grad, const Tensor& y) { return grad * (1 - y * y); });
}

Tensor sigmoid(const Tensor& t) {
    return with_output_saved(t, "SigmoidBackward", [&] { return native::sigmoid(t); },
                             [](const Tensor& grad, const Tensor& y) { return grad * y * (1 - y); });
}

// The gradient passes where the output is positive; at 0 it is 0, as in PyTorch.
Tensor relu(const Tensor& t) {
    return with_output_saved(t, "ReluBackward", [&] { return native::relu(t); },
                             [](const Tensor& grad, const Tensor& y) { return where(y > 0, grad, 0); });
}

Tensor gelu(const Tensor& t, std::string_view approximate) {
    return with_input_saved(t, "GeluBackward", [&] { return native::gelu(t, approximate); },
                            [tanh_form = approximate == "tanh"](const Tensor& grad, const Tensor& x) {
                                return gelu_backward(grad, x, tanh_form ? "tanh" : "none");
                            });
}

// d/dx x s(x) = s(x) (1 + x (1 - s(x))), s the sigmoid.
Tensor silu(const Tensor& t) {
    return with_input_saved(t, "SiluBackward", [&] { return native::silu(t); },
                            [](const Tensor& grad, const Tensor& x) {
                                const Tensor s = sigmoid(x);
                                return grad * s * (1 + x * (1 - s));
                            });
}

Tensor floor(const Tensor& t) { return linear(t, "FloorBackward", [&] { return native::floor(t); }, no_slope); }

Tensor ceil(const Tensor& t) { return linear(t, "CeilBackward", [&] { return native::ceil(t); }, no_slope); }

Tensor round(const Tensor& t) { return linear(t, "RoundBackward", [&] { return native::round(t); }, no_slope); }

// The gradient passes where x lies within the bounds (ends included), as in PyTorch.
Tensor clamp(const Tensor& t, std::optional<Scalar> min, std::optional<Scalar> max) {
    return with_input_saved(t, "ClampBackward", [&] { return native::clamp(t, min, max); },
                            [min, max](const Tensor& grad, const Tensor& x) {
                                Tensor inside = ones(x.shape(), DType::Bool, x.device());
                                if (min) {
                                    inside = logical_and(inside, x >= *min);
                                }
                                if (max) {
                                    inside = logical_and(inside, x <= *max);
                                }
                                return where(inside, grad, 0);
                            });
}

}  // namespace kael

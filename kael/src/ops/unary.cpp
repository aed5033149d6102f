// Element-wise functions of one operand.
#include "kael/ops/unary.h"

#include <cmath>
#include <numbers>
#include <type_traits>

#include "kernels/cpu/clamp.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/fast_exp.h"
#include "kernels/cpu/fast_tanh.h"
#include "kernels/cpu/gelu.h"
#include "kernels/cpu/integer_math.h"
#include "kael/ops/binary.h"
//> stage 7
#include "autograd/recording.h"
#include "kael/ops/compare.h"
//< stage 7

namespace kael {
namespace {

using detail::Dtypes;

// A floating function of one operand: integer and Bool inputs compute in float32.
template <typename Make> Tensor floating_unary(const Tensor& t, const char* op, Make&& make) {
    return detail::unary_kernel<Dtypes::Floating>(t, detail::floating_result(t.dtype()), op,
                                                  std::forward<Make>(make));
}

// floor, ceil and round: integers are already whole, floating values go through `whole`.
// Bool is refused by the NoBool dispatch, with "<op> does not support dtype bool".
template <typename Whole> Tensor to_whole_numbers(const Tensor& t, const char* op, Whole whole) {
    return detail::unary_kernel<Dtypes::NoBool>(t, t.dtype(), op, [whole]<typename T>() {
        return [whole](T x) {
            if constexpr (std::is_integral_v<T>) {
                return x;
            } else {
                return whole(x);
            }
        };
    });
}

//> stage 7
// GELU's derivative (first or second) at every element of x: an internal kernel, not an
// operation, so it records nothing itself.
Tensor gelu_derivative(const Tensor& x, bool tanh_form, bool second) {
    return detail::unary_kernel<Dtypes::Floating>(x, x.dtype(), "gelu_backward", [=]<typename T>() {
        return [=](T v) {
            if (tanh_form) {
                return second ? detail::gelu_tanh_second_derivative(v) : detail::gelu_tanh_derivative(v);
            }
            return second ? detail::gelu_exact_second_derivative(v) : detail::gelu_exact_derivative(v);
        };
    });
}

// grad * gelu'(x), itself differentiable in both arguments so that GELU has second
// derivatives: d/dgrad = gelu'(x), d/dx = grad * gelu''(x).
Tensor gelu_backward(const Tensor& grad, const Tensor& x, bool tanh_form) {
    Tensor out = [&] {
        const autograd::NoGradGuard no_grad;
        return mul(grad, gelu_derivative(x, tanh_form, false));
    }();
    if (autograd::should_record(grad, x)) {
        autograd::record(out, "GeluBackwardBackward", {grad, x},
                         [g = autograd::SavedTensor(grad), saved_x = autograd::SavedTensor(x), tanh_form](
                             const Tensor& grad_grad, autograd::Node& node) {
                             // gelu'' comes from a kernel that records nothing, so a third
                             // derivative would silently miss a term: refuse it instead.
                             KAEL_CHECK(!autograd::is_grad_enabled(),
                                        "gelu can be differentiated twice, not three times: the second "
                                        "backward pass must not use create_graph");
                             const Tensor input = saved_x.unpack(node);
                             return autograd::Grads{grad_grad * gelu_derivative(input, tanh_form, false),
                                                    grad_grad * g.unpack(node) * gelu_derivative(input, tanh_form, true)};
                         });
    }
    return out;
}
//< stage 7

}  // namespace

Tensor neg(const Tensor& t) {
    KAEL_CHECK_TYPE(t.dtype() != DType::Bool,
                    "negation, the - operator, on a bool tensor is not supported; use "
                    "logical_not() to invert a mask");
    Tensor out = detail::unary_kernel<Dtypes::NoBool>(t, t.dtype(), "neg", []<typename T>() {
        return [](T x) { return detail::wrapping_neg(x); };
    });
//> stage 7
    autograd::record_linear(out, t, "NegBackward", [](const Tensor& grad) { return -grad; });
//< stage 7
    return out;
}

Tensor operator-(const Tensor& t) { return neg(t); }

Tensor abs(const Tensor& t) {
    Tensor out = detail::unary_kernel<Dtypes::NoBool>(t, t.dtype(), "abs", []<typename T>() {
        return [](T x) {
            if constexpr (std::is_integral_v<T>) {
                return x < 0 ? detail::wrapping_neg(x) : x;
            } else {
                return std::abs(x);
            }
        };
    });
//> stage 7
    // sign(0) = 0: at the kink the gradient is 0, as in PyTorch.
    autograd::record_from_input(out, t, "AbsBackward", [](const Tensor& grad, const Tensor& x) { return grad * sign(x); });
//< stage 7
    return out;
}

Tensor sign(const Tensor& t) {
    Tensor out = detail::unary_kernel<Dtypes::All>(t, t.dtype(), "sign", []<typename T>() {
        return [](T x) -> T {
            if constexpr (std::is_same_v<T, std::uint8_t>) {
                return x;
            } else {
                // (0 < x) - (x < 0): 1, 0 or -1, and 0 for NaN and -0 as in PyTorch.
                return static_cast<T>((T{0} < x) - (x < T{0}));
            }
        };
    });
//> stage 7
    autograd::record_linear(out, t, "SignBackward", [](const Tensor& grad) { return zeros_like(grad); });
//< stage 7
    return out;
}

Tensor exp(const Tensor& t) {
    Tensor out = floating_unary(t, "exp", []<typename T>() { return [](T x) { return detail::exponential(x); }; });
//> stage 7
    autograd::record_from_output(out, t, "ExpBackward", [](const Tensor& grad, const Tensor& y) { return grad * y; });
//< stage 7
    return out;
}

Tensor log(const Tensor& t) {
    Tensor out = floating_unary(t, "log", []<typename T>() { return [](T x) { return std::log(x); }; });
//> stage 7
    autograd::record_from_input(out, t, "LogBackward", [](const Tensor& grad, const Tensor& x) { return grad / x; });
//< stage 7
    return out;
}

Tensor log1p(const Tensor& t) {
    Tensor out = floating_unary(t, "log1p", []<typename T>() { return [](T x) { return std::log1p(x); }; });
//> stage 7
    autograd::record_from_input(out, t, "Log1PBackward",
                                [](const Tensor& grad, const Tensor& x) { return grad / (x + 1); });
//< stage 7
    return out;
}

Tensor expm1(const Tensor& t) {
    Tensor out = floating_unary(t, "expm1", []<typename T>() { return [](T x) { return std::expm1(x); }; });
//> stage 7
    autograd::record_from_output(out, t, "Expm1Backward",
                                 [](const Tensor& grad, const Tensor& y) { return grad * (y + 1); });
//< stage 7
    return out;
}

Tensor sqrt(const Tensor& t) {
    Tensor out = floating_unary(t, "sqrt", []<typename T>() { return [](T x) { return std::sqrt(x); }; });
//> stage 7
    autograd::record_from_output(out, t, "SqrtBackward",
                                 [](const Tensor& grad, const Tensor& y) { return grad / (2 * y); });
//< stage 7
    return out;
}

Tensor rsqrt(const Tensor& t) {
    Tensor out = floating_unary(t, "rsqrt",
                                []<typename T>() { return [](T x) { return T{1} / std::sqrt(x); }; });
//> stage 7
    // d/dx x^(-1/2) = -x^(-3/2) / 2 = -y^3 / 2.
    autograd::record_from_output(out, t, "RsqrtBackward",
                                 [](const Tensor& grad, const Tensor& y) { return grad * y * y * y * -0.5; });
//< stage 7
    return out;
}

Tensor sin(const Tensor& t) {
    Tensor out = floating_unary(t, "sin", []<typename T>() { return [](T x) { return std::sin(x); }; });
//> stage 7
    autograd::record_from_input(out, t, "SinBackward", [](const Tensor& grad, const Tensor& x) { return grad * cos(x); });
//< stage 7
    return out;
}

Tensor cos(const Tensor& t) {
    Tensor out = floating_unary(t, "cos", []<typename T>() { return [](T x) { return std::cos(x); }; });
//> stage 7
    autograd::record_from_input(out, t, "CosBackward", [](const Tensor& grad, const Tensor& x) { return -grad * sin(x); });
//< stage 7
    return out;
}

Tensor tanh(const Tensor& t) {
    Tensor out = floating_unary(t, "tanh", []<typename T>() { return [](T x) { return detail::hyperbolic_tangent(x); }; });
//> stage 7
    // tanh' = 1 - tanh^2: the saved output is all the formula needs.
    autograd::record_from_output(out, t, "TanhBackward",
                                 [](const Tensor& grad, const Tensor& y) { return grad * (1 - y * y); });
//< stage 7
    return out;
}

Tensor sigmoid(const Tensor& t) {
    Tensor out = floating_unary(t, "sigmoid", []<typename T>() {
        return [](T x) { return T{1} / (T{1} + detail::exponential(-x)); };
    });
//> stage 7
    autograd::record_from_output(out, t, "SigmoidBackward",
                                 [](const Tensor& grad, const Tensor& y) { return grad * y * (1 - y); });
//< stage 7
    return out;
}

Tensor relu(const Tensor& t) {
    Tensor out = detail::unary_kernel<Dtypes::NoBool>(t, t.dtype(), "relu", []<typename T>() {
        // x > 0 ? x : 0 keeps NaN as NaN (the comparison is false, but NaN is not > 0 and
        // not < 0, so test for "below zero" instead).
        return [](T x) { return x < T{0} ? T{0} : x; };
    });
//> stage 7
    // The gradient passes where the output is positive; at 0 it is 0, as in PyTorch.
    autograd::record_from_output(out, t, "ReluBackward",
                                 [](const Tensor& grad, const Tensor& y) { return where(y > 0, grad, 0); });
//< stage 7
    return out;
}

Tensor gelu(const Tensor& t, std::string_view approximate) {
    KAEL_CHECK_VALUE(approximate == "none" || approximate == "tanh",
                     "gelu: approximate must be 'none' or 'tanh', got '" << approximate << "'");
    const bool tanh_form = approximate == "tanh";
    Tensor out = tanh_form ? detail::unary_kernel<Dtypes::Floating>(t, t.dtype(), "gelu", []<typename T>() {
        return [](T x) { return detail::gelu_tanh(x); };
    })
                           : detail::unary_kernel<Dtypes::Floating>(t, t.dtype(), "gelu", []<typename T>() {
                                 return [](T x) { return detail::gelu_exact(x); };
                             });
//> stage 7
    autograd::record_from_input(out, t, "GeluBackward", [tanh_form](const Tensor& grad, const Tensor& x) {
        return gelu_backward(grad, x, tanh_form);
    });
//< stage 7
    return out;
}

Tensor silu(const Tensor& t) {
    Tensor out = detail::unary_kernel<Dtypes::Floating>(t, t.dtype(), "silu", []<typename T>() {
        return [](T x) { return x / (T{1} + detail::exponential(-x)); };
    });
//> stage 7
    // d/dx x s(x) = s(x) (1 + x (1 - s(x))), s the sigmoid.
    autograd::record_from_input(out, t, "SiluBackward", [](const Tensor& grad, const Tensor& x) {
        const Tensor s = sigmoid(x);
        return grad * s * (1 + x * (1 - s));
    });
//< stage 7
    return out;
}

Tensor floor(const Tensor& t) {
    Tensor out = to_whole_numbers(t, "floor", [](auto x) { return std::floor(x); });
//> stage 7
    autograd::record_linear(out, t, "FloorBackward", [](const Tensor& grad) { return zeros_like(grad); });
//< stage 7
    return out;
}

Tensor ceil(const Tensor& t) {
    Tensor out = to_whole_numbers(t, "ceil", [](auto x) { return std::ceil(x); });
//> stage 7
    autograd::record_linear(out, t, "CeilBackward", [](const Tensor& grad) { return zeros_like(grad); });
//< stage 7
    return out;
}

Tensor round(const Tensor& t) {
    // The default rounding mode: halves to even, as PyTorch rounds.
    Tensor out = to_whole_numbers(t, "round", [](auto x) { return std::nearbyint(x); });
//> stage 7
    autograd::record_linear(out, t, "RoundBackward", [](const Tensor& grad) { return zeros_like(grad); });
//< stage 7
    return out;
}

namespace detail {

DType clamp_dtype(DType dtype, std::optional<Scalar> min, std::optional<Scalar> max) {
    KAEL_CHECK_VALUE(min || max, "clamp needs at least one of min and max");
    // The bounds take part in type promotion: a Bool tensor clamped to integers is
    // computed (and returned) as int64, as in PyTorch.
    for (const std::optional<Scalar>& bound : {min, max}) {
        if (bound) {
            dtype = promote_with_scalar(dtype, *bound);
        }
    }
    return dtype;
}

Tensor clamp_kernel(const Tensor& t, DType dtype, std::optional<Scalar> min,
                    std::optional<Scalar> max, const std::optional<Tensor>& out) {
    return unary_kernel<Dtypes::NoBool>(t, dtype, "clamp", [&]<typename T>() {
        const bool has_min = min.has_value();
        const bool has_max = max.has_value();
        const T low = has_min ? min->as<T>() : T{};
        const T high = has_max ? max->as<T>() : T{};
        return [=](T x) {
            if constexpr (std::is_floating_point_v<T>) {
                if (x != x) {
                    return x;
                }
            }
            const T y = has_min && x < low ? low : x;
            return has_max && y > high ? high : y;  // max applied last: min > max gives max
        };
    }, out);
}

}  // namespace detail

Tensor clamp(const Tensor& t, std::optional<Scalar> min, std::optional<Scalar> max) {
    Tensor out = detail::clamp_kernel(t, detail::clamp_dtype(t.dtype(), min, max), min, max);
//> stage 7
    // The gradient passes where x lies within the bounds (ends included), as in PyTorch.
    autograd::record_from_input(out, t, "ClampBackward", [min, max](const Tensor& grad, const Tensor& x) {
        Tensor inside = ones(x.shape(), DType::Bool);
        if (min) {
            inside = logical_and(inside, x >= *min);
        }
        if (max) {
            inside = logical_and(inside, x <= *max);
        }
        return where(inside, grad, 0);
    });
//< stage 7
    return out;
}

}  // namespace kael

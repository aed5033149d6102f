// Element-wise functions of one operand.
#include "kael/ops/unary.h"

#include <cmath>
#include <numbers>
#include <type_traits>

#include "ops/native.h"
#include "kernels/cpu/clamp.h"
#include "ops/elementwise.h"
#include "kernels/cpu/fast_exp.h"
#include "kernels/cpu/fast_tanh.h"
#include "kernels/cpu/gelu.h"
#include "kernels/cpu/integer_math.h"
#include "kael/ops/binary.h"
//> stage 10
#include "ops/device.h"
//< stage 10

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

}  // namespace

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
//> stage 10
    if (detail::on_device(t) || (out && detail::on_device(*out))) {
        const DType compute = out ? out->dtype() : dtype;
        check_kernel_dtype<Dtypes::NoBool>(compute, "clamp");
        const Device device = out ? out->device() : t.device();
        const TensorIterator iter = output_config(out, compute).add_input(input_on(t, device, compute)).build();
        cuda::clamp(iter, min, max);
        return iter.output();
    }
//< stage 10
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

}  // namespace kael

//> until 7
//| namespace kael {
//< until 7
//> stage 7
// From chapter 06 on these are the operations below autograd: kael::exp, what users call,
// is the autograd layer's (autograd/functions/unary.cpp), which runs native::exp and records
// its backward.
namespace kael::native {
//< stage 7

Tensor neg(const Tensor& t) {
    KAEL_CHECK_TYPE(t.dtype() != DType::Bool,
                    "negation, the - operator, on a bool tensor is not supported; use "
                    "logical_not() to invert a mask");
//> stage 10
    if (detail::on_device(t)) {
        return detail::device_unary<Dtypes::NoBool>(cuda::UnaryOp::Neg, t, t.dtype(), "neg");
    }
//< stage 10
    return detail::unary_kernel<Dtypes::NoBool>(t, t.dtype(), "neg", []<typename T>() {
        return [](T x) { return detail::wrapping_neg(x); };
    });
}

Tensor abs(const Tensor& t) {
//> stage 10
    if (detail::on_device(t)) {
        return detail::device_unary<Dtypes::NoBool>(cuda::UnaryOp::Abs, t, t.dtype(), "abs");
    }
//< stage 10
    return detail::unary_kernel<Dtypes::NoBool>(t, t.dtype(), "abs", []<typename T>() {
        return [](T x) {
            if constexpr (std::is_integral_v<T>) {
                return x < 0 ? detail::wrapping_neg(x) : x;
            } else {
                return std::abs(x);
            }
        };
    });
}

Tensor sign(const Tensor& t) {
//> stage 10
    if (detail::on_device(t)) {
        // Bool is its own sign; the device's unary kernels take no Bool.
        return t.dtype() == DType::Bool ? native::clone(t)
                                        : detail::device_unary<Dtypes::All>(cuda::UnaryOp::Sign, t, t.dtype(), "sign");
    }
//< stage 10
    return detail::unary_kernel<Dtypes::All>(t, t.dtype(), "sign", []<typename T>() {
        return [](T x) -> T {
            if constexpr (std::is_same_v<T, std::uint8_t>) {
                return x;
            } else {
                // (0 < x) - (x < 0): 1, 0 or -1, and 0 for NaN and -0 as in PyTorch.
                return static_cast<T>((T{0} < x) - (x < T{0}));
            }
        };
    });
}

Tensor exp(const Tensor& t) {
//> stage 10
    if (detail::on_device(t)) {
        return detail::device_unary<Dtypes::Floating>(cuda::UnaryOp::Exp, t, detail::floating_result(t.dtype()), "exp");
    }
//< stage 10
    return floating_unary(t, "exp", []<typename T>() { return [](T x) { return detail::exponential(x); }; });
}

Tensor log(const Tensor& t) {
//> stage 10
    if (detail::on_device(t)) {
        return detail::device_unary<Dtypes::Floating>(cuda::UnaryOp::Log, t, detail::floating_result(t.dtype()), "log");
    }
//< stage 10
    return floating_unary(t, "log", []<typename T>() { return [](T x) { return std::log(x); }; });
}

Tensor log1p(const Tensor& t) {
//> stage 10
    if (detail::on_device(t)) {
        return detail::device_unary<Dtypes::Floating>(cuda::UnaryOp::Log1p, t, detail::floating_result(t.dtype()), "log1p");
    }
//< stage 10
    return floating_unary(t, "log1p", []<typename T>() { return [](T x) { return std::log1p(x); }; });
}

Tensor expm1(const Tensor& t) {
//> stage 10
    if (detail::on_device(t)) {
        return detail::device_unary<Dtypes::Floating>(cuda::UnaryOp::Expm1, t, detail::floating_result(t.dtype()), "expm1");
    }
//< stage 10
    return floating_unary(t, "expm1", []<typename T>() { return [](T x) { return std::expm1(x); }; });
}

Tensor sqrt(const Tensor& t) {
//> stage 10
    if (detail::on_device(t)) {
        return detail::device_unary<Dtypes::Floating>(cuda::UnaryOp::Sqrt, t, detail::floating_result(t.dtype()), "sqrt");
    }
//< stage 10
    return floating_unary(t, "sqrt", []<typename T>() { return [](T x) { return std::sqrt(x); }; });
}

Tensor rsqrt(const Tensor& t) {
//> stage 10
    if (detail::on_device(t)) {
        return detail::device_unary<Dtypes::Floating>(cuda::UnaryOp::Rsqrt, t, detail::floating_result(t.dtype()), "rsqrt");
    }
//< stage 10
    return floating_unary(t, "rsqrt",
                                []<typename T>() { return [](T x) { return T{1} / std::sqrt(x); }; });
}

Tensor sin(const Tensor& t) {
//> stage 10
    if (detail::on_device(t)) {
        return detail::device_unary<Dtypes::Floating>(cuda::UnaryOp::Sin, t, detail::floating_result(t.dtype()), "sin");
    }
//< stage 10
    return floating_unary(t, "sin", []<typename T>() { return [](T x) { return std::sin(x); }; });
}

Tensor cos(const Tensor& t) {
//> stage 10
    if (detail::on_device(t)) {
        return detail::device_unary<Dtypes::Floating>(cuda::UnaryOp::Cos, t, detail::floating_result(t.dtype()), "cos");
    }
//< stage 10
    return floating_unary(t, "cos", []<typename T>() { return [](T x) { return std::cos(x); }; });
}

Tensor tanh(const Tensor& t) {
//> stage 10
    if (detail::on_device(t)) {
        return detail::device_unary<Dtypes::Floating>(cuda::UnaryOp::Tanh, t, detail::floating_result(t.dtype()), "tanh");
    }
//< stage 10
    return floating_unary(t, "tanh", []<typename T>() { return [](T x) { return detail::hyperbolic_tangent(x); }; });
}

Tensor sigmoid(const Tensor& t) {
//> stage 10
    if (detail::on_device(t)) {
        return detail::device_unary<Dtypes::Floating>(cuda::UnaryOp::Sigmoid, t, detail::floating_result(t.dtype()), "sigmoid");
    }
//< stage 10
    return floating_unary(t, "sigmoid", []<typename T>() {
        return [](T x) { return T{1} / (T{1} + detail::exponential(-x)); };
    });
}

Tensor relu(const Tensor& t) {
//> stage 10
    if (detail::on_device(t)) {
        return detail::device_unary<Dtypes::NoBool>(cuda::UnaryOp::Relu, t, t.dtype(), "relu");
    }
//< stage 10
    return detail::unary_kernel<Dtypes::NoBool>(t, t.dtype(), "relu", []<typename T>() {
        // x > 0 ? x : 0 keeps NaN as NaN (the comparison is false, but NaN is not > 0 and
        // not < 0, so test for "below zero" instead).
        return [](T x) { return x < T{0} ? T{0} : x; };
    });
}

Tensor gelu(const Tensor& t, std::string_view approximate) {
    KAEL_CHECK_VALUE(approximate == "none" || approximate == "tanh",
                     "gelu: approximate must be 'none' or 'tanh', got '" << approximate << "'");
    const bool tanh_form = approximate == "tanh";
//> stage 10
    if (detail::on_device(t)) {
        return detail::device_unary<Dtypes::Floating>(tanh_form ? cuda::UnaryOp::GeluTanh : cuda::UnaryOp::GeluExact,
                                                      t, t.dtype(), "gelu");
    }
//< stage 10
    return tanh_form ? detail::unary_kernel<Dtypes::Floating>(t, t.dtype(), "gelu", []<typename T>() {
        return [](T x) { return detail::gelu_tanh(x); };
    })
                           : detail::unary_kernel<Dtypes::Floating>(t, t.dtype(), "gelu", []<typename T>() {
                                 return [](T x) { return detail::gelu_exact(x); };
                             });
}

Tensor silu(const Tensor& t) {
//> stage 10
    if (detail::on_device(t)) {
        return detail::device_unary<Dtypes::Floating>(cuda::UnaryOp::Silu, t, t.dtype(), "silu");
    }
//< stage 10
    return detail::unary_kernel<Dtypes::Floating>(t, t.dtype(), "silu", []<typename T>() {
        return [](T x) { return x / (T{1} + detail::exponential(-x)); };
    });
}

Tensor floor(const Tensor& t) {
//> stage 10
    if (detail::on_device(t)) {
        return detail::device_unary<Dtypes::NoBool>(cuda::UnaryOp::Floor, t, t.dtype(), "floor");
    }
//< stage 10
    return to_whole_numbers(t, "floor", [](auto x) { return std::floor(x); });
}

Tensor ceil(const Tensor& t) {
//> stage 10
    if (detail::on_device(t)) {
        return detail::device_unary<Dtypes::NoBool>(cuda::UnaryOp::Ceil, t, t.dtype(), "ceil");
    }
//< stage 10
    return to_whole_numbers(t, "ceil", [](auto x) { return std::ceil(x); });
}

Tensor round(const Tensor& t) {
//> stage 10
    if (detail::on_device(t)) {
        return detail::device_unary<Dtypes::NoBool>(cuda::UnaryOp::Round, t, t.dtype(), "round");
    }
//< stage 10
    // The default rounding mode: halves to even, as PyTorch rounds.
    return to_whole_numbers(t, "round", [](auto x) { return std::nearbyint(x); });
}

Tensor clamp(const Tensor& t, std::optional<Scalar> min, std::optional<Scalar> max) {
    return detail::clamp_kernel(t, detail::clamp_dtype(t.dtype(), min, max), min, max);
}

}  // namespace

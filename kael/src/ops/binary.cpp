// Element-wise arithmetic on two operands.
#include "kael/ops/binary.h"

#include <cmath>
#include <type_traits>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/extreme.h"
#include "kernels/cpu/integer_math.h"
#include "kael/factory.h"
//> stage 7
#include "autograd/recording.h"
#include "kael/ops/compare.h"
#include "kael/ops/unary.h"
//< stage 7

namespace kael {
namespace {

using detail::Dtypes;

// The element functions, one per operation, for every C++ element type. Bool (uint8) add
// is a logical or and mul a logical and, as in PyTorch; integers wrap around.
template <typename T> T add_element(T x, T y) {
    if constexpr (std::is_same_v<T, std::uint8_t>) {
        return static_cast<T>(x | y);
    } else {
        return detail::wrapping_add(x, y);
    }
}

template <typename T> T mul_element(T x, T y) {
    if constexpr (std::is_same_v<T, std::uint8_t>) {
        return static_cast<T>(x & y);
    } else {
        return detail::wrapping_mul(x, y);
    }
}

// Python's floor division for floating values: computed from fmod so that the quotient is
// consistent with remainder(), and rounded to the nearest integer when the division
// itself was inexact.
template <typename T> T floor_divide_floating(T a, T b) {
    if (b == 0) {
        return a / b;  // inf, -inf or nan
    }
    const T mod = std::fmod(a, b);
    T quotient = (a - mod) / b;
    if (mod != 0 && (b < 0) != (mod < 0)) {
        quotient -= T{1};
    }
    if (quotient == 0) {
        return std::copysign(T{0}, a / b);
    }
    T floored = std::floor(quotient);
    if (quotient - floored > T{0.5}) {
        floored += T{1};
    }
    return floored;
}

template <typename T> T remainder_floating(T a, T b) {
    T mod = std::fmod(a, b);
    if (mod != 0 && (b < 0) != (mod < 0)) {
        mod += b;
    }
    return mod;
}

void check_integer_divisor(std::int64_t divisor, const char* op) {
    KAEL_CHECK(divisor != 0, "ZeroDivisionError: integer division by zero in " << op);
}

bool is_one(Scalar s) { return s.as<double>() == 1.0; }

void check_alpha(Scalar alpha, DType dtype, const char* op) {
    KAEL_CHECK_TYPE(is_floating_point(dtype) || !alpha.is_floating_point(),
                    op << ": for integral input tensors, alpha must not be a floating point number");
}

//> stage 7
// Records out = f(a, b) whose backward formula gives both gradients at the output's shape;
// each is summed back to its operand's shape, which undoes broadcasting. Both operands
// are saved: the formulas of mul, div, pow and the rest read them.
template <typename Backward>
void record_binary(const Tensor& out, const Tensor& a, const Tensor& b, const char* name, Backward backward) {
    if (autograd::should_record(a, b)) {
        autograd::record(out, name, {a, b},
                         [sa = autograd::SavedTensor(a), sb = autograd::SavedTensor(b), backward](
                             const Tensor& grad, autograd::Node& node) {
                             const Tensor x = sa.unpack(node);
                             const Tensor y = sb.unpack(node);
                             auto [grad_x, grad_y] = backward(grad, x, y, node);
                             autograd::Grads grads(2);
                             if (node.needs_input_grad(0)) {
                                 grads[0] = autograd::sum_to(grad_x, x.shape());
                             }
                             if (node.needs_input_grad(1)) {
                                 grads[1] = autograd::sum_to(grad_y, y.shape());
                             }
                             return grads;
                         });
    }
}

// add and sub save nothing: each gradient is the output's, scaled and summed back to its
// operand's shape.
void record_sum_like(const Tensor& out, const Tensor& a, const Tensor& b, const char* name, double b_scale) {
    if (autograd::should_record(a, b)) {
        // The operands' shapes are in the node's input metadata already: capturing only
        // the scale keeps the closure small enough for std::function to hold it inline.
        autograd::record(out, name, {a, b}, [b_scale](const Tensor& grad, autograd::Node& node) {
            autograd::Grads grads(2);
            if (node.needs_input_grad(0)) {
                grads[0] = autograd::sum_to(grad, node.input_meta()[0].shape);
            }
            if (node.needs_input_grad(1)) {
                grads[1] = autograd::sum_to(b_scale == 1 ? grad : grad * b_scale, node.input_meta()[1].shape);
            }
            return grads;
        });
    }
}

// PyTorch's subgradient for maximum and minimum: where the two are equal, each gets half.
std::pair<Tensor, Tensor> split_at_ties(const Tensor& grad, const Tensor& x_wins, const Tensor& tie) {
    const Tensor half = grad / 2;
    return {where(tie, half, where(x_wins, grad, 0)), where(tie, half, where(x_wins, 0, grad))};
}
//< stage 7

}  // namespace

namespace detail {

// As in PyTorch, subtraction refuses a Bool operand on either side, out of place (sub) and
// in place (sub_): for masks, logical_xor or logical_not says what is meant.
void check_no_bool_operand(DType a, DType b) {
    KAEL_CHECK_TYPE(a != DType::Bool && b != DType::Bool,
                    "subtraction, the - operator, with a bool tensor is not supported; use "
                    "logical_xor() or logical_not() instead");
}

}  // namespace detail

// ---- add, sub, mul ----------------------------------------------------------------------------

Tensor add(const Tensor& a, const Tensor& b, Scalar alpha) {
    const DType dtype = result_dtype(a, b);
    check_alpha(alpha, dtype, "add");
    Tensor out = is_one(alpha) ? detail::binary_kernel<Dtypes::All>(a, b, dtype, "add", []<typename T>() {
        return [](T x, T y) { return add_element(x, y); };
    })
                               : detail::binary_kernel<Dtypes::All>(a, b, dtype, "add", [&]<typename T>() {
                                     return [scale = alpha.as<T>()](T x, T y) {
                                         return add_element(x, mul_element(scale, y));
                                     };
                                 });
//> stage 7
    record_sum_like(out, a, b, "AddBackward", alpha.as<double>());
//< stage 7
    return out;
}

Tensor add(const Tensor& t, Scalar s, Scalar alpha) {
    const DType dtype = result_dtype(t, s);
    check_alpha(alpha, dtype, "add");
    Tensor out = detail::unary_kernel<Dtypes::All>(t, dtype, "add", [&]<typename T>() {
        return [value = mul_element(alpha.as<T>(), s.as<T>())](T x) { return add_element(x, value); };
    });
//> stage 7
    autograd::record_linear(out, t, "AddBackward", [](const Tensor& grad) { return grad; });
//< stage 7
    return out;
}

Tensor sub(const Tensor& a, const Tensor& b, Scalar alpha) {
    detail::check_no_bool_operand(a.dtype(), b.dtype());
    const DType dtype = result_dtype(a, b);
    check_alpha(alpha, dtype, "sub");
    Tensor out = detail::binary_kernel<Dtypes::NoBool>(a, b, dtype, "sub", [&]<typename T>() {
        return [scale = alpha.as<T>()](T x, T y) {
            return detail::wrapping_sub(x, detail::wrapping_mul(scale, y));
        };
    });
//> stage 7
    record_sum_like(out, a, b, "SubBackward", -alpha.as<double>());
//< stage 7
    return out;
}

Tensor sub(const Tensor& t, Scalar s, Scalar alpha) {
    detail::check_no_bool_operand(t.dtype(), s.dtype());
    const DType dtype = result_dtype(t, s);
    check_alpha(alpha, dtype, "sub");
    Tensor out = detail::unary_kernel<Dtypes::NoBool>(t, dtype, "sub", [&]<typename T>() {
        return [value = detail::wrapping_mul(alpha.as<T>(), s.as<T>())](T x) {
            return detail::wrapping_sub(x, value);
        };
    });
//> stage 7
    autograd::record_linear(out, t, "SubBackward", [](const Tensor& grad) { return grad; });
//< stage 7
    return out;
}

Tensor sub(Scalar s, const Tensor& t, Scalar alpha) {
    detail::check_no_bool_operand(t.dtype(), s.dtype());
    const DType dtype = result_dtype(t, s);
    check_alpha(alpha, dtype, "sub");
    Tensor out = detail::unary_kernel<Dtypes::NoBool>(t, dtype, "sub", [&]<typename T>() {
        return [value = s.as<T>(), scale = alpha.as<T>()](T x) {
            return detail::wrapping_sub(value, detail::wrapping_mul(scale, x));
        };
    });
//> stage 7
    autograd::record_linear(out, t, "RsubBackward",
                            [scale = -alpha.as<double>()](const Tensor& grad) { return grad * scale; });
//< stage 7
    return out;
}

Tensor mul(const Tensor& a, const Tensor& b) {
    Tensor out = detail::binary_kernel<Dtypes::All>(a, b, result_dtype(a, b), "mul", []<typename T>() {
        return [](T x, T y) { return mul_element(x, y); };
    });
//> stage 7
    record_binary(out, a, b, "MulBackward", [](const Tensor& grad, const Tensor& x, const Tensor& y, autograd::Node& node) {
        return std::pair{node.needs_input_grad(0) ? grad * y : grad, node.needs_input_grad(1) ? grad * x : grad};
    });
//< stage 7
    return out;
}

Tensor mul(const Tensor& t, Scalar s) {
    Tensor out = detail::unary_kernel<Dtypes::All>(t, result_dtype(t, s), "mul", [&]<typename T>() {
        return [value = s.as<T>()](T x) { return mul_element(x, value); };
    });
//> stage 7
    autograd::record_linear(out, t, "MulBackward", [s](const Tensor& grad) { return grad * s; });
//< stage 7
    return out;
}

// ---- division ----------------------------------------------------------------------------------

Tensor div(const Tensor& a, const Tensor& b) {
    const DType dtype = detail::floating_result(result_dtype(a, b));
    Tensor out = detail::binary_kernel<Dtypes::Floating>(a, b, dtype, "div", []<typename T>() {
        return [](T x, T y) { return x / y; };
    });
//> stage 7
    record_binary(out, a, b, "DivBackward", [](const Tensor& grad, const Tensor& x, const Tensor& y, autograd::Node& node) {
        return std::pair{grad / y, node.needs_input_grad(1) ? -grad * x / (y * y) : grad};
    });
//< stage 7
    return out;
}

Tensor div(const Tensor& t, Scalar s) {
    const DType dtype = detail::floating_result(result_dtype(t, s));
    Tensor out = detail::unary_kernel<Dtypes::Floating>(t, dtype, "div", [&]<typename T>() {
        return [value = s.as<T>()](T x) { return x / value; };
    });
//> stage 7
    autograd::record_linear(out, t, "DivBackward", [s](const Tensor& grad) { return grad / s; });
//< stage 7
    return out;
}

Tensor div(Scalar s, const Tensor& t) {
    const DType dtype = detail::floating_result(result_dtype(t, s));
    Tensor out = detail::unary_kernel<Dtypes::Floating>(t, dtype, "div", [&]<typename T>() {
        return [value = s.as<T>()](T x) { return value / x; };
    });
//> stage 7
    autograd::record_from_input(out, t, "DivBackward",
                                [s](const Tensor& grad, const Tensor& x) { return -grad * s / (x * x); });
//< stage 7
    return out;
}

Tensor floor_divide(const Tensor& a, const Tensor& b) {
    return detail::binary_kernel<Dtypes::NoBool>(a, b, result_dtype(a, b), "floor_divide", []<typename T>() {
        return [](T x, T y) {
            if constexpr (std::is_integral_v<T>) {
                check_integer_divisor(y, "floor_divide");
                return detail::floor_divide_int(x, y);
            } else {
                return floor_divide_floating(x, y);
            }
        };
    });
}

Tensor floor_divide(const Tensor& t, Scalar s) {
    return floor_divide(t, scalar(s, result_dtype(t, s)));
}

Tensor floor_divide(Scalar s, const Tensor& t) {
    return floor_divide(scalar(s, result_dtype(t, s)), t);
}

Tensor remainder(const Tensor& a, const Tensor& b) {
    Tensor out = detail::binary_kernel<Dtypes::NoBool>(a, b, result_dtype(a, b), "remainder", []<typename T>() {
        return [](T x, T y) {
            if constexpr (std::is_integral_v<T>) {
                check_integer_divisor(y, "remainder");
                return detail::remainder_int(x, y);
            } else {
                return remainder_floating(x, y);
            }
        };
    });
//> stage 7
    // a - floor(a / b) * b: slope 1 in a and -floor(a / b) in b, as in PyTorch.
    record_binary(out, a, b, "RemainderBackward", [](const Tensor& grad, const Tensor& x, const Tensor& y, autograd::Node& node) {
        return std::pair{grad, node.needs_input_grad(1) ? -grad * floor_divide(x, y) : grad};
    });
//< stage 7
    return out;
}

Tensor remainder(const Tensor& t, Scalar s) { return remainder(t, scalar(s, result_dtype(t, s))); }
Tensor remainder(Scalar s, const Tensor& t) { return remainder(scalar(s, result_dtype(t, s)), t); }

// ---- powers --------------------------------------------------------------------------------------

Tensor pow(const Tensor& a, const Tensor& b) {
    Tensor out = detail::binary_kernel<Dtypes::NoBool>(a, b, result_dtype(a, b), "pow", []<typename T>() {
        return [](T x, T y) {
            if constexpr (std::is_integral_v<T>) {
                return detail::pow_int(x, y);
            } else {
                return std::pow(x, y);
            }
        };
    });
//> stage 7
    // d/da a^b = b a^(b-1), 0 where b = 0; d/db a^b = a^b log(a), 0 where a = 0 and b >= 0
    // (PyTorch's choices, so 0^0 and 0^b for b > 0 give finite gradients).
    record_binary(out, a, b, "PowBackward", [](const Tensor& grad, const Tensor& x, const Tensor& y, autograd::Node& node) {
        Tensor grad_x = grad;
        Tensor grad_y = grad;
        if (node.needs_input_grad(0)) {
            grad_x = where(y == 0, 0, grad * y * pow(x, y - 1));
        }
        if (node.needs_input_grad(1)) {
            grad_y = where(logical_and(x == 0, y >= 0), 0, grad * pow(x, y) * log(x));
        }
        return std::pair{grad_x, grad_y};
    });
//< stage 7
    return out;
}

Tensor pow(const Tensor& t, Scalar exponent) {
    const DType dtype = result_dtype(t, exponent);
    if (!is_floating_point(dtype)) {
        KAEL_CHECK_VALUE(exponent.as<std::int64_t>() >= 0,
                         "integers to negative integer powers are not allowed");
    }
    const double e = exponent.as<double>();
    Tensor out = detail::unary_kernel<Dtypes::NoBool>(t, dtype, "pow", [&]<typename T>() {
        const T power = exponent.as<T>();
        // The exponents PyTorch computes with cheaper, exactly rounded operations.
        return [power, e](T x) -> T {
            if constexpr (std::is_integral_v<T>) {
                return detail::pow_int(x, power);
            } else {
                if (e == 2) {
                    return x * x;
                }
                if (e == 3) {
                    return x * x * x;
                }
                if (e == 0.5) {
                    return std::sqrt(x);
                }
                if (e == -0.5) {
                    return T{1} / std::sqrt(x);
                }
                if (e == -1) {
                    return T{1} / x;
                }
                if (e == -2) {
                    return T{1} / (x * x);
                }
                return std::pow(x, power);
            }
        };
    });
//> stage 7
    autograd::record_from_input(out, t, "PowBackward", [e](const Tensor& grad, const Tensor& x) {
        return e == 0 ? zeros_like(grad) : grad * e * pow(x, e - 1);
    });
//< stage 7
    return out;
}

Tensor pow(Scalar base, const Tensor& t) {
    Tensor out = detail::unary_kernel<Dtypes::NoBool>(t, result_dtype(t, base), "pow", [&]<typename T>() {
        return [value = base.as<T>()](T x) {
            if constexpr (std::is_integral_v<T>) {
                return detail::pow_int(value, x);
            } else {
                return std::pow(value, x);
            }
        };
    });
//> stage 7
    // d/dx b^x = b^x log(b); for b = 0 PyTorch's gradient is 0.
    autograd::record_from_output(out, t, "PowBackward", [base](const Tensor& grad, const Tensor& y) {
        const double b = base.as<double>();
        return b == 0 ? zeros_like(grad) : grad * y * std::log(b);
    });
//< stage 7
    return out;
}

// ---- maximum, minimum, atan2 ---------------------------------------------------------------------

Tensor maximum(const Tensor& a, const Tensor& b) {
    Tensor out = detail::binary_kernel<Dtypes::All>(a, b, result_dtype(a, b), "maximum", []<typename T>() {
        return [](T x, T y) { return detail::extreme<true>(y, x); };  // x wins ties, as x > y ? x : y
    });
//> stage 7
    record_binary(out, a, b, "MaximumBackward", [](const Tensor& grad, const Tensor& x, const Tensor& y, autograd::Node&) {
        return split_at_ties(grad, x > y, x == y);
    });
//< stage 7
    return out;
}

Tensor minimum(const Tensor& a, const Tensor& b) {
    Tensor out = detail::binary_kernel<Dtypes::All>(a, b, result_dtype(a, b), "minimum", []<typename T>() {
        return [](T x, T y) { return detail::extreme<false>(y, x); };
    });
//> stage 7
    record_binary(out, a, b, "MinimumBackward", [](const Tensor& grad, const Tensor& x, const Tensor& y, autograd::Node&) {
        return split_at_ties(grad, x < y, x == y);
    });
//< stage 7
    return out;
}

Tensor atan2(const Tensor& a, const Tensor& b) {
    const DType dtype = detail::floating_result(result_dtype(a, b));
    Tensor out = detail::binary_kernel<Dtypes::Floating>(a, b, dtype, "atan2", []<typename T>() {
        return [](T y, T x) { return std::atan2(y, x); };
    });
//> stage 7
    // atan2(y, x): d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2).
    record_binary(out, a, b, "Atan2Backward", [](const Tensor& grad, const Tensor& y, const Tensor& x, autograd::Node&) {
        const Tensor scale = grad / (x * x + y * y);
        return std::pair{scale * x, -scale * y};
    });
//< stage 7
    return out;
}

// ---- operators -----------------------------------------------------------------------------------

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

}  // namespace kael

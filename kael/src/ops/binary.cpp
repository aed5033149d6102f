// Element-wise arithmetic on two operands.
#include "kael/ops/binary.h"

#include <cmath>
#include <type_traits>

#include "ops/native.h"
#include "ops/elementwise.h"
#include "kernels/cpu/extreme.h"
#include "kernels/cpu/integer_math.h"
#include "kael/factory.h"
//> stage 10
#include "kael/ops/compare.h"
#include "kael/ops/reduce.h"
#include "ops/device.h"
//< stage 10

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

//> stage 10
// A kernel cannot throw, so an integer division on a device looks for a zero divisor
// first: one comparison, one reduction, and one Bool copied to the host.
void check_device_divisor(const Tensor& divisor, DType dtype, const char* op) {
    if (!is_floating_point(dtype) && any(eq(divisor, 0)).item() != 0) {
        check_integer_divisor(0, op);
    }
}

Tensor device_division(cuda::BinaryOp op, const Tensor& a, const Tensor& b, const char* name) {
    const DType dtype = result_dtype(a, b);
    check_device_divisor(b, dtype, name);
    return detail::device_binary<Dtypes::NoBool>(op, a, b, dtype, name);
}
//< stage 10

bool is_one(Scalar s) { return s.as<double>() == 1.0; }

void check_alpha(Scalar alpha, DType dtype, const char* op) {
    KAEL_CHECK_TYPE(is_floating_point(dtype) || !alpha.is_floating_point(),
                    op << ": for integral input tensors, alpha must not be a floating point number");
}

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

}  // namespace kael

//> until 7
//| namespace kael {
//< until 7
//> stage 7
// From chapter 06 on these are the operations below autograd: kael::add, what users call,
// is the autograd layer's (autograd/functions/binary.cpp), which runs native::add and records
// its backward.
namespace kael::native {
//< stage 7

// ---- add, sub, mul ----------------------------------------------------------------------------

Tensor add(const Tensor& a, const Tensor& b, Scalar alpha) {
    const DType dtype = result_dtype(a, b);
    check_alpha(alpha, dtype, "add");
//> stage 10
    if (detail::on_device(a) || detail::on_device(b)) {
        return detail::device_binary<Dtypes::All>(cuda::BinaryOp::Add, a, b, dtype, "add", alpha);
    }
//< stage 10
    return is_one(alpha) ? detail::binary_kernel<Dtypes::All>(a, b, dtype, "add", []<typename T>() {
        return [](T x, T y) { return add_element(x, y); };
    })
                               : detail::binary_kernel<Dtypes::All>(a, b, dtype, "add", [&]<typename T>() {
                                     return [scale = alpha.as<T>()](T x, T y) {
                                         return add_element(x, mul_element(scale, y));
                                     };
                                 });
}

Tensor add(const Tensor& t, Scalar s, Scalar alpha) {
    const DType dtype = result_dtype(t, s);
    check_alpha(alpha, dtype, "add");
//> stage 10
    if (detail::on_device(t)) {
        return detail::device_with_scalar<Dtypes::All>(cuda::BinaryOp::Add, t, s, dtype, "add", alpha);
    }
//< stage 10
    return detail::unary_kernel<Dtypes::All>(t, dtype, "add", [&]<typename T>() {
        return [value = mul_element(alpha.as<T>(), s.as<T>())](T x) { return add_element(x, value); };
    });
}

Tensor sub(const Tensor& a, const Tensor& b, Scalar alpha) {
    detail::check_no_bool_operand(a.dtype(), b.dtype());
    const DType dtype = result_dtype(a, b);
    check_alpha(alpha, dtype, "sub");
//> stage 10
    if (detail::on_device(a) || detail::on_device(b)) {
        return detail::device_binary<Dtypes::NoBool>(cuda::BinaryOp::Sub, a, b, dtype, "sub", alpha);
    }
//< stage 10
    return detail::binary_kernel<Dtypes::NoBool>(a, b, dtype, "sub", [&]<typename T>() {
        return [scale = alpha.as<T>()](T x, T y) {
            return detail::wrapping_sub(x, detail::wrapping_mul(scale, y));
        };
    });
}

Tensor sub(const Tensor& t, Scalar s, Scalar alpha) {
    detail::check_no_bool_operand(t.dtype(), s.dtype());
    const DType dtype = result_dtype(t, s);
    check_alpha(alpha, dtype, "sub");
//> stage 10
    if (detail::on_device(t)) {
        return detail::device_with_scalar<Dtypes::NoBool>(cuda::BinaryOp::Sub, t, s, dtype, "sub", alpha);
    }
//< stage 10
    return detail::unary_kernel<Dtypes::NoBool>(t, dtype, "sub", [&]<typename T>() {
        return [value = detail::wrapping_mul(alpha.as<T>(), s.as<T>())](T x) {
            return detail::wrapping_sub(x, value);
        };
    });
}

Tensor sub(Scalar s, const Tensor& t, Scalar alpha) {
    detail::check_no_bool_operand(t.dtype(), s.dtype());
    const DType dtype = result_dtype(t, s);
    check_alpha(alpha, dtype, "sub");
//> stage 10
    if (detail::on_device(t)) {
        return detail::device_with_scalar<Dtypes::NoBool>(cuda::BinaryOp::Sub, t, s, dtype, "sub", alpha, true);
    }
//< stage 10
    return detail::unary_kernel<Dtypes::NoBool>(t, dtype, "sub", [&]<typename T>() {
        return [value = s.as<T>(), scale = alpha.as<T>()](T x) {
            return detail::wrapping_sub(value, detail::wrapping_mul(scale, x));
        };
    });
}

Tensor mul(const Tensor& a, const Tensor& b) {
//> stage 10
    if (detail::on_device(a) || detail::on_device(b)) {
        return detail::device_binary<Dtypes::All>(cuda::BinaryOp::Mul, a, b, result_dtype(a, b), "mul");
    }
//< stage 10
    return detail::binary_kernel<Dtypes::All>(a, b, result_dtype(a, b), "mul", []<typename T>() {
        return [](T x, T y) { return mul_element(x, y); };
    });
}

Tensor mul(const Tensor& t, Scalar s) {
//> stage 10
    if (detail::on_device(t)) {
        return detail::device_with_scalar<Dtypes::All>(cuda::BinaryOp::Mul, t, s, result_dtype(t, s), "mul");
    }
//< stage 10
    return detail::unary_kernel<Dtypes::All>(t, result_dtype(t, s), "mul", [&]<typename T>() {
        return [value = s.as<T>()](T x) { return mul_element(x, value); };
    });
}

// ---- division ----------------------------------------------------------------------------------

Tensor div(const Tensor& a, const Tensor& b) {
    const DType dtype = detail::floating_result(result_dtype(a, b));
//> stage 10
    if (detail::on_device(a) || detail::on_device(b)) {
        return detail::device_binary<Dtypes::Floating>(cuda::BinaryOp::Div, a, b, dtype, "div");
    }
//< stage 10
    return detail::binary_kernel<Dtypes::Floating>(a, b, dtype, "div", []<typename T>() {
        return [](T x, T y) { return x / y; };
    });
}

Tensor div(const Tensor& t, Scalar s) {
    const DType dtype = detail::floating_result(result_dtype(t, s));
//> stage 10
    if (detail::on_device(t)) {
        return detail::device_with_scalar<Dtypes::Floating>(cuda::BinaryOp::Div, t, s, dtype, "div");
    }
//< stage 10
    return detail::unary_kernel<Dtypes::Floating>(t, dtype, "div", [&]<typename T>() {
        return [value = s.as<T>()](T x) { return x / value; };
    });
}

Tensor div(Scalar s, const Tensor& t) {
    const DType dtype = detail::floating_result(result_dtype(t, s));
//> stage 10
    if (detail::on_device(t)) {
        return detail::device_with_scalar<Dtypes::Floating>(cuda::BinaryOp::Div, t, s, dtype, "div", 1, true);
    }
//< stage 10
    return detail::unary_kernel<Dtypes::Floating>(t, dtype, "div", [&]<typename T>() {
        return [value = s.as<T>()](T x) { return value / x; };
    });
}

Tensor floor_divide(const Tensor& a, const Tensor& b) {
//> stage 10
    if (detail::on_device(a) || detail::on_device(b)) {
        return device_division(cuda::BinaryOp::FloorDivide, a, b, "floor_divide");
    }
//< stage 10
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

Tensor remainder(const Tensor& a, const Tensor& b) {
//> stage 10
    if (detail::on_device(a) || detail::on_device(b)) {
        return device_division(cuda::BinaryOp::Remainder, a, b, "remainder");
    }
//< stage 10
    return detail::binary_kernel<Dtypes::NoBool>(a, b, result_dtype(a, b), "remainder", []<typename T>() {
        return [](T x, T y) {
            if constexpr (std::is_integral_v<T>) {
                check_integer_divisor(y, "remainder");
                return detail::remainder_int(x, y);
            } else {
                return remainder_floating(x, y);
            }
        };
    });
}

// ---- powers --------------------------------------------------------------------------------------

Tensor pow(const Tensor& a, const Tensor& b) {
//> stage 10
    if (detail::on_device(a) || detail::on_device(b)) {
        return detail::device_binary<Dtypes::NoBool>(cuda::BinaryOp::Pow, a, b, result_dtype(a, b), "pow");
    }
//< stage 10
    return detail::binary_kernel<Dtypes::NoBool>(a, b, result_dtype(a, b), "pow", []<typename T>() {
        return [](T x, T y) {
            if constexpr (std::is_integral_v<T>) {
                return detail::pow_int(x, y);
            } else {
                return std::pow(x, y);
            }
        };
    });
}

Tensor pow(const Tensor& t, Scalar exponent) {
    const DType dtype = result_dtype(t, exponent);
    if (!is_floating_point(dtype)) {
        KAEL_CHECK_VALUE(exponent.as<std::int64_t>() >= 0,
                         "integers to negative integer powers are not allowed");
    }
    const double e = exponent.as<double>();
//> stage 10
    if (detail::on_device(t)) {
        return detail::device_with_scalar<Dtypes::NoBool>(cuda::BinaryOp::Pow, t, exponent, dtype, "pow");
    }
//< stage 10
    return detail::unary_kernel<Dtypes::NoBool>(t, dtype, "pow", [&]<typename T>() {
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
}

Tensor pow(Scalar base, const Tensor& t) {
//> stage 10
    if (detail::on_device(t)) {
        return detail::device_with_scalar<Dtypes::NoBool>(cuda::BinaryOp::Pow, t, base, result_dtype(t, base), "pow",
                                                          1, true);
    }
//< stage 10
    return detail::unary_kernel<Dtypes::NoBool>(t, result_dtype(t, base), "pow", [&]<typename T>() {
        return [value = base.as<T>()](T x) {
            if constexpr (std::is_integral_v<T>) {
                return detail::pow_int(value, x);
            } else {
                return std::pow(value, x);
            }
        };
    });
}

// ---- maximum, minimum, atan2 ---------------------------------------------------------------------

Tensor maximum(const Tensor& a, const Tensor& b) {
//> stage 10
    if (detail::on_device(a) || detail::on_device(b)) {
        return detail::device_binary<Dtypes::All>(cuda::BinaryOp::Maximum, a, b, result_dtype(a, b), "maximum");
    }
//< stage 10
    return detail::binary_kernel<Dtypes::All>(a, b, result_dtype(a, b), "maximum", []<typename T>() {
        return [](T x, T y) { return detail::extreme<true>(y, x); };  // x wins ties, as x > y ? x : y
    });
}

Tensor minimum(const Tensor& a, const Tensor& b) {
//> stage 10
    if (detail::on_device(a) || detail::on_device(b)) {
        return detail::device_binary<Dtypes::All>(cuda::BinaryOp::Minimum, a, b, result_dtype(a, b), "minimum");
    }
//< stage 10
    return detail::binary_kernel<Dtypes::All>(a, b, result_dtype(a, b), "minimum", []<typename T>() {
        return [](T x, T y) { return detail::extreme<false>(y, x); };
    });
}

Tensor atan2(const Tensor& a, const Tensor& b) {
    const DType dtype = detail::floating_result(result_dtype(a, b));
//> stage 10
    if (detail::on_device(a) || detail::on_device(b)) {
        return detail::device_binary<Dtypes::Floating>(cuda::BinaryOp::Atan2, a, b, dtype, "atan2");
    }
//< stage 10
    return detail::binary_kernel<Dtypes::Floating>(a, b, dtype, "atan2", []<typename T>() {
        return [](T y, T x) { return std::atan2(y, x); };
    });
}

}  // namespace

// The element functions of the device and their launches (chapter 09). Each functor
// computes what the CPU's element function in kael/src/ops/ computes, with the integer
// rules of kernels/cpu/integer_math.h (wrapping arithmetic) and the NaN rule of
// kernels/cpu/extreme.h and GELU's derivatives of kernels/cpu/gelu.h, called here as device
// code because they are constexpr; Bool add is "or" and mul "and", as in ops/binary.cpp.
#include <cmath>
#include <cstdint>
#include <numbers>
#include <type_traits>

#include "cuda/elementwise.h"
#include "cuda/loops.cuh"
#include "kernels/cpu/extreme.h"
#include "kernels/cpu/gelu.h"
#include "kernels/cpu/integer_math.h"

namespace kael::cuda {
namespace {

template <typename T> constexpr bool is_bool_v = std::is_same_v<T, std::uint8_t>;

template <typename T> __device__ T add_element(T x, T y) {
    if constexpr (is_bool_v<T>) {
        return static_cast<T>(x | y);
    } else {
        return detail::wrapping_add(x, y);
    }
}

template <typename T> __device__ T mul_element(T x, T y) {
    if constexpr (is_bool_v<T>) {
        return static_cast<T>(x & y);
    } else {
        return detail::wrapping_mul(x, y);
    }
}

// Python's floor division and remainder for floating values, the rule of ops/binary.cpp:
// the quotient from fmod so that it agrees with remainder, rounded when inexact.
template <typename T> __device__ T floor_divide_floating(T a, T b) {
    if (b == 0) {
        return a / b;  // inf, -inf or nan
    }
    const T mod = fmod(a, b);
    T quotient = (a - mod) / b;
    if (mod != 0 && (b < 0) != (mod < 0)) {
        quotient -= T{1};
    }
    if (quotient == 0) {
        return copysign(T{0}, a / b);
    }
    T floored = floor(quotient);
    if (quotient - floored > T{0.5}) {
        floored += T{1};
    }
    return floored;
}

template <typename T> __device__ T remainder_floating(T a, T b) {
    T mod = fmod(a, b);
    if (mod != 0 && (b < 0) != (mod < 0)) {
        mod += b;
    }
    return mod;
}

// The functions of two operands that only integers and floating values have; Bool never
// reaches them (the operations layer refuses it), so it returns its first operand.
template <typename T> __device__ T numeric_binary(BinaryOp op, T x, T y) {
    if constexpr (std::is_same_v<T, std::int64_t>) {
        switch (op) {
        case BinaryOp::FloorDivide:
            return detail::floor_divide_int(x, y);
        case BinaryOp::Remainder:
            return detail::remainder_int(x, y);
        case BinaryOp::Pow:
            return detail::pow_int(x, y);
        default:
            return x;
        }
    } else if constexpr (std::is_floating_point_v<T>) {
        switch (op) {
        case BinaryOp::FloorDivide:
            return floor_divide_floating(x, y);
        case BinaryOp::Remainder:
            return remainder_floating(x, y);
        case BinaryOp::Pow:
            return pow(x, y);
        case BinaryOp::Atan2:
            return atan2(x, y);
        default:
            return x;
        }
    } else {
        return x;
    }
}

// One functor for every binary operation: `op` is a kernel argument, uniform across the
// grid, so the switch costs a predictable branch and no divergence.
template <typename T> struct Binary {
    BinaryOp op;
    T alpha;

    __device__ T operator()(T x, T y) const {
        switch (op) {
        case BinaryOp::Add:
            return add_element(x, mul_element(alpha, y));
        case BinaryOp::Sub:
            return detail::wrapping_sub(x, detail::wrapping_mul(alpha, y));
        case BinaryOp::Mul:
            return mul_element(x, y);
        case BinaryOp::Div:
            return x / y;  // the operations layer sends floating dtypes only
        case BinaryOp::Maximum:  // the CPU's own rule (NaN wins, ties and zeros as there)
            return detail::extreme<true>(y, x);
        case BinaryOp::Minimum:
            return detail::extreme<false>(y, x);
        default:
            return numeric_binary(op, x, y);
        }
    }
};

// pow(x, e) for a number e, with the exponents PyTorch computes by cheaper, exactly rounded
// operations (as ops/binary.cpp does on the CPU).
template <typename T> __device__ T pow_by_number(T x, T e) {
    if constexpr (std::is_floating_point_v<T>) {
        if (e == T{2}) {
            return x * x;
        }
        if (e == T{3}) {
            return x * x * x;
        }
        if (e == T{0.5}) {
            return sqrt(x);
        }
        if (e == T{-0.5}) {
            return T{1} / sqrt(x);
        }
        if (e == T{-1}) {
            return T{1} / x;
        }
        if (e == T{-2}) {
            return T{1} / (x * x);
        }
    }
    return numeric_binary(BinaryOp::Pow, x, e);
}

template <typename T> struct WithScalar {
    Binary<T> binary;
    T value;
    bool scalar_first;

    __device__ T operator()(T x) const {
        if (scalar_first) {
            return binary(value, x);
        }
        return binary.op == BinaryOp::Pow ? pow_by_number(x, value) : binary(x, value);
    }
};

template <typename T> __device__ T floating_unary(UnaryOp op, T x) {
    constexpr T kInvSqrt2 = static_cast<T>(1 / std::numbers::sqrt2);
    constexpr T kBeta = static_cast<T>(std::numbers::sqrt2 * std::numbers::inv_sqrtpi);
    switch (op) {
    case UnaryOp::Exp:
        return exp(x);
    case UnaryOp::Log:
        return log(x);
    case UnaryOp::Log1p:
        return log1p(x);
    case UnaryOp::Expm1:
        return expm1(x);
    case UnaryOp::Silu:
        return x / (T{1} + exp(-x));
    case UnaryOp::Floor:
        return floor(x);
    case UnaryOp::Ceil:
        return ceil(x);
    case UnaryOp::Round:
        return rint(x);  // halves to even, as PyTorch rounds
    case UnaryOp::GeluExact:  // x Phi(x), Phi through erfc: accurate where it is tiny
        return T{0.5} * x * erfc(-x * kInvSqrt2);
    case UnaryOp::GeluTanh:  // as kernels/cpu/gelu.h: x / (1 + exp(-2u)), no cancellation
        return x / (T{1} + exp(T{-2} * kBeta * (x + T{0.044715} * x * x * x)));
    case UnaryOp::GeluExactDerivative:
        return detail::gelu_exact_derivative(x);
    case UnaryOp::GeluTanhDerivative:
        return detail::gelu_tanh_derivative(x);
    case UnaryOp::GeluExactSecondDerivative:
        return detail::gelu_exact_second_derivative(x);
    case UnaryOp::GeluTanhSecondDerivative:
        return detail::gelu_tanh_second_derivative(x);
    case UnaryOp::Sqrt:
        return sqrt(x);
    case UnaryOp::Rsqrt:
        return rsqrt(x);
    case UnaryOp::Sin:
        return sin(x);
    case UnaryOp::Cos:
        return cos(x);
    case UnaryOp::Tanh:
        return tanh(x);
    case UnaryOp::Sigmoid:
        return T{1} / (T{1} + exp(-x));
    default:
        return x;
    }
}

template <typename T> struct Unary {
    UnaryOp op;

    __device__ T operator()(T x) const {
        switch (op) {
        case UnaryOp::Neg:
            return detail::wrapping_neg(x);
        case UnaryOp::Abs:
            if constexpr (std::is_integral_v<T>) {
                return x < 0 ? detail::wrapping_neg(x) : x;
            } else {
                return fabs(x);
            }
        case UnaryOp::Relu:
            return x < T{0} ? T{0} : x;  // NaN stays NaN
        case UnaryOp::Sign:  // 1, 0 or -1, and 0 for NaN and -0
            return static_cast<T>((T{0} < x) - (x < T{0}));
        default:
            if constexpr (std::is_floating_point_v<T>) {
                return floating_unary(op, x);
            } else {
                return x;  // floor, ceil and round keep integers; the rest are floating only
            }
        }
    }
};

template <typename T> struct Clamp {
    bool has_min, has_max;
    T low, high;

    __device__ T operator()(T x) const {
        if constexpr (std::is_floating_point_v<T>) {
            if (x != x) {
                return x;
            }
        }
        const T y = has_min && x < low ? low : x;
        return has_max && y > high ? high : y;  // max applied last: min > max gives max
    }
};

template <typename Out, typename In> struct Convert {
    __device__ Out operator()(In x) const { return convert_value<Out>(x); }
};

}  // namespace

void binary(BinaryOp op, const TensorIterator& iter, Scalar alpha) {
    dispatch(iter.output().dtype(), [&]<typename T>() {
        launch_elementwise<T, T, T>(iter, Binary<T>{op, alpha.as<T>()});
    });
}

void binary_with_scalar(BinaryOp op, const TensorIterator& iter, Scalar value, Scalar alpha, bool scalar_first) {
    dispatch(iter.output().dtype(), [&]<typename T>() {
        launch_elementwise<T, T>(iter, WithScalar<T>{Binary<T>{op, alpha.as<T>()}, value.as<T>(), scalar_first});
    });
}

void unary(UnaryOp op, const TensorIterator& iter) {
    // No unary operation of the device takes Bool (the operations layer refuses it first).
    dispatch_no_bool(iter.output().dtype(), "a unary CUDA kernel",
                     [&]<typename T>() { launch_elementwise<T, T>(iter, Unary<T>{op}); });
}

void clamp(const TensorIterator& iter, std::optional<Scalar> min, std::optional<Scalar> max) {
    dispatch_no_bool(iter.output().dtype(), "clamp", [&]<typename T>() {
        launch_elementwise<T, T>(iter, Clamp<T>{min.has_value(), max.has_value(), min ? min->as<T>() : T{},
                                                max ? max->as<T>() : T{}});
    });
}

void copy(const TensorIterator& iter) {
    dispatch(iter.output().dtype(), [&]<typename Out>() {
        dispatch(iter.operand(1).dtype(), [&]<typename In>() { launch_elementwise<Out, In>(iter, Convert<Out, In>{}); });
    });
}

}  // namespace kael::cuda

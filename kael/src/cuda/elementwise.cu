// The element functions of the device and their launches (chapter 09). Each functor
// computes what the CPU's element function in kael/src/ops/ computes, with the integer
// rules of kernels/cpu/integer_math.h (wrapping arithmetic) and the NaN rule of
// kernels/cpu/extreme.h, called here as device code because they are constexpr; Bool add
// is "or" and mul "and", as in ops/binary.cpp.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "cuda/elementwise.h"
#include "cuda/loops.cuh"
#include "kernels/cpu/extreme.h"
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
        }
        return T{};
    }
};

template <typename T> struct WithScalar {
    Binary<T> binary;
    T value;
    bool scalar_first;

    __device__ T operator()(T x) const { return scalar_first ? binary(value, x) : binary(x, value); }
};

template <typename T> __device__ T floating_unary(UnaryOp op, T x) {
    switch (op) {
    case UnaryOp::Exp:
        return exp(x);
    case UnaryOp::Log:
        return log(x);
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
        default:
            if constexpr (std::is_floating_point_v<T>) {
                return floating_unary(op, x);
            } else {
                return x;  // the operations layer sends floating dtypes only
            }
        }
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

void copy(const TensorIterator& iter) {
    dispatch(iter.output().dtype(), [&]<typename Out>() {
        dispatch(iter.operand(1).dtype(), [&]<typename In>() { launch_elementwise<Out, In>(iter, Convert<Out, In>{}); });
    });
}

}  // namespace kael::cuda

#pragma once
// The element-wise kernels of the CUDA backend, as the operations layer calls them
// (chapter 09). The operation has already checked its arguments, promoted, cast the inputs
// to the compute dtype and built the TensorIterator on the device: a kernel only runs the
// element function over it. Each operation is named by an enumerator rather than passed
// as a lambda, because the operations layer is host C++ compiled by g++ and cannot hand a
// function to device code; the device's element functions live in elementwise.cu.
//
// In a build without CUDA these are defined by cuda/none.cpp and throw; no device tensor
// can exist there, so the operations never reach them.
#include <optional>

#include "kael/iterator.h"
#include "kael/scalar.h"

namespace kael::cuda {

/// Element functions of two operands. FloorDivide and Remainder of integers need a
/// divisor the operations layer has checked is never zero.
enum class BinaryOp { Add, Sub, Mul, Div, Maximum, Minimum, FloorDivide, Remainder, Pow, Atan2 };

/// Element functions of one operand. The Gelu* derivatives are those of GELU's backward.
enum class UnaryOp {
    Neg, Abs, Sign, Exp, Log, Log1p, Expm1, Sqrt, Rsqrt, Sin, Cos, Tanh, Sigmoid, Relu, Silu,
    Floor, Ceil, Round, GeluExact, GeluTanh, GeluExactDerivative, GeluTanhDerivative,
    GeluExactSecondDerivative, GeluTanhSecondDerivative
};

/// Bool-valued functions of two operands of one dtype. And, Or and Xor read their operands
/// as truth values (non-zero is true).
enum class CompareOp { Eq, Ne, Lt, Le, Gt, Ge, And, Or, Xor };

/// Bool-valued functions of one operand.
enum class ClassifyOp { IsNan, IsInf, IsFinite, LogicalNot };

/// out = x op (alpha * y) for Add and Sub, x op y for the others. `iter` has one output
/// and two inputs, all of one dtype, on the device.
void binary(BinaryOp op, const TensorIterator& iter, Scalar alpha);

/// out = x op value, or value op x when `scalar_first`: a binary operation whose other
/// operand is a number, with `alpha` scaling the second operand of Add and Sub as in
/// binary(). `iter` has one output and one input of one dtype.
void binary_with_scalar(BinaryOp op, const TensorIterator& iter, Scalar value, Scalar alpha, bool scalar_first);

/// out = op(x). `iter` has one output and one input of one dtype.
void unary(UnaryOp op, const TensorIterator& iter);

/// out = x clamped to [min, max] (either bound optional, max applied last, NaN kept), the
/// bounds in the dtype of `iter`'s one input and output.
void clamp(const TensorIterator& iter, std::optional<Scalar> min, std::optional<Scalar> max);

/// out = op(x, y) as Bool. `iter` has a Bool output and two inputs of one dtype.
void compare(CompareOp op, const TensorIterator& iter);

/// out = op(x) as Bool. `iter` has a Bool output and one input of any dtype.
void classify(ClassifyOp op, const TensorIterator& iter);

/// out = condition ? x : y. `iter` has an output, a Bool condition and two inputs, the
/// output and those two of one dtype.
void where(const TensorIterator& iter);

/// out = isclose(x, y) as Bool, with PyTorch's rule |x - y| <= atol + rtol |y|.
void isclose(const TensorIterator& iter, double rtol, double atol, bool equal_nan);

/// out = x converted to out's dtype with convert_value: copy_ on the device. `iter` has
/// one output and one input, of any two dtypes.
void copy(const TensorIterator& iter);

}  // namespace kael::cuda

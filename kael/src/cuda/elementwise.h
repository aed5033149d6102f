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
#include "kael/iterator.h"
#include "kael/scalar.h"

namespace kael::cuda {

/// Element functions of two operands.
enum class BinaryOp { Add, Sub, Mul, Div, Maximum, Minimum };

/// Element functions of one operand.
enum class UnaryOp { Neg, Abs, Exp, Log, Sqrt, Rsqrt, Sin, Cos, Tanh, Sigmoid, Relu };

/// out = x op (alpha * y) for Add and Sub, x op y for the others. `iter` has one output
/// and two inputs, all of one dtype, on the device.
void binary(BinaryOp op, const TensorIterator& iter, Scalar alpha);

/// out = x op value, or value op x when `scalar_first`: a binary operation whose other
/// operand is a number, with `alpha` scaling the second operand of Add and Sub as in
/// binary(). `iter` has one output and one input of one dtype.
void binary_with_scalar(BinaryOp op, const TensorIterator& iter, Scalar value, Scalar alpha, bool scalar_first);

/// out = op(x). `iter` has one output and one input of one dtype.
void unary(UnaryOp op, const TensorIterator& iter);

/// out = x converted to out's dtype with convert_value: copy_ on the device. `iter` has
/// one output and one input, of any two dtypes.
void copy(const TensorIterator& iter);

}  // namespace kael::cuda

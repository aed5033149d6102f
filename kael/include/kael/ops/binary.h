#pragma once
/// \file
/// \brief Element-wise arithmetic on two operands, with broadcasting and type promotion,
/// and the C++ operators built on it.
///
/// Every function broadcasts its operands (chapter 04) and computes in the result dtype of
/// result_dtype() or promote_with_scalar(). Integer arithmetic wraps around on overflow, as
/// in PyTorch; see tests/test_integer_overflow.cpp.

#include "kael/scalar.h"
#include "kael/tensor.h"

namespace kael {

/// a + alpha * b. Bool + Bool is a logical or.
[[nodiscard]] Tensor add(const Tensor& a, const Tensor& b, Scalar alpha = 1);
/// t + alpha * s.
[[nodiscard]] Tensor add(const Tensor& t, Scalar s, Scalar alpha = 1);
/// a - alpha * b. Throws TypeError when either operand is Bool (use logical_xor or
/// logical_not), as in PyTorch.
[[nodiscard]] Tensor sub(const Tensor& a, const Tensor& b, Scalar alpha = 1);
/// t - alpha * s.
[[nodiscard]] Tensor sub(const Tensor& t, Scalar s, Scalar alpha = 1);
/// s - alpha * t.
[[nodiscard]] Tensor sub(Scalar s, const Tensor& t, Scalar alpha = 1);
/// a * b. Bool * Bool is a logical and.
[[nodiscard]] Tensor mul(const Tensor& a, const Tensor& b);
/// t * s.
[[nodiscard]] Tensor mul(const Tensor& t, Scalar s);
/// True division: integer and Bool operands are computed in float32, as in PyTorch.
[[nodiscard]] Tensor div(const Tensor& a, const Tensor& b);
/// t / s, true division.
[[nodiscard]] Tensor div(const Tensor& t, Scalar s);
/// s / t, true division.
[[nodiscard]] Tensor div(Scalar s, const Tensor& t);
/// Division rounded toward negative infinity (Python's //). Integer division by zero
/// throws kael::Error; floating division by zero gives inf or nan.
[[nodiscard]] Tensor floor_divide(const Tensor& a, const Tensor& b);
/// t // s.
[[nodiscard]] Tensor floor_divide(const Tensor& t, Scalar s);
/// s // t, with the Scalar promotion rules of chapter 04 (Python's reflected `3 // t`).
[[nodiscard]] Tensor floor_divide(Scalar s, const Tensor& t);
/// The remainder with the sign of the divisor (Python's %): a - floor_divide(a, b) * b.
[[nodiscard]] Tensor remainder(const Tensor& a, const Tensor& b);
/// t % s.
[[nodiscard]] Tensor remainder(const Tensor& t, Scalar s);
/// s % t, with the Scalar promotion rules (Python's reflected `3 % t`).
[[nodiscard]] Tensor remainder(Scalar s, const Tensor& t);
/// a to the power b. Integers compute exactly with wrap-around; a negative integer
/// exponent gives 0 (or +-1 for a base of +-1), as in PyTorch. Bool is not supported.
[[nodiscard]] Tensor pow(const Tensor& a, const Tensor& b);
/// t to the power s. A negative integer exponent of an integer tensor throws ValueError.
[[nodiscard]] Tensor pow(const Tensor& t, Scalar exponent);
/// s to the power t.
[[nodiscard]] Tensor pow(Scalar base, const Tensor& t);
/// The larger element of each pair; NaN if either is NaN.
[[nodiscard]] Tensor maximum(const Tensor& a, const Tensor& b);
/// The smaller element of each pair; NaN if either is NaN.
[[nodiscard]] Tensor minimum(const Tensor& a, const Tensor& b);
/// The angle of the point (b, a), in radians; integer operands compute in float32.
[[nodiscard]] Tensor atan2(const Tensor& a, const Tensor& b);

/// add(a, b).
[[nodiscard]] Tensor operator+(const Tensor& a, const Tensor& b);
/// add(t, s).
[[nodiscard]] Tensor operator+(const Tensor& t, Scalar s);
/// add(t, s).
[[nodiscard]] Tensor operator+(Scalar s, const Tensor& t);
/// sub(a, b).
[[nodiscard]] Tensor operator-(const Tensor& a, const Tensor& b);
/// sub(t, s).
[[nodiscard]] Tensor operator-(const Tensor& t, Scalar s);
/// sub(s, t).
[[nodiscard]] Tensor operator-(Scalar s, const Tensor& t);
/// mul(a, b).
[[nodiscard]] Tensor operator*(const Tensor& a, const Tensor& b);
/// mul(t, s).
[[nodiscard]] Tensor operator*(const Tensor& t, Scalar s);
/// mul(t, s).
[[nodiscard]] Tensor operator*(Scalar s, const Tensor& t);
/// div(a, b).
[[nodiscard]] Tensor operator/(const Tensor& a, const Tensor& b);
/// div(t, s).
[[nodiscard]] Tensor operator/(const Tensor& t, Scalar s);
/// div(s, t).
[[nodiscard]] Tensor operator/(Scalar s, const Tensor& t);
/// neg(t).
[[nodiscard]] Tensor operator-(const Tensor& t);

}  // namespace kael

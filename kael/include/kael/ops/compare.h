#pragma once
/// \file
/// \brief Comparisons, logical operations, where(), and the NaN and closeness tests. All
/// of them produce Bool tensors, except where(), which selects values.

#include "kael/scalar.h"
#include "kael/tensor.h"

namespace kael {

/// a == b elementwise, after promoting both to their result dtype. NaN equals nothing.
[[nodiscard]] Tensor eq(const Tensor& a, const Tensor& b);
/// t == s elementwise.
[[nodiscard]] Tensor eq(const Tensor& t, Scalar s);
/// a != b elementwise. NaN differs from everything, itself included.
[[nodiscard]] Tensor ne(const Tensor& a, const Tensor& b);
/// t != s elementwise.
[[nodiscard]] Tensor ne(const Tensor& t, Scalar s);
/// a < b elementwise.
[[nodiscard]] Tensor lt(const Tensor& a, const Tensor& b);
/// t < s elementwise.
[[nodiscard]] Tensor lt(const Tensor& t, Scalar s);
/// a <= b elementwise.
[[nodiscard]] Tensor le(const Tensor& a, const Tensor& b);
/// t <= s elementwise.
[[nodiscard]] Tensor le(const Tensor& t, Scalar s);
/// a > b elementwise.
[[nodiscard]] Tensor gt(const Tensor& a, const Tensor& b);
/// t > s elementwise.
[[nodiscard]] Tensor gt(const Tensor& t, Scalar s);
/// a >= b elementwise.
[[nodiscard]] Tensor ge(const Tensor& a, const Tensor& b);
/// t >= s elementwise.
[[nodiscard]] Tensor ge(const Tensor& t, Scalar s);

/// eq(a, b). Like PyTorch's, these operators return tensors, not bool.
[[nodiscard]] Tensor operator==(const Tensor& a, const Tensor& b);
/// eq(t, s).
[[nodiscard]] Tensor operator==(const Tensor& t, Scalar s);
/// ne(a, b).
[[nodiscard]] Tensor operator!=(const Tensor& a, const Tensor& b);
/// ne(t, s).
[[nodiscard]] Tensor operator!=(const Tensor& t, Scalar s);
/// lt(a, b).
[[nodiscard]] Tensor operator<(const Tensor& a, const Tensor& b);
/// lt(t, s).
[[nodiscard]] Tensor operator<(const Tensor& t, Scalar s);
/// le(a, b).
[[nodiscard]] Tensor operator<=(const Tensor& a, const Tensor& b);
/// le(t, s).
[[nodiscard]] Tensor operator<=(const Tensor& t, Scalar s);
/// gt(a, b).
[[nodiscard]] Tensor operator>(const Tensor& a, const Tensor& b);
/// gt(t, s).
[[nodiscard]] Tensor operator>(const Tensor& t, Scalar s);
/// ge(a, b).
[[nodiscard]] Tensor operator>=(const Tensor& a, const Tensor& b);
/// ge(t, s).
[[nodiscard]] Tensor operator>=(const Tensor& t, Scalar s);

/// Elementwise and of the truth values (non-zero is true) of any dtypes.
[[nodiscard]] Tensor logical_and(const Tensor& a, const Tensor& b);
/// Elementwise or of the truth values.
[[nodiscard]] Tensor logical_or(const Tensor& a, const Tensor& b);
/// Elementwise exclusive or of the truth values.
[[nodiscard]] Tensor logical_xor(const Tensor& a, const Tensor& b);
/// Elementwise negation of the truth values.
[[nodiscard]] Tensor logical_not(const Tensor& t);

/// a where `condition` is true and b elsewhere; all three broadcast. The condition must be
/// Bool (TypeError otherwise); the result has the result dtype of a and b.
[[nodiscard]] Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b);
/// where() with a scalar for the false case.
[[nodiscard]] Tensor where(const Tensor& condition, const Tensor& a, Scalar b);
/// where() with a scalar for the true case.
[[nodiscard]] Tensor where(const Tensor& condition, Scalar a, const Tensor& b);

/// True where the element is NaN (never for integers and Bool).
[[nodiscard]] Tensor isnan(const Tensor& t);
/// True where the element is +inf or -inf.
[[nodiscard]] Tensor isinf(const Tensor& t);
/// True where the element is neither NaN nor infinite.
[[nodiscard]] Tensor isfinite(const Tensor& t);

/// True where |a - b| <= atol + rtol * |b| (PyTorch's rule, asymmetric in b), or a == b
/// (which covers equal infinities), or both are NaN and equal_nan is set. a and b must have
/// the same dtype (TypeError) and broadcast; rtol and atol must be non-negative.
[[nodiscard]] Tensor isclose(const Tensor& a, const Tensor& b, double rtol = 1e-5,
                             double atol = 1e-8, bool equal_nan = false);
/// True when isclose() holds everywhere.
[[nodiscard]] bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5,
                            double atol = 1e-8, bool equal_nan = false);

}  // namespace kael

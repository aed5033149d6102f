#pragma once
/// \file
/// \brief Element-wise functions of one operand.
///
/// The transcendental functions (exp, log, sin, tanh, sigmoid, gelu, ...) compute integer
/// and Bool inputs in float32, as PyTorch does; the others keep the input's dtype.

#include <optional>
#include <string_view>

#include "kael/scalar.h"
#include "kael/tensor.h"

namespace kael {

/// -t. Throws TypeError for Bool (use logical_not).
[[nodiscard]] Tensor neg(const Tensor& t);
/// |t|. Integers wrap: abs(INT64_MIN) is INT64_MIN. Throws TypeError for Bool.
[[nodiscard]] Tensor abs(const Tensor& t);
/// -1, 0 or 1; 0 for 0, -0 and NaN, as in PyTorch. Bool stays Bool.
[[nodiscard]] Tensor sign(const Tensor& t);
/// e^t.
[[nodiscard]] Tensor exp(const Tensor& t);
/// The natural logarithm; -inf at 0 and NaN below.
[[nodiscard]] Tensor log(const Tensor& t);
/// log(1 + t), accurate for small t.
[[nodiscard]] Tensor log1p(const Tensor& t);
/// e^t - 1, accurate for small t.
[[nodiscard]] Tensor expm1(const Tensor& t);
/// The square root; NaN below 0.
[[nodiscard]] Tensor sqrt(const Tensor& t);
/// 1 / sqrt(t).
[[nodiscard]] Tensor rsqrt(const Tensor& t);
/// The sine, in radians.
[[nodiscard]] Tensor sin(const Tensor& t);
/// The cosine, in radians.
[[nodiscard]] Tensor cos(const Tensor& t);
/// The hyperbolic tangent.
[[nodiscard]] Tensor tanh(const Tensor& t);
/// 1 / (1 + e^-t).
[[nodiscard]] Tensor sigmoid(const Tensor& t);
/// max(t, 0), in the input's dtype. Throws TypeError for Bool.
[[nodiscard]] Tensor relu(const Tensor& t);
/// The Gaussian error linear unit: t * Phi(t) with approximate "none" (exact, with erf),
/// or the tanh approximation with approximate "tanh". ValueError for any other value.
/// Floating dtypes only (TypeError), as in PyTorch.
[[nodiscard]] Tensor gelu(const Tensor& t, std::string_view approximate = "none");
/// t * sigmoid(t). Floating dtypes only (TypeError).
[[nodiscard]] Tensor silu(const Tensor& t);
/// Rounded down; integers are returned unchanged (as a copy). TypeError for Bool.
[[nodiscard]] Tensor floor(const Tensor& t);
/// Rounded up; integers are returned unchanged (as a copy). TypeError for Bool.
[[nodiscard]] Tensor ceil(const Tensor& t);
/// Rounded to the nearest integer, halves to even (0.5 -> 0, 1.5 -> 2), as in PyTorch.
[[nodiscard]] Tensor round(const Tensor& t);
/// Each element limited to [min, max]; either bound may be absent. When min > max every
/// element becomes max. NaN stays NaN. The result dtype promotes with the bounds, so an
/// integer tensor clamped to 0.5 becomes float32 and a Bool tensor clamped to integers
/// int64. Throws ValueError without any bound, TypeError for Bool bounds on Bool.
[[nodiscard]] Tensor clamp(const Tensor& t, std::optional<Scalar> min,
                           std::optional<Scalar> max = std::nullopt);

}  // namespace kael

#pragma once
// clamp and clamp_ share one kernel: the bounds, their type promotion, and NaN handling.

#include <optional>

#include "kael/scalar.h"
#include "kael/tensor.h"

namespace kael::detail {

/// The dtype clamp computes in: the tensor's dtype promoted with each bound. ValueError
/// without any bound.
DType clamp_dtype(DType dtype, std::optional<Scalar> min, std::optional<Scalar> max);

/// Each element of `t` limited to [min, max], computed in `dtype` (into `out` when given).
Tensor clamp_kernel(const Tensor& t, DType dtype, std::optional<Scalar> min,
                    std::optional<Scalar> max, const std::optional<Tensor>& out = std::nullopt);

}  // namespace kael::detail

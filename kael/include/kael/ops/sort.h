#pragma once
/// \file
/// \brief sort, argsort and topk along one dimension (chapter 11), as PyTorch has them.

#include <cstdint>

#include "kael/ops/reduce.h"
#include "kael/tensor.h"

namespace kael {

/// The elements of `t` ordered along `dim` (smallest first, or largest with `descending`)
/// and their positions. NaN orders above every number, as in PyTorch; equal elements keep
/// their order, so the result is always the stable one. The values are gathered from `t`
/// by the positions, so they carry its gradient back to where each value came from.
[[nodiscard]] ValuesIndices sort(const Tensor& t, std::int64_t dim = -1, bool descending = false);
/// The positions sort() returns, alone.
[[nodiscard]] Tensor argsort(const Tensor& t, std::int64_t dim = -1, bool descending = false);
/// The `k` largest (or, with `largest` false, smallest) elements along `dim` and their
/// positions, in sorted order. A k outside [0, size of dim] is an Error, Bool a TypeError.
[[nodiscard]] ValuesIndices topk(const Tensor& t, std::int64_t k, std::int64_t dim = -1, bool largest = true);

}  // namespace kael

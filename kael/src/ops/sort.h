#pragma once
// The one kernel behind sort, argsort and topk (chapter 11): the positions that order a
// tensor along a dimension. The values are not computed here: the functions above
// autograd gather them, so that their gradient is gather's.
#include <cstdint>

#include "kael/tensor.h"

namespace kael::native {

/// The positions of the first `count` elements of each run of `t` along `dim` in sorted
/// order (largest first with `descending`), ties in index order and NaN above every
/// number: an int64 tensor shaped as `t` with `count` at `dim`, on `t`'s device.
Tensor order_along(const Tensor& t, std::int64_t dim, bool descending, std::int64_t count);

}  // namespace kael::native

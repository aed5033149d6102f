#pragma once
/// \file
/// \brief Selecting and placing elements by index or mask, triangles, and one-hot codes.

#include <cstdint>

#include "kael/scalar.h"
#include "kael/tensor.h"

namespace kael {

/// The slices of `t` along `dim` at the positions in `index` (1-d or 0-d int64), in that
/// order: the result's size along `dim` is index.numel(). IndexError for an index outside
/// [0, t.size(dim)) (negative indices are not wrapped, as in PyTorch).
[[nodiscard]] Tensor index_select(const Tensor& t, std::int64_t dim, const Tensor& index);
/// result[i][j][k] = t[index[i][j][k]][j][k] for dim 0, and likewise for other dims.
/// `index` is int64 with t's number of dimensions and no dimension larger than t's
/// (except along dim); the result has index's shape.
[[nodiscard]] Tensor gather(const Tensor& t, std::int64_t dim, const Tensor& index);
/// A copy of `t` with every element of `src` added at the position `index` names along
/// `dim` (positions may repeat; every addition counts). `index` and `src` have the same
/// shape, no larger than t's except along dim.
[[nodiscard]] Tensor scatter_add(const Tensor& t, std::int64_t dim, const Tensor& index,
                                 const Tensor& src);
/// A copy of `t` with `value` wherever `mask` (Bool, broadcastable to t) is true.
[[nodiscard]] Tensor masked_fill(const Tensor& t, const Tensor& mask, Scalar value);
/// The lower triangle of the last two dimensions: elements with column - row <= diagonal;
/// the rest become 0.
[[nodiscard]] Tensor tril(const Tensor& t, std::int64_t diagonal = 0);
/// The upper triangle: elements with column - row >= diagonal.
[[nodiscard]] Tensor triu(const Tensor& t, std::int64_t diagonal = 0);
/// int64 one-hot codes: shape indices.shape() + [num_classes], 1 at each index. With
/// num_classes = -1 the number of classes is the largest index + 1. ValueError for a
/// negative index or one >= num_classes.
[[nodiscard]] Tensor one_hot(const Tensor& indices, std::int64_t num_classes = -1);

}  // namespace kael

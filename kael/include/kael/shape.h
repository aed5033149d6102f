#pragma once
/// \file
/// \brief Shapes, strides and the arithmetic that maps indices to storage positions.
///
/// Everything here is pure arithmetic on vectors of integers: no memory, no element type.
/// Strides and offsets count elements, not bytes.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace kael {

/// The size of each dimension, outermost first. An empty shape is a 0-d tensor (a scalar).
using Shape = std::vector<std::int64_t>;
/// The step, in elements, between neighbours along each dimension.
using Strides = std::vector<std::int64_t>;
/// One position per dimension, addressing a single element.
using Index = std::vector<std::int64_t>;

/// Formats a shape, strides or index as "[2, 3]".
[[nodiscard]] std::string to_string(std::span<const std::int64_t> values);

/// Throws ValueError if any dimension is negative.
void validate_shape(const Shape& shape);

/// The number of elements: the product of the dimensions, 1 for a 0-d shape.
/// Throws ValueError for a negative dimension or a product that overflows int64.
[[nodiscard]] std::int64_t numel(const Shape& shape);

/// Row-major strides: the last dimension has stride 1, and each earlier stride is the next
/// stride times the next size. A zero-sized dimension counts as size 1 here, as in PyTorch,
/// so that shape [2, 0, 3] gets strides [3, 3, 1] instead of collapsing to zeros.
[[nodiscard]] Strides contiguous_strides(const Shape& shape);

/// The storage position of `index`: offset + sum of index[i] * strides[i].
/// Throws ValueError if the index has the wrong number of entries and IndexError if an
/// entry is outside [0, shape[i]).
[[nodiscard]] std::int64_t offset_from_index(const Shape& shape, const Strides& strides,
                                             std::int64_t offset,
                                             std::span<const std::int64_t> index);

/// The multi-index of the `linear`-th element in row-major order.
/// Throws IndexError unless 0 <= linear < numel(shape).
[[nodiscard]] Index index_from_linear(std::int64_t linear, const Shape& shape);

/// Turns a possibly negative dimension into one in [0, ndim): -1 is the last dimension.
/// As in PyTorch, a 0-d tensor accepts 0 and -1. Throws IndexError when out of range.
[[nodiscard]] std::int64_t wrap_dim(std::int64_t dim, std::int64_t ndim);

/// Like wrap_dim, but for indexing a Shape or Strides vector: the result is a position in
/// the vector, so a 0-d tensor (no dimensions at all) is rejected with IndexError.
[[nodiscard]] std::size_t dim_position(std::int64_t dim, std::int64_t ndim);

}  // namespace kael

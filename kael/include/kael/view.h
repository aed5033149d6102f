#pragma once
/// \file
/// \brief Shape arithmetic for views, the overlap checks that guard writes through them, and
/// the views as functions.

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "kael/shape.h"
#include "kael/tensor.h"

namespace kael {

/// `shape` with its one -1 entry replaced so that the product is `count`. Throws
/// ValueError for more than one -1, another negative size, or a product that does not
/// match.
[[nodiscard]] Shape infer_size(const Shape& shape, std::int64_t count);

/// The strides under which a tensor with `old_shape` and `old_strides` can be viewed as
/// `new_shape` without copying, or nothing when no such strides exist (PyTorch's rule:
/// each run of dimensions that is contiguous in memory may be regrouped freely, but no
/// new dimension may span two such runs). Throws ValueError when the arguments describe no
/// tensor: old_shape and old_strides of different lengths, a negative size or stride, a
/// new_shape that holds another number of elements, or strides whose steps overflow int64.
[[nodiscard]] std::optional<Strides> view_strides(const Shape& old_shape, const Strides& old_strides,
                                                  const Shape& new_shape);

/// Whether several positions of one tensor can name the same element.
enum class MemOverlap {
    No,       ///< every position names its own element
    Yes,      ///< some element has several positions (an expanded dimension, stride 0)
    TooHard,  ///< could not be decided cheaply; treated as no overlap
};

/// Decides MemOverlap for one tensor. In-place writes refuse MemOverlap::Yes: writing
/// add_(1) to an expanded tensor would add 1 to one element several times.
[[nodiscard]] MemOverlap has_internal_overlap(const Tensor& t);

/// True when the elements of `t` fill a block of memory exactly, each once, in some order
/// of its dimensions: a contiguous tensor with its dimensions permuted, such as a
/// transpose. PyTorch calls this "non-overlapping and dense"; such a layout can be given
/// to a new tensor of the same shape (chapter 04's iterator does, for results).
[[nodiscard]] bool is_non_overlapping_and_dense(const Tensor& t);

/// The bytes of its storage that `t` can reach, as the half-open range [first, end): from
/// its first element's first byte to its furthest element's last byte, which with
/// non-negative strides is the element at offset + sum of (size - 1) * stride. Empty,
/// {0, 0}, for a tensor without elements.
[[nodiscard]] std::pair<std::int64_t, std::int64_t> reachable_bytes(const Tensor& t);

/// True when `a` and `b` share storage and their reachable bytes intersect without being
/// the identical layout. Conservative: true may also be returned for interleaved layouts
/// that never touch the same element.
[[nodiscard]] bool may_partially_overlap(const Tensor& a, const Tensor& b);

/// \name The views as functions
/// Tensor::as_strided, Tensor::slice and the other methods that make a view call these
/// (autograd/tensor_methods.cpp); each is documented at its method.
/// @{

/// t.as_strided(shape, strides, offset).
[[nodiscard]] Tensor as_strided(const Tensor& t, const Shape& shape, const Strides& strides, std::int64_t offset);
/// t.view(shape).
[[nodiscard]] Tensor view(const Tensor& t, const Shape& shape);
/// t.reshape(shape).
[[nodiscard]] Tensor reshape(const Tensor& t, const Shape& shape);
/// t.transpose(dim0, dim1).
[[nodiscard]] Tensor transpose(const Tensor& t, std::int64_t dim0, std::int64_t dim1);
/// t.permute(dims).
[[nodiscard]] Tensor permute(const Tensor& t, const std::vector<std::int64_t>& dims);
/// t.slice(dim, start, end, step).
[[nodiscard]] Tensor slice(const Tensor& t, std::int64_t dim, std::optional<std::int64_t> start,
                           std::optional<std::int64_t> end, std::int64_t step);
/// t.select(dim, index).
[[nodiscard]] Tensor select(const Tensor& t, std::int64_t dim, std::int64_t index);
/// t.expand(shape).
[[nodiscard]] Tensor expand(const Tensor& t, const Shape& shape);
/// t.squeeze().
[[nodiscard]] Tensor squeeze(const Tensor& t);
/// t.squeeze(dim).
[[nodiscard]] Tensor squeeze(const Tensor& t, std::int64_t dim);
/// t.unsqueeze(dim).
[[nodiscard]] Tensor unsqueeze(const Tensor& t, std::int64_t dim);
/// t.unflatten(dim, sizes).
[[nodiscard]] Tensor unflatten(const Tensor& t, std::int64_t dim, const Shape& sizes);

/// @}

}  // namespace kael

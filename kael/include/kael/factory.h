#pragma once
/// \file
/// \brief Functions that create tensors: empty, zeros, ones, full, the *_like variants,
/// arange, linspace, eye, scalar and from_vector.

#include <algorithm>
#include <cstdint>
#include <initializer_list>
//> stage 11
#include <memory>
//< stage 11
#include <vector>

#include "kael/dtype.h"
//> stage 5
#include "kael/scalar.h"
//< stage 5
#include "kael/shape.h"
#include "kael/tensor.h"

namespace kael {

/// A contiguous tensor of `shape` with uninitialized elements. Every factory ends here.
/// Throws ValueError for a negative dimension or a byte count that overflows int64.
[[nodiscard]] Tensor empty(const Shape& shape, DType dtype = DType::F32,
                           Device device = Device::CPU);

//> until 5
//| /// A tensor of `shape` with every element set to `value` converted to `dtype`.
//| [[nodiscard]] Tensor full(const Shape& shape, double value, DType dtype = DType::F32,
//|                           Device device = Device::CPU);
//< until 5
//> stage 5
/// A tensor of `shape` with every element set to `value` converted to `dtype`.
[[nodiscard]] Tensor full(const Shape& shape, Scalar value, DType dtype = DType::F32,
                          Device device = Device::CPU);
//< stage 5

/// full(shape, 0, dtype, device).
[[nodiscard]] Tensor zeros(const Shape& shape, DType dtype = DType::F32,
                           Device device = Device::CPU);
/// full(shape, 1, dtype, device).
[[nodiscard]] Tensor ones(const Shape& shape, DType dtype = DType::F32,
                          Device device = Device::CPU);

/// empty() with the shape, dtype and device of `like`.
[[nodiscard]] Tensor empty_like(const Tensor& like);
/// zeros() with the shape, dtype and device of `like`.
[[nodiscard]] Tensor zeros_like(const Tensor& like);
/// ones() with the shape, dtype and device of `like`.
[[nodiscard]] Tensor ones_like(const Tensor& like);

/// arange(0, end, 1, dtype).
[[nodiscard]] Tensor arange(double end, DType dtype = DType::F32);

/// The values start, start + step, ... up to but excluding `end`: ceil((end - start) / step)
/// of them, each computed as start + i * step. For I64, start and step are truncated toward
/// zero first (the count still comes from the untruncated values), as in PyTorch.
/// Throws TypeError for Bool, ValueError for non-finite arguments, a zero step, or a step
/// that points away from `end`.
[[nodiscard]] Tensor arange(double start, double end, double step = 1.0,
                            DType dtype = DType::F32);

/// `steps` evenly spaced values from `start` to `end`, both included; the last value is
/// exactly `end`. Floating dtypes only (TypeError otherwise); ValueError for negative steps.
[[nodiscard]] Tensor linspace(double start, double end, std::int64_t steps,
                              DType dtype = DType::F32);

/// The n x n identity matrix. Throws ValueError for negative n.
[[nodiscard]] Tensor eye(std::int64_t n, DType dtype = DType::F32);

//> until 5
//| /// A 0-d tensor (shape []) holding `value`.
//| [[nodiscard]] Tensor scalar(double value, DType dtype = DType::F32);
//< until 5
//> stage 5
/// A 0-d tensor (shape []) holding `value`.
[[nodiscard]] Tensor scalar(Scalar value, DType dtype = DType::F32);
//< stage 5

namespace detail {
/// Allocates the tensor that from_vector fills, after checking that `count` values fill
/// `shape` exactly (ValueError otherwise).
[[nodiscard]] Tensor empty_for_values(std::int64_t count, const Shape& shape, DType dtype);
}  // namespace detail

/// A tensor of `shape` holding a copy of `data`; the dtype follows T (float is F32, double
/// F64, std::int64_t I64, std::uint8_t Bool). Throws ValueError unless data.size() equals
/// numel(shape). Plain `int` is not an element type, so `from_vector({1, 2})` does not
/// compile: say which width you mean.
template <ElementType T>
[[nodiscard]] Tensor from_vector(const std::vector<T>& data, const Shape& shape) {
    Tensor t = detail::empty_for_values(static_cast<std::int64_t>(data.size()), shape,
                                        dtype_of_v<T>);
    // convert_value<T, T> is the identity, except that it turns Bool bytes into 0 or 1.
    std::transform(data.begin(), data.end(), t.data_ptr<T>(),
                   [](T value) { return convert_value<T>(value); });
    return t;
}

/// A 1-d tensor holding a copy of `data`.
template <ElementType T> [[nodiscard]] Tensor from_vector(const std::vector<T>& data) {
    return from_vector(data, Shape{static_cast<std::int64_t>(data.size())});
}

/// from_vector for a braced list: `from_vector({1.f, 2.f, 3.f, 4.f}, {2, 2})`.
template <ElementType T>
[[nodiscard]] Tensor from_vector(std::initializer_list<T> data, const Shape& shape) {
    return from_vector(std::vector<T>(data), shape);
}

/// A 1-d tensor from a braced list: `from_vector({1.0, 2.0})` is float64.
template <ElementType T> [[nodiscard]] Tensor from_vector(std::initializer_list<T> data) {
    return from_vector(std::vector<T>(data));
}

// std::vector<bool> stores packed bits and has no element pointer to copy from, so the
// Bool overloads are separate functions that copy one element at a time.

/// A Bool tensor of `shape` from a std::vector<bool>.
[[nodiscard]] Tensor from_vector(const std::vector<bool>& data, const Shape& shape);
/// A 1-d Bool tensor from a std::vector<bool>.
[[nodiscard]] Tensor from_vector(const std::vector<bool>& data);
/// A Bool tensor of `shape` from a braced list of bools.
[[nodiscard]] Tensor from_vector(std::initializer_list<bool> data, const Shape& shape);
/// A 1-d Bool tensor from a braced list of bools.
[[nodiscard]] Tensor from_vector(std::initializer_list<bool> data);
//> stage 11

/// A CPU tensor of `shape`, element `strides` and `dtype` whose first element is at `data`,
/// over memory kael did not allocate (a NumPy array, a DLPack loan, a mapped file): its
/// external storage spans exactly the bytes the layout reaches (checked for int64
/// overflow) and holds `owner` until the last tensor over it dies. `data` must be aligned
/// for `dtype`.
[[nodiscard]] Tensor from_external(std::byte* data, const Shape& shape, const Strides& strides, DType dtype,
                                   std::shared_ptr<void> owner);
//< stage 11

}  // namespace kael

#pragma once
/// \file
/// \brief Reductions: sums, means, extremes, variances and logical tests over all elements
/// or over chosen dimensions, and the cumulative sum.
///
/// `dims` may hold negative dimensions and must not repeat one; an empty list reduces
/// every dimension. With keepdim the reduced dimensions stay as size 1, so the result
/// broadcasts against the input. Integer and Bool sums and products are int64, as in
/// PyTorch, and wrap around on overflow.

#include <cstdint>
#include <vector>

#include "kael/tensor.h"

namespace kael {

/// A list of dimensions to reduce.
using Dims = std::vector<std::int64_t>;

/// The sum of every element, as a 0-d tensor.
[[nodiscard]] Tensor sum(const Tensor& t);
/// The sums over `dims`.
[[nodiscard]] Tensor sum(const Tensor& t, const Dims& dims, bool keepdim = false);
/// The mean of every element. Floating dtypes only (TypeError); NaN for an empty tensor.
[[nodiscard]] Tensor mean(const Tensor& t);
/// The means over `dims`.
[[nodiscard]] Tensor mean(const Tensor& t, const Dims& dims, bool keepdim = false);
/// The product of every element.
[[nodiscard]] Tensor prod(const Tensor& t);
/// The products over `dims`.
[[nodiscard]] Tensor prod(const Tensor& t, const Dims& dims, bool keepdim = false);

/// The largest values over `dims` (NaN if any is NaN). IndexError for an empty reduction.
[[nodiscard]] Tensor amax(const Tensor& t, const Dims& dims = {}, bool keepdim = false);
/// The smallest values over `dims` (NaN if any is NaN). IndexError for an empty reduction.
[[nodiscard]] Tensor amin(const Tensor& t, const Dims& dims = {}, bool keepdim = false);

/// The values and positions of the extremes along one dimension.
struct ValuesIndices {
    Tensor values;   ///< the extreme values
    Tensor indices;  ///< their positions along the reduced dimension, int64
};

/// The largest element, as a 0-d tensor (NaN if any is NaN). IndexError when empty.
[[nodiscard]] Tensor max(const Tensor& t);
/// The largest elements along `dim` and their positions (the first one on ties and the
/// first NaN, if any).
[[nodiscard]] ValuesIndices max(const Tensor& t, std::int64_t dim, bool keepdim = false);
/// The smallest element, as a 0-d tensor.
[[nodiscard]] Tensor min(const Tensor& t);
/// The smallest elements along `dim` and their positions.
[[nodiscard]] ValuesIndices min(const Tensor& t, std::int64_t dim, bool keepdim = false);
/// The position of the largest element of the flattened tensor, as a 0-d int64 tensor.
[[nodiscard]] Tensor argmax(const Tensor& t);
/// The positions of the largest elements along `dim`.
[[nodiscard]] Tensor argmax(const Tensor& t, std::int64_t dim, bool keepdim = false);
/// The position of the smallest element of the flattened tensor.
[[nodiscard]] Tensor argmin(const Tensor& t);
/// The positions of the smallest elements along `dim`.
[[nodiscard]] Tensor argmin(const Tensor& t, std::int64_t dim, bool keepdim = false);

/// The variance over `dims`: the sum of squared deviations from the mean divided by
/// N - correction (1 gives the unbiased estimate). NaN when N - correction <= 0.
/// Floating dtypes only.
[[nodiscard]] Tensor var(const Tensor& t, const Dims& dims = {}, double correction = 1,
                         bool keepdim = false);
/// The standard deviation: sqrt(var(t, dims, correction, keepdim)).
[[nodiscard]] Tensor std(const Tensor& t, const Dims& dims = {}, double correction = 1,
                         bool keepdim = false);
/// log(sum(exp(t))) over `dims`, computed without overflow: max + log(sum(exp(t - max))).
/// Integer inputs compute in float32; -inf for an empty reduction.
[[nodiscard]] Tensor logsumexp(const Tensor& t, const Dims& dims, bool keepdim = false);

/// True if any element is non-zero (false when empty), as a 0-d Bool tensor.
[[nodiscard]] Tensor any(const Tensor& t);
/// any() over `dims`.
[[nodiscard]] Tensor any(const Tensor& t, const Dims& dims, bool keepdim = false);
/// True if every element is non-zero (true when empty).
[[nodiscard]] Tensor all(const Tensor& t);
/// all() over `dims`.
[[nodiscard]] Tensor all(const Tensor& t, const Dims& dims, bool keepdim = false);

/// The running sums along `dim`: element i is the sum of elements 0..i. Integer and Bool
/// inputs give int64.
[[nodiscard]] Tensor cumsum(const Tensor& t, std::int64_t dim);

}  // namespace kael

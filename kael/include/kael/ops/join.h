#pragma once
/// \file
/// \brief Joining tensors together and splitting them apart.

#include <cstdint>
#include <vector>

#include "kael/shape.h"
#include "kael/tensor.h"

namespace kael {

/// The tensors joined along an existing dimension. All must have the same number of
/// dimensions and the same sizes except along `dim`; the result has their result dtype.
[[nodiscard]] Tensor cat(const std::vector<Tensor>& tensors, std::int64_t dim = 0);
/// The tensors joined along a new dimension `dim`; all must have the same shape.
[[nodiscard]] Tensor stack(const std::vector<Tensor>& tensors, std::int64_t dim = 0);
/// Views of consecutive pieces of `size` elements along `dim` (the last may be smaller).
[[nodiscard]] std::vector<Tensor> split(const Tensor& t, std::int64_t size, std::int64_t dim = 0);
/// Views of consecutive pieces with the given sizes, which must add up to t.size(dim).
[[nodiscard]] std::vector<Tensor> split(const Tensor& t, const std::vector<std::int64_t>& sizes,
                                        std::int64_t dim = 0);
/// `chunks` views of nearly equal size along `dim` (fewer when the size is small), as
/// PyTorch's chunk: each of ceil(size / chunks) elements, the last one smaller.
[[nodiscard]] std::vector<Tensor> chunk(const Tensor& t, std::int64_t chunks, std::int64_t dim = 0);

}  // namespace kael

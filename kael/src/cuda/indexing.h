#pragma once
// The index kernels of the CUDA backend (chapter 09): gather and scatter_add, which also
// serve index_select and embedding, and the triangles of tril and triu.
//
// gather and scatter_add follow PyTorch's restriding trick. Both walk the positions of the
// index; at each one the element of the data tensor to read (or add into) is the one at the
// same coordinates, except along `dim`, where the index says which. So the operations layer
// hands the kernel views of the data with stride 0 along `dim` and the index's shape (the
// position then contributes nothing along `dim`), and the data's real stride along `dim`
// separately: offset = calculator offset + index value * that stride. index_select is the
// same gather with the 1-d index broadcast over the other dimensions.
//
// The indices have been checked on the host before any kernel runs (a device cannot throw).
// In a build without CUDA these are defined by cuda/none.cpp and throw.
#include <cstdint>

#include "kael/tensor.h"

namespace kael::cuda {

/// out[p] = source[p + index[p] * source_dim_stride] for every position p of out's shape.
/// `out` is contiguous; `index` (int64) and `source` are views of out's shape, `source`
/// with stride 0 along the gathered dimension, whose real stride (in elements) is
/// `source_dim_stride`. out and source share a dtype.
void gather(const Tensor& out, const Tensor& index, const Tensor& source, std::int64_t source_dim_stride);

/// target[p + index[p] * target_dim_stride] += source[p] for every position p of index's
/// shape, with atomic additions because several positions may name one element (Bool
/// "adds" with or). `target` is a view of index's shape with stride 0 along the scattered
/// dimension, whose real stride is `target_dim_stride`; `source` a view of index's shape.
/// The order of floating additions into one element varies from run to run.
void scatter_add(const Tensor& target, std::int64_t target_dim_stride, const Tensor& index, const Tensor& source);

/// Zeroes, in place, the elements of every [rows, cols] matrix of the contiguous `t` that
/// lie above the `diagonal` (lower) or below it (!lower): tril and triu of a copy.
void zero_triangle(bool lower, const Tensor& t, std::int64_t rows, std::int64_t cols, std::int64_t diagonal);

}  // namespace kael::cuda

#pragma once
// Exercise 09.2: a row-major matrix product from one call to a column-major BLAS, with no
// copy of any operand.

#include <cstdint>

#include "column_major_gemm.h"

namespace exercise {

/// A read-only matrix in memory, as a two-dimensional kael view describes one: element
/// (i, j) is at data[i * row_stride + j * col_stride], strides counted in elements. A
/// row-major matrix has col_stride 1; its transpose, a view with the strides swapped, has
/// row_stride 1.
struct MatrixView {
    const double* data = nullptr;
    std::int64_t rows = 0;
    std::int64_t cols = 0;
    std::int64_t row_stride = 0;
    std::int64_t col_stride = 1;
};

/// A row-major matrix to write: element (i, j) is at data[i * row_stride + j].
struct OutputMatrix {
    double* data = nullptr;
    std::int64_t rows = 0;
    std::int64_t cols = 0;
    std::int64_t row_stride = 0;
};

/// c = alpha * a * b + beta * c, for a of [m, k], b of [k, n] and c of [m, n], computed by
/// exactly one call to `gemm` (a column-major BLAS routine, see column_major_gemm.h) on the
/// operands' own memory. Throws kael::ValueError, without calling `gemm`, for shapes that
/// do not chain, for a layout the routine cannot read without a copy, and for sizes past
/// its int parameters. See README.md.
void row_major_matmul(const MatrixView& a, const MatrixView& b, const OutputMatrix& c, Gemm gemm,
                      double alpha = 1.0, double beta = 0.0);

}  // namespace exercise

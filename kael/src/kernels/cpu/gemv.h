#pragma once
// One row times a matrix, c = a * B: the shape of every product in a decode step of a
// language model, where one new position meets each weight matrix once (chapter 12).
//
// A blocked GEMM is the wrong tool for it. Packing B costs a read and a write of every
// weight, to be reused by M rows of A; with M = 1 nothing reuses it, and the product is a
// pass over B that memory bandwidth bounds. gemv() makes exactly that one pass, reading
// B where it lies, in the order its bytes are stored:
//
// - B with contiguous rows (b_col == 1, a Conv1D weight of GPT-2 stored [in, out]): c is a
//   sum of the rows of B scaled by a's elements, c += a[k] * B[k, :], k = 0, 1, ...
// - B with contiguous columns (b_row == 1, the transposed view of an nn.Linear weight
//   [out, in], the tied head's token embedding): each c[j] is the dot product of a with
//   column j of B.
//
// Each element of c is summed in an order fixed by K alone (k ascending in the first form;
// 16 running partial sums, then a fixed tree, in the second), so the result is the same bit
// for bit for any thread count and for AVX2 and AVX-512 builds alike.

#include "kernels/cpu/gemm.h"

namespace kael::detail {

/// Whether gemv() computes `op`: one row of A, and B with contiguous rows or columns.
template <typename T> [[nodiscard]] bool gemv_applies(const GemmOperands<T>& op) {
    return op.m == 1 && (op.b_col == 1 || op.b_row == 1);
}

/// c = a * B for one row of A, on several threads when B is large; requires gemv_applies(op).
void gemv(const GemmOperands<float>& op);
/// c = a * B for one row of A in double precision; requires gemv_applies(op).
void gemv(const GemmOperands<double>& op);

}  // namespace kael::detail

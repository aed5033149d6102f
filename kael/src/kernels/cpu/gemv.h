#pragma once
// A few rows times a matrix, C = A * B with M <= 8: the shape of every product in a decode
// step of a language model, where one new position per sequence meets each weight matrix
// once (chapter 12), and of a decode step that serves several requests at once (chapter 13).
//
// A blocked GEMM is the wrong tool for it. Packing B costs a read and a write of every
// weight, to be reused by M rows of A; with M this small nothing repays it, and the
// product is a pass over B that memory bandwidth bounds. gemv() makes exactly that one
// pass, reading B where it lies, in the order its bytes are stored, and loads each piece
// of B once for every row of A:
//
// - B with contiguous rows (b_col == 1, a Conv1D weight of GPT-2 stored [in, out]): each
//   row of C is a sum of the rows of B scaled by its row of A, c += a[k] * B[k, :],
//   k = 0, 1, ...
// - B with contiguous columns (b_row == 1, the transposed view of an nn.Linear weight
//   [out, in], the tied head's token embedding): each c[i, j] is the dot product of row i
//   of A with column j of B.
//
// Each element of C is summed in an order fixed by K alone (k ascending in the first form;
// 16 running partial sums, then a fixed tree, in the second), so the result is the same bit
// for bit for any thread count, for AVX2 and AVX-512 builds alike, and for a row whatever
// the other rows are: a sequence decoded beside others gets the logits it gets alone.
//
// With several rows of A the product does M multiply-adds per element of B, and from a few
// rows on the arithmetic, not the memory, sets its time: eight rows cost more than one on
// every CPU, by how much depends on the core's multiply-add rate against its memory
// bandwidth (benchmarks/decode_batch.cpp measures both).

#include <cstdint>

#include "kernels/cpu/gemm.h"

namespace kael::detail {

/// The most rows of A that gemv() takes; from 9 rows on, packing B for a blocked product
/// pays for itself.
inline constexpr std::int64_t kMaxGemvRows = 8;

/// Whether gemv() computes `op`: at most kMaxGemvRows rows of A, and B with contiguous rows
/// or columns.
template <typename T> [[nodiscard]] bool gemv_applies(const GemmOperands<T>& op) {
    return op.m >= 1 && op.m <= kMaxGemvRows && (op.b_col == 1 || op.b_row == 1);
}

/// C = A * B for a few rows of A, on several threads when B is large; requires
/// gemv_applies(op).
void gemv(const GemmOperands<float>& op);
/// C = A * B for a few rows of A in double precision; requires gemv_applies(op).
void gemv(const GemmOperands<double>& op);

}  // namespace kael::detail

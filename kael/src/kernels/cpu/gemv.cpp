// A few rows times a matrix, the two loops of gemv.h, split over columns on several threads.
#include "kernels/cpu/gemv.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kael/parallel.h"

namespace kael::detail {
namespace {

// Columns of C summed together in the row form: 1024 floats is 4 KiB of a row of C, which
// stays in the L1 cache while the rows of B stream past it.
constexpr std::int64_t kColumnBlock = 1024;
// Rows of B that every row of A takes in turn in the row form: 64 rows of a column block
// are 256 KiB of B, which the L2 cache keeps for the next row of A. A multiple of 4, so that
// the groups of four rows fall where they fall for one row of A alone.
constexpr std::int64_t kRowChunk = 64;
// The partial sums of one dot product: two AVX2 registers of floats, or one AVX-512
// register, and the same count on every CPU so that the sum's order is too.
constexpr int kLanes = 16;
// A piece of the loop gets at least this many multiply-adds, some 20 microseconds of
// memory traffic: far more than handing it to a worker costs.
constexpr std::int64_t kWorkPerPiece = std::int64_t{1} << 16;

// c[0, n) += sum over r of a[r * a_step] * b[r * b_row + (0, n)], for B with contiguous
// rows. Four rows join each pass over c, added one after the other, so every element's sum
// runs over r in ascending order, as the plain loop's does.
template <typename T>
void add_scaled_rows(const T* a, std::int64_t a_step, const T* b, std::int64_t b_row, std::int64_t rows,
                     T* __restrict c, std::int64_t n) {
    std::int64_t r = 0;
    for (; r + 4 <= rows; r += 4) {
        const T a0 = a[r * a_step];
        const T a1 = a[(r + 1) * a_step];
        const T a2 = a[(r + 2) * a_step];
        const T a3 = a[(r + 3) * a_step];
        const T* __restrict b0 = b + r * b_row;
        const T* __restrict b1 = b0 + b_row;
        const T* __restrict b2 = b1 + b_row;
        const T* __restrict b3 = b2 + b_row;
        for (std::int64_t j = 0; j < n; ++j) {
            T sum = c[j];
            sum += a0 * b0[j];
            sum += a1 * b1[j];
            sum += a2 * b2[j];
            sum += a3 * b3[j];
            c[j] = sum;
        }
    }
    for (; r < rows; ++r) {
        const T scale = a[r * a_step];
        const T* __restrict row = b + r * b_row;
        for (std::int64_t j = 0; j < n; ++j) {
            c[j] += scale * row[j];
        }
    }
}

// The dot product of x and y, n elements each: kLanes running sums, one per lane, then a
// fixed tree of additions over them and the elements left over.
template <typename T> T dot(const T* __restrict x, const T* __restrict y, std::int64_t n) {
    T partial[kLanes] = {};
    std::int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes) {
        for (int lane = 0; lane < kLanes; ++lane) {
            partial[lane] += x[i + lane] * y[i + lane];
        }
    }
    T rest = 0;
    for (; i < n; ++i) {
        rest += x[i] * y[i];
    }
    for (int width = kLanes / 2; width > 0; width /= 2) {
        for (int lane = 0; lane < width; ++lane) {
            partial[lane] += partial[lane + width];
        }
    }
    return partial[0] + rest;
}

// Row `i` of A with contiguous elements: the row itself, or a copy of it in `copy` (K
// elements, next to the K x N of B).
template <typename T> const T* contiguous_row(const GemmOperands<T>& op, std::int64_t i, std::vector<T>& copy) {
    const T* row = op.a + i * op.a_row;
    if (op.a_col == 1 || op.k == 0) {
        return row;
    }
    copy.resize(static_cast<std::size_t>(op.k));
    for (std::int64_t k = 0; k < op.k; ++k) {
        copy[static_cast<std::size_t>(k)] = row[k * op.a_col];
    }
    return copy.data();
}

template <typename T> void run_gemv(const GemmOperands<T>& op) {
    const std::int64_t grain = std::max<std::int64_t>(64, kWorkPerPiece / std::max<std::int64_t>(1, op.m * op.k));
    if (op.b_col == 1) {
        parallel_for(0, op.n, grain, [&](std::int64_t begin, std::int64_t end) {
            for (std::int64_t j = begin; j < end; j += kColumnBlock) {
                const std::int64_t width = std::min(kColumnBlock, end - j);
                for (std::int64_t i = 0; i < op.m; ++i) {
                    std::fill_n(op.c + i * op.ldc + j, width, T{0});
                }
                for (std::int64_t r = 0; r < op.k; r += kRowChunk) {
                    const std::int64_t rows = std::min(kRowChunk, op.k - r);
                    for (std::int64_t i = 0; i < op.m; ++i) {
                        add_scaled_rows(op.a + i * op.a_row + r * op.a_col, op.a_col, op.b + r * op.b_row + j,
                                        op.b_row, rows, op.c + i * op.ldc + j, width);
                    }
                }
            }
        });
        return;
    }
    // Columns of B are contiguous; so must the rows of A be, to walk beside them.
    std::vector<std::vector<T>> copies(static_cast<std::size_t>(op.m));
    std::vector<const T*> rows(static_cast<std::size_t>(op.m));
    for (std::int64_t i = 0; i < op.m; ++i) {
        rows[static_cast<std::size_t>(i)] = contiguous_row(op, i, copies[static_cast<std::size_t>(i)]);
    }
    parallel_for(0, op.n, grain, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t j = begin; j < end; ++j) {
            const T* column = op.b + j * op.b_col;
            for (std::int64_t i = 0; i < op.m; ++i) {
                op.c[i * op.ldc + j] = dot(rows[static_cast<std::size_t>(i)], column, op.k);
            }
        }
    });
}

}  // namespace

void gemv(const GemmOperands<float>& op) { run_gemv(op); }
void gemv(const GemmOperands<double>& op) { run_gemv(op); }

}  // namespace kael::detail

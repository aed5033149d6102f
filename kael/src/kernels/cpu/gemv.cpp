// A few rows times a matrix, the two loops of gemv.h for all rows of A at once, split over
// columns on several threads.
#include "kernels/cpu/gemv.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kael/parallel.h"

// Without AVX-512, GCC warns (-Wpsabi) wherever a 64-byte vector (Sixteen<T>::type below)
// is passed or returned by value, since it travels differently with AVX-512 than without.
// Every function that does so is private to this file and inlined, so no such call crosses
// between code built with and without AVX-512. (GCC reports it as it emits the code, at
// the end of the file, so the setting holds for the whole file.)
#pragma GCC diagnostic ignored "-Wpsabi"

namespace kael::detail {
namespace {

// Elements of C summed together in the row form, over all rows of A: 4096 floats are
// 16 KiB, which stay in the L1 cache while the rows of B stream past them (one row of A
// takes a block of 4096 columns, eight rows blocks of 512).
constexpr std::int64_t kOutputBlock = 4096;
// The partial sums of one dot product: two AVX2 registers of floats, or one AVX-512
// register, and the same count on every CPU so that the sum's order is too.
constexpr int kLanes = 16;
// A piece of the loop gets at least this many multiply-adds, some 20 microseconds of
// memory traffic: far more than handing it to a worker costs.
constexpr std::int64_t kWorkPerPiece = std::int64_t{1} << 16;

// The widest vector register of the build: zmm (64 bytes) with AVX-512, ymm (32) without.
#if defined(__AVX512F__)
constexpr std::size_t kRegisterBytes = 64;
#else
constexpr std::size_t kRegisterBytes = 32;
#endif

// Sixteen elements as one value, held in as many vector registers as they fill: one zmm
// for floats with AVX-512, two ymm with AVX2 (four for doubles). Written out rather than
// left to the auto-vectorizer, which for GCC 12 vectorized these loops for some row counts
// and not for others, and then did not always fuse the same multiply-adds (so a row's bits
// depended on the rows beside it). Each lane computes the same operations in the same
// order whatever the split, so a lane's bits do not depend on the build's vector width.
// Not one GCC vector of sixteen lanes: wider than the registers, GCC kept such values, and
// arrays of them, in memory on the stack, and the AVX2 loops ran at a quarter of the speed
// of the memory they read.
template <typename T> struct Sixteen {
    static constexpr std::size_t kWidth = kRegisterBytes / sizeof(T);  // lanes of one register
    static constexpr std::size_t kParts = kLanes / kWidth;
    typedef T part __attribute__((vector_size(kRegisterBytes)));
    typedef T unaligned_part __attribute__((vector_size(kRegisterBytes), aligned(alignof(T)), may_alias));
    struct type {
        part p[kParts];
        [[gnu::always_inline]] type& operator+=(const type& other) {
            for (std::size_t i = 0; i < kParts; ++i) {
                p[i] += other.p[i];
            }
            return *this;
        }
        [[gnu::always_inline]] friend type operator*(T scale, const type& v) {
            type result;
            for (std::size_t i = 0; i < kParts; ++i) {
                result.p[i] = scale * v.p[i];
            }
            return result;
        }
        [[gnu::always_inline]] friend type operator*(const type& a, const type& b) {
            type result;
            for (std::size_t i = 0; i < kParts; ++i) {
                result.p[i] = a.p[i] * b.p[i];
            }
            return result;
        }
    };
    [[gnu::always_inline]] static type load(const T* address) {
        type result;
        for (std::size_t i = 0; i < kParts; ++i) {
            result.p[i] = *reinterpret_cast<const unaligned_part*>(address + i * kWidth);
        }
        return result;
    }
    [[gnu::always_inline]] static void store(T* address, const type& value) {
        for (std::size_t i = 0; i < kParts; ++i) {
            *reinterpret_cast<unaligned_part*>(address + i * kWidth) = value.p[i];
        }
    }
};

// c_i[0, n) += sum over r of a_i[r * a_step] * b[r * b_row + (0, n)] for the M rows i of A
// at once, for B with contiguous rows: each piece of four rows of B is loaded once, into
// registers, for all M rows, whose rows of C stay in the L1 cache. Every element's sum
// runs over r in ascending order, one multiply-add after the other, so its bits depend
// neither on M nor on the width of the block.
template <typename T, std::size_t M>
void add_scaled_rows(const T* const* a, std::int64_t a_step, const T* b, std::int64_t b_row, std::int64_t rows,
                     T* const* c, std::int64_t n) {
    using V = Sixteen<T>;
    std::int64_t r = 0;
    for (; r + 4 <= rows; r += 4) {
        T scale[M][4];
        for (std::size_t i = 0; i < M; ++i) {
            for (std::size_t q = 0; q < 4; ++q) {
                scale[i][q] = a[i][(r + static_cast<std::int64_t>(q)) * a_step];
            }
        }
        const T* b0 = b + r * b_row;
        const T* b1 = b0 + b_row;
        const T* b2 = b1 + b_row;
        const T* b3 = b2 + b_row;
        std::int64_t j = 0;
        for (; j + kLanes <= n; j += kLanes) {
            const typename V::type x0 = V::load(b0 + j);
            const typename V::type x1 = V::load(b1 + j);
            const typename V::type x2 = V::load(b2 + j);
            const typename V::type x3 = V::load(b3 + j);
            for (std::size_t i = 0; i < M; ++i) {
                typename V::type sum = V::load(c[i] + j);
                sum += scale[i][0] * x0;
                sum += scale[i][1] * x1;
                sum += scale[i][2] * x2;
                sum += scale[i][3] * x3;
                V::store(c[i] + j, sum);
            }
        }
        for (; j < n; ++j) {
            for (std::size_t i = 0; i < M; ++i) {
                T sum = c[i][j];
                sum += scale[i][0] * b0[j];
                sum += scale[i][1] * b1[j];
                sum += scale[i][2] * b2[j];
                sum += scale[i][3] * b3[j];
                c[i][j] = sum;
            }
        }
    }
    for (; r < rows; ++r) {
        const T* row = b + r * b_row;
        for (std::size_t i = 0; i < M; ++i) {
            const T scale = a[i][r * a_step];
            T* out = c[i];
            for (std::int64_t j = 0; j < n; ++j) {
                out[j] += scale * row[j];
            }
        }
    }
}

// The row form for several rows of A: the sums of a strip of 16 columns of C, for all M
// rows, stay in registers while rows [r_begin, r_end) of B go by, each row's piece loaded
// once for the M rows. The sums run over r in ascending order, one multiply-add after the
// other, exactly as add_scaled_rows runs them, so the bits are those of one row alone.
template <typename T, std::size_t M>
void strip_sums(const T* const* a, std::int64_t a_step, const T* b, std::int64_t b_row, std::int64_t r_begin,
                std::int64_t r_end, T* const* c, std::int64_t j) {
    using V = Sixteen<T>;
    typename V::type sum[M];
    for (std::size_t i = 0; i < M; ++i) {
        sum[i] = V::load(c[i] + j);
    }
    for (std::int64_t r = r_begin; r < r_end; ++r) {
        const T* row = b + r * b_row + j;
        const typename V::type x = V::load(row);
        __builtin_prefetch(row + 2 * kLanes);  // the strip after next, in the same row
        for (std::size_t i = 0; i < M; ++i) {
            sum[i] += a[i][r * a_step] * x;
        }
    }
    for (std::size_t i = 0; i < M; ++i) {
        V::store(c[i] + j, sum[i]);
    }
}

// Rows of B that one pass of strip_sums takes: 128 rows of a block of 512 columns are
// 256 KiB, which the L2 cache keeps while the block's strips walk down them.
constexpr std::int64_t kStripRows = 128;

// Rows of A whose sums one strip holds in registers: eight vectors of sixteen lanes are 8
// of AVX-512's 32 zmm registers, but 16 of AVX2's 16 ymm; there, groups of four.
#if defined(__AVX512F__)
constexpr std::size_t kStripGroup = 8;
#else
constexpr std::size_t kStripGroup = 4;
#endif

// Columns [j, j + width) of C in the row form for M > 1 rows of A (c and a point at the
// rows' starts): strips of 16 columns in chunks of kStripRows rows of B, the rows of A in
// groups of up to kStripGroup, and the columns left over, fewer than a strip, by
// add_scaled_rows. Every element's sum keeps its order, r ascending.
template <typename T, std::size_t M>
void strip_block(const GemmOperands<T>& op, const T* const* a, T* const* c, std::int64_t j, std::int64_t width) {
    constexpr std::size_t kFullGroups = M / kStripGroup;
    constexpr std::size_t kLastRows = M % kStripGroup;
    const std::int64_t strips = width / kLanes * kLanes;
    for (std::int64_t r = 0; r < op.k; r += kStripRows) {
        const std::int64_t r_end = std::min(op.k, r + kStripRows);
        for (std::int64_t s = 0; s < strips; s += kLanes) {
            for (std::size_t g = 0; g < kFullGroups; ++g) {
                strip_sums<T, kStripGroup>(a + g * kStripGroup, op.a_col, op.b + j, op.b_row, r, r_end,
                                           c + g * kStripGroup, s);
            }
            if constexpr (kLastRows > 0) {
                strip_sums<T, kLastRows>(a + kFullGroups * kStripGroup, op.a_col, op.b + j, op.b_row, r, r_end,
                                         c + kFullGroups * kStripGroup, s);
            }
        }
    }
    if (strips < width) {
        T* tail[M];
        for (std::size_t i = 0; i < M; ++i) {
            tail[i] = c[i] + strips;
        }
        add_scaled_rows<T, M>(a, op.a_col, op.b + j + strips, op.b_row, op.k, tail, width - strips);
    }
}

// The fixed tree over a dot product's 16 running sums: lane l takes lane l + 8, then
// l + 4, l + 2 and l + 1, each step one addition of the two halves of the lanes left. The
// halves are whole registers while there are several (lanes 8 to 15 are the later half of
// the parts), then halves of one register.
template <typename T> T sum_of_lanes(const typename Sixteen<T>::type& v) {
    using V = Sixteen<T>;
    typename V::part parts[V::kParts];
    for (std::size_t i = 0; i < V::kParts; ++i) {
        parts[i] = v.p[i];
    }
    for (std::size_t count = V::kParts; count > 1; count /= 2) {
        for (std::size_t i = 0; i < count / 2; ++i) {
            parts[i] += parts[i + count / 2];
        }
    }
    T lanes[V::kWidth];
    for (std::size_t i = 0; i < V::kWidth; ++i) {
        lanes[i] = parts[0][i];
    }
    for (std::size_t count = V::kWidth; count > 1; count /= 2) {
        for (std::size_t i = 0; i < count / 2; ++i) {
            lanes[i] += lanes[i + count / 2];
        }
    }
    return lanes[0];
}

// Columns of B are read this many tiles ahead of their use: with several rows of A the loop
// spends long enough on each column that the hardware's own prefetching falls behind, and
// with one row over short columns (attention's keys in a decode step, 64 elements each) the
// runs of columns are too short for it to start: there the loop waited on every column.
constexpr std::size_t kPrefetchTiles = 4;

// A tile of the dot form, rows x_0 .. x_{R-1} of A against columns y_0 .. y_{C-1} of B (K
// elements each; column c at y + c * y_step): per dot product kLanes running sums, one per
// lane, then sum_of_lanes and the elements left over. Each piece of a column is loaded
// once for R rows and each piece of a row once for C columns, and the R x C chains of
// additions overlap in the pipeline; each dot product's sum is the one it gets alone.
template <typename T, std::size_t R, std::size_t C>
void dot_tile(const T* const* x, const T* y, std::int64_t y_step, std::int64_t n, T* out, std::int64_t out_step) {
    using V = Sixteen<T>;
    typename V::type partial[R][C] = {};
    std::int64_t k = 0;
    for (; k + kLanes <= n; k += kLanes) {
        typename V::type column[C];
        for (std::size_t c = 0; c < C; ++c) {
            column[c] = V::load(y + static_cast<std::int64_t>(c) * y_step + k);
            __builtin_prefetch(y + static_cast<std::int64_t>(c + kPrefetchTiles * C) * y_step + k);
        }
        for (std::size_t i = 0; i < R; ++i) {
            const typename V::type row = V::load(x[i] + k);
            for (std::size_t c = 0; c < C; ++c) {
                partial[i][c] += row * column[c];
            }
        }
    }
    for (std::size_t i = 0; i < R; ++i) {
        for (std::size_t c = 0; c < C; ++c) {
            const T* column = y + static_cast<std::int64_t>(c) * y_step;
            T rest = 0;
            for (std::int64_t e = k; e < n; ++e) {
                rest += x[i][e] * column[e];
            }
            out[static_cast<std::int64_t>(i) * out_step + static_cast<std::int64_t>(c)] =
                sum_of_lanes<T>(partial[i][c]) + rest;
        }
    }
}

// A tile's rows and columns: its R x C vectors of running sums, and the loads beside them,
// must fit the registers (32 zmm with AVX-512, 16 ymm with AVX2, where one float vector of
// 16 lanes takes two).
#if defined(__AVX512F__)
constexpr std::size_t kTileRows = 8;
#else
constexpr std::size_t kTileRows = 4;
#endif
constexpr std::size_t kTileColumns = 1;

// Columns [begin, end) of C in the dot form, for the M rows of A: tiles of up to kTileRows
// rows and kTileColumns columns, the rows of a column tile one group after the other while
// the columns are in the L1 cache.
template <typename T, std::size_t M>
void dot_columns(const GemmOperands<T>& op, const T* const* rows, std::int64_t begin, std::int64_t end) {
    constexpr std::size_t kFullGroups = M / kTileRows;
    constexpr std::size_t kLastRows = M % kTileRows;
    auto tile = [&]<std::size_t C>(std::int64_t j) {
        const T* y = op.b + j * op.b_col;
        for (std::size_t g = 0; g < kFullGroups; ++g) {
            dot_tile<T, kTileRows, C>(rows + g * kTileRows, y, op.b_col, op.k,
                                      op.c + static_cast<std::int64_t>(g * kTileRows) * op.ldc + j, op.ldc);
        }
        if constexpr (kLastRows > 0) {
            dot_tile<T, kLastRows, C>(rows + kFullGroups * kTileRows, y, op.b_col, op.k,
                                      op.c + static_cast<std::int64_t>(kFullGroups * kTileRows) * op.ldc + j,
                                      op.ldc);
        }
    };
    constexpr std::size_t kColumns = M == 1 ? 1 : kTileColumns;
    std::int64_t j = begin;
    for (; j + static_cast<std::int64_t>(kColumns) <= end; j += static_cast<std::int64_t>(kColumns)) {
        tile.template operator()<kColumns>(j);
    }
    for (; j < end; ++j) {
        tile.template operator()<1>(j);
    }
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

template <typename T, std::size_t M> void run_gemv(const GemmOperands<T>& op) {
    const std::int64_t grain = std::max<std::int64_t>(64, kWorkPerPiece / std::max<std::int64_t>(1, op.m * op.k));
    if (op.b_col == 1) {
        parallel_for(0, op.n, grain, [&](std::int64_t begin, std::int64_t end) {
            constexpr auto kColumnBlock = kOutputBlock / static_cast<std::int64_t>(M);
            for (std::int64_t j = begin; j < end; j += kColumnBlock) {
                const std::int64_t width = std::min(kColumnBlock, end - j);
                T* c[M];
                for (std::size_t i = 0; i < M; ++i) {
                    c[i] = op.c + static_cast<std::int64_t>(i) * op.ldc + j;
                    std::fill_n(c[i], width, T{0});
                }
                const T* a[M];
                for (std::size_t i = 0; i < M; ++i) {
                    a[i] = op.a + static_cast<std::int64_t>(i) * op.a_row;
                }
                if constexpr (M == 1) {
                    add_scaled_rows<T, M>(a, op.a_col, op.b + j, op.b_row, op.k, c, width);
                } else {
                    strip_block<T, M>(op, a, c, j, width);
                }
            }
        });
        return;
    }
    // Columns of B are contiguous; so must the rows of A be, to walk beside them.
    std::vector<std::vector<T>> copies(M);
    const T* rows[M];
    for (std::size_t i = 0; i < M; ++i) {
        rows[i] = contiguous_row(op, static_cast<std::int64_t>(i), copies[i]);
    }
    parallel_for(0, op.n, grain,
                 [&](std::int64_t begin, std::int64_t end) { dot_columns<T, M>(op, rows, begin, end); });
}

// The row count as a template argument, so that each count gets loops of its own size.
template <typename T> void run_gemv(const GemmOperands<T>& op) {
    static_assert(kMaxGemvRows == 8, "one case below for each row count gemv takes");
    switch (op.m) {
        case 1: return run_gemv<T, 1>(op);
        case 2: return run_gemv<T, 2>(op);
        case 3: return run_gemv<T, 3>(op);
        case 4: return run_gemv<T, 4>(op);
        case 5: return run_gemv<T, 5>(op);
        case 6: return run_gemv<T, 6>(op);
        case 7: return run_gemv<T, 7>(op);
        default: return run_gemv<T, 8>(op);
    }
}

}  // namespace

void gemv(const GemmOperands<float>& op) { run_gemv(op); }
void gemv(const GemmOperands<double>& op) { run_gemv(op); }

}  // namespace kael::detail

// Tests of exercise 09.2. Every test fails until row_major_matmul is implemented. The
// routine the exercise calls is replaced by one that records each call and then runs
// column_major_gemm, so the tests see both the answer and the arguments that produced it.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "column_major_gemm.h"
#include "exercise.h"
#include "kael/error.h"

namespace {

using exercise::MatrixView;
using exercise::OutputMatrix;
using exercise::row_major_matmul;

constexpr std::int64_t kIntMax = std::numeric_limits<int>::max();

// The arguments of one call to the column-major routine.
struct Call {
    char transa;
    char transb;
    int m;
    int n;
    int k;
    double alpha;
    const double* a;
    int lda;
    const double* b;
    int ldb;
    double beta;
    double* c;
    int ldc;
};

std::vector<Call> g_calls;

void recording_gemm(char transa, char transb, int m, int n, int k, double alpha, const double* a, int lda,
                    const double* b, int ldb, double beta, double* c, int ldc) {
    g_calls.push_back({transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc});
    exercise::column_major_gemm(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

// Records and computes nothing: for views over memory that does not exist.
void recording_only(char transa, char transb, int m, int n, int k, double alpha, const double* a, int lda,
                    const double* b, int ldb, double beta, double* c, int ldc) {
    g_calls.push_back({transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc});
}

enum class Layout { RowMajor, Transposed };

// Room after a matrix, so that a product that reads or writes with the wrong sizes or
// leading dimensions stays inside the test's memory and fails a check instead of
// corrupting the heap.
std::int64_t slack(std::int64_t rows, std::int64_t cols, std::int64_t ld) {
    return (rows + cols + 1) * (ld + rows + cols + 1);
}

// A matrix of small whole numbers (so that every sum below is exact) in its own memory,
// laid out row-major or as the transpose of a row-major matrix, each row (or column)
// followed by `pad` unused elements that hold values of their own.
struct Stored {
    std::vector<double> memory;
    MatrixView view;

    Stored(std::int64_t rows, std::int64_t cols, Layout layout, std::int64_t pad, std::mt19937& rng) {
        std::uniform_int_distribution<int> value(-4, 4);
        const std::int64_t ld = (layout == Layout::RowMajor ? cols : rows) + pad;
        const std::int64_t lines = layout == Layout::RowMajor ? rows : cols;
        memory.resize(static_cast<std::size_t>(lines * ld + slack(rows, cols, ld)));
        for (double& x : memory) {
            x = value(rng);
        }
        view = layout == Layout::RowMajor ? MatrixView{memory.data(), rows, cols, ld, 1}
                                          : MatrixView{memory.data(), rows, cols, 1, ld};
    }
    Stored(std::vector<double> values, MatrixView layout) : memory(std::move(values)), view(layout) {
        view.data = memory.data();
    }
};

double at(const MatrixView& x, std::int64_t i, std::int64_t j) {
    return x.data[i * x.row_stride + j * x.col_stride];
}

// The product the slow, obvious way, row-major: [m * n].
std::vector<double> triple_loop(const MatrixView& a, const MatrixView& b) {
    std::vector<double> c(static_cast<std::size_t>(a.rows * b.cols), 0.0);
    for (std::int64_t i = 0; i < a.rows; ++i) {
        for (std::int64_t j = 0; j < b.cols; ++j) {
            double sum = 0.0;
            for (std::int64_t p = 0; p < a.cols; ++p) {
                sum += at(a, i, p) * at(b, p, j);
            }
            c[static_cast<std::size_t>(i * b.cols + j)] = sum;
        }
    }
    return c;
}

constexpr double kUnused = 1e300;  // what the memory around the output holds, and must keep

// A [rows, cols] output with `pad` unused elements after each row, and more after the
// last one.
struct Output {
    std::vector<double> memory;
    OutputMatrix view;

    Output(std::int64_t rows, std::int64_t cols, std::int64_t pad, double fill = std::nan("")) {
        const std::int64_t ld = cols + pad;
        memory.assign(static_cast<std::size_t>(rows * ld + slack(rows, cols, ld)), kUnused);
        view = OutputMatrix{memory.data(), rows, cols, ld};
        for (std::int64_t i = 0; i < rows; ++i) {
            for (std::int64_t j = 0; j < cols; ++j) {
                memory[static_cast<std::size_t>(i * ld + j)] = fill;
            }
        }
    }
    double operator()(std::int64_t i, std::int64_t j) const {
        return memory[static_cast<std::size_t>(i * view.row_stride + j)];
    }
    // How many of the places that are not the output's elements were written.
    std::int64_t written_outside() const {
        std::int64_t count = 0;
        for (std::int64_t e = 0; e < static_cast<std::int64_t>(memory.size()); ++e) {
            const bool element =
                view.row_stride > 0 && e < view.rows * view.row_stride && e % view.row_stride < view.cols;
            count += (!element && memory[static_cast<std::size_t>(e)] != kUnused) ? 1 : 0;
        }
        return count;
    }
};

void expect_values(const Output& c, const std::vector<double>& expected) {
    EXPECT_EQ(c.written_outside(), 0) << "the product wrote between or after the output's rows";
    for (std::int64_t i = 0; i < c.view.rows; ++i) {
        for (std::int64_t j = 0; j < c.view.cols; ++j) {
            EXPECT_EQ(c(i, j), expected[static_cast<std::size_t>(i * c.view.cols + j)])
                << "element (" << i << ", " << j << ")";
        }
    }
}

// One call, on the operands' own memory: b first, a second, the output as the output.
void expect_one_call_on(const MatrixView& a, const MatrixView& b, const OutputMatrix& c) {
    ASSERT_EQ(g_calls.size(), 1U);
    const Call& call = g_calls.front();
    EXPECT_EQ(call.a, b.data) << "the routine's first operand must be b's own memory";
    EXPECT_EQ(call.b, a.data) << "the routine's second operand must be a's own memory";
    EXPECT_EQ(call.c, c.data) << "the routine must write the output's own memory";
    EXPECT_EQ(call.m, b.cols);
    EXPECT_EQ(call.n, a.rows);
    EXPECT_EQ(call.k, a.cols);
}

TEST(RowMajorMatmul, SquareProduct) {
    g_calls.clear();
    const Stored a({1, 2, 3, 4}, {nullptr, 2, 2, 2, 1});
    const Stored b({5, 6, 7, 8}, {nullptr, 2, 2, 2, 1});
    Output c(2, 2, 0);
    row_major_matmul(a.view, b.view, c.view, recording_gemm);
    expect_values(c, {19, 22, 43, 50});
    expect_one_call_on(a.view, b.view, c.view);
    ASSERT_EQ(g_calls.size(), 1U);
    EXPECT_EQ(g_calls[0].transa, 'N');
    EXPECT_EQ(g_calls[0].transb, 'N');
    EXPECT_EQ(g_calls[0].alpha, 1.0);
    EXPECT_EQ(g_calls[0].beta, 0.0);
}

TEST(RowMajorMatmul, NonSquareSwapsTheSizes) {
    g_calls.clear();
    std::mt19937 rng(91);
    const Stored a(2, 3, Layout::RowMajor, 0, rng);
    const Stored b(3, 4, Layout::RowMajor, 0, rng);
    Output c(2, 4, 0);
    row_major_matmul(a.view, b.view, c.view, recording_gemm);
    expect_values(c, triple_loop(a.view, b.view));
    expect_one_call_on(a.view, b.view, c.view);
    ASSERT_EQ(g_calls.size(), 1U);
    // Column-major, the routine computes c^T [4, 2] = b^T [4, 3] a^T [3, 2].
    EXPECT_EQ(g_calls[0].m, 4);
    EXPECT_EQ(g_calls[0].n, 2);
    EXPECT_EQ(g_calls[0].k, 3);
    EXPECT_EQ(g_calls[0].lda, 4);
    EXPECT_EQ(g_calls[0].ldb, 3);
    EXPECT_EQ(g_calls[0].ldc, 4);
}

TEST(RowMajorMatmul, RowStridesBecomeLeadingDimensions) {
    g_calls.clear();
    std::mt19937 rng(92);
    const Stored a(2, 3, Layout::RowMajor, 2, rng);  // rows 5 apart
    const Stored b(3, 4, Layout::RowMajor, 3, rng);  // rows 7 apart
    Output c(2, 4, 2);                               // rows 6 apart
    row_major_matmul(a.view, b.view, c.view, recording_gemm);
    expect_values(c, triple_loop(a.view, b.view));
    expect_one_call_on(a.view, b.view, c.view);
    ASSERT_EQ(g_calls.size(), 1U);
    EXPECT_EQ(g_calls[0].lda, 7);
    EXPECT_EQ(g_calls[0].ldb, 5);
    EXPECT_EQ(g_calls[0].ldc, 6);
}

TEST(RowMajorMatmul, TransposedOperandsSetTheirFlags) {
    std::mt19937 rng(93);
    for (const Layout a_layout : {Layout::RowMajor, Layout::Transposed}) {
        for (const Layout b_layout : {Layout::RowMajor, Layout::Transposed}) {
            g_calls.clear();
            const Stored a(3, 5, a_layout, 1, rng);
            const Stored b(5, 2, b_layout, 2, rng);
            Output c(3, 2, 0);
            row_major_matmul(a.view, b.view, c.view, recording_gemm);
            expect_values(c, triple_loop(a.view, b.view));
            expect_one_call_on(a.view, b.view, c.view);
            ASSERT_EQ(g_calls.size(), 1U);
            const bool a_t = a_layout == Layout::Transposed;
            const bool b_t = b_layout == Layout::Transposed;
            EXPECT_EQ(g_calls[0].transa, b_t ? 'T' : 'N');
            EXPECT_EQ(g_calls[0].transb, a_t ? 'T' : 'N');
            EXPECT_EQ(g_calls[0].lda, b_t ? b.view.col_stride : b.view.row_stride);
            EXPECT_EQ(g_calls[0].ldb, a_t ? a.view.col_stride : a.view.row_stride);
        }
    }
}

TEST(RowMajorMatmul, RowsAndColumnsOfOneElement) {
    std::mt19937 rng(94);
    for (const std::int64_t k : {1, 6}) {
        for (const Layout layout : {Layout::RowMajor, Layout::Transposed}) {
            // [1, k] x [k, 1]: a dot product. [k, 1] x [1, k]: an outer product.
            // [1, k] x [k, 3] and [3, k] x [k, 1]: a row and a column against a matrix.
            const std::vector<std::array<std::int64_t, 3>> sizes{{1, k, 1}, {k, 1, k}, {1, k, 3}, {3, k, 1}};
            for (const auto& [m, inner, n] : sizes) {
                g_calls.clear();
                const Stored a(m, inner, layout, 0, rng);
                const Stored b(inner, n, layout, 0, rng);
                Output c(m, n, 1);
                row_major_matmul(a.view, b.view, c.view, recording_gemm);
                expect_values(c, triple_loop(a.view, b.view));
                expect_one_call_on(a.view, b.view, c.view);
            }
        }
    }
}

TEST(RowMajorMatmul, AStridedRowOrColumnNeedsNoCopy) {
    // Column 1 of a row-major [4, 3] matrix: a [4, 1] view with rows 3 apart. Column 0 of
    // a row-major [4, 2] matrix, read as a row: a [1, 4] view with columns 2 apart. Their
    // product is [1, 1]; the other way round it is [4, 4].
    g_calls.clear();
    std::mt19937 rng(95);
    const Stored wide(4, 3, Layout::RowMajor, 0, rng);
    const MatrixView column{wide.memory.data() + 1, 4, 1, 3, 1};
    const Stored tall(4, 2, Layout::RowMajor, 0, rng);
    const MatrixView row{tall.memory.data(), 1, 4, 1, 2};
    Output dot(1, 1, 0);
    row_major_matmul(row, column, dot.view, recording_gemm);
    expect_values(dot, triple_loop(row, column));
    expect_one_call_on(row, column, dot.view);

    g_calls.clear();
    Output outer(4, 4, 0);
    row_major_matmul(column, row, outer.view, recording_gemm);
    expect_values(outer, triple_loop(column, row));
    expect_one_call_on(column, row, outer.view);

    // The stride of a dimension of one element is never used, whatever it is.
    g_calls.clear();
    const MatrixView odd_row{tall.memory.data(), 1, 4, 0, 2};
    const MatrixView odd_column{wide.memory.data() + 1, 4, 1, 3, 0};
    Output again(1, 1, 0);
    row_major_matmul(odd_row, odd_column, again.view, recording_gemm);
    expect_values(again, triple_loop(row, column));
    expect_one_call_on(odd_row, odd_column, again.view);

    // A contiguous row and column, each with a stride of 0 along its single element.
    g_calls.clear();
    const MatrixView flat_row{tall.memory.data(), 1, 4, 0, 1};
    const MatrixView flat_column{wide.memory.data(), 4, 1, 1, 0};
    Output flat(4, 4, 0);
    row_major_matmul(flat_column, flat_row, flat.view, recording_gemm);
    expect_values(flat, triple_loop(flat_column, flat_row));
    expect_one_call_on(flat_column, flat_row, flat.view);
}

TEST(RowMajorMatmul, MatchesATripleLoopOnRandomShapes) {
    std::mt19937 rng(96);
    const auto pick = [&](int low, int high) { return std::uniform_int_distribution<int>(low, high)(rng); };
    const auto size = [&] { return static_cast<std::int64_t>(pick(0, 3) == 0 ? 1 : pick(1, 9)); };
    const auto layout = [&] { return pick(0, 1) == 0 ? Layout::RowMajor : Layout::Transposed; };
    for (int round = 0; round < 300; ++round) {
        g_calls.clear();
        const std::int64_t m = size();
        const std::int64_t k = size();
        const std::int64_t n = size();
        const Stored a(m, k, layout(), pick(0, 2), rng);
        const Stored b(k, n, layout(), pick(0, 2), rng);
        Output c(m, n, pick(0, 2));
        row_major_matmul(a.view, b.view, c.view, recording_gemm);
        SCOPED_TRACE("round " + std::to_string(round) + ": [" + std::to_string(m) + ", " + std::to_string(k) +
                     "] x [" + std::to_string(k) + ", " + std::to_string(n) + "]");
        expect_values(c, triple_loop(a.view, b.view));
        expect_one_call_on(a.view, b.view, c.view);
        if (HasFailure()) {
            return;
        }
    }
}

TEST(RowMajorMatmul, AlphaAndBetaReachTheRoutine) {
    g_calls.clear();
    std::mt19937 rng(97);
    const Stored a(3, 4, Layout::RowMajor, 0, rng);
    const Stored b(4, 2, Layout::Transposed, 0, rng);
    Output c(3, 2, 0, 0.0);
    for (std::int64_t i = 0; i < 3; ++i) {
        for (std::int64_t j = 0; j < 2; ++j) {
            c.memory[static_cast<std::size_t>(i * 2 + j)] = static_cast<double>(i - j);
        }
    }
    std::vector<double> expected = triple_loop(a.view, b.view);
    for (std::size_t e = 0; e < expected.size(); ++e) {
        expected[e] = 2.0 * expected[e] - 0.5 * c.memory[e];
    }
    row_major_matmul(a.view, b.view, c.view, recording_gemm, 2.0, -0.5);
    expect_values(c, expected);
    ASSERT_EQ(g_calls.size(), 1U);
    EXPECT_EQ(g_calls[0].alpha, 2.0);
    EXPECT_EQ(g_calls[0].beta, -0.5);

    // beta = 0: the output is written, not read, so what it held (NaN here) is gone.
    g_calls.clear();
    Output fresh(3, 2, 0);
    row_major_matmul(a.view, b.view, fresh.view, recording_gemm, 3.0, 0.0);
    expected = triple_loop(a.view, b.view);
    for (double& x : expected) {
        x *= 3.0;
    }
    expect_values(fresh, expected);
}

TEST(RowMajorMatmul, EmptyMatrices) {
    // k = 0: every element is an empty sum, so c becomes beta * c.
    g_calls.clear();
    const double nothing = 0.0;
    const MatrixView a{&nothing, 2, 0, 1, 1};  // kael's strides for a [2, 0] tensor
    const MatrixView b{&nothing, 0, 3, 3, 1};
    Output c(2, 3, 0, 4.0);
    row_major_matmul(a, b, c.view, recording_gemm, 1.0, 0.5);
    expect_values(c, {2, 2, 2, 2, 2, 2});
    expect_one_call_on(a, b, c.view);

    // m = 0: nothing to compute, and the routine is still called once.
    g_calls.clear();
    std::mt19937 rng(98);
    const Stored right(3, 2, Layout::RowMajor, 0, rng);
    const MatrixView none{&nothing, 0, 3, 3, 1};
    Output empty(0, 2, 0);
    row_major_matmul(none, right.view, empty.view, recording_gemm);
    expect_one_call_on(none, right.view, empty.view);
    EXPECT_EQ(empty.written_outside(), 0);
}

TEST(RowMajorMatmul, LayoutsTheRoutineCannotReadAreRefused) {
    g_calls.clear();
    std::vector<double> memory(64, 1.0);
    const double* p = memory.data();
    const MatrixView good{p, 3, 3, 3, 1};
    Output c(3, 3, 0);
    const MatrixView refused[] = {
        {p, 3, 3, 6, 2},  // every other column: no stride is 1
        {p, 3, 3, 2, 1},  // rows that overlap: 2 apart, 3 long
        {p, 3, 3, 1, 2},  // the same, transposed
        {p, 3, 3, 0, 1},  // one row, expanded to three
        {p, 3, 3, 1, 0},  // one column, expanded to three
    };
    for (const MatrixView& bad : refused) {
        EXPECT_THROW(row_major_matmul(bad, good, c.view, recording_gemm), kael::ValueError)
            << "strides [" << bad.row_stride << ", " << bad.col_stride << "]";
        EXPECT_THROW(row_major_matmul(good, bad, c.view, recording_gemm), kael::ValueError)
            << "strides [" << bad.row_stride << ", " << bad.col_stride << "]";
    }
    const MatrixView column{p, 3, 1, 0, 1};  // a column expanded from one element
    const MatrixView row{p, 1, 3, 3, 1};
    Output outer(3, 3, 0);
    EXPECT_THROW(row_major_matmul(column, row, outer.view, recording_gemm), kael::ValueError);
    // The output's rows overlap.
    std::vector<double> out(16, 0.0);
    EXPECT_THROW(row_major_matmul(good, good, OutputMatrix{out.data(), 3, 3, 2}, recording_gemm), kael::ValueError);
    EXPECT_TRUE(g_calls.empty());
}

TEST(RowMajorMatmul, ShapesThatDoNotChainAreRefused) {
    g_calls.clear();
    std::mt19937 rng(99);
    const Stored a(2, 3, Layout::RowMajor, 0, rng);
    const Stored b(3, 4, Layout::RowMajor, 0, rng);
    const Stored other(4, 3, Layout::RowMajor, 0, rng);
    Output c(2, 4, 0);
    Output wrong_rows(3, 4, 0);
    Output wrong_cols(2, 3, 0);
    EXPECT_THROW(row_major_matmul(a.view, other.view, c.view, recording_gemm), kael::ValueError);
    EXPECT_THROW(row_major_matmul(a.view, b.view, wrong_rows.view, recording_gemm), kael::ValueError);
    EXPECT_THROW(row_major_matmul(a.view, b.view, wrong_cols.view, recording_gemm), kael::ValueError);
    const MatrixView negative{a.memory.data(), -2, 3, 3, 1};
    EXPECT_THROW(row_major_matmul(negative, b.view, c.view, recording_gemm), kael::ValueError);
    EXPECT_TRUE(g_calls.empty());
}

TEST(RowMajorMatmul, SizesPastTheRoutinesIntAreRefused) {
    // The routine takes int sizes, as cuBLAS does. These views have no memory behind them,
    // so the routine here only records its arguments.
    const double* p = reinterpret_cast<const double*>(std::uintptr_t{4096});
    double* q = reinterpret_cast<double*>(std::uintptr_t{8192});
    const MatrixView b{p, 3, 1, 1, 1};

    g_calls.clear();
    row_major_matmul(MatrixView{p, 2, 3, kIntMax, 1}, b, OutputMatrix{q, 2, 1, 1}, recording_only);
    ASSERT_EQ(g_calls.size(), 1U);
    EXPECT_EQ(g_calls[0].ldb, kIntMax);  // the largest leading dimension an int holds
    g_calls.clear();
    EXPECT_THROW(row_major_matmul(MatrixView{p, 2, 3, kIntMax + 1, 1}, b, OutputMatrix{q, 2, 1, 1}, recording_only),
                 kael::ValueError);

    row_major_matmul(MatrixView{p, kIntMax, 3, 3, 1}, b, OutputMatrix{q, kIntMax, 1, 1}, recording_only);
    ASSERT_EQ(g_calls.size(), 1U);
    EXPECT_EQ(g_calls[0].n, kIntMax);  // the largest row count
    g_calls.clear();
    EXPECT_THROW(row_major_matmul(MatrixView{p, kIntMax + 1, 3, 3, 1}, b, OutputMatrix{q, kIntMax + 1, 1, 1},
                                  recording_only),
                 kael::ValueError);
    EXPECT_THROW(row_major_matmul(MatrixView{p, 1, kIntMax + 1, 1, 1}, MatrixView{p, kIntMax + 1, 1, 1, 1},
                                  OutputMatrix{q, 1, 1, 1}, recording_only),
                 kael::ValueError);  // the inner size
    EXPECT_TRUE(g_calls.empty());
}

}  // namespace

// Reference solution of exercise 09.2.
#include <algorithm>
#include <limits>

#include "exercise.h"
#include "kael/error.h"

namespace exercise {
namespace {

// How the column-major routine is to read one input: with flag 'N' or 'T', and with which
// leading dimension.
struct Operand {
    char trans;
    std::int64_t ld;
};

// A row-major matrix, read column by column, is its own transpose: the routine sees x^T
// with flag 'N' and leading dimension row_stride. A matrix with row_stride 1 (the
// transpose of a row-major one) is seen as x itself, column-major with leading dimension
// col_stride, and the flag 'T' turns it into x^T. A dimension of at most one element is
// never stepped along, so its stride may be taken to be anything, and the leading
// dimension is then chosen as small as the routine allows.
Operand read_transposed(const MatrixView& x, const char* name) {
    const std::int64_t min_row_ld = std::max<std::int64_t>(1, x.cols);
    const std::int64_t min_col_ld = std::max<std::int64_t>(1, x.rows);
    if (x.col_stride == 1 || x.cols <= 1) {
        const std::int64_t ld = x.rows <= 1 ? min_row_ld : x.row_stride;
        if (ld >= min_row_ld) {
            return {'N', ld};
        }
    }
    if (x.row_stride == 1 || x.rows <= 1) {
        const std::int64_t ld = x.cols <= 1 ? min_col_ld : x.col_stride;
        if (ld >= min_col_ld) {
            return {'T', ld};
        }
    }
    KAEL_CHECK_VALUE(false, "row_major_matmul: " << name << " of [" << x.rows << ", " << x.cols << "] with strides ["
                                                 << x.row_stride << ", " << x.col_stride
                                                 << "] is neither row-major nor a transposed row-major matrix");
    return {};
}

int as_int(std::int64_t value, const char* what) {
    KAEL_CHECK_VALUE(value <= std::numeric_limits<int>::max(),
                     "row_major_matmul: " << what << " of " << value << " does not fit the routine's int");
    return static_cast<int>(value);
}

}  // namespace

void row_major_matmul(const MatrixView& a, const MatrixView& b, const OutputMatrix& c, Gemm gemm, double alpha,
                      double beta) {
    KAEL_CHECK_VALUE(a.rows >= 0 && a.cols >= 0 && b.rows >= 0 && b.cols >= 0,
                     "row_major_matmul: negative matrix size");
    KAEL_CHECK_VALUE(a.cols == b.rows, "row_major_matmul: [" << a.rows << ", " << a.cols << "] times [" << b.rows
                                                             << ", " << b.cols << "] do not chain");
    KAEL_CHECK_VALUE(c.rows == a.rows && c.cols == b.cols, "row_major_matmul: the output is [" << c.rows << ", "
                                                               << c.cols << "], the product [" << a.rows << ", "
                                                               << b.cols << "]");
    const Operand left = read_transposed(b, "b");
    const Operand right = read_transposed(a, "a");
    const std::int64_t ldc = c.rows <= 1 ? std::max<std::int64_t>(1, c.cols) : c.row_stride;
    KAEL_CHECK_VALUE(ldc >= std::max<std::int64_t>(1, c.cols),
                     "row_major_matmul: an output row stride of " << c.row_stride << " is below its "
                                                                  << c.cols << " columns");
    // Column-major, c is c^T [n, m], and c^T = b^T a^T: b goes first, a second, and the
    // routine's m and n are the product's columns and rows.
    gemm(left.trans, right.trans, as_int(b.cols, "a column count"), as_int(a.rows, "a row count"),
         as_int(a.cols, "an inner size"), alpha, b.data, as_int(left.ld, "b's leading dimension"), a.data,
         as_int(right.ld, "a's leading dimension"), beta, c.data, as_int(ldc, "the output's leading dimension"));
}

}  // namespace exercise

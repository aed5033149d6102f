#pragma once
// Exercise 09.2's stand-in for cuBLAS: the BLAS matrix product, column-major, in plain C++.
//
// It has the interface of BLAS's dgemm and of cublasDgemm (without the handle, and with
// the scalars by value): matrices are column-major, element (i, j) of a matrix with
// leading dimension ld is at data[i + j * ld], and each operand may be read transposed.
// It checks its arguments as BLAS does and throws std::invalid_argument, naming the
// parameter, where cuBLAS would return CUBLAS_STATUS_INVALID_VALUE. It is slow: a triple
// loop, which is all the exercise needs.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace exercise {

/// The signature of column_major_gemm: what the exercise's matmul calls, exactly once.
using Gemm = void (*)(char transa, char transb, int m, int n, int k, double alpha, const double* a, int lda,
                      const double* b, int ldb, double beta, double* c, int ldc);

/// C = alpha * op(A) * op(B) + beta * C, all column-major, where op(X) is X for 'N' and
/// X^T for 'T'. op(A) is m x k, op(B) is k x n and C is m x n. A is stored as m x k for
/// 'N' and as k x m for 'T', so lda is at least max(1, m) or max(1, k); likewise B, stored
/// k x n or n x k; ldc is at least max(1, m). With beta == 0, C is written without being
/// read (NaN in it does not survive). With m or n equal to 0 nothing happens; with k == 0,
/// C becomes beta * C.
inline void column_major_gemm(char transa, char transb, int m, int n, int k, double alpha, const double* a,
                              int lda, const double* b, int ldb, double beta, double* c, int ldc) {
    const auto refuse = [](int number, const char* name, std::int64_t value) {
        throw std::invalid_argument("column_major_gemm: parameter " + std::to_string(number) + " (" + name +
                                    " = " + std::to_string(value) + ") is invalid");
    };
    const bool a_transposed = transa == 'T';
    const bool b_transposed = transb == 'T';
    if (transa != 'N' && !a_transposed) {
        refuse(1, "transa", transa);
    }
    if (transb != 'N' && !b_transposed) {
        refuse(2, "transb", transb);
    }
    if (m < 0) {
        refuse(3, "m", m);
    }
    if (n < 0) {
        refuse(4, "n", n);
    }
    if (k < 0) {
        refuse(5, "k", k);
    }
    if (lda < std::max(1, a_transposed ? k : m)) {
        refuse(8, "lda", lda);
    }
    if (ldb < std::max(1, b_transposed ? n : k)) {
        refuse(10, "ldb", ldb);
    }
    if (ldc < std::max(1, m)) {
        refuse(13, "ldc", ldc);
    }
    const auto at = [](const double* x, int ld, int row, int col) {
        return x[static_cast<std::int64_t>(row) + static_cast<std::int64_t>(col) * ld];
    };
    for (int j = 0; j < n; ++j) {
        for (int i = 0; i < m; ++i) {
            double sum = 0.0;
            for (int p = 0; p < k; ++p) {
                const double left = a_transposed ? at(a, lda, p, i) : at(a, lda, i, p);
                const double right = b_transposed ? at(b, ldb, j, p) : at(b, ldb, p, j);
                sum += left * right;
            }
            double& out = c[static_cast<std::int64_t>(i) + static_cast<std::int64_t>(j) * ldc];
            out = beta == 0.0 ? alpha * sum : alpha * sum + beta * out;
        }
    }
}

}  // namespace exercise

// The optional BLAS path: float and double products through cblas_sgemm and cblas_dgemm.
// Compiled with KAEL_HAS_BLAS when CMake found a BLAS library (KAEL_USE_BLAS).
#include "kernels/cpu/gemm.h"
#include <algorithm>
//> stage 8
#include <cctype>
#include <initializer_list>
#include <string>
#include <string_view>
//< stage 8
//> stage 13
#include <mutex>
//< stage 13

#include "kael/error.h"
//> stage 13
#include "kael/parallel.h"
//< stage 13

#ifdef KAEL_HAS_BLAS
#include <cblas.h>
#endif

namespace kael::detail {

#ifdef KAEL_HAS_BLAS

namespace {

// BLAS reads a matrix whose rows or columns are contiguous; gemm() in linalg.cpp only
// sends such operands. Returns whether the matrix is stored transposed, and its leading
// dimension.
struct Layout {
    CBLAS_TRANSPOSE transpose;
    std::int64_t leading;
};

Layout layout(std::int64_t rows, std::int64_t cols, std::int64_t row_stride, std::int64_t col_stride) {
    if (col_stride == 1 && row_stride >= cols) {
        return {CblasNoTrans, std::max<std::int64_t>(row_stride, 1)};
    }
    KAEL_CHECK(row_stride == 1 && col_stride >= rows,
               "BLAS needs contiguous rows or columns, got strides (" << row_stride << ", "
                                                                     << col_stride << ")");
    return {CblasTrans, std::max<std::int64_t>(col_stride, 1)};
}

int blas_int(std::int64_t value) {
    KAEL_CHECK(value <= 0x7fffffff, "matrix size " << value << " exceeds the BLAS integer range");
    return static_cast<int>(value);
}

template <typename T, typename Gemm> void call(const GemmOperands<T>& op, Gemm gemm_function) {
    const Layout a = layout(op.m, op.k, op.a_row, op.a_col);
    const Layout b = layout(op.k, op.n, op.b_row, op.b_col);
    gemm_function(CblasRowMajor, a.transpose, b.transpose, blas_int(op.m), blas_int(op.n),
                  blas_int(op.k), T{1}, op.a, blas_int(a.leading), op.b, blas_int(b.leading), T{0},
                  op.c, blas_int(op.ldc));
}

}  // namespace

bool blas_available() { return true; }
//> stage 8

// OpenBLAS picks its kernels by CPU model at load time, and on a CPU it does not know (a
// new model, or a virtual machine that hides the model) it falls back to an SSE3 kernel
// such as "Prescott", three to six times slower than its AVX2 one. Its name tells which.
extern "C" char* openblas_get_corename(void);

std::string blas_kernel_name() { return openblas_get_corename(); }

bool blas_preferred() {
    static const bool preferred = [] {
        const std::string_view own = gemm_isa();
        if (own == "generic") {
            return true;  // the own kernel has no vector copy for this CPU either
        }
        std::string core = blas_kernel_name();
        std::ranges::transform(core, core.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        // BLAS only where its kernel is as wide as kael's own copy: then the two ran the
        // training step within a few percent of each other (OpenBLAS ahead), while an AVX2
        // OpenBLAS kernel on an AVX-512 CPU took a quarter longer than kael's AVX-512 copy
        // (book/measurements.toml, "mlp-step-*"), and an SSE3 fallback far longer.
        const auto one_of = [&core](std::initializer_list<std::string_view> names) {
            return std::ranges::find(names, std::string_view(core)) != names.end();
        };
        if (own == "avx512") {
            return one_of({"skylakex", "cooperlake", "sapphirerapids"});
        }
        return one_of({"haswell", "zen", "skylakex", "cooperlake", "sapphirerapids"});
    }();
    return preferred;
}
//< stage 8
//> until 13
//| void blas_gemm(const GemmOperands<float>& op) { call(op, cblas_sgemm); }
//| void blas_gemm(const GemmOperands<double>& op) { call(op, cblas_dgemm); }
//< until 13
//> stage 13

// OpenBLAS has a pool of its own. It gets kael's thread count, so that one setting governs
// both, and kael never calls it from inside a parallel loop, so the two pools never run at
// once (no oversubscription). openblas_set_num_threads must not race with a product in
// flight: it is called only when the setting has changed, under a lock.
extern "C" void openblas_set_num_threads(int threads);

void match_blas_threads() {
    static std::mutex mutex;
    static int applied = 0;
    const int wanted = get_num_threads();
    const std::lock_guard lock(mutex);
    if (applied != wanted) {
        openblas_set_num_threads(wanted);
        applied = wanted;
    }
}

void blas_gemm(const GemmOperands<float>& op) {
    match_blas_threads();
    call(op, cblas_sgemm);
}
void blas_gemm(const GemmOperands<double>& op) {
    match_blas_threads();
    call(op, cblas_dgemm);
}
//< stage 13

#else

bool blas_available() { return false; }
//> stage 8
bool blas_preferred() { return false; }
std::string blas_kernel_name() { return {}; }
//< stage 8

void blas_gemm(const GemmOperands<float>& /*op*/) {
    KAEL_CHECK(blas_available(), "kael was built without BLAS; configure with KAEL_USE_BLAS=ON");
}

void blas_gemm(const GemmOperands<double>& /*op*/) {
    KAEL_CHECK(blas_available(), "kael was built without BLAS; configure with KAEL_USE_BLAS=ON");
}

#endif

}  // namespace kael::detail

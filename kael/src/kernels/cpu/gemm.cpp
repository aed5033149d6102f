// kael's own matrix multiplication kernel, compiled three times (AVX-512, AVX2, and the
// x86-64 baseline) and chosen at run time by what the CPU supports.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string_view>
#include <type_traits>

#include "kernels/cpu/gemm.h"
#include "kernels/cpu/integer_math.h"
#include "kael/error.h"
//> stage 13
#include "kael/parallel.h"
//< stage 13

namespace kael::detail {

// ---- one copy of the kernel per instruction set -------------------------------------------
// Each copy lives in its own namespace, so the three never share a symbol, and each is
// compiled under its own target pragma: the AVX-512 copy may only run where AVX-512 exists.

#if defined(__x86_64__) && defined(__GNUC__)
#define KAEL_GEMM_DISPATCH 1
#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx512dq,avx2,fma,prefer-vector-width=512")
namespace avx512 {
constexpr int kVectorBytes = 64;  // one zmm register
#include "kernels/cpu/gemm_kernel.inc"
}  // namespace avx512
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace avx2 {
constexpr int kVectorBytes = 32;  // one ymm register
#include "kernels/cpu/gemm_kernel.inc"
}  // namespace avx2
#pragma GCC pop_options
#endif

namespace generic {
constexpr int kVectorBytes = 16;  // one xmm register: SSE2 is part of every x86-64 CPU
#include "kernels/cpu/gemm_kernel.inc"
}  // namespace generic

namespace {

enum class Isa { Avx512, Avx2, Generic };  // widest first

Isa detect_isa() {
#ifdef KAEL_GEMM_DISPATCH
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512dq")) {
        return Isa::Avx512;
    }
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        return Isa::Avx2;
    }
#endif
    return Isa::Generic;
}

// KAEL_GEMM_ISA=avx2 (or generic) picks a narrower copy than the CPU allows, so that one
// machine can measure and test the kernel every other machine runs. It never picks a wider
// one: that copy would crash on this CPU.
Isa chosen_isa() {
    const Isa widest = detect_isa();
    const char* requested = std::getenv("KAEL_GEMM_ISA");
    if (requested == nullptr) {
        return widest;
    }
    const std::string_view name(requested);
    KAEL_CHECK_VALUE(name == "avx512" || name == "avx2" || name == "generic",
                     "KAEL_GEMM_ISA must be one of avx512, avx2 or generic, got '" << name << "'");
    const Isa wanted = name == "generic" ? Isa::Generic : name == "avx2" ? Isa::Avx2 : Isa::Avx512;
    return static_cast<int>(wanted) > static_cast<int>(widest) ? wanted : widest;
}

Isa isa() {
    static const Isa chosen = chosen_isa();
    return chosen;
}

// Runs one copy of the kernel with packing buffers sized for this product: small products
// allocate little, large ones at most one MC x KC block of A and one KC x NC block of B.
template <typename T, int MR, int NR, typename Kernel>
void run_with_buffers(const GemmOperands<T>& op, Kernel kernel) {
    using Blocking = GemmBlocking<T, MR, NR>;
    const auto round_up = [](std::int64_t value, std::int64_t multiple) {
        return (value + multiple - 1) / multiple * multiple;
    };
    const std::int64_t kc = std::min(op.k, Blocking::KC);
    const auto a_size = static_cast<std::size_t>(round_up(std::min(op.m, Blocking::MC), MR) * kc);
    const auto b_size = static_cast<std::size_t>(round_up(std::min(op.n, Blocking::NC), NR) * kc);
    const std::unique_ptr<T[]> packed_a(new T[a_size]);
    const std::unique_ptr<T[]> packed_b(new T[b_size]);
    kernel(op, packed_a.get(), packed_b.get());
}

// Register blocks (MR x NR) per instruction set: the accumulators must fit in the vector
// registers (32 of 512 bits, 16 of 256 bits, 16 of 128 bits) with room left for the
// broadcast element of A and the row of B.
template <typename T> void dispatch_gemm(const GemmOperands<T>& op) {
    if (op.m == 0 || op.n == 0) {
        return;
    }
    if (op.k == 0) {  // an empty sum: C is zero
        for (std::int64_t i = 0; i < op.m; ++i) {
            std::fill_n(op.c + i * op.ldc, op.n, T{});
        }
        return;
    }
    constexpr int kNarrow = std::is_same_v<T, float> ? 2 : 1;  // floats per double lane
    if constexpr (!std::is_integral_v<T>) {
#ifdef KAEL_GEMM_DISPATCH
        switch (isa()) {
        case Isa::Avx512:
            run_with_buffers<T, 12, 16 * kNarrow>(op, avx512::gemm_blocked<T, 12, 16 * kNarrow>);
            return;
        case Isa::Avx2:
            run_with_buffers<T, 6, 8 * kNarrow>(op, avx2::gemm_blocked<T, 6, 8 * kNarrow>);
            return;
        case Isa::Generic:
            break;
        }
#endif
    }
    run_with_buffers<T, 4, 4 * kNarrow>(op, generic::gemm_blocked<T, 4, 4 * kNarrow>);
}

//> stage 13

// C in panels of 64 columns (or of 96 rows, when it has more rows than columns) on several
// threads (chapter 12). A panel is a product of its own, A times a slice of B, and each of
// its elements is summed over k in the order the whole product sums it. The panels are
// whole register blocks of every kernel (NR divides 64, MR divides 96), so no element
// moves from a full block to an edge block, whose code differs: C is the same bit for bit
// for any number of threads. Each piece packs into buffers of its own.
template <typename T> void parallel_gemm(const GemmOperands<T>& op) {
    const bool by_columns = op.n >= op.m;
    const std::int64_t panel = by_columns ? 64 : 96;
    constexpr std::int64_t kWorkPerPiece = std::int64_t{1} << 21;  // multiply-adds, ~0.1 ms
    const std::int64_t extent = by_columns ? op.n : op.m;
    const std::int64_t across = by_columns ? op.m : op.n;
    const std::int64_t panels = (extent + panel - 1) / panel;
    const std::int64_t grain = std::max<std::int64_t>(1, kWorkPerPiece / std::max<std::int64_t>(1, panel * across * op.k));
    parallel_for(0, panels, grain, [&](std::int64_t first, std::int64_t end) {
        const std::int64_t begin = first * panel;
        const std::int64_t size = std::min(end * panel, extent) - begin;
        GemmOperands<T> part = op;
        if (by_columns) {
            part.n = size;
            part.b += begin * op.b_col;
            part.c += begin;
        } else {
            part.m = size;
            part.a += begin * op.a_row;
            part.c += begin * op.ldc;
        }
        dispatch_gemm(part);
    });
}
//< stage 13

}  // namespace

//> until 13
//| void gemm(const GemmOperands<float>& op) { dispatch_gemm(op); }
//| void gemm(const GemmOperands<double>& op) { dispatch_gemm(op); }
//| void gemm(const GemmOperands<std::int64_t>& op) { dispatch_gemm(op); }
//< until 13
//> stage 13
void gemm(const GemmOperands<float>& op) { parallel_gemm(op); }
void gemm(const GemmOperands<double>& op) { parallel_gemm(op); }
void gemm(const GemmOperands<std::int64_t>& op) { parallel_gemm(op); }
//< stage 13

const char* gemm_isa() {
    switch (isa()) {
    case Isa::Avx512:
        return "avx512";
    case Isa::Avx2:
        return "avx2";
    case Isa::Generic:
        return "generic";
    }
    return "generic";
}

}  // namespace kael::detail

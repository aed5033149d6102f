#pragma once
// General matrix multiplication, C = A * B, for one matrix pair. Chapter 05 builds it
// step by step: blocking for the caches, packing, and a register-blocked micro-kernel.
//
// A is M x K with element (i, k) at a[i * a_row + k * a_col]; B is K x N with element
// (k, j) at b[k * b_row + j * b_col]. Any strides work, transposed operands included,
// because the kernel copies ("packs") its operands before computing. C is M x N with
// contiguous rows of length ldc.

#include <cstdint>
//> stage 8
#include <string>
//< stage 8

namespace kael::detail {

/// Strided views of the two operands of one matrix product.
template <typename T> struct GemmOperands {
    std::int64_t m, n, k;
    const T* a;
    std::int64_t a_row, a_col;
    const T* b;
    std::int64_t b_row, b_col;
    T* c;
    std::int64_t ldc;
};

/// The block sizes of the own kernel for element type T and an MR x NR register block.
/// MR x NR is the block of C one micro-kernel call keeps in vector registers; KC, MC and
/// NC size the packed blocks so that they stay in the L1, L2 and L3 caches.
template <typename T, int MR, int NR> struct GemmBlocking {
    static constexpr std::int64_t KC = 256;
    static constexpr std::int64_t MC = MR * (sizeof(T) == 4 ? 12 : 8);
    static constexpr std::int64_t NC = NR * 128;
};

/// C = A * B with kael's own kernel. Picks, once, the widest instruction set the CPU has.
void gemm(const GemmOperands<float>& op);
/// C = A * B in double precision.
void gemm(const GemmOperands<double>& op);
/// C = A * B for int64, wrapping on overflow.
void gemm(const GemmOperands<std::int64_t>& op);

/// The instruction set the own kernel uses on this CPU: "avx512", "avx2" or "generic".
const char* gemm_isa();

/// True when kael was built with a BLAS library (KAEL_USE_BLAS).
bool blas_available();
//> stage 8
/// True when BLAS should compute MatmulBackend::Auto's products: it is available and its
/// kernel for this CPU is vectorized (OpenBLAS names an AVX2 or AVX-512 core), or the own
/// kernel has no vector copy for this CPU.
bool blas_preferred();
/// The BLAS library's name for its kernel on this CPU, or "" without BLAS.
std::string blas_kernel_name();
//< stage 8
/// C = A * B through BLAS (float and double only). Requires blas_available().
void blas_gemm(const GemmOperands<float>& op);
/// C = A * B through BLAS in double precision.
void blas_gemm(const GemmOperands<double>& op);

}  // namespace kael::detail

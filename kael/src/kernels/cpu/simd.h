#pragma once
// Explicit vectors of the build's width, for the loops the auto-vectorizer gets wrong.
//
// GCC's vector extension gives a type that the compiler treats as one vector register,
// with + - * / and comparisons applied lane by lane. A loop written with it says which
// values live in registers; the same loop over a plain array of partial results was, for
// GCC 12, sometimes kept on the stack (the float sum) or not vectorized at all (the row
// maximum of softmax). The width follows the flags this file is compiled with, which
// are the same for the whole library; the matrix kernel, compiled once per instruction
// set, chooses its own width instead.

#include <cstdint>

namespace kael::detail {

#if defined(__AVX512F__)
inline constexpr std::int64_t kBuildVectorBytes = 64;  // one zmm register
#elif defined(__AVX__)
inline constexpr std::int64_t kBuildVectorBytes = 32;  // one ymm register
#else
inline constexpr std::int64_t kBuildVectorBytes = 16;  // one xmm register: SSE2 is in every x86-64 CPU
#endif

/// The build-width vector of T. (A class rather than an alias template: GCC ignores the
/// vector attribute on a dependent alias.)
template <typename T> struct BuildVector {
    typedef T type __attribute__((vector_size(kBuildVectorBytes)));
    /// The same vector read from any address: tensor data is only element-aligned.
    typedef T unaligned __attribute__((vector_size(kBuildVectorBytes), aligned(alignof(T)), may_alias));
    static constexpr std::int64_t lanes = kBuildVectorBytes / static_cast<std::int64_t>(sizeof(T));

    static type load(const T* address) { return *reinterpret_cast<const unaligned*>(address); }
    static type broadcast(T value) { return type{} + value; }
};

}  // namespace kael::detail

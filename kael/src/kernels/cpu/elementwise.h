#pragma once
// The inner loops of the element-wise fast path: one pass over flat arrays, the element
// function inlined, so that the compiler vectorizes it. The operations layer picks the
// dtype and allocates the output (ops/elementwise.h); these only loop.
#include <cstdint>
//> stage 9

#include "kernels/cpu/streaming_store.h"
//< stage 9

namespace kael::detail {

// The loops of flat_run (ops/elementwise.h), flattened like the iterator's inner loops in
// kael/kernels.h: the element function and everything it calls are inlined.
template <typename T, typename F>
[[gnu::flatten]] void flat_loop(T* result, const T* x, std::int64_t n, F& f) {
//> stage 9
    if (streams(result, n)) {
        streamed_loop(result, n, [&](std::int64_t k) { return f(x[k]); });
        return;
    }
//< stage 9
    for (std::int64_t k = 0; k < n; ++k) {
        result[k] = f(x[k]);
    }
}

template <typename T, typename F>
[[gnu::flatten]] void flat_loop(T* result, const T* x, const T* y, std::int64_t n, F& f) {
//> stage 9
    if (streams(result, n)) {
        streamed_loop(result, n, [&](std::int64_t k) { return f(x[k], y[k]); });
        return;
    }
//< stage 9
    for (std::int64_t k = 0; k < n; ++k) {
        result[k] = f(x[k], y[k]);
    }
}

}  // namespace kael::detail

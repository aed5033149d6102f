#pragma once
// A guard for tests that compare matrix products of different row counts bit for bit.
#include "kael/ops/linalg.h"

// Products of different row counts give the same bits with kael's own kernels, the blocked
// one and the one for a few rows, each on its side of kMatmulFewRows. OpenBLAS does not
// promise it: on an AVX2-only AMD EPYC, where the automatic backend takes OpenBLAS, a
// prompt's logits prefilled in two chunks differed in their last bits from the whole
// prompt's. Tests that compare such products bit for bit ask for kael's kernels.
struct OwnMatmulKernels {
    kael::MatmulBackend before = kael::matmul_backend();
    OwnMatmulKernels() { kael::set_matmul_backend(kael::MatmulBackend::Kael); }
    ~OwnMatmulKernels() { kael::set_matmul_backend(before); }
    OwnMatmulKernels(const OwnMatmulKernels&) = delete;
    OwnMatmulKernels& operator=(const OwnMatmulKernels&) = delete;
};

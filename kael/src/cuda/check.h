#pragma once
// Turning a CUDA runtime status into a kael error (chapter 09).
//
// Every runtime call of the backend goes through KAEL_CUDA_CHECK: a status other than
// cudaSuccess becomes a kael::Error that names the call, the error's name and the runtime's
// own description, so "CUDA error" never arrives without saying which call and why.
#include <cuda_runtime.h>

#include "kael/error.h"

/// Runs `call`, which returns a status of a CUDA library, and throws kael::Error unless
/// the status is `success`; `name` and `text` turn a status into its name and description
/// (cudaGetErrorName and cudaGetErrorString for the runtime, their cuBLAS twins in
/// cuda/blas.cpp).
#define KAEL_CHECK_CUDA_STATUS(call, success, name, text)                                      \
    do {                                                                                       \
        const auto kael_cuda_status = (call);                                                  \
        KAEL_CHECK(kael_cuda_status == (success),                                              \
                   #call " failed: " << name(kael_cuda_status) << " (" << text(kael_cuda_status) \
                                     << ")");                                                  \
    } while (false)

/// Runs `call` (an expression returning cudaError_t) and throws kael::Error unless it
/// returned cudaSuccess.
#define KAEL_CUDA_CHECK(call) KAEL_CHECK_CUDA_STATUS(call, cudaSuccess, cudaGetErrorName, cudaGetErrorString)

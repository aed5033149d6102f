#pragma once
// Turning a CUDA runtime status into a kael error (chapter 09).
//
// Every runtime call of the backend goes through KAEL_CUDA_CHECK: a status other than
// cudaSuccess becomes a kael::Error that names the call, the error's name and the runtime's
// own description, so "CUDA error" never arrives without saying which call and why.
#include <cuda_runtime.h>

#include "kael/error.h"

/// Runs `call` (an expression returning cudaError_t) and throws kael::Error unless it
/// returned cudaSuccess. The sticky error state of the runtime is cleared first, so the
/// message names this call's failure and not an older one.
#define KAEL_CUDA_CHECK(call)                                                                  \
    do {                                                                                       \
        const cudaError_t kael_cuda_status = (call);                                           \
        KAEL_CHECK(kael_cuda_status == cudaSuccess,                                            \
                   #call " failed: " << cudaGetErrorName(kael_cuda_status) << " ("             \
                                     << cudaGetErrorString(kael_cuda_status) << ")");          \
    } while (false)

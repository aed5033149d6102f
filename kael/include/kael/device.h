#pragma once
/// \file
/// \brief Device names and queries shared by the C++ examples and the Python bindings.

#include <string_view>

#include "kael/dtype.h"

namespace kael {

/// Parses a device name: "cpu" is Device::CPU, "cuda" and "cuda:0" are Device::CUDA.
/// kael drives one GPU, so any other name (including "cuda:1") throws ValueError.
[[nodiscard]] Device parse_device(std::string_view name);

/// True when kael was built with its CUDA backend and a CUDA device is present.
[[nodiscard]] bool cuda_is_available();
//> stage 10

/// True when kael was built with its CUDA backend (KAEL_ENABLE_CUDA=ON), whether or not
/// this machine has a GPU; PyTorch's torch.backends.cuda.is_built().
[[nodiscard]] bool cuda_is_built();

/// Throws kael::Error naming both devices unless `found` is `expected`: an operation runs
/// on one device, and kael never moves an operand to another behind the caller's back.
void check_same_device(Device expected, Device found);
//< stage 10

/// Waits until all queued device work has finished. Throws kael::Error when kael was built
/// without CUDA.
void cuda_synchronize();

}  // namespace kael

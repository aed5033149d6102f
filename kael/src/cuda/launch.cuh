#pragma once
// How the backend's kernels are launched (chapter 09): one thread per element, in blocks of
// kBlockSize threads, and a grid-stride loop so that a grid of bounded size covers any
// number of elements. Every launch is followed by a check of the launch itself; errors
// inside a kernel surface at the next synchronising call (a copy to the host, or
// cuda_synchronize), which KAEL_CUDA_CHECK reports there.
#include <algorithm>
#include <cstdint>

#include "cuda/check.h"

namespace kael::cuda {

/// Threads per block: a multiple of the 32-thread warp that keeps many blocks resident on
/// each multiprocessor.
inline constexpr int kBlockSize = 256;
/// The most blocks one launch asks for; the grid-stride loop covers the rest. 2^16 blocks
/// of 256 threads are 16.7 million threads, more than any GPU runs at once.
inline constexpr std::int64_t kMaxBlocks = 65536;

/// The number of blocks for `count` elements.
inline unsigned int blocks_for(std::int64_t count) {
    return static_cast<unsigned int>(std::clamp<std::int64_t>((count + kBlockSize - 1) / kBlockSize, 1, kMaxBlocks));
}

/// Reports a failed launch (a bad configuration, no kernel image for this GPU).
inline void check_launch() { KAEL_CUDA_CHECK(cudaGetLastError()); }

}  // namespace kael::cuda

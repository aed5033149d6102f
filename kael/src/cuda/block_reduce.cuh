#pragma once
// Reducing within one thread block (chapter 09). The row kernels of the device give each
// row (one result's run of elements) to one block of kBlockSize threads: every thread folds
// the elements i, i + kBlockSize, i + 2 kBlockSize, ... of the row into a partial result,
// and block_reduce then combines the kBlockSize partials in shared memory as a tree,
// halving the number of active threads each round: log2(256) = 8 rounds instead of 255
// additions by one thread.
#include <cstdint>

#include "cuda/launch.cuh"

namespace kael::cuda {

/// The most blocks a row kernel asks for; a grid-stride loop over the rows covers the rest.
inline constexpr std::int64_t kMaxRowBlocks = 65535;

/// The number of blocks for `rows` rows, one block per row up to kMaxRowBlocks.
inline unsigned int row_blocks(std::int64_t rows) {
    return static_cast<unsigned int>(rows < kMaxRowBlocks ? (rows > 0 ? rows : 1) : kMaxRowBlocks);
}

/// Combines every thread's `partial` with `merge` and returns the total to every thread of
/// the block. Every thread of the block must call it (it synchronises the block), and
/// `merge` must be associative and commutative: threads own interleaved elements, so the
/// tree does not merge in index order. A reduction that cares about positions carries them
/// in its partial result (argmax keeps the index, and a tie goes to the smaller one).
template <typename Acc, typename Merge> __device__ Acc block_reduce(Acc partial, const Merge& merge) {
    __shared__ Acc partials[kBlockSize];
    const unsigned int thread = threadIdx.x;
    partials[thread] = partial;
    __syncthreads();
    for (unsigned int half = kBlockSize / 2; half > 0; half /= 2) {
        if (thread < half) {
            partials[thread] = merge(partials[thread], partials[thread + half]);
        }
        __syncthreads();
    }
    const Acc total = partials[0];
    __syncthreads();  // the next call may overwrite partials[0] only after everyone read it
    return total;
}

/// The merge of the sums in double that the floating reductions share.
struct AddDoubles {
    __device__ double operator()(double a, double b) const { return a + b; }
};

}  // namespace kael::cuda

#pragma once
/// \file
/// \brief The parallel CPU runtime (chapter 12): a pool of threads and parallel_for.
///
/// kael splits a loop only where its pieces write different outputs: the elements of an
/// element-wise operation, the rows of a softmax or a layer norm, the heads of an
/// attention, the output rows of a reduction, the tiles of a matrix product. A piece
/// computes what the whole loop would have computed for its outputs, in the same order,
/// so results are bit for bit the same for any number of threads. No loop over a reduced
/// dimension is split: that would change the order of the additions.
///
/// The pool belongs to the process. Its workers start on the first parallel loop that
/// needs them. A loop started inside another runs on the thread that started it (no
/// nesting, so no oversubscription), and so does a loop started while another thread's
/// loop holds the pool. A child process made by fork() gets a fresh pool.

#include <cstdint>
#include <functional>

namespace kael {

/// How many threads parallel loops use (the caller's included). The default is the
/// environment's KAEL_NUM_THREADS when it is a positive integer, else the number of CPUs
/// the process may run on. OpenBLAS, when kael uses it, is set to the same number.
[[nodiscard]] int get_num_threads();

/// Sets how many threads parallel loops use, from the next loop on. ValueError for a
/// number below 1 or above 1024.
void set_num_threads(int threads);

/// Whether the calling thread is running a piece of a parallel loop.
[[nodiscard]] bool in_parallel_region();

/// Runs `body(b, e)` over pieces [b, e) that together cover [begin, end) once, on up to
/// get_num_threads() threads, and returns when all are done. Each piece but the last has
/// at least `grain_size` indices (a loop of fewer than 2 x grain_size indices runs as one
/// piece on the calling thread). The pieces depend only on the range, the grain size and
/// the thread count. The first exception a piece throws is rethrown here after every
/// piece has finished. ValueError for a grain size below 1.
void parallel_for(std::int64_t begin, std::int64_t end, std::int64_t grain_size,
                  const std::function<void(std::int64_t, std::int64_t)>& body);

}  // namespace kael

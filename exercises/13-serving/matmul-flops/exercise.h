#pragma once
// Exercise 13.1: a profiler counter. The floating-point operations of the matrix products
// a kael::Profiler recorded, and the rate at which they ran.

#include <cstdint>
#include <vector>

#include "kael/profiler.h"

namespace exercise {

/// The floating-point operations of one recorded call: 2 * M * N * K for each matrix
/// product of an event named "matmul", "mm" or "bmm", whose first two shapes are its
/// operands, with kael::matmul's rules: a 1-d left operand is one row [1, K], a 1-d right
/// operand one column [K, 1], and the dimensions before the last two broadcast, each
/// matrix of the broadcast batch counting once. 0 for an event of any other name.
/// Throws kael::ValueError for a matmul event whose shapes cannot be multiplied: fewer
/// than two shapes, a 0-d operand, inner sizes that differ, or batch dimensions that do
/// not broadcast.
[[nodiscard]] std::int64_t matmul_flops(const kael::ProfileEvent& event);

/// The rate of the matrix products among `events`, in GFLOP/s (10^9 floating-point
/// operations a second): their flops added up, over their wall time (duration_us) added
/// up. The events of other names are left out of both sums. 0 when the matrix products
/// took no time, or there are none. Throws what matmul_flops throws.
[[nodiscard]] double gflops_per_second(const std::vector<kael::ProfileEvent>& events);

}  // namespace exercise

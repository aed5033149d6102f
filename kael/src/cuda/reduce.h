#pragma once
// The reductions of the CUDA backend (chapter 09). The operations layer has already checked
// the arguments and arranged the input as `runs`: a contiguous device tensor in which the
// elements of result o are the `length` elements starting at o * length (the CPU's as_runs,
// a permute and a contiguous copy when the layout is not already so). Each function writes
// one value per run into `out`, a contiguous device tensor of `outputs` elements.
//
// In a build without CUDA these are defined by cuda/none.cpp and throw.
#include <cstdint>

#include "kael/tensor.h"

namespace kael::cuda {

/// The reductions that fold a run with one running value.
enum class ReduceOp { Sum, Prod, Mean, Max, Min, Any, All };

/// out[o] = op over run o. Sum and Prod of integers and Bool wrap in int64, floating ones
/// accumulate in double; Mean is floating only and divides by `length` (0 / 0 is NaN);
/// Max and Min need length > 0 and follow the NaN rule of kernels/cpu/extreme.h; Any and
/// All write Bool.
void reduce_runs(ReduceOp op, const Tensor& runs, std::int64_t outputs, std::int64_t length, const Tensor& out);

/// values[o] and indices[o]: the first largest (or smallest) element of run o and its
/// position in the run; the first NaN counts as the extreme. Needs length > 0.
void extreme_positions(bool largest, const Tensor& runs, std::int64_t outputs, std::int64_t length,
                       const Tensor& values, const Tensor& indices);

/// The variance of each run with `correction` (Bessel's is 1), in two passes in double
/// relative to the run's first element, NaN when length - correction <= 0.
void variance(const Tensor& runs, std::int64_t outputs, std::int64_t length, double correction, const Tensor& out);

/// log(sum(exp(x))) of each run, shifted by the run's largest element so no exp overflows;
/// a run whose largest element is not finite gives that element.
void logsumexp(const Tensor& runs, std::int64_t outputs, std::int64_t length, const Tensor& out);

/// The running sums of each run, into `out` of the runs' shape: floating ones in double,
/// integer ones wrapping. Runs and out have one dtype (the caller converts Bool to int64).
void cumsum(const Tensor& runs, std::int64_t outputs, std::int64_t length, const Tensor& out);

}  // namespace kael::cuda

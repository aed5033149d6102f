#pragma once
/// \file
/// \brief Random tensors drawn from one global generator.
///
/// The generator is a std::mt19937_64 with a fixed default seed, so a program that never
/// calls manual_seed still draws the same values on every run. The engine is specified by
/// the C++ standard, but the distributions are not: libstdc++ and libc++ may turn the same
/// engine state into different numbers, so a seed reproduces results on one standard
/// library, not across them.

#include <cstdint>

#include "kael/shape.h"
#include "kael/tensor.h"

namespace kael {

/// Reseeds the global generator.
void manual_seed(std::uint64_t seed);

/// Uniform values in [0, 1). F32 or F64 (TypeError otherwise). Each F32 value is the F64
/// value of the same draw rounded to float, except that a value rounding up to 1 becomes
/// the largest float below 1.
[[nodiscard]] Tensor rand(const Shape& shape, DType dtype = DType::F32);

/// Standard normal values (mean 0, standard deviation 1). F32 or F64.
[[nodiscard]] Tensor randn(const Shape& shape, DType dtype = DType::F32);

/// Uniform integers in [low, high), as I64. Throws ValueError unless low < high.
[[nodiscard]] Tensor randint(std::int64_t low, std::int64_t high, const Shape& shape);

/// A random permutation of 0 .. n-1, as I64. Throws ValueError for negative n.
[[nodiscard]] Tensor randperm(std::int64_t n);

/// Each element is 1 with probability p and 0 otherwise, in any dtype. Throws ValueError
/// unless 0 <= p <= 1.
[[nodiscard]] Tensor bernoulli(const Shape& shape, double p, DType dtype = DType::F32);
//> stage 12

/// `samples` indices for each row of `weights` ([K] gives [samples], [B, K] gives
/// [B, samples]), each index drawn with probability proportional to its weight: the
/// cumulative sums of the row, a uniform point in [0, total), and the first cumulative
/// value above it (std::upper_bound). Without replacement a drawn index's weight is set to
/// 0 for the row's later draws, so no index repeats. The result is I64 on weights' device
/// (drawn on the host). ValueError unless weights has 1 or 2 dimensions with K >= 1, every
/// weight is finite and non-negative with one positive per row, samples >= 1, and, without
/// replacement, samples is at most the number of positive weights of every row.
[[nodiscard]] Tensor multinomial(const Tensor& weights, std::int64_t samples, bool replacement = false);
//< stage 12

}  // namespace kael

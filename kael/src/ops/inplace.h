#pragma once
// The guards every in-place operation passes through (chapter 05).

#include "kael/tensor.h"

namespace kael::detail {

/// Throws unless `t` can be written element by element: on the CPU, and without several
/// positions naming one element (an expanded tensor), where a write would land more than
/// once.
void check_writable(const Tensor& t, const char* op);

/// `operand` itself, or a copy of it when it shares memory with `out` without being the
/// very same elements: reading it while `out` is written would otherwise see elements that
/// this operation has already overwritten.
[[nodiscard]] Tensor without_partial_aliasing(const Tensor& out, const Tensor& operand);

/// Throws TypeError unless a result of dtype `result` may be written into `out`.
void check_can_cast(DType result, const Tensor& out, const char* op);

}  // namespace kael::detail

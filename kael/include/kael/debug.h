#pragma once
/// \file
/// \brief Looking inside (chapter 13): a readable account of one tensor.
#include <string>

#include "kael/tensor.h"

namespace kael {

/// Everything kael knows about `t`, one fact per line: shape, strides, offset, dtype,
/// device and contiguity; the storage's size, version and how many tensors share it; the
/// bytes of the storage this tensor can reach; whether it is a view autograd tracks, and
/// of what; requires_grad, leaf or not, and the grad_fn nodes that backward() from it
/// would run (the first 16 met by a walk from its grad_fn, then a count of the rest).
/// It reads metadata only: no element is touched, so it works on device tensors too.
[[nodiscard]] std::string explain(const Tensor& t);

}  // namespace kael

#pragma once
// Element copies between tensors of any layout.

#include "kael/tensor.h"

namespace kael::detail {

/// Copies every element of `src` into `out`, converting each value to out's dtype with
/// convert_value. Both tensors have the same shape and live on the CPU; `src` may have any
/// strides and offset.
void convert_strided(const Tensor& out, const Tensor& src);

}  // namespace kael::detail

#pragma once
// A tensor over memory another library owns (chapter 10): NumPy's arrays and DLPack's
// loans both end here, in external storage whose `owner` keeps the memory alive.
#include <memory>

#include "kael/kael.h"

namespace kael::python {

/// A CPU tensor of `shape`, element `strides` and `dtype` whose first element is at
/// `data`, over external storage that holds `owner` until the last tensor over it dies.
/// The storage spans exactly the bytes the layout reaches (checked for int64 overflow).
Tensor external_tensor(std::byte* data, const Shape& shape, const Strides& strides, DType dtype,
                       std::shared_ptr<void> owner);

}  // namespace kael::python

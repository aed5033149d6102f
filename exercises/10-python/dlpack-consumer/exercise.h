#pragma once
// Exercise 10.2: a kael tensor over memory that another library lends through DLPack.

#include <dlpack/dlpack.h>

#include "kael/tensor.h"

namespace exercise {

/// A CPU tensor over the memory `managed` describes, without a copy: external storage that
/// starts at data + byte_offset and whose owner calls managed->deleter(managed) exactly
/// once, when the last tensor over that storage dies (a null deleter is never called).
/// float32, float64 and int64 map; strides count elements, and null strides mean
/// row-major. Throws kael::TypeError for a device other than the CPU or a dtype kael
/// lacks, and kael::ValueError for a layout it cannot hold; a refused `managed` stays the
/// caller's, and its deleter is not called. See README.md.
[[nodiscard]] kael::Tensor tensor_from_dlpack(DLManagedTensor* managed);

}  // namespace exercise

#pragma once
// Exercise 09.1: from a thread's linear index to every operand's byte offset, as a strided
// device kernel computes it.

#include <cstdint>
#include <vector>

#include "kael/shape.h"

namespace exercise {

/// The byte offsets, one per operand, of the element at row-major position `linear` of a
/// loop over `shape` (outermost dimension first, the last one fastest). strides[op][d] is
/// operand op's step in bytes along dimension d, and offset[op] is the sum over d of
/// coordinate[d] * strides[op][d]. Throws kael::ValueError for an inconsistent loop and
/// kael::IndexError unless 0 <= linear < numel(shape). See README.md.
[[nodiscard]] std::vector<std::int64_t> byte_offsets(const kael::Shape& shape,
                                                     const std::vector<kael::Strides>& strides,
                                                     std::int64_t linear);

/// True when 32-bit unsigned arithmetic indexes the loop exactly: the element count and
/// every operand's largest byte offset are at most 2^32 - 1. Never overflows, whatever the
/// sizes and strides. Throws kael::ValueError for an inconsistent loop. See README.md.
[[nodiscard]] bool fits_in_32_bits(const kael::Shape& shape, const std::vector<kael::Strides>& strides);

}  // namespace exercise

#pragma once
// Exercise 04.2: merge the dimensions of a loop that can be walked as one.

#include <vector>

#include "kael/shape.h"

namespace exercise {

/// A loop over several operands: its dimensions, outermost first, and for each operand
/// its byte stride along each of them.
struct Loop {
    kael::Shape shape;
    std::vector<kael::Strides> strides;  ///< strides[operand][dimension], in bytes
};

/// `loop` with every pair of neighbouring dimensions merged that all operands can step
/// through as one, exactly as TensorIteratorConfig::build coalesces. The dimensions are
/// not reordered. Throws kael::ValueError for inconsistent input. See README.md.
[[nodiscard]] Loop coalesce(const Loop& loop);

}  // namespace exercise

#pragma once
/// \file
/// \brief Overflow-checked arithmetic on sizes.
///
/// Sizes, extents and byte counts in kael are non-negative std::int64_t values. A product
/// of two valid sizes can still exceed the int64 range, and signed overflow is undefined
/// behavior, so every size computation that could wrap goes through these two functions.

#include <cstdint>
#include <limits>

#include "kael/error.h"

namespace kael::detail {

/// Returns `a * b`. Throws ValueError naming `what` if an operand is negative or the product
/// does not fit in std::int64_t.
inline std::int64_t checked_mul(std::int64_t a, std::int64_t b, const char* what) {
    KAEL_CHECK_VALUE(a >= 0 && b >= 0,
                     what << " needs non-negative operands, got (" << a << " * " << b << ")");
    // For non-negative operands, a * b <= max exactly when a <= max / b (integer division).
    KAEL_CHECK_VALUE(b == 0 || a <= std::numeric_limits<std::int64_t>::max() / b,
                     what << " overflows int64 (" << a << " * " << b << ")");
    return a * b;
}

/// Returns `a + b`. Throws ValueError naming `what` if an operand is negative or the sum
/// does not fit in std::int64_t.
inline std::int64_t checked_add(std::int64_t a, std::int64_t b, const char* what) {
    KAEL_CHECK_VALUE(a >= 0 && b >= 0,
                     what << " needs non-negative operands, got (" << a << " + " << b << ")");
    KAEL_CHECK_VALUE(a <= std::numeric_limits<std::int64_t>::max() - b,
                     what << " overflows int64 (" << a << " + " << b << ")");
    return a + b;
}

}  // namespace kael::detail

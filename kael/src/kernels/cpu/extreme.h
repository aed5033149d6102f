#pragma once
// The larger or smaller of two values with PyTorch's NaN rule, shared by the element-wise
// maximum and minimum and by the max, min, amax and amin reductions.

#include <type_traits>

namespace kael::detail {

/// `b` if it lies strictly beyond `a` (above for largest, below otherwise), else `a`; a
/// NaN on either side wins, as in PyTorch.
template <bool largest, typename T> constexpr T extreme(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
        if (a != a || b != b) {
            return a != a ? a : b;
        }
    }
    return (largest ? b > a : b < a) ? b : a;
}

}  // namespace kael::detail

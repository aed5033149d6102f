#pragma once
// Exercise 10.1: the layout NumPy reports for an array, turned into the one kael needs to
// build a tensor over the same bytes, or refused with the reason.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kael/dtype.h"
#include "kael/shape.h"

namespace exercise {

/// An array as NumPy describes it (a.ctypes.data, a.shape, a.strides, a.dtype.kind,
/// a.dtype.itemsize, a.flags.writeable). Strides count bytes and may be negative.
struct NumpyArray {
    std::byte* data = nullptr;
    std::vector<std::int64_t> shape;
    std::vector<std::int64_t> strides;  ///< in bytes, one per dimension
    char kind = 'f';                    ///< 'f' float, 'i' signed, 'u' unsigned, 'b' bool, ...
    std::int64_t itemsize = 4;          ///< bytes per element
    bool writeable = true;
};

/// What kael needs to build a tensor over the array's bytes, starting at its data pointer.
struct KaelLayout {
    kael::DType dtype = kael::DType::F32;
    kael::Shape shape;
    kael::Strides strides;    ///< in elements
    std::int64_t nbytes = 0;  ///< from the first element to the end of the last; 0 when empty
};

/// The kael layout of `array`, or kael::TypeError for a dtype kael lacks (checked first)
/// and kael::ValueError for everything else it cannot describe: a read-only array, a
/// negative stride, a stride that is not a multiple of the itemsize, data not aligned to
/// the itemsize, an inconsistent description, an extent past int64. See README.md.
[[nodiscard]] KaelLayout layout_from_numpy(const NumpyArray& array);

}  // namespace exercise

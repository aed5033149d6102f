// Reference solution of exercise 10.1.
#include <cstdint>
#include <string>

#include "exercise.h"
#include "kael/checked_math.h"
#include "kael/error.h"

namespace exercise {
namespace {

// The four NumPy dtypes kael has. NumPy's bool always has itemsize 1, so a 'b' of another
// size describes no real array and is refused with the rest.
kael::DType kael_dtype(char kind, std::int64_t itemsize) {
    if (kind == 'f' && itemsize == 4) {
        return kael::DType::F32;
    }
    if (kind == 'f' && itemsize == 8) {
        return kael::DType::F64;
    }
    if (kind == 'i' && itemsize == 8) {
        return kael::DType::I64;
    }
    if (kind == 'b' && itemsize == 1) {
        return kael::DType::Bool;
    }
    throw kael::TypeError("can't convert a NumPy array of kind '" + std::string(1, kind) + "' with " +
                          std::to_string(itemsize) + "-byte elements; kael has float32, float64, int64 and bool");
}

}  // namespace

KaelLayout layout_from_numpy(const NumpyArray& array) {
    // The dtype first: an array kael cannot hold is a TypeError whatever else is wrong.
    KaelLayout layout;
    layout.dtype = kael_dtype(array.kind, array.itemsize);
    const std::int64_t itemsize = array.itemsize;

    KAEL_CHECK_VALUE(array.writeable, "the NumPy array is read-only, and a tensor over it would let writes through");
    KAEL_CHECK_VALUE(array.strides.size() == array.shape.size(),
                     "an array of shape " << kael::to_string(array.shape) << " needs one stride per dimension, got "
                                          << kael::to_string(array.strides));
    kael::validate_shape(array.shape);

    // Bytes to elements. Every stride is checked, also those of size-1 dimensions and of
    // empty arrays, where it never moves: the rule looks at the description, not at use.
    bool empty = false;
    for (std::size_t d = 0; d < array.shape.size(); ++d) {
        const std::int64_t stride = array.strides[d];
        KAEL_CHECK_VALUE(stride >= 0, "a stride of " << stride << " bytes is negative, and kael has no negative "
                                                        "strides");
        KAEL_CHECK_VALUE(stride % itemsize == 0, "a stride of " << stride << " bytes is not a multiple of the "
                                                                   "element size " << itemsize);
        layout.shape.push_back(array.shape[d]);
        layout.strides.push_back(stride / itemsize);
        empty = empty || array.shape[d] == 0;
    }
    const auto address = reinterpret_cast<std::uintptr_t>(array.data);
    KAEL_CHECK_VALUE(address % static_cast<std::uintptr_t>(itemsize) == 0,
                     "the array's data is not aligned to its " << itemsize << "-byte elements");

    // The last element starts at the sum of (size - 1) * stride and ends itemsize bytes
    // later. An empty array reaches no byte at all, whatever its strides say.
    if (empty) {
        layout.nbytes = 0;
        return layout;
    }
    std::int64_t last = 0;
    for (std::size_t d = 0; d < array.shape.size(); ++d) {
        last = kael::detail::checked_add(
            last, kael::detail::checked_mul(array.shape[d] - 1, array.strides[d], "the array's extent"),
            "the array's extent");
    }
    layout.nbytes = kael::detail::checked_add(last, itemsize, "the array's extent");
    return layout;
}

}  // namespace exercise

#include "kael/shape.h"

#include <algorithm>
#include <sstream>

#include "kael/checked_math.h"
#include "kael/error.h"

namespace kael {

std::string to_string(std::span<const std::int64_t> values) {
    std::ostringstream text;
    text << '[';
    for (std::size_t i = 0; i < values.size(); ++i) {
        text << (i == 0 ? "" : ", ") << values[i];
    }
    text << ']';
    return text.str();
}

void validate_shape(const Shape& shape) {
    for (const std::int64_t size : shape) {
        KAEL_CHECK_VALUE(size >= 0, "negative dimension " << size << " in shape "
                                                          << to_string(shape));
    }
}

std::int64_t numel(const Shape& shape) {
    validate_shape(shape);
    // A zero anywhere means no elements, whatever the other sizes multiply to.
    if (std::find(shape.begin(), shape.end(), 0) != shape.end()) {
        return 0;
    }
    std::int64_t count = 1;
    for (const std::int64_t size : shape) {
        count = detail::checked_mul(count, size, "number of elements");
    }
    return count;
}

Strides contiguous_strides(const Shape& shape) {
    validate_shape(shape);
    Strides strides(shape.size());
    std::int64_t stride = 1;
    for (std::size_t i = shape.size(); i-- > 0;) {
        strides[i] = stride;
        if (i > 0) {  // the outermost size is never needed for a stride
            stride = detail::checked_mul(stride, std::max<std::int64_t>(shape[i], 1), "stride");
        }
    }
    return strides;
}

std::int64_t offset_from_index(const Shape& shape, const Strides& strides, std::int64_t offset,
                               std::span<const std::int64_t> index) {
    KAEL_CHECK_VALUE(shape.size() == strides.size(),
                     "shape " << to_string(shape) << " and strides " << to_string(strides)
                              << " have different numbers of dimensions");
    KAEL_CHECK_VALUE(index.size() == shape.size(), "got " << index.size()
                                                          << " indices for a tensor with "
                                                          << shape.size() << " dimensions");
    std::int64_t position = offset;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        KAEL_CHECK_INDEX(index[i] >= 0 && index[i] < shape[i],
                         "index " << index[i] << " is out of bounds for dimension " << i
                                  << " with size " << shape[i]);
        position = detail::checked_add(
            position, detail::checked_mul(index[i], strides[i], "element offset"),
            "element offset");
    }
    return position;
}

Index index_from_linear(std::int64_t linear, const Shape& shape) {
    const std::int64_t count = numel(shape);
    KAEL_CHECK_INDEX(linear >= 0 && linear < count,
                     "linear index " << linear << " is out of bounds for shape "
                                     << to_string(shape) << " with " << count << " elements");
    Index index(shape.size());
    for (std::size_t i = shape.size(); i-- > 0;) {
        index[i] = linear % shape[i];
        linear /= shape[i];
    }
    return index;
}

std::int64_t wrap_dim(std::int64_t dim, std::int64_t ndim) {
    KAEL_CHECK_VALUE(ndim >= 0, "number of dimensions must be non-negative, got " << ndim);
    // A 0-d tensor behaves like a 1-d tensor here, so reductions and softmax over "the last
    // dimension" of a scalar are allowed, as in PyTorch.
    const std::int64_t range = ndim == 0 ? 1 : ndim;
    KAEL_CHECK_INDEX(dim >= -range && dim < range,
                     "dimension out of range (expected to be in range of ["
                         << -range << ", " << range - 1 << "], but got " << dim << ")");
    return dim < 0 ? dim + range : dim;
}

std::size_t dim_position(std::int64_t dim, std::int64_t ndim) {
    KAEL_CHECK_INDEX(ndim > 0,
                     "dimension specified as " << dim << " but tensor has no dimensions");
    return static_cast<std::size_t>(wrap_dim(dim, ndim));
}

}  // namespace kael

// Reference solution of exercise 01.1.
#include <cstddef>

#include "exercise.h"
#include "kael/error.h"

namespace exercise {

void for_each_position(const kael::Shape& shape, const kael::Strides& strides,
                       std::int64_t offset, const PositionVisitor& visit) {
    KAEL_CHECK_VALUE(shape.size() == strides.size(),
                     "shape " << kael::to_string(shape) << " and strides "
                              << kael::to_string(strides) << " differ in length");
    KAEL_CHECK_VALUE(offset >= 0, "negative offset " << offset);
    for (std::size_t d = 0; d < shape.size(); ++d) {
        KAEL_CHECK_VALUE(shape[d] >= 0, "negative size " << shape[d] << " at dimension " << d);
        KAEL_CHECK_VALUE(strides[d] >= 0, "negative stride " << strides[d] << " at dimension " << d);
        if (shape[d] == 0) {
            return;  // no elements
        }
    }

    kael::Index index(shape.size(), 0);
    std::int64_t position = offset;
    while (true) {
        visit(index, position);
        // Advance the odometer: bump the last digit; when a digit wraps to 0, undo what it
        // added and carry into the digit to its left.
        std::size_t d = shape.size();
        while (d-- > 0) {
            position += strides[d];
            if (++index[d] < shape[d]) {
                break;
            }
            position -= strides[d] * shape[d];
            index[d] = 0;
        }
        if (d == static_cast<std::size_t>(-1)) {
            return;  // every digit wrapped: all elements visited (or a 0-d layout)
        }
    }
}

}  // namespace exercise

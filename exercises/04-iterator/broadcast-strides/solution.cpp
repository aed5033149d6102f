// Reference solution of exercise 04.1.
#include "exercise.h"
#include "kael/error.h"

namespace exercise {

kael::Strides broadcast_strides(const kael::Shape& shape, const kael::Strides& strides,
                                const kael::Shape& target) {
    KAEL_CHECK_VALUE(shape.size() == strides.size(),
                     "shape " << kael::to_string(shape) << " and strides "
                              << kael::to_string(strides) << " differ in length");
    kael::validate_shape(shape);
    kael::validate_shape(target);
    for (const std::int64_t stride : strides) {
        KAEL_CHECK_VALUE(stride >= 0, "negative stride in " << kael::to_string(strides));
    }
    KAEL_CHECK_VALUE(shape.size() <= target.size(),
                     "cannot broadcast shape " << kael::to_string(shape) << " to "
                                               << kael::to_string(target)
                                               << ": the target has fewer dimensions");
    // Added leading dimensions keep stride 0; the others are aligned at the last one.
    kael::Strides result(target.size(), 0);
    const std::size_t lead = target.size() - shape.size();
    for (std::size_t i = 0; i < shape.size(); ++i) {
        const std::int64_t size = shape[i];
        const std::int64_t wanted = target[lead + i];
        if (size == wanted) {
            result[lead + i] = strides[i];
        } else {
            KAEL_CHECK_VALUE(size == 1, "cannot broadcast shape "
                                            << kael::to_string(shape) << " to "
                                            << kael::to_string(target) << ": size " << size
                                            << " would have to become " << wanted
                                            << " at dimension " << lead + i);
            // result[lead + i] stays 0: every position along it reads the same element.
        }
    }
    return result;
}

}  // namespace exercise

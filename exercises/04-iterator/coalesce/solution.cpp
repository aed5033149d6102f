// Reference solution of exercise 04.2.
#include "exercise.h"
#include "kael/error.h"

namespace exercise {

Loop coalesce(const Loop& loop) {
    KAEL_CHECK_VALUE(!loop.strides.empty(), "a loop needs at least one operand");
    kael::validate_shape(loop.shape);
    for (const kael::Strides& strides : loop.strides) {
        KAEL_CHECK_VALUE(strides.size() == loop.shape.size(),
                         "strides " << kael::to_string(strides) << " do not fit the loop shape "
                                    << kael::to_string(loop.shape));
    }
    Loop result;
    result.strides.resize(loop.strides.size());
    for (std::size_t d = 0; d < loop.shape.size(); ++d) {
        const std::int64_t size = loop.shape[d];
        if (size == 1) {
            continue;  // a single index: it never steps, so it takes no part in the loop
        }
        bool merge = !result.shape.empty();
        for (std::size_t op = 0; merge && op < loop.strides.size(); ++op) {
            // One step along the outer dimension must equal a whole pass over the inner one.
            merge = result.strides[op].back() == loop.strides[op][d] * size;
        }
        if (!merge) {
            result.shape.push_back(size);
            for (std::size_t op = 0; op < loop.strides.size(); ++op) {
                result.strides[op].push_back(loop.strides[op][d]);
            }
            continue;
        }
        for (std::size_t op = 0; op < loop.strides.size(); ++op) {
            result.strides[op].back() = loop.strides[op][d];
        }
        result.shape.back() *= size;
    }
    return result;
}

}  // namespace exercise

// Reference solution of exercise 09.1.
#include <limits>

#include "exercise.h"
#include "kael/error.h"

namespace exercise {
namespace {

constexpr std::int64_t kLimit = std::numeric_limits<std::uint32_t>::max();

// The checks both functions share: sizes and strides are never negative, and every operand
// has one stride per dimension.
void validate(const kael::Shape& shape, const std::vector<kael::Strides>& strides) {
    kael::validate_shape(shape);
    for (const kael::Strides& operand : strides) {
        KAEL_CHECK_VALUE(operand.size() == shape.size(), "strides " << kael::to_string(operand)
                                                                    << " do not fit the loop shape "
                                                                    << kael::to_string(shape));
        for (const std::int64_t stride : operand) {
            KAEL_CHECK_VALUE(stride >= 0, "negative stride in " << kael::to_string(operand));
        }
    }
}

}  // namespace

std::vector<std::int64_t> byte_offsets(const kael::Shape& shape, const std::vector<kael::Strides>& strides,
                                       std::int64_t linear) {
    validate(shape, strides);
    const std::int64_t count = kael::numel(shape);
    KAEL_CHECK_INDEX(linear >= 0 && linear < count,
                     "position " << linear << " is outside a loop of " << count << " elements");
    std::vector<std::int64_t> offsets(strides.size(), 0);
    // Peel one coordinate off per dimension, innermost first: the remainder is the
    // coordinate, the quotient what is left for the outer dimensions. The coordinate is
    // found once and serves every operand.
    for (std::size_t d = shape.size(); d-- > 0;) {
        const std::int64_t coordinate = linear % shape[d];
        linear /= shape[d];
        for (std::size_t op = 0; op < strides.size(); ++op) {
            offsets[op] += coordinate * strides[op][d];
        }
    }
    return offsets;
}

bool fits_in_32_bits(const kael::Shape& shape, const std::vector<kael::Strides>& strides) {
    validate(shape, strides);
    for (const std::int64_t size : shape) {
        if (size == 0) {
            return true;  // no element, no index: nothing can go wrong
        }
    }
    // The element count, stopped as soon as it passes the limit: every factor is at least 1
    // and count <= kLimit < 2^32, so no product below reaches 2^63.
    std::int64_t count = 1;
    for (const std::int64_t size : shape) {
        if (size > kLimit / count) {
            return false;
        }
        count *= size;
    }
    // With no negative stride the last element lies farthest: its offset is the sum of
    // (size - 1) * stride. Each term is compared before it is formed, so none overflows.
    for (const kael::Strides& operand : strides) {
        std::int64_t last = 0;
        for (std::size_t d = 0; d < shape.size(); ++d) {
            const std::int64_t steps = shape[d] - 1;
            if (steps == 0) {
                continue;  // a size-1 dimension never moves, whatever its stride
            }
            if (operand[d] > (kLimit - last) / steps) {
                return false;
            }
            last += steps * operand[d];
        }
    }
    return true;
}

}  // namespace exercise

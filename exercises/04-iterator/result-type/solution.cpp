// Reference solution of exercise 04.3.
#include <optional>

#include "exercise.h"
#include "kael/error.h"
#include "kael/kernels.h"

namespace exercise {
namespace {

using Group = std::optional<kael::DType>;

void include(Group& group, kael::DType dtype) {
    group = group ? kael::promote_types(*group, dtype) : dtype;
}

// The higher-priority group decides unless the lower one is of a higher category; an
// empty group leaves the decision to the other.
Group combine(const Group& higher, const Group& lower) {
    if (!higher) {
        return lower;
    }
    if (!lower) {
        return higher;
    }
    return kael::combine_categories(*higher, *lower);
}

}  // namespace

kael::DType result_type(std::span<const Operand> operands) {
    KAEL_CHECK_VALUE(!operands.empty(), "result_type needs at least one operand");
    Group dimensioned;
    Group zero_dim;
    Group scalars;
    for (const Operand& operand : operands) {
        if (const auto* tensor = std::get_if<kael::Tensor>(&operand)) {
            include(tensor->dim() > 0 ? dimensioned : zero_dim, tensor->dtype());
        } else {
            // A scalar counts with the default dtype of its category: bool, int64, float32.
            include(scalars, std::get<kael::Scalar>(operand).dtype());
        }
    }
    return *combine(dimensioned, combine(zero_dim, scalars));
}

}  // namespace exercise

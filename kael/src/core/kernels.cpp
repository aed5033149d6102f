#include "kael/kernels.h"

#include <optional>

namespace kael {
namespace {

void include(std::optional<DType>& group, DType dtype) {
    group = group ? promote_types(*group, dtype) : dtype;
}

}  // namespace

DType result_dtype(std::span<const Tensor> tensors) {
    KAEL_CHECK(!tensors.empty(), "result_dtype needs at least one tensor");
    std::optional<DType> dimensioned;
    std::optional<DType> zero_dim;
    for (const Tensor& t : tensors) {
        include(t.dim() > 0 ? dimensioned : zero_dim, t.dtype());
    }
    if (!dimensioned) {
        return *zero_dim;
    }
    return zero_dim ? combine_categories(*dimensioned, *zero_dim) : *dimensioned;
}

DType result_dtype(const Tensor& a, const Tensor& b) {
    // The two-operand case of the rule above, without building a list (it runs per op).
    if ((a.dim() == 0) == (b.dim() == 0)) {
        return promote_types(a.dtype(), b.dtype());
    }
    const Tensor& dimensioned = a.dim() > 0 ? a : b;
    const Tensor& zero_dim = a.dim() > 0 ? b : a;
    return combine_categories(dimensioned.dtype(), zero_dim.dtype());
}

}  // namespace kael

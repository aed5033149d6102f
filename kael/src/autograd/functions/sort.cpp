// sort, argsort and topk as the user calls them (chapter 11). The positions come from the
// kernel below autograd; the values are gathered by them, so the gradient of a sorted
// value flows back to the element it came from through gather's backward, with no node of
// its own. A 0-d tensor is sorted as a run of one, as PyTorch allows.
#include "kael/ops/sort.h"

#include "kael/ops/indexing.h"
#include "ops/sort.h"

namespace kael {
namespace {

// The run to sort and the dimension to sort it along: a 0-d tensor becomes a run of one.
Tensor as_runs(const Tensor& t) { return t.dim() == 0 ? t.reshape({1}) : t; }

ValuesIndices ordered(const Tensor& t, std::int64_t dim, bool descending, std::int64_t count) {
    const Tensor runs = as_runs(t);
    Tensor indices = native::order_along(runs, dim, descending, count);
    Tensor values = gather(runs, dim, indices);
    if (t.dim() == 0) {
        return {values.reshape({}), indices.reshape({})};
    }
    return {values, indices};
}

std::int64_t run_length(const Tensor& t, std::int64_t dim) {
    if (t.dim() == 0) {
        static_cast<void>(wrap_dim(dim, 1));  // only 0 and -1 name the run of a 0-d tensor
        return 1;
    }
    return t.size(dim);
}

}  // namespace

ValuesIndices sort(const Tensor& t, std::int64_t dim, bool descending) {
    return ordered(t, dim, descending, run_length(t, dim));
}

Tensor argsort(const Tensor& t, std::int64_t dim, bool descending) {
    const Tensor runs = as_runs(t);
    const Tensor indices = native::order_along(runs, dim, descending, run_length(t, dim));
    return t.dim() == 0 ? indices.reshape({}) : indices;
}

ValuesIndices topk(const Tensor& t, std::int64_t k, std::int64_t dim, bool largest) {
    KAEL_CHECK_TYPE(t.dtype() != DType::Bool, "topk does not support dtype " << t.dtype());
    const std::int64_t length = run_length(t, dim);
    KAEL_CHECK(k >= 0 && k <= length,
               "topk: k = " << k << " is out of range for a dimension of size " << length);
    return ordered(t, dim, largest, k);
}

}  // namespace kael

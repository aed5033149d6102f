// Joining tensors and splitting them into views.
#include "kael/ops/join.h"

#include <algorithm>
#include <numeric>

#include "ops/native.h"
//> stage 10
#include "kael/device.h"
//< stage 10
#include "kael/factory.h"
#include "kael/ops/inplace.h"
#include "kael/kernels.h"

namespace kael {
namespace {

// A 1-d tensor with no elements joins anything: PyTorch skips these "legacy" empty tensors
// (an old way to write "nothing yet") when it checks and joins shapes.
bool is_legacy_empty(const Tensor& t) { return t.dim() == 1 && t.size(0) == 0; }

}  // namespace

}  // namespace kael

//> until 7
//| namespace kael {
//< until 7
//> stage 7
// From chapter 06 on this is the operation below autograd: kael::cat, what users call, is the
// autograd layer's (autograd/functions/join.cpp). stack, split and chunk are built from cat
// and views, which record themselves.
namespace kael::native {
//< stage 7

Tensor cat(const std::vector<Tensor>& tensors, std::int64_t dim) {
    KAEL_CHECK_VALUE(!tensors.empty(), "cat expects a non-empty list of tensors");
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        KAEL_CHECK_VALUE(tensors[i].dim() > 0, "cat cannot join 0-d tensors (tensor " << i << " is 0-d); use stack");
    }
    // The shapes are checked against the first tensor that is not skipped (if all are, the
    // result is empty like them). Every dtype counts for the result, skipped ones included.
    const auto joined = std::find_if(tensors.begin(), tensors.end(), [](const Tensor& t) { return !is_legacy_empty(t); });
    const Tensor& first = joined == tensors.end() ? tensors.front() : *joined;
    const DType dtype = result_dtype(tensors);
    const std::int64_t d = wrap_dim(dim, first.dim());
    Shape shape = first.shape();
    std::int64_t total = 0;
    for (const Tensor& t : tensors) {
        if (is_legacy_empty(t)) {
            continue;
        }
        KAEL_CHECK_VALUE(t.dim() == first.dim(), "cat expects tensors with the same number of dimensions, got "
                                                     << to_string(first.shape()) << " and " << to_string(t.shape()));
        for (std::int64_t i = 0; i < t.dim(); ++i) {
            KAEL_CHECK_VALUE(i == d || t.size(i) == first.size(i),
                             "cat: sizes must match except in dimension " << d << ", got "
                                                                          << to_string(first.shape()) << " and "
                                                                          << to_string(t.shape()));
        }
        total += t.size(d);
    }
    shape[static_cast<std::size_t>(d)] = total;
//> until 10
//|     Tensor out = empty(shape, dtype);
//< until 10
//> stage 10
    // The result lives where the inputs do; they must agree, as for any operation.
    for (const Tensor& t : tensors) {
        check_same_device(first.device(), t.device());
    }
    Tensor out = empty(shape, dtype, first.device());
//< stage 10
    std::int64_t offset = 0;
    for (const Tensor& t : tensors) {
        if (is_legacy_empty(t)) {
            continue;
        }
        Tensor piece = native::slice(out, d, offset, offset + t.size(d), 1);
        native::copy_(piece, t);
        offset += t.size(d);
    }
    return out;
}

}  // namespace

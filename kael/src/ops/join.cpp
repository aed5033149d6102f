// Joining tensors and splitting them into views.
#include "kael/ops/join.h"

#include <algorithm>
#include <numeric>

//> stage 10
#include "kael/device.h"
//< stage 10
#include "kael/factory.h"
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
        out.narrow(d, offset, t.size(d)).copy_(t);
        offset += t.size(d);
    }
    return out;
}

}  // namespace

namespace kael {

Tensor stack(const std::vector<Tensor>& tensors, std::int64_t dim) {
    KAEL_CHECK_VALUE(!tensors.empty(), "stack expects a non-empty list of tensors");
    const std::int64_t d = wrap_dim(dim, tensors.front().dim() + 1);
    std::vector<Tensor> expanded;
    for (const Tensor& t : tensors) {
        KAEL_CHECK_VALUE(t.shape() == tensors.front().shape(), "stack expects tensors of equal shape, got "
                                                                   << to_string(tensors.front().shape()) << " and "
                                                                   << to_string(t.shape()));
        expanded.push_back(t.unsqueeze(d));
    }
    return cat(expanded, d);
}

std::vector<Tensor> split(const Tensor& t, std::int64_t size, std::int64_t dim) {
    KAEL_CHECK_VALUE(t.dim() > 0, "split cannot split a 0-d tensor");
    const std::int64_t d = wrap_dim(dim, t.dim());
    const std::int64_t length = t.size(d);
    KAEL_CHECK_VALUE(size > 0 || (size == 0 && length == 0),
                     "split size must be positive, got " << size << " for a dimension of size " << length);
    std::vector<Tensor> pieces;
    if (length == 0) {
        pieces.push_back(t.narrow(d, 0, 0));
        return pieces;
    }
    for (std::int64_t start = 0; start < length; start += size) {
        pieces.push_back(t.narrow(d, start, std::min(size, length - start)));
    }
    return pieces;
}

std::vector<Tensor> split(const Tensor& t, const std::vector<std::int64_t>& sizes, std::int64_t dim) {
    KAEL_CHECK_VALUE(t.dim() > 0, "split cannot split a 0-d tensor");
    const std::int64_t d = wrap_dim(dim, t.dim());
    const std::int64_t total = std::accumulate(sizes.begin(), sizes.end(), std::int64_t{0});
    KAEL_CHECK_VALUE(total == t.size(d), "split sizes " << to_string(sizes) << " add up to " << total
                                                        << ", but dimension " << d << " has size " << t.size(d));
    std::vector<Tensor> pieces;
    std::int64_t start = 0;
    for (const std::int64_t size : sizes) {
        KAEL_CHECK_VALUE(size >= 0, "split sizes must be non-negative, got " << to_string(sizes));
        pieces.push_back(t.narrow(d, start, size));
        start += size;
    }
    return pieces;
}

std::vector<Tensor> chunk(const Tensor& t, std::int64_t chunks, std::int64_t dim) {
    KAEL_CHECK_VALUE(chunks > 0, "chunk expects a positive number of chunks, got " << chunks);
    KAEL_CHECK_VALUE(t.dim() > 0, "chunk cannot split a 0-d tensor");
    const std::int64_t d = wrap_dim(dim, t.dim());
    const std::int64_t length = t.size(d);
    if (length == 0) {
        return std::vector<Tensor>(static_cast<std::size_t>(chunks), t.narrow(d, 0, 0));
    }
    return split(t, (length + chunks - 1) / chunks, dim);
}

}  // namespace kael

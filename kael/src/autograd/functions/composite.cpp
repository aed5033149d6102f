// The operations made of other operations, with no kernel and no backward formula of their
// own: a loss built from log_softmax and nll_loss, a split made of narrow views, mm as a
// checked matmul, a number on one side of floor_divide turned into a tensor, ...
//
// They sit above the operations layer, in the layer whose functions users call, for the
// same reason as Tensor's methods (autograd/tensor_methods.cpp): the functions they compose
// are the operations layer's until chapter 06 and the autograd layer's differentiable ones
// from it, so each of these is differentiable from chapter 06 on without a line of its own.
#include <algorithm>
#include <numeric>
#include <vector>

#include "kael/factory.h"
#include "kael/kernels.h"
#include "kael/ops.h"
#include "kael/random.h"
//> stage 13
#include "autograd/functions/cross_entropy.h"
//< stage 13

namespace kael {

// ---- a number on either side ----------------------------------------------------------------

Tensor floor_divide(const Tensor& t, Scalar s) {
    return floor_divide(t, scalar(s, result_dtype(t, s)));
}

Tensor floor_divide(Scalar s, const Tensor& t) {
    return floor_divide(scalar(s, result_dtype(t, s)), t);
}

Tensor remainder(const Tensor& t, Scalar s) { return remainder(t, scalar(s, result_dtype(t, s))); }
Tensor remainder(Scalar s, const Tensor& t) { return remainder(scalar(s, result_dtype(t, s)), t); }

Tensor where(const Tensor& condition, const Tensor& a, Scalar b) {
    return where(condition, a, scalar(b, b.dtype()));
}

Tensor where(const Tensor& condition, Scalar a, const Tensor& b) {
    return where(condition, scalar(a, a.dtype()), b);
}

// ---- over every element ---------------------------------------------------------------------

Tensor sum(const Tensor& t) { return sum(t, {}, false); }
Tensor prod(const Tensor& t) { return prod(t, {}, false); }
Tensor mean(const Tensor& t) { return mean(t, {}, false); }

// ---- losses, dropout, embedding -------------------------------------------------------------

Tensor cross_entropy(const Tensor& logits, const Tensor& target, Reduction reduction, std::int64_t ignore_index) {
    KAEL_CHECK_VALUE(logits.dim() >= 1, "cross_entropy expects logits of shape [C], [N, C] or [N, C, d1, ...]");
//> stage 13
    if (autograd::fused_cross_entropy_applies(logits, target)) {
        return autograd::fused_cross_entropy(logits, target, reduction, ignore_index);  // chapter 12
    }
//< stage 13
    return nll_loss(log_softmax(logits, logits.dim() >= 2 ? 1 : 0), target, reduction, ignore_index);
}

Tensor mse_loss(const Tensor& a, const Tensor& b, Reduction reduction) {
    const Tensor difference = sub(a, b);
    const Tensor squares = mul(difference, difference);
    switch (reduction) {
    case Reduction::None:
        return squares;
    case Reduction::Sum:
        return sum(squares);
    case Reduction::Mean:
        return mean(squares);
    }
    detail::unreachable();
}

Tensor dropout(const Tensor& t, double p, bool training) {
    KAEL_CHECK_VALUE(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, got " << p);
    KAEL_CHECK_TYPE(is_floating_point(t.dtype()), "dropout only supports floating point dtypes, got " << t.dtype());
    // As in PyTorch: nothing to drop returns the input itself, and p = 1 multiplies by 0
    // rather than divide by 1 - p = 0. Either way the result stays in the graph.
    if (!training || p == 0 || t.numel() == 0) {
        return t;
    }
    if (p == 1) {
        return mul(t, 0.0);
    }
    // Keeping each element with probability 1 - p and scaling by 1 / (1 - p) leaves the
    // expected value of every element unchanged.
//> until 10
//|     const Tensor keep = bernoulli(t.shape(), 1 - p, t.dtype());
//< until 10
//> stage 10
    // Drawn on the host, from the one generator, and copied to t's device: the same mask
    // for the same seed on every device.
    const Tensor keep = bernoulli(t.shape(), 1 - p, t.dtype()).to(t.device());
//< stage 10
    return mul(mul(t, keep), 1.0 / (1.0 - p));
}

Tensor embedding(const Tensor& weight, const Tensor& indices) {
    KAEL_CHECK_VALUE(weight.dim() == 2, "embedding expects a weight matrix [V, D], got shape "
                                            << to_string(weight.shape()));
    KAEL_CHECK_TYPE(indices.dtype() == DType::I64, "embedding expects int64 indices, got dtype " << indices.dtype());
    Shape shape = indices.shape();
    shape.push_back(weight.size(1));
    return index_select(weight, 0, indices.reshape({-1})).view(shape);
}

// ---- joining and splitting ------------------------------------------------------------------

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

// ---- products -------------------------------------------------------------------------------

Tensor mm(const Tensor& a, const Tensor& b) {
    KAEL_CHECK_VALUE(a.dim() == 2 && b.dim() == 2,
                     "mm needs two matrices, got " << a.dim() << "-d and " << b.dim() << "-d tensors");
    return matmul(a, b);
}

Tensor bmm(const Tensor& a, const Tensor& b) {
    KAEL_CHECK_VALUE(a.dim() == 3 && b.dim() == 3,
                     "bmm needs two 3-d tensors, got " << a.dim() << "-d and " << b.dim() << "-d");
    KAEL_CHECK_VALUE(a.size(0) == b.size(0), "bmm: batch sizes " << a.size(0) << " and " << b.size(0)
                                                                 << " differ");
    return matmul(a, b);
}

Tensor outer(const Tensor& a, const Tensor& b) {
    KAEL_CHECK_VALUE(a.dim() == 1 && b.dim() == 1,
                     "outer needs two 1-d tensors, got " << a.dim() << "-d and " << b.dim() << "-d");
    return mul(a.unsqueeze(1), b.unsqueeze(0));
}

// ---- indexing -------------------------------------------------------------------------------

Tensor masked_fill(const Tensor& t, const Tensor& mask, Scalar value) {
    KAEL_CHECK_TYPE(mask.dtype() == DType::Bool, "masked_fill expects a bool mask, got dtype " << mask.dtype());
    // Out of place, the input and the mask broadcast together, as in PyTorch (where's
    // iterator refuses shapes that do not fit, naming both); only masked_fill_ must keep
    // the input's shape.
    return where(mask, scalar(value, t.dtype()), t);
}

}  // namespace kael

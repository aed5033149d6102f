// The differentiable reductions (ops/reduce.cpp). A reduction's gradient is the incoming
// gradient brought back to the input's shape (unreduce), times the derivative of what each
// output combined.
#include <cstddef>
#include <vector>

#include "autograd/functions/function.h"
#include "kael/factory.h"
#include "kael/ops/binary.h"
#include "kael/ops/compare.h"
#include "kael/ops/indexing.h"
#include "kael/ops/reduce.h"
#include "kael/ops/unary.h"
#include "ops/native.h"

namespace kael {
namespace {

using autograd::Grads;
using autograd::Node;
using autograd::SavedTensor;

// Which dimensions of a `rank`-d input a reduction over `dims` removes (none listed: all).
std::vector<bool> reduced_dimensions(std::size_t rank, const Dims& dims) {
    std::vector<bool> reduced(rank, dims.empty());
    for (const std::int64_t d : dims) {
        reduced[static_cast<std::size_t>(wrap_dim(d, static_cast<std::int64_t>(rank)))] = true;
    }
    return reduced;
}

// A reduction's gradient (or result) brought back to the input's shape: the reduced
// dimensions put back with size 1 where keepdim dropped them, then expanded.
Tensor unreduce(const Tensor& grad, const Shape& shape, const Dims& dims, bool keepdim) {
    Tensor g = grad;
    if (!keepdim) {
        const std::vector<bool> reduced = reduced_dimensions(shape.size(), dims);
        for (std::size_t d = 0; d < reduced.size(); ++d) {
            if (reduced[d]) {
                g = g.unsqueeze(static_cast<std::int64_t>(d));
            }
        }
    }
    return g.expand(shape);
}

// How many input elements each output of the reduction combines.
std::int64_t reduced_count(const Shape& shape, const Dims& dims) {
    const std::vector<bool> reduced = reduced_dimensions(shape.size(), dims);
    std::int64_t count = 1;
    for (std::size_t d = 0; d < shape.size(); ++d) {
        count *= reduced[d] ? shape[d] : 1;
    }
    return count;
}

// The product of the other elements of each reduced run, x's shape: r / x where a run has
// no zero; where it has one, the product of the rest at the zero and 0 elsewhere; 0
// everywhere in a run with two or more. Built from operations, so it is differentiable too.
Tensor product_of_others(const Tensor& x, const Dims& dims) {
    const Tensor is_zero = x == 0;
    const Tensor nonzero_product = unreduce(prod(where(is_zero, 1, x), dims, true), x.shape(), dims, true);
    const Tensor zero_count = unreduce(sum(is_zero, dims, true), x.shape(), dims, true);
    return where(is_zero, where(zero_count == 1, nonzero_product, 0),
                 where(zero_count == 0, nonzero_product / x, 0));
}

// PyTorch's subgradient of amax, amin, max() and min(): the gradient is shared evenly
// among the elements equal to the extreme.
template <typename Compute>
//> until 14
//| Tensor shared_among_extremes(const Tensor& t, const Dims& dims, bool keepdim, const char* name, Compute&& compute) {
//< until 14
//> stage 14
Tensor shared_among_extremes(const Tensor& t, const Dims& dims, bool keepdim, const char* name, Compute&& compute,
                             const std::source_location& caller = std::source_location::current()) {
//< stage 14
    return autograd::differentiable({t}, std::forward<Compute>(compute), [&](const Tensor& out) {
        autograd::record(out, name, {t}, [x = SavedTensor(t), result = SavedTensor::output(out), dims,
                                          keepdim](const Tensor& grad, Node& node) {
            const Tensor input = x.unpack(node);
            const Tensor is_extreme = input == unreduce(result.unpack(node), input.shape(), dims, keepdim);
            const Tensor count = unreduce(sum(is_extreme, dims, true), input.shape(), dims, true);
            return Grads{where(is_extreme, unreduce(grad, input.shape(), dims, keepdim) / count, 0)};
        });
//> until 14
//|     });
//< until 14
//> stage 14
    }, caller);
//< stage 14
}

// max(dim) and min(dim): the gradient goes to the position the indices name.
template <typename Compute>
ValuesIndices to_selected_extreme(const Tensor& t, std::int64_t dim, bool keepdim, const char* name, Compute&& compute) {
    ValuesIndices out = autograd::below_autograd(compute);
    if (!autograd::should_record(t)) {
        return out;
    }
    autograd::record(out.values, name, {t}, [shape = t.shape(), saved = SavedTensor(out.indices), dim,
                                             keepdim](const Tensor& grad, Node& node) {
        const Tensor indices = saved.unpack(node);
        const Tensor where_from = keepdim || shape.empty() ? indices : indices.unsqueeze(dim);
        const Tensor values = keepdim || shape.empty() ? grad : grad.unsqueeze(dim);
        if (shape.empty()) {
            return Grads{values};
        }
        return Grads{scatter_add(zeros(shape, grad.dtype(), grad.device()), dim, where_from, values)};
    });
    return out;
}

// The sums from each position to the end of `dim`: a running sum of the reversed gradient,
// reversed back. Each is a sum of the terms it needs and nothing else; the shorter formula
// total - running sum + own subtracts two large sums and loses float32 digits on long rows.
Tensor sums_to_the_end(const Tensor& grad, std::int64_t dim) {
    const std::int64_t length = grad.size(dim);
    const Tensor reversed = arange(static_cast<double>(length - 1), -1, -1, DType::I64).to(grad.device());
    return index_select(cumsum(index_select(grad, dim, reversed), dim), dim, reversed);
}

}  // namespace

// ---- sums, means, products ------------------------------------------------------------------------

Tensor sum(const Tensor& t, const Dims& dims, bool keepdim) {
    return autograd::linear(t, "SumBackward", [&] { return native::sum(t, dims, keepdim); },
                            [shape = t.shape(), dims, keepdim](const Tensor& grad) {
                                return unreduce(grad, shape, dims, keepdim);
                            });
}

Tensor prod(const Tensor& t, const Dims& dims, bool keepdim) {
    return autograd::with_input_saved(t, "ProdBackward", [&] { return native::prod(t, dims, keepdim); },
                                      [dims, keepdim](const Tensor& grad, const Tensor& x) {
                                          return unreduce(grad, x.shape(), dims, keepdim) * product_of_others(x, dims);
                                      });
}

Tensor mean(const Tensor& t, const Dims& dims, bool keepdim) {
    return autograd::linear(t, "MeanBackward", [&] { return native::mean(t, dims, keepdim); },
                            [shape = t.shape(), dims, keepdim](const Tensor& grad) {
                                return unreduce(grad, shape, dims, keepdim) /
                                       static_cast<double>(reduced_count(shape, dims));
                            });
}

// ---- extremes ---------------------------------------------------------------------------------------

Tensor amax(const Tensor& t, const Dims& dims, bool keepdim) {
    return shared_among_extremes(t, dims, keepdim, "AmaxBackward", [&] { return native::amax(t, dims, keepdim); });
}

Tensor amin(const Tensor& t, const Dims& dims, bool keepdim) {
    return shared_among_extremes(t, dims, keepdim, "AminBackward", [&] { return native::amin(t, dims, keepdim); });
}

Tensor max(const Tensor& t) {
    return shared_among_extremes(t, {}, false, "MaxBackward", [&] { return native::max(t); });
}

Tensor min(const Tensor& t) {
    return shared_among_extremes(t, {}, false, "MinBackward", [&] { return native::min(t); });
}

ValuesIndices max(const Tensor& t, std::int64_t dim, bool keepdim) {
    return to_selected_extreme(t, dim, keepdim, "MaxBackward", [&] { return native::max(t, dim, keepdim); });
}

ValuesIndices min(const Tensor& t, std::int64_t dim, bool keepdim) {
    return to_selected_extreme(t, dim, keepdim, "MinBackward", [&] { return native::min(t, dim, keepdim); });
}

// ---- variance, logsumexp ----------------------------------------------------------------------------

// d/dx_i of sum (x - mean)^2 / (N - correction) is 2 (x_i - mean) / (N - correction).
Tensor var(const Tensor& t, const Dims& dims, double correction, bool keepdim) {
    return autograd::with_input_saved(t, "VarBackward", [&] { return native::var(t, dims, correction, keepdim); },
                                      [dims, correction, keepdim](const Tensor& grad, const Tensor& x) {
                                          const double divisor =
                                              static_cast<double>(reduced_count(x.shape(), dims)) - correction;
                                          return unreduce(grad, x.shape(), dims, keepdim) *
                                                 (x - mean(x, dims, true)) * (2 / divisor);
                                      });
}

// std = sqrt(var): its gradient is var's divided by 2 std.
Tensor std(const Tensor& t, const Dims& dims, double correction, bool keepdim) {
    return autograd::differentiable({t}, [&] { return native::std(t, dims, correction, keepdim); }, [&](const Tensor& v) {
        autograd::record(v, "StdBackward", {t}, [x = SavedTensor(t), result = SavedTensor::output(v), dims, correction,
                                                 keepdim](const Tensor& grad, Node& node) {
            const Tensor input = x.unpack(node);
            const double divisor = static_cast<double>(reduced_count(input.shape(), dims)) - correction;
            // Where the deviation is 0 the derivative of sqrt is infinite; PyTorch gives 0
            // there (every term of it is 0 then), and so does kael.
            const Tensor deviation = result.unpack(node);
            const Tensor scale = unreduce(where(deviation == 0, 0, grad / deviation), input.shape(), dims, keepdim);
            return Grads{scale * (input - mean(input, dims, true)) / divisor};
        });
    });
}

// d/dx_i log sum exp(x) = exp(x_i - logsumexp(x)), the softmax of the run.
Tensor logsumexp(const Tensor& t, const Dims& dims, bool keepdim) {
    return autograd::differentiable({t}, [&] { return native::logsumexp(t, dims, keepdim); }, [&](const Tensor& out) {
        autograd::record(out, "LogsumexpBackward", {t}, [x = SavedTensor(t), saved = SavedTensor::output(out), dims,
                                                         keepdim](const Tensor& grad, Node& node) {
            const Tensor input = x.unpack(node);
            const Tensor total = unreduce(saved.unpack(node), input.shape(), dims, keepdim);
            return Grads{unreduce(grad, input.shape(), dims, keepdim) * exp(input - total)};
        });
    });
}

// ---- cumulative sum ---------------------------------------------------------------------------------

// Each input element reaches every later output: its gradient is the sum of the output
// gradients from its own position to the end of the row.
Tensor cumsum(const Tensor& t, std::int64_t dim) {
    return autograd::linear(t, "CumsumBackward", [&] { return native::cumsum(t, dim); }, [dim](const Tensor& grad) {
        return grad.dim() == 0 ? grad : sums_to_the_end(grad, dim);
    });
}

}  // namespace kael

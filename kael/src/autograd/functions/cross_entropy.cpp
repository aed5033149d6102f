// Cross entropy as one node (chapter 12). Composed, log_softmax and nll_loss record two
// nodes whose backward passes build three [N, C] arrays (nll_loss's scattered gradient, the
// exponentials, their product) for GPT-2's N x 50,257 logits; this node saves the logits,
// which the head's output already holds, and one number per row, and writes the gradient in
// one pass (ops/nn.cpp, cross_entropy_rows).
#include "autograd/functions/cross_entropy.h"

#include <optional>

#include "autograd/functions/function.h"
#include "kael/factory.h"
#include "kael/ops.h"
#include "ops/native.h"

namespace kael::autograd {
namespace {

// d total / d loss_i for every row: the output's gradient itself with no reduction, spread
// over the rows for a sum, and divided among the rows that count for a mean.
Tensor row_gradients(const Tensor& grad, Reduction reduction, std::int64_t rows, std::int64_t used) {
    switch (reduction) {
    case Reduction::None:
        return grad.reshape({rows});
    case Reduction::Sum:
        return grad.expand({rows});
    case Reduction::Mean:
        return div(grad, static_cast<double>(used)).expand({rows});
    }
    detail::unreachable();
}

// The same gradient as differentiable operations, for a backward pass that is itself
// recorded (create_graph): (softmax(x) - one_hot(target)) scaled per row, ignored rows 0.
Tensor recorded_gradient(const Tensor& logits, const Tensor& labels, const Tensor& row_grads,
                         std::int64_t ignore_index) {
    const std::int64_t classes = logits.size(1);
    const Tensor counted = labels != ignore_index;
    const Tensor one_hot = eq(arange(static_cast<double>(classes), DType::I64).unsqueeze(0), labels.unsqueeze(1));
    const Tensor weights = where(counted, row_grads, 0.0).unsqueeze(1);
    return mul(sub(softmax(logits, 1), one_hot.to(logits.dtype())), weights);
}

}  // namespace

bool fused_cross_entropy_applies(const Tensor& logits, const Tensor& target) {
    return logits.dim() == 2 && target.dim() == 1 && target.size(0) == logits.size(0) &&
           logits.device() == Device::CPU && target.device() == Device::CPU && is_floating_point(logits.dtype()) &&
           target.dtype() == DType::I64;
}

Tensor fused_cross_entropy(const Tensor& logits, const Tensor& target, Reduction reduction,
                           std::int64_t ignore_index) {
    std::optional<native::CrossEntropyRows> rows;
    return differentiable(
        {logits},
        [&] {
            rows.emplace(native::cross_entropy_rows(logits, target, reduction, ignore_index));
            return rows->loss;
        },
        [&](const Tensor& out) {
            record(out, "CrossEntropyBackward", {logits},
                   [x = SavedTensor(logits), labels = SavedTensor(target), sums = SavedTensor(rows->log_sums),
                    reduction, ignore_index, used = rows->used](const Tensor& grad, Node& node) {
                       const Tensor input = x.unpack(node);
                       const Tensor targets = labels.unpack(node);
                       const Tensor row_grads = row_gradients(grad, reduction, targets.numel(), used);
                       if (is_grad_enabled()) {
                           return Grads{recorded_gradient(input, targets, row_grads, ignore_index)};
                       }
                       return Grads{native::cross_entropy_rows_backward(input, targets, sums.unpack(node), row_grads,
                                                                        ignore_index)};
                   });
        });
}

}  // namespace kael::autograd

// The differentiable functions of neural networks that have formulas of their own
// (ops/nn.cpp): softmax, log_softmax, the negative log-likelihood and layer_norm. The
// losses and layers built from other operations (cross_entropy, mse_loss, dropout,
// embedding) are differentiable through those.
#include "autograd/functions/function.h"
#include "kael/factory.h"
#include "kael/ops/binary.h"
#include "kael/ops/compare.h"
#include "kael/ops/indexing.h"
#include "kael/ops/nn.h"
#include "kael/ops/reduce.h"
#include "kael/ops/unary.h"
#include "ops/native.h"

namespace kael {

using autograd::Grads;
using autograd::Node;
using autograd::SavedTensor;

// dx = y * (dy - sum(dy * y)) along the row: the Jacobian of softmax is diag(y) - y y^T.
Tensor softmax(const Tensor& t, std::int64_t dim) {
    return autograd::with_output_saved(t, "SoftmaxBackward", [&] { return native::softmax(t, dim); },
                                       [dim](const Tensor& grad, const Tensor& y) {
                                           if (y.dim() == 0) {
                                               return grad * 0;
                                           }
                                           return y * (grad - sum(grad * y, {dim}, true));
                                       });
}

// dx = dy - softmax(x) * sum(dy) along the row, with softmax(x) = exp(y).
Tensor log_softmax(const Tensor& t, std::int64_t dim) {
    return autograd::with_output_saved(t, "LogSoftmaxBackward", [&] { return native::log_softmax(t, dim); },
                                       [dim](const Tensor& grad, const Tensor& y) {
                                           if (y.dim() == 0) {
                                               return grad * 0;
                                           }
                                           return grad - exp(y) * sum(grad, {dim}, true);
                                       });
}

// Each loss is -log_probs[i, target_i]: its gradient is -1 (divided by the count for the
// mean) at that one position of its row, and 0 elsewhere and for ignored targets.
Tensor nll_loss(const Tensor& log_probs, const Tensor& target, Reduction reduction, std::int64_t ignore_index) {
    return autograd::differentiable({log_probs}, [&] { return native::nll_loss(log_probs, target, reduction, ignore_index); },
                                    [&](const Tensor& out) {
        autograd::record(out, "NllLossBackward", {log_probs}, [saved = SavedTensor(target), reduction,
                                                               ignore_index](const Tensor& grad, Node& node) {
            const Tensor labels = saved.unpack(node);
            const Shape& shape = node.input_meta()[0].shape;
            const bool batched = shape.size() >= 2;
            const std::int64_t classes = shape[batched ? 1 : 0];
            const Tensor targets = labels.reshape({-1});
            const Tensor counted = targets != ignore_index;
            const Tensor safe_targets = where(counted, targets, 0);
            const Tensor per_loss = reduction == Reduction::None ? grad.reshape({-1}) : grad.expand({targets.numel()});
            const double used = sum(counted).item();
            const double scale = reduction == Reduction::Mean ? -1.0 / used : -1.0;
            const Tensor weights = where(counted, per_loss * scale, 0);
            const Tensor grad_rows = scatter_add(zeros({targets.numel(), classes}, grad.dtype(), grad.device()), 1,
                                                 safe_targets.unsqueeze(1), weights.unsqueeze(1));
            if (!batched) {
                return Grads{grad_rows.view(shape)};
            }
            // Undo the forward's move of the class dimension to the end.
            Shape moved = shape;
            moved.erase(moved.begin() + 1);
            moved.push_back(classes);
            return Grads{grad_rows.view(moved).unsqueeze(1).transpose(1, -1).squeeze(-1)};
        });
    });
}

// With x^ = (x - mean) * rstd over the normalized dimensions and g = dy * w:
// dx = rstd * (g - mean(g) - x^ * mean(g * x^)), dw = sum of dy * x^, db = sum of dy,
// written with operations so that layer_norm has second derivatives too.
Tensor layer_norm(const Tensor& t, const Shape& normalized_shape, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps) {
    return autograd::differentiable({t, weight, bias},
                                    [&] { return native::layer_norm(t, normalized_shape, weight, bias, eps); },
                                    [&](const Tensor& out) {
        const auto trailing = static_cast<std::int64_t>(normalized_shape.size());
        autograd::record(out, "NativeLayerNormBackward", {t, weight, bias},
                         [x = SavedTensor(t), w = weight ? std::optional(SavedTensor(*weight)) : std::nullopt, trailing,
                          eps](const Tensor& grad, Node& node) {
                             const Tensor input = x.unpack(node);
                             Dims normalized;
                             Dims leading;
                             for (std::int64_t d = 0; d < input.dim(); ++d) {
                                 (d >= input.dim() - trailing ? normalized : leading).push_back(d);
                             }
                             const Tensor centered = input - mean(input, normalized, true);
                             const Tensor rstd = rsqrt(mean(centered * centered, normalized, true) + eps);
                             const Tensor normed = centered * rstd;
                             Grads grads(3);
                             if (node.needs_input_grad(0)) {
                                 const Tensor g = w ? grad * w->unpack(node) : grad;
                                 grads[0] = rstd * (g - mean(g, normalized, true) -
                                                    normed * mean(g * normed, normalized, true));
                             }
                             if (node.needs_input_grad(1)) {
                                 grads[1] = leading.empty() ? grad * normed : sum(grad * normed, leading);
                             }
                             if (node.needs_input_grad(2)) {
                                 grads[2] = leading.empty() ? grad : sum(grad, leading);
                             }
                             return grads;
                         });
    });
}

}  // namespace kael

// nn::clip_grad_norm_: one norm over every gradient, one scale applied to all of them.
#include "kael/nn/clip_grad.h"

#include <cmath>

#include "kael/autograd/grad_mode.h"
#include "kael/error.h"
#include "kael/factory.h"
#include "kael/ops/binary.h"
#include "kael/ops/join.h"
#include "kael/ops/reduce.h"
#include "kael/ops/unary.h"

namespace kael::nn {
namespace {

// The p-norm of one tensor's elements, as a 0-d tensor of its dtype.
Tensor norm_of(const Tensor& t, double p) {
    if (std::isinf(p)) {
        return t.numel() == 0 ? zeros({}, t.dtype(), t.device()) : amax(abs(t));
    }
    if (p == 2) {
        return sqrt(sum(mul(t, t)));
    }
    return pow(sum(pow(abs(t), p)), 1.0 / p);
}

}  // namespace

Tensor clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
    KAEL_CHECK_VALUE(max_norm >= 0, "clip_grad_norm_ expects max_norm >= 0, got " << max_norm);
    KAEL_CHECK_VALUE(norm_type >= 1, "clip_grad_norm_ expects norm_type >= 1 (or infinity), got " << norm_type);
    const autograd::NoGradGuard no_grad;  // clipping edits gradients; it is not part of a graph
    std::vector<Tensor> grads;
    for (const Tensor& p : parameters) {
        if (std::optional<Tensor> g = p.grad()) {
            grads.push_back(*g);
        }
    }
    if (grads.empty()) {
        return zeros({});
    }
    // As PyTorch: the norm of each gradient, then the norm of those norms, which equals the
    // norm of everything concatenated without building the concatenation.
    std::vector<Tensor> norms;
    norms.reserve(grads.size());
    for (const Tensor& g : grads) {
        norms.push_back(norm_of(g, norm_type).to(grads.front().dtype()));
    }
    const Tensor total = norm_of(stack(norms), norm_type);
    const double total_value = total.item();
    KAEL_CHECK(!error_if_nonfinite || std::isfinite(total_value),
               "The total norm of order " << norm_type << " for gradients from `parameters` is non-finite, "
                                          "so it cannot be clipped. To disable this error and scale the "
                                          "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`");
    // The coefficient is computed in the gradients' dtype, as PyTorch does, so the scaled
    // gradients agree to the bit. A NaN norm makes a NaN coefficient, which the clamp keeps: the
    // gradients become NaN instead of hiding the problem.
    const Tensor coefficient = clamp(div(scalar(max_norm, total.dtype()), add(total, 1e-6)), std::nullopt, 1.0);
    if (!(coefficient.item() >= 1.0)) {
        for (Tensor& g : grads) {
            g.mul_(coefficient);
        }
    }
    return total;
}

}  // namespace kael::nn

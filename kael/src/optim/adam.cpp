// Adam and AdamW, step for step as torch.optim.Adam and AdamW (single-tensor path).
#include "kael/optim/adam.h"

#include <cmath>

#include "kael/autograd/grad_mode.h"
#include "kael/error.h"
#include "kael/factory.h"
#include "kael/ops/binary.h"
#include "kael/ops/unary.h"

namespace kael::optim {

Adam::Adam(std::vector<Tensor> parameters, const AdamOptions& options) : Adam(std::move(parameters), options, false) {}

Adam::Adam(std::vector<Tensor> parameters, const AdamOptions& options, bool decoupled_weight_decay)
    : Optimizer(std::move(parameters), options.lr), options_(options), decoupled_(decoupled_weight_decay),
      steps_(parameters_.size(), 0), exp_avg_(parameters_.size()), exp_avg_sq_(parameters_.size()),
      max_exp_avg_sq_(parameters_.size()) {
    KAEL_CHECK_VALUE(options.eps >= 0, "Invalid epsilon value: " << options.eps);
    KAEL_CHECK_VALUE(options.beta1 >= 0 && options.beta1 < 1, "Invalid beta parameter at index 0: " << options.beta1);
    KAEL_CHECK_VALUE(options.beta2 >= 0 && options.beta2 < 1, "Invalid beta parameter at index 1: " << options.beta2);
    KAEL_CHECK_VALUE(options.weight_decay >= 0, "Invalid weight_decay value: " << options.weight_decay);
}

void Adam::step() {
    const autograd::NoGradGuard no_grad;
    const double beta1 = options_.beta1;
    const double beta2 = options_.beta2;
    for (std::size_t i = 0; i < parameters_.size(); ++i) {
        Tensor& p = parameters_[i];
        const std::optional<Tensor> maybe_grad = p.grad();
        if (!maybe_grad) {
            continue;
        }
        Tensor grad = *maybe_grad;
        if (!exp_avg_[i]) {
            exp_avg_[i] = zeros_like(p);
            exp_avg_sq_[i] = zeros_like(p);
            if (options_.amsgrad) {
                max_exp_avg_sq_[i] = zeros_like(p);
            }
        }
        const auto t = static_cast<double>(++steps_[i]);
        if (options_.weight_decay != 0) {
            if (decoupled_) {
                p.mul_(1 - learning_rate_ * options_.weight_decay);  // AdamW: shrink the parameter
            } else {
                grad = add(grad, p, options_.weight_decay);  // Adam: L2 through the gradient
            }
        }
        Tensor& m = *exp_avg_[i];
        Tensor& v = *exp_avg_sq_[i];
        m.mul_(beta1).add_(grad, 1 - beta1);
        v.mul_(beta2).add_(mul(grad, grad), 1 - beta2);
        const double bias_correction1 = 1 - std::pow(beta1, t);
        const double bias_correction2_sqrt = std::sqrt(1 - std::pow(beta2, t));
        const double step_size = learning_rate_ / bias_correction1;
        Tensor second = v;
        if (options_.amsgrad) {
            max_exp_avg_sq_[i]->copy_(maximum(*max_exp_avg_sq_[i], v));
            second = *max_exp_avg_sq_[i];
        }
        const Tensor denominator = sqrt(second) / bias_correction2_sqrt + options_.eps;
        p.add_(m / denominator, -step_size);
    }
}

AdamW::AdamW(std::vector<Tensor> parameters, const AdamOptions& options) : Adam(std::move(parameters), options, true) {}

}  // namespace kael::optim

// Adam and AdamW, step for step as torch.optim.Adam and AdamW (single-tensor path).
#include "kael/optim/adam.h"

#include <algorithm>
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

namespace {

// The constants of one parameter's update at step t.
struct AdamStep {
    double lr, beta1, beta2, eps, weight_decay;
    bool decoupled, amsgrad;
    double step_size;              // lr / (1 - beta1^t)
    double bias_correction2_sqrt;  // sqrt(1 - beta2^t)
};

// The update as tensor operations, in PyTorch's order and with its in-place steps, so the
// rounding is PyTorch's. It works for any layout and device; update_fused below is the
// same arithmetic in one pass for the common case.
void update_with_ops(Tensor& p, Tensor grad, Tensor& m, Tensor& v, std::optional<Tensor>& max_v, const AdamStep& c) {
    if (c.weight_decay != 0) {
        if (c.decoupled) {
            p.mul_(1 - c.lr * c.weight_decay);  // AdamW: shrink the parameter
        } else {
            grad = add(grad, p, c.weight_decay);  // Adam: L2 through the gradient
        }
    }
    m.mul_(c.beta1).add_(grad, 1 - c.beta1);
    v.mul_(c.beta2).add_(mul(grad, grad), 1 - c.beta2);
    Tensor second = v;
    if (c.amsgrad) {
        max_v->copy_(maximum(*max_v, v));
        second = *max_v;
    }
    Tensor denominator = sqrt(second);
    denominator.div_(c.bias_correction2_sqrt).add_(c.eps);
    p.add_(div(m, denominator), -c.step_size);
}

// The same update element by element, as llm.c's AdamW kernel: one pass that reads the
// parameter, its gradient and both running means once, instead of ten passes over them
// with three temporaries. Each line rounds where the tensor version rounds (the constants
// are converted to T first, as PyTorch converts a Python float for a float32 tensor).
template <typename T>
void update_fused(T* p, const T* g, T* m, T* v, T* max_v, std::int64_t n, const AdamStep& c) {
    const T beta1 = static_cast<T>(c.beta1);
    const T beta2 = static_cast<T>(c.beta2);
    const T one_minus_beta1 = static_cast<T>(1 - c.beta1);
    const T one_minus_beta2 = static_cast<T>(1 - c.beta2);
    const T decay = static_cast<T>(c.weight_decay);
    const T shrink = static_cast<T>(1 - c.lr * c.weight_decay);
    const T correction2 = static_cast<T>(c.bias_correction2_sqrt);
    const T eps = static_cast<T>(c.eps);
    const T step_size = static_cast<T>(-c.step_size);
    for (std::int64_t i = 0; i < n; ++i) {
        T grad = g[i];
        if (c.weight_decay != 0) {
            if (c.decoupled) {
                p[i] = p[i] * shrink;
            } else {
                grad = grad + decay * p[i];
            }
        }
        m[i] = m[i] * beta1 + one_minus_beta1 * grad;
        v[i] = v[i] * beta2 + one_minus_beta2 * (grad * grad);
        T second = v[i];
        if (max_v != nullptr) {
            max_v[i] = std::max(max_v[i], v[i]);
            second = max_v[i];
        }
        const T denominator = std::sqrt(second) / correction2 + eps;
        p[i] = p[i] + step_size * (m[i] / denominator);
    }
}

// The fused loop needs every array on the CPU, contiguous and of one dtype; a parameter
// that is a view or lives on another device takes the tensor path.
bool can_fuse(const Tensor& p, const Tensor& grad) {
    return p.device() == Device::CPU && p.is_contiguous() && grad.is_contiguous() && grad.dtype() == p.dtype() &&
           grad.device() == Device::CPU;
}

}  // namespace

void Adam::step() {
    const autograd::NoGradGuard no_grad;
    for (std::size_t i = 0; i < parameters_.size(); ++i) {
        Tensor& p = parameters_[i];
        const std::optional<Tensor> grad = p.grad();
        if (!grad) {
            continue;
        }
        if (!exp_avg_[i]) {
            exp_avg_[i] = zeros_like(p);
            exp_avg_sq_[i] = zeros_like(p);
            if (options_.amsgrad) {
                max_exp_avg_sq_[i] = zeros_like(p);
            }
        }
        const auto t = static_cast<double>(++steps_[i]);
        const AdamStep c{learning_rate_,
                         options_.beta1,
                         options_.beta2,
                         options_.eps,
                         options_.weight_decay,
                         decoupled_,
                         options_.amsgrad,
                         learning_rate_ / (1 - std::pow(options_.beta1, t)),
                         std::sqrt(1 - std::pow(options_.beta2, t))};
        if (can_fuse(p, *grad)) {
            dispatch_floating(p.dtype(), "Adam", [&]<typename T>() {
                update_fused<T>(p.data_ptr<T>(), grad->data_ptr<T>(), exp_avg_[i]->data_ptr<T>(),
                                exp_avg_sq_[i]->data_ptr<T>(),
                                options_.amsgrad ? max_exp_avg_sq_[i]->data_ptr<T>() : nullptr, p.numel(), c);
            });
            // The parameter changed without an operation that would count it: bump its
            // version so a graph that saved the old value refuses to use it.
            p.impl()->storage->bump_version();
        } else {
            update_with_ops(p, *grad, *exp_avg_[i], *exp_avg_sq_[i], max_exp_avg_sq_[i], c);
        }
    }
}

AdamW::AdamW(std::vector<Tensor> parameters, const AdamOptions& options) : Adam(std::move(parameters), options, true) {}

}  // namespace kael::optim

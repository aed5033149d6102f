// SGD, step for step as torch.optim.SGD (single-tensor path).
#include "kael/optim/sgd.h"

#include "kael/autograd/grad_mode.h"
#include "kael/error.h"
#include "kael/ops/binary.h"

namespace kael::optim {

Sgd::Sgd(std::vector<Tensor> parameters, const SgdOptions& options)
    : Optimizer(std::move(parameters), options.lr), options_(options), momentum_buffers_(parameters_.size()) {
    KAEL_CHECK_VALUE(options.momentum >= 0, "Invalid momentum value: " << options.momentum);
    KAEL_CHECK_VALUE(options.weight_decay >= 0, "Invalid weight_decay value: " << options.weight_decay);
    KAEL_CHECK_VALUE(!options.nesterov || (options.momentum > 0 && options.dampening == 0),
                     "Nesterov momentum requires a momentum and zero dampening");
}

void Sgd::step() {
    const autograd::NoGradGuard no_grad;
    for (std::size_t i = 0; i < parameters_.size(); ++i) {
        Tensor& p = parameters_[i];
        const std::optional<Tensor> grad = p.grad();
        if (!grad) {
            continue;
        }
        Tensor direction = options_.weight_decay != 0 ? add(*grad, p, options_.weight_decay) : *grad;
        if (options_.momentum != 0) {
            std::optional<Tensor>& buffer = momentum_buffers_[i];
            if (!buffer) {
                buffer = direction.clone();  // the first step starts the buffer at d, undamped
            } else {
                buffer->mul_(options_.momentum).add_(direction, 1 - options_.dampening);
            }
            direction = options_.nesterov ? add(direction, *buffer, options_.momentum) : *buffer;
        }
        p.add_(direction, -learning_rate_);
    }
}

}  // namespace kael::optim

// Reference solution of exercise 07.2.
#include "exercise.h"
#include "kael/autograd.h"
#include "kael/error.h"
#include "kael/ops.h"

namespace exercise {

MomentumSgd::MomentumSgd(std::vector<kael::Tensor> parameters, const MomentumOptions& options)
    : Optimizer(std::move(parameters), options.lr), options_(options), buffers_(parameters_.size()) {
    KAEL_CHECK_VALUE(options.momentum >= 0, "Invalid momentum value: " << options.momentum);
    KAEL_CHECK_VALUE(!options.nesterov || (options.momentum > 0 && options.dampening == 0),
                     "Nesterov momentum requires a momentum and zero dampening");
}

void MomentumSgd::step() {
    const kael::autograd::NoGradGuard no_grad;  // the update is not part of any graph
    for (std::size_t i = 0; i < parameters_.size(); ++i) {
        kael::Tensor& p = parameters_[i];
        const std::optional<kael::Tensor> grad = p.grad();
        if (!grad) {
            continue;  // no gradient, no step, and the buffer does not start
        }
        kael::Tensor direction = *grad;
        if (options_.momentum != 0) {
            std::optional<kael::Tensor>& buffer = buffers_[i];
            if (!buffer) {
                // A copy: the gradient tensor is the caller's, zeroed or accumulated in place
                // by the next zero_grad(false) and backward().
                buffer = grad->clone();
            } else {
                buffer->mul_(options_.momentum).add_(*grad, 1 - options_.dampening);
            }
            direction = options_.nesterov ? kael::add(*grad, *buffer, options_.momentum) : *buffer;
        }
        p.add_(direction, -learning_rate_);  // the rate of this step, which a schedule may have set
    }
}

const std::optional<kael::Tensor>& MomentumSgd::momentum_buffer(std::size_t index) const {
    KAEL_CHECK_INDEX(index < buffers_.size(),
                     "parameter " << index << " is out of range for an optimizer of " << buffers_.size());
    return buffers_[index];
}

}  // namespace exercise

// SGD, step for step as torch.optim.SGD (single-tensor path).
#include "kael/optim/sgd.h"

#include "kael/autograd/grad_mode.h"
#include "kael/error.h"
#include "kael/factory.h"
#include "kael/ops/binary.h"
#include "kael/ops/unary.h"

namespace kael::optim {

namespace {

// The constructor's checks, which a loaded state dict passes too.
void check_options(const SgdOptions& options) {
    KAEL_CHECK_VALUE(options.momentum >= 0, "Invalid momentum value: " << options.momentum);
    KAEL_CHECK_VALUE(options.weight_decay >= 0, "Invalid weight_decay value: " << options.weight_decay);
    KAEL_CHECK_VALUE(!options.nesterov || (options.momentum > 0 && options.dampening == 0),
                     "Nesterov momentum requires a momentum and zero dampening");
}

}  // namespace

Sgd::Sgd(std::vector<Tensor> parameters, const SgdOptions& options)
    : Optimizer(std::move(parameters), options.lr), options_(options), momentum_buffers_(parameters_.size()) {
    check_options(options);
}

void Sgd::step() {
    const autograd::NoGradGuard no_grad;
    for (std::size_t i = 0; i < parameters_.size(); ++i) {
        Tensor& p = parameters_[i];
        const std::optional<Tensor> grad = p.grad();
        if (!grad) {
            continue;
        }
        const Tensor gradient = options_.maximize ? neg(*grad) : *grad;
        Tensor direction = options_.weight_decay != 0 ? add(gradient, p, options_.weight_decay) : gradient;
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

const std::optional<Tensor>& Sgd::momentum_buffer(std::size_t index) const {
    KAEL_CHECK_INDEX(index < parameters_.size(),
                     "SGD has " << parameters_.size() << " parameters, there is no parameter " << index);
    return momentum_buffers_[index];
}

void Sgd::set_momentum(double momentum) {
    KAEL_CHECK_VALUE(momentum >= 0, "Invalid momentum value: " << momentum);
    options_.momentum = momentum;
}

void Sgd::save_parameter_state(std::size_t index, nn::StateDict& out) const {
    // PyTorch keeps a None buffer for a parameter stepped without momentum; a flattened dict
    // has no None, so such a parameter has no entry, which loads back as "no buffer".
    if (momentum_buffers_[index]) {
        out.insert(state_key(static_cast<std::int64_t>(index), "momentum_buffer"), *momentum_buffers_[index]);
    }
}

void Sgd::save_hyperparameters(nn::StateDict& out) const {
    out.insert(group_key("momentum"), scalar(options_.momentum, DType::F64));
    out.insert(group_key("dampening"), scalar(options_.dampening, DType::F64));
    out.insert(group_key("weight_decay"), scalar(options_.weight_decay, DType::F64));
    out.insert(group_key("nesterov"), scalar(options_.nesterov, DType::Bool));
    out.insert(group_key("maximize"), scalar(options_.maximize, DType::Bool));
}

void Sgd::load_state(StateDictReader& reader, const std::vector<std::int64_t>& saved_ids) {
    SgdOptions options;
    options.momentum = reader.number(group_key("momentum"));
    options.dampening = reader.number(group_key("dampening"));
    options.weight_decay = reader.number(group_key("weight_decay"));
    options.nesterov = reader.flag(group_key("nesterov"));
    options.maximize = reader.flag(group_key("maximize"));
    check_options(options);
    std::vector<std::optional<Tensor>> buffers;
    for (std::size_t i = 0; i < parameters_.size(); ++i) {
        buffers.push_back(reader.buffer(state_key(saved_ids[i], "momentum_buffer"), parameters_[i]));
    }
    reader.finish();
    options.lr = options_.lr;  // the constructor's; the base restores the current rate
    options_ = options;
    momentum_buffers_ = std::move(buffers);
}

}  // namespace kael::optim

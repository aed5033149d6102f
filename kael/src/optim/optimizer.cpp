// The optimizer base: parameter checks, zero_grad, the learning rate.
#include "kael/optim/optimizer.h"

#include <unordered_set>

#include "kael/autograd/engine.h"
#include "kael/error.h"

namespace kael::optim {

Optimizer::Optimizer(std::vector<Tensor> parameters, double learning_rate)
    : parameters_(std::move(parameters)), learning_rate_(learning_rate) {
    KAEL_CHECK_VALUE(learning_rate >= 0, "Invalid learning rate: " << learning_rate);
    std::unordered_set<const TensorImpl*> seen;
    for (std::size_t i = 0; i < parameters_.size(); ++i) {
        const Tensor& p = parameters_[i];
        KAEL_CHECK(p.is_leaf(), "can't optimize a non-leaf tensor (parameter " << i
                                    << " was computed from other tensors; optimize those, or detach() it)");
        KAEL_CHECK(is_floating_point(p.dtype()),
                   "optimizer parameters must be floating point, parameter " << i << " has dtype " << p.dtype());
        // PyTorch accepts such a tensor and never updates it; refusing it finds the forgotten
        // requires_grad_() on the first line instead of after an epoch of a frozen model.
        KAEL_CHECK_VALUE(p.requires_grad(), "optimizer parameter " << i << " does not require grad, so it would "
                                            "never get a gradient to step with; call requires_grad_() on it");
        // Keyed on the impl: two handles of one tensor are one parameter, updated once.
        KAEL_CHECK_VALUE(seen.insert(p.impl().get()).second, "parameter " << i << " appears twice in the list");
    }
}

void Optimizer::zero_grad(bool set_to_none) { autograd::zero_grad(parameters_, set_to_none); }

void Optimizer::set_learning_rate(double learning_rate) {
    KAEL_CHECK_VALUE(learning_rate >= 0, "Invalid learning rate: " << learning_rate);
    learning_rate_ = learning_rate;
}

}  // namespace kael::optim

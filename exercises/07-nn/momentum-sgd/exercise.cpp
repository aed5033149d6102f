// Your implementation of exercise 07.2. See README.md for the task.
#include "exercise.h"

#include <stdexcept>

namespace exercise {

MomentumSgd::MomentumSgd(std::vector<kael::Tensor> parameters, const MomentumOptions& options)
    : Optimizer(std::move(parameters), options.lr), options_(options), buffers_(parameters_.size()) {
    throw std::logic_error("exercise 07.2 (momentum-sgd) is not implemented yet");
}

void MomentumSgd::step() { throw std::logic_error("exercise 07.2 (momentum-sgd) is not implemented yet"); }

const std::optional<kael::Tensor>& MomentumSgd::momentum_buffer(std::size_t /*index*/) const {
    throw std::logic_error("exercise 07.2 (momentum-sgd) is not implemented yet");
}

}  // namespace exercise

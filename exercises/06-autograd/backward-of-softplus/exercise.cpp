// Your implementation of exercise 06.1. See README.md for the task.
#include "exercise.h"

#include <stdexcept>

namespace exercise {

kael::Tensor softplus(const kael::Tensor& /*x*/, double /*beta*/, double /*threshold*/) {
    throw std::logic_error("exercise 06.1 (backward-of-softplus) is not implemented yet");
}

}  // namespace exercise

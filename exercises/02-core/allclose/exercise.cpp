// Your implementation of exercise 02.1. See README.md for the task.
#include "exercise.h"

#include <stdexcept>

namespace exercise {

bool allclose(const kael::Tensor& /*a*/, const kael::Tensor& /*b*/, double /*rtol*/,
              double /*atol*/, bool /*equal_nan*/) {
    throw std::logic_error("exercise 02.1 (allclose) is not implemented yet");
}

}  // namespace exercise

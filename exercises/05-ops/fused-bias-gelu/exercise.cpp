// Your implementation of exercise 05.2. See README.md for the task.
#include "exercise.h"

#include <stdexcept>

namespace exercise {

kael::Tensor bias_gelu(const kael::Tensor& /*x*/, const kael::Tensor& /*bias*/,
                       std::string_view /*approximate*/) {
    throw std::logic_error("exercise 05.2 (fused-bias-gelu) is not implemented yet");
}

}  // namespace exercise

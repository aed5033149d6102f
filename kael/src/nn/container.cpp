// nn::Sequential: a chain of one-tensor modules.
#include "kael/nn/container.h"

#include "kael/error.h"

namespace kael::nn {

Sequential::Sequential(std::vector<std::shared_ptr<UnaryModule>> modules) {
    for (auto& module : modules) {
        push_back(std::move(module));
    }
}

void Sequential::push_back(std::shared_ptr<UnaryModule> module) {
    register_module(std::to_string(modules_.size()), module);
    modules_.push_back(std::move(module));
}

const std::shared_ptr<UnaryModule>& Sequential::operator[](std::size_t index) const {
    KAEL_CHECK_INDEX(index < modules_.size(),
                     "index " << index << " is out of range for a Sequential of size " << modules_.size());
    return modules_[index];
}

Tensor Sequential::forward(const Tensor& input) {
    Tensor x = input;
    for (const auto& module : modules_) {
        x = (*module)(x);  // a call, as the user's own would be (chapter 13 records it)
    }
    return x;
}

}  // namespace kael::nn

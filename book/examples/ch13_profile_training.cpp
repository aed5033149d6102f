// Chapter 13, "Reading a profile": one training step of chapter 07's 784-512-256-10
// network, profiled. Random inputs of a batch of 128 stand in for Fashion-MNIST, so the
// program needs no data files. A first step runs unprofiled, so that Adam's state exists
// and the allocator's cache holds a step's blocks; the second step is the one recorded.
//
// The model is chapter 07's, written as a module whose forward calls each layer through its
// operator(), so that each layer gets a row; the optimizer's step, a fused loop that passes
// no recording point, is wrapped in a scope of its own.
#include <iostream>
#include <memory>
#include <string>

#include "kael/kael.h"
#include "kael/parallel.h"

namespace {

using kael::Tensor;
using kael::nn::Linear;
using kael::nn::ReLU;

// book-region: model
class Classifier : public kael::nn::UnaryModule {
public:
    Classifier()
        : fc1(register_module("fc1", std::make_shared<Linear>(784, 512))),
          fc2(register_module("fc2", std::make_shared<Linear>(512, 256))),
          fc3(register_module("fc3", std::make_shared<Linear>(256, 10))),
          relu(register_module("relu", std::make_shared<ReLU>())) {}

    Tensor forward(const Tensor& x) override { return (*fc3)((*relu)((*fc2)((*relu)((*fc1)(x))))); }
    std::string name() const override { return "Classifier"; }

    std::shared_ptr<Linear> fc1;
    std::shared_ptr<Linear> fc2;
    std::shared_ptr<Linear> fc3;
    std::shared_ptr<ReLU> relu;
};
// end-book-region: model

}  // namespace

int main() {
    kael::set_num_threads(1);  // one thread: one track, and a table of the same shape every run
    kael::manual_seed(0);
    Classifier model;
    kael::optim::Adam adam(model.parameters(), {.lr = 1e-3});
    const Tensor images = kael::randn({128, 784});
    const Tensor labels = kael::randint(0, 10, {128});

    // book-region: step
    auto step = [&] {
        adam.zero_grad();
        const Tensor loss = kael::cross_entropy(model(images), labels);
        loss.backward();
        const kael::profiler::Scope update("Adam.step", "optimizer");
        adam.step();
    };
    step();  // warm-up: Adam's state and the allocator's cache

    kael::Profiler profiler;
    step();
    profiler.stop();
    std::cout << profiler.summary(12);
    // end-book-region: step
    return 0;
}

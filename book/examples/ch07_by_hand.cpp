// Chapter 07, "Neural networks and training": the training loop of "Why this layer exists",
// written with chapters 05 and 06 alone, and the filter that keeps frozen parameters away
// from an optimizer. The loop trains on stand-ins for Fashion-MNIST: random "images" whose
// label is the block of pixels that is brightest on average, a rule a network can learn.
#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "kael/kael.h"

namespace {

using kael::Tensor;

void section(std::string_view name) { std::cout << "--- section: " << name << " ---\n"; }

}  // namespace

int main() {
    kael::manual_seed(0);
    section("by-hand");
    const Tensor images = kael::rand({512, 784});
    const Tensor labels = images.slice(1, 0, 780).reshape({512, 10, 78}).mean({2}).argmax(1);

    // book-region: by-hand-loop
    Tensor w1 = kael::rand({784, 256}).sub(0.5).mul(0.07);  w1.requires_grad_();
    Tensor b1 = kael::zeros({256});                          b1.requires_grad_();
    Tensor w2 = kael::rand({256, 10}).sub(0.5).mul(0.12);   w2.requires_grad_();
    Tensor b2 = kael::zeros({10});                           b2.requires_grad_();
    for (int step = 0; step < 200; ++step) {
        const std::int64_t start = (step % 16) * 32;
        Tensor x = images.slice(0, start, start + 32), y = labels.slice(0, start, start + 32);
        Tensor loss = kael::cross_entropy(kael::relu(x.matmul(w1) + b1).matmul(w2) + b2, y);
        loss.backward();
        kael::autograd::NoGradGuard no_grad;
        for (Tensor* p : {&w1, &b1, &w2, &b2}) {
            p->sub_(p->grad()->mul(0.1));
            p->set_grad(std::nullopt);
        }
    }
    // end-book-region: by-hand-loop
    const auto loss_on_all = [&] {
        kael::autograd::NoGradGuard no_grad;
        return kael::cross_entropy(kael::relu(images.matmul(w1) + b1).matmul(w2) + b2, labels).item<float>();
    };
    std::cout << "loss on all 512 images after 200 steps: " << loss_on_all() << '\n';

    section("trainable");
    auto model = std::make_shared<kael::nn::Sequential>(std::vector<std::shared_ptr<kael::nn::UnaryModule>>{
        std::make_shared<kael::nn::Linear>(4, 3), std::make_shared<kael::nn::Linear>(3, 2)});
    model->parameters()[0].requires_grad_(false);  // freeze the first layer's weight
    // book-region: trainable
    std::vector<kael::Tensor> trainable;
    for (const kael::Tensor& p : model->parameters()) {
        if (p.requires_grad()) {
            trainable.push_back(p);
        }
    }
    kael::optim::AdamW adamw(trainable);
    // end-book-region: trainable
    std::cout << model->parameters().size() << " parameters, " << trainable.size() << " trainable\n";
}

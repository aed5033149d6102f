// Chapter 07, "Neural networks and training": one Adam step worked by hand, the rates of
// two schedules, gradient clipping, the batches of a shuffled DataLoader, and a small
// network trained on XOR with Adam and a warmup-then-cosine schedule.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string_view>
#include <vector>

#include "kael/kael.h"

namespace {

using kael::Tensor;

void section(std::string_view name) { std::cout << "--- section: " << name << " ---\n"; }

Tensor leaf(std::vector<double> values) {
    Tensor t = kael::from_vector(values);
    t.requires_grad_();
    return t;
}

}  // namespace

int main() {
    section("adam-first-step");
    {
        // Whatever the size of the gradient, Adam's first step moves each parameter by
        // about lr in the direction against the gradient's sign.
        Tensor p = leaf({1.0, 1.0, 1.0});
        kael::optim::Adam adam({p}, {.lr = 0.1});
        p.set_grad(kael::from_vector<double>({1000.0, 0.001, -2.0}));
        adam.step();
        std::printf("after step 1: %.8f %.8f %.8f\n", p.at<double>({0}), p.at<double>({1}), p.at<double>({2}));
        p.set_grad(kael::from_vector<double>({1000.0, 0.001, 2.0}));
        adam.step();
        std::printf("after step 2: %.8f %.8f %.8f\n", p.at<double>({0}), p.at<double>({1}), p.at<double>({2}));
    }

    section("schedules");
    {
        Tensor p = leaf({0.0});
        kael::optim::Sgd a({p}, {.lr = 0.1});
        kael::optim::StepLR step_lr(a, 3, 0.5);
        kael::optim::Sgd b({p}, {.lr = 0.1});
        kael::optim::CosineWithWarmupLR cosine(b, 3, 10);
        std::printf("step  StepLR(3, 0.5)  CosineWithWarmupLR(3, 10)\n");
        for (int step = 0; step <= 11; ++step) {
            std::printf("%4d  %14.6f  %25.6f\n", step, step_lr.last_lr(), cosine.last_lr());
            step_lr.step();
            cosine.step();
        }
    }

    section("clip");
    {
        Tensor w = leaf({0.0, 0.0});
        Tensor b = leaf({0.0});
        w.set_grad(kael::from_vector<double>({3.0, 0.0}));
        b.set_grad(kael::from_vector<double>({4.0}));
        const Tensor total = kael::nn::clip_grad_norm_({w, b}, 1.0);
        std::cout << "total norm before clipping: " << total.item() << '\n';
        std::cout << "w.grad() = " << *w.grad() << '\n';
        std::cout << "b.grad() = " << *b.grad() << '\n';
    }

    section("loader");
    {
        kael::manual_seed(0);
        const Tensor rows = kael::arange(10.0).reshape({10, 1});
        const Tensor labels = kael::from_vector<std::int64_t>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
        const kael::data::DataLoader loader(kael::data::TensorDataset({rows, labels}),
                                            {.batch_size = 4, .shuffle = true});
        std::cout << loader.size() << " batches per epoch\n";
        for (int epoch = 1; epoch <= 2; ++epoch) {
            std::cout << "epoch " << epoch << ':';
            for (const std::vector<Tensor>& batch : loader) {
                std::cout << " [";
                for (std::int64_t i = 0; i < batch[1].numel(); ++i) {
                    std::cout << (i == 0 ? "" : " ") << batch[1].at<std::int64_t>({i});
                }
                std::cout << ']';
            }
            std::cout << '\n';
        }
    }

    section("xor");
    {
        kael::manual_seed(0);
        // book-region: xor-loop
        using kael::nn::Linear;
        kael::nn::Sequential model({std::make_shared<Linear>(2, 8), std::make_shared<kael::nn::GELU>(),
                                    std::make_shared<Linear>(8, 2)});
        const Tensor x = kael::from_vector<float>({0, 0, 0, 1, 1, 0, 1, 1}, {4, 2});
        const Tensor y = kael::from_vector<std::int64_t>({0, 1, 1, 0});
        kael::optim::Adam adam(model.parameters(), {.lr = 0.05});
        kael::optim::CosineWithWarmupLR schedule(adam, 10, 150);
        for (int step = 0; step < 150; ++step) {
            const double lr = adam.learning_rate();  // the rate this step trains with
            adam.zero_grad();
            const Tensor loss = kael::cross_entropy(model(x), y);
            loss.backward();
            kael::nn::clip_grad_norm_(model.parameters(), 1.0);
            adam.step();
            schedule.step();
            if (step % 15 == 0 || step == 149) {
                std::printf("step %3d  lr %.5f  loss %.5f\n", step, lr, loss.item());
            }
        }
        // end-book-region: xor-loop
        const kael::autograd::NoGradGuard no_grad;
        model.eval();
        std::cout << "predictions: " << kael::argmax(model(x), 1) << '\n';
    }
    return 0;
}

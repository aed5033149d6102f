// Chapter 07, "Neural networks and training": a model printed as PyTorch prints it, its
// named parameters, a module of our own with a tied weight, the state dict that lists the
// tie under both names, refused checkpoints, a move under an optimizer, the layout of a
// Linear weight's gradient, and Dropout in training and evaluation mode.
#include <iostream>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "kael/kael.h"

namespace {

using kael::DType;
using kael::Tensor;

void section(std::string_view name) { std::cout << "--- section: " << name << " ---\n"; }

template <typename Body> void print_error(Body body) {
    try {
        body();
        std::cout << "no exception\n";
    } catch (const kael::Error& e) {
        std::cout << e.what() << '\n';
    }
}

std::shared_ptr<kael::nn::Sequential> mlp() {
    using kael::nn::Linear;
    using kael::nn::ReLU;
    return std::make_shared<kael::nn::Sequential>(std::vector<std::shared_ptr<kael::nn::UnaryModule>>{
        std::make_shared<Linear>(4, 8), std::make_shared<ReLU>(), std::make_shared<Linear>(8, 3)});
}

// The elements of a float32 tensor, in order.
std::vector<float> values(const Tensor& t) {
    const Tensor c = t.contiguous();
    return {c.data_ptr<float>(), c.data_ptr<float>() + c.numel()};
}

void print_named(const kael::nn::Module& module) {
    for (const auto& [name, p] : module.named_parameters()) {
        std::cout << name << ": shape " << kael::to_string(p.shape()) << ", " << p.dtype() << ", requires_grad "
                  << p.requires_grad() << '\n';
    }
}

// book-region: tiny-lm
// A language model in miniature: token embeddings, a layer norm, and an output layer that
// reuses the embedding table as its weight (weight tying, as GPT-2 does).
class TinyLanguageModel : public kael::nn::UnaryModule {
public:
    TinyLanguageModel(std::int64_t vocabulary, std::int64_t width)
        : embed(register_module("embed", std::make_shared<kael::nn::Embedding>(vocabulary, width))),
          norm(register_module("norm", std::make_shared<kael::nn::LayerNorm>(kael::Shape{width}))),
          head_weight(register_parameter("head_weight", embed->weight)) {}

    Tensor forward(const Tensor& tokens) override {
        return kael::matmul(norm->forward(embed->forward(tokens)), head_weight.mT());
    }
    std::string name() const override { return "TinyLanguageModel"; }

    std::shared_ptr<kael::nn::Embedding> embed;
    std::shared_ptr<kael::nn::LayerNorm> norm;
    Tensor head_weight;  // the same tensor as embed->weight
};
// end-book-region: tiny-lm

}  // namespace

int main() {
    std::cout << std::boolalpha;
    kael::manual_seed(0);

    section("print");
    {
        auto model = mlp();
        std::cout << *model << '\n';
        print_named(*model);
        std::int64_t count = 0;
        for (const Tensor& p : model->parameters()) {
            count += p.numel();
        }
        std::cout << model->parameters().size() << " tensors, " << count << " numbers\n";
    }

    section("tied");
    {
        TinyLanguageModel model(10, 4);
        std::cout << model << '\n';
        print_named(model);
        std::cout << "embed->weight is head_weight: " << model.embed->weight.is_same(model.head_weight) << '\n';
        std::cout << "state_dict keys:";
        for (const std::string& key : model.state_dict().keys()) {
            std::cout << ' ' << key;
        }
        std::cout << '\n';
    }

    section("tied-gradient");
    {
        TinyLanguageModel model(10, 4);
        kael::optim::Sgd sgd(model.parameters(), {.lr = 0.1});
        const Tensor tokens = kael::from_vector<std::int64_t>({1, 2, 3});
        const Tensor targets = kael::from_vector<std::int64_t>({2, 3, 4});
        kael::cross_entropy(model(tokens), targets).backward();
        // One gradient, the sum over both uses of the table, seen through both names.
        std::cout << "one gradient for both names: " << model.embed->weight.grad()->is_same(*model.head_weight.grad())
                  << '\n';
        std::cout << "rows 0 and 1 of the gradient: " << model.head_weight.grad()->narrow(0, 0, 2) << '\n';
        sgd.step();
        std::cout << "the optimizer holds " << sgd.parameters().size() << " tensors\n";
        std::vector<Tensor> twice{model.embed->weight, model.head_weight};
        print_error([&] { kael::optim::Sgd again(twice, {.lr = 0.1}); });
    }

    section("refused-load");
    {
        auto model = mlp();
        const std::vector<float> before = values(model->parameters()[0]);
        kael::nn::StateDict renamed;
        for (const auto& [key, tensor] : model->state_dict()) {
            renamed.insert(key == "2.bias" ? "2.b" : key, tensor.clone());
        }
        print_error([&] { model->load_state_dict(renamed); });
        kael::nn::StateDict resized;
        for (const auto& [key, tensor] : model->state_dict()) {
            resized.insert(key, key == "2.weight" ? kael::zeros({4, 8}) : kael::zeros_like(tensor));
        }
        print_error([&] { model->load_state_dict(resized); });
        std::cout << "first weight unchanged: " << (values(model->parameters()[0]) == before) << '\n';
    }

    section("move");
    {
        auto model = mlp();
        kael::optim::Adam adam(model->parameters(), {.lr = 1e-3});
        model->to(DType::F64);
        const auto& first = adam.parameters()[0];
        std::cout << "the optimizer's first tensor is the model's: " << first.is_same(model->parameters()[0])
                  << ", dtype " << first.dtype() << ", leaf " << first.is_leaf() << ", requires_grad "
                  << first.requires_grad() << '\n';
        kael::cross_entropy((*model)(kael::ones({2, 4}, DType::F64)), kael::from_vector<std::int64_t>({0, 2}))
            .backward();
        adam.step();
        std::cout << "after a step in float64: " << adam.parameters()[3] << '\n';
    }

    section("gradient-layout");
    {
        kael::nn::Linear linear(3, 2);
        const Tensor transposed = linear.weight.mT();  // what forward multiplies by
        std::cout << "weight " << kael::to_string(linear.weight.shape()) << " strides "
                  << kael::to_string(linear.weight.strides()) << "; weight.mT() strides "
                  << kael::to_string(transposed.strides()) << '\n';
        // The hook sees the gradient as it arrives at the weight's AccumulateGrad.
        linear.weight.register_hook([](const Tensor& g) -> std::optional<Tensor> {
            std::cout << "arriving gradient strides " << kael::to_string(g.strides()) << ", contiguous "
                      << g.is_contiguous() << '\n';
            return std::nullopt;
        });
        kael::sum(linear(kael::ones({5, 3}))).backward();
        std::cout << "weight.grad(): shape " << kael::to_string(linear.weight.grad()->shape()) << ", strides "
                  << kael::to_string(linear.weight.grad()->strides()) << ", contiguous "
                  << linear.weight.grad()->is_contiguous() << '\n';
    }

    section("dropout");
    {
        kael::nn::Dropout dropout(0.5);
        const Tensor x = kael::ones({8});
        std::cout << "training: " << dropout(x) << '\n';
        dropout.eval();
        std::cout << "eval:     " << dropout(x) << '\n';
    }
    return 0;
}

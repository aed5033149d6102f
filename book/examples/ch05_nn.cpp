// Chapter 05, "Functions for neural networks": stable softmax and log_softmax, cross
// entropy with ignore_index, layer_norm, dropout and embedding, on real values.
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <limits>
#include <string_view>

#include "kael/kael.h"

namespace {

using kael::DType;
using kael::Reduction;
using kael::Tensor;
using I = std::int64_t;

void section(std::string_view name) { std::cout << "--- section: " << name << " ---\n"; }

template <typename Body> void print_error(Body body) {
    try {
        body();
        std::cout << "no exception\n";
    } catch (const kael::Error& e) {
        std::cout << e.what() << '\n';
    }
}

}  // namespace

int main() {
    const float inf = std::numeric_limits<float>::infinity();

    section("softmax");
    {
        const Tensor x = kael::from_vector({1000.f, 1000.f, 999.f});
        const Tensor e = kael::exp(x);
        std::cout << "x                      " << x << '\n';
        std::cout << "exp(x) / sum(exp(x))   " << e / kael::sum(e) << '\n';
        std::cout << "softmax(x, 0)          " << kael::softmax(x, 0) << '\n';
        std::cout << "log(softmax(x, 0))     " << kael::log(kael::softmax(x, 0)) << '\n';
        std::cout << "log_softmax(x, 0)      " << kael::log_softmax(x, 0) << '\n';
        const Tensor far = kael::from_vector({0.f, -200.f});
        std::cout << "log(softmax([0, -200]))  " << kael::log(kael::softmax(far, 0)) << '\n';
        std::cout << "log_softmax([0, -200])   " << kael::log_softmax(far, 0) << '\n';
        std::cout << "softmax([0, -inf], 0)    " << kael::softmax(kael::from_vector({0.f, -inf}), 0) << '\n';
        const Tensor m = kael::arange(0, 6, 1, DType::F32).view({2, 3});
        std::cout << "softmax(m, 1) rows     " << kael::softmax(m, 1) << '\n';
        std::cout << "sum over dim 1         " << kael::sum(kael::softmax(m, 1), {1}) << '\n';
        print_error([] { (void)kael::softmax(kael::from_vector({I{1}, I{2}}), 0); });
    }

    section("cross-entropy");
    {
        const Tensor logits = kael::from_vector({1.f, 2.f, 3.f, 1.f, 1.f, 1.f, 0.f, 5.f, 0.f}, {3, 3});
        const Tensor target = kael::from_vector({I{2}, I{0}, I{-100}});
        std::cout << std::setprecision(7);
        std::cout << "logits [[1, 2, 3], [1, 1, 1], [0, 5, 0]], target [2, 0, -100]\n";
        std::cout << "reduction None  " << kael::cross_entropy(logits, target, Reduction::None) << '\n';
        std::cout << "reduction Sum   " << kael::cross_entropy(logits, target, Reduction::Sum).item<float>() << '\n';
        std::cout << "reduction Mean  " << kael::cross_entropy(logits, target).item<float>()
                  << "   (the sum over 2 counted targets, not 3)\n";
        const Tensor all_ignored = kael::from_vector({I{-100}, I{-100}, I{-100}});
        std::cout << "every target ignored, Mean  " << kael::cross_entropy(logits, all_ignored).item<float>() << '\n';
        print_error([&] { (void)kael::cross_entropy(logits, kael::from_vector({I{3}, I{0}, I{1}})); });
        print_error([&] { (void)kael::cross_entropy(logits, kael::from_vector({2.0, 0.0, 1.0})); });
        print_error([&] { (void)kael::cross_entropy(logits, kael::from_vector({I{0}, I{1}})); });
    }

    section("layer-norm");
    {
        const Tensor x = kael::from_vector({1.0, 2.0, 3.0, 10.0, 20.0, 30.0}, {2, 3});
        const Tensor y = kael::layer_norm(x, {3});
        std::cout << "layer_norm([[1, 2, 3], [10, 20, 30]], {3})  " << y << '\n';
        std::cout << "mean over dim 1  " << kael::mean(y, {1}) << '\n';
        std::cout << "var over dim 1 (biased)  " << kael::var(y, {1}, 0) << '\n';
        const Tensor scaled = kael::layer_norm(x, {3}, kael::full({3}, 2.0, DType::F64), kael::full({3}, 1.0, DType::F64));
        std::cout << "weight 2, bias 1  " << scaled << '\n';
        print_error([&] { (void)kael::layer_norm(x, {2}); });
    }

    section("dropout");
    {
        kael::manual_seed(3);
        const Tensor x = kael::ones({10});
        std::cout << "dropout(ones({10}), 0.5)          " << kael::dropout(x, 0.5) << '\n';
        std::cout << "dropout(x, 0.5, training=false) is x itself: " << std::boolalpha
                  << kael::dropout(x, 0.5, false).is_same(x) << '\n';
        const Tensor big = kael::dropout(kael::ones({1'000'000}), 0.25);
        std::cout << "mean of dropout(ones({1000000}), 0.25) = " << kael::mean(big).item<float>() << '\n';
        std::cout << "dropout(x, 1.0)  " << kael::dropout(kael::ones({3}), 1.0) << '\n';
        print_error([&] { (void)kael::dropout(x, 1.5); });
    }

    section("embedding");
    {
        const Tensor weight = kael::arange(0, 8, 1, DType::F32).view({4, 2});
        const Tensor ids = kael::from_vector({I{3}, I{0}, I{3}, I{1}}, {2, 2});
        const Tensor rows = kael::embedding(weight, ids);
        std::cout << "weight [[0, 1], [2, 3], [4, 5], [6, 7]], ids [[3, 0], [3, 1]]\n";
        std::cout << "embedding  " << rows << '\n';
        print_error([&] { (void)kael::embedding(weight, kael::from_vector({I{4}})); });
    }
    return 0;
}

// Chapter 06, "Autograd": a first backward pass, leaves and non-leaves, a tensor used
// twice, accumulation into grad(), retain_grad and hooks, grad mode and detach, and the
// errors of a second backward and of a gradient the engine cannot make up, and the second
// backward that nodes which saved nothing allow.
#include <iostream>
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

// A float64 leaf that requires grad.
Tensor leaf(std::vector<double> values) {
    Tensor t = kael::from_vector(values);
    t.requires_grad_();
    return t;
}

// The name of a tensor's grad_fn, or "none" for a leaf.
std::string_view grad_fn_name(const Tensor& t) { return t.grad_fn() ? std::string_view(t.grad_fn()->name()) : "none"; }

// The gradient, or "none" when backward left it empty.
void print_grad(std::string_view label, const Tensor& t) {
    std::cout << label;
    if (t.grad()) {
        std::cout << *t.grad() << '\n';
    } else {
        std::cout << "none\n";
    }
}

}  // namespace

int main() {
    std::cout << std::boolalpha;

    section("first");
    {
        Tensor x = leaf({1, 2, 3});
        const Tensor w = kael::from_vector<double>({4, 5, 6});  // a constant: no requires_grad_()
        const Tensor p = x * w;
        const Tensor loss = p.sum();
        std::cout << "x:    requires_grad " << x.requires_grad() << ", is_leaf " << x.is_leaf() << ", grad_fn "
                  << grad_fn_name(x) << '\n';
        std::cout << "w:    requires_grad " << w.requires_grad() << ", is_leaf " << w.is_leaf() << ", grad_fn "
                  << grad_fn_name(w) << '\n';
        std::cout << "p:    requires_grad " << p.requires_grad() << ", is_leaf " << p.is_leaf() << ", grad_fn "
                  << grad_fn_name(p) << '\n';
        std::cout << "loss: requires_grad " << loss.requires_grad() << ", is_leaf " << loss.is_leaf()
                  << ", grad_fn " << grad_fn_name(loss) << '\n';
        std::cout << "loss = " << loss << '\n';
        loss.backward();
        print_grad("x.grad() = ", x);
        print_grad("w.grad() = ", w);
        print_grad("p.grad() = ", p);
    }

    section("used-twice");
    {
        Tensor x = leaf({1, 2, 3});
        const Tensor loss = (x * x + x).sum();  // d/dx (x^2 + x) = 2x + 1
        loss.backward();
        print_grad("(x * x + x).sum(): x.grad() = ", x);
    }

    section("accumulate");
    {
        Tensor x = leaf({1, 2});
        const Tensor alias = x;  // another handle to the same tensor, as an optimizer keeps
        (x * 3).sum().backward();
        print_grad("after (x * 3).sum().backward():  x.grad() = ", x);
        (x * 4).sum().backward();
        print_grad("after (x * 4).sum().backward():  x.grad() = ", x);
        print_grad("seen through another handle:     alias.grad() = ", alias);
        kael::autograd::zero_grad({x});
        print_grad("after zero_grad({x}):            x.grad() = ", x);
    }

    section("retain-grad");
    {
        Tensor x = leaf({1, 2});
        const Tensor h = x * 3;
        const Tensor k = x * 5;
        h.retain_grad();
        (h * 2 + k).sum().backward();
        print_grad("h.grad() (retain_grad) = ", h);
        print_grad("k.grad()               = ", k);
        print_grad("x.grad()               = ", x);
    }

    section("hooks");
    {
        Tensor x = leaf({1, 2});
        x.register_hook([](const Tensor& g) -> std::optional<Tensor> {
            std::cout << "  hook on x sees      " << g << ", returns 10 times it\n";
            return g * 10;
        });
        const Tensor h = x * 3;
        h.register_hook([](const Tensor& g) -> std::optional<Tensor> {
            std::cout << "  hook on h sees      " << g << ", keeps it\n";
            return std::nullopt;
        });
        h.sum().backward();
        print_grad("x.grad() = ", x);
    }

    section("no-grad");
    {
        Tensor x = leaf({1, 2});
        {
            const kael::autograd::NoGradGuard no_grad;
            const Tensor y = x * 2;
            std::cout << "inside NoGradGuard:  is_grad_enabled " << kael::autograd::is_grad_enabled()
                      << ", (x * 2).requires_grad " << y.requires_grad() << ", grad_fn " << grad_fn_name(y) << '\n';
        }
        const Tensor y = x * 2;
        std::cout << "after it:            is_grad_enabled " << kael::autograd::is_grad_enabled()
                  << ", (x * 2).requires_grad " << y.requires_grad() << ", grad_fn " << grad_fn_name(y) << '\n';
        const Tensor d = y.detach();
        std::cout << "y.detach():          requires_grad " << d.requires_grad() << ", is_leaf " << d.is_leaf()
                  << ", shares_storage(y) " << d.shares_storage(y) << '\n';
        std::cout << "(x > 1).requires_grad " << (x > 1).requires_grad() << ", argmax(x).requires_grad "
                  << kael::argmax(x).requires_grad() << '\n';
        print_error([] { kael::from_vector<std::int64_t>({1, 2}).requires_grad_(); });
    }

    section("errors");
    {
        Tensor x = leaf({1, 2});
        const Tensor loss = (x * x).sum();
        loss.backward();
        print_error([&] { loss.backward(); });
        const Tensor y = x * 2;
        print_error([&] { y.backward(); });
        y.backward(kael::from_vector<double>({1, 10}));
        print_grad("y.backward([1, 10]) adds into x.grad() = ", x);
        print_error([] { kael::from_vector<double>({1, 2}).sum().backward(); });
    }

    section("saved-nothing");
    {
        // AddBackward and SumBackward save no tensor, so they can run again, as in PyTorch,
        // and a second pass adds into x.grad() once more. MulBackward saved x, freed it after
        // the first pass, and refuses a second.
        Tensor x = leaf({1, 2});
        const Tensor loss = (x + 1).sum();
        loss.backward();
        loss.backward();
        print_grad("(x + 1).sum(), backward twice: x.grad() = ", x);
        const Tensor product = (x * x).sum();
        product.backward();
        print_error([&] { product.backward(); });
    }

    section("dtype");
    {
        Tensor x = kael::from_vector<float>({1, 2});
        x.requires_grad_();
        (x * kael::from_vector<double>({0.5, 0.25})).sum().backward();
        std::cout << "float32 leaf times a float64 constant: the product is "
                  << (x * kael::from_vector<double>({0.5, 0.25})).dtype() << ", x.grad() = " << *x.grad() << '\n';
        const Tensor f = leaf({1, 2}).to(DType::F32);
        std::cout << "leaf.to(float32).grad_fn: " << grad_fn_name(f) << '\n';
    }
    return 0;
}

// Chapter 06, "Saved tensors and in-place operations": the version counter catching a
// write into a saved tensor, an in-place operation on a non-leaf rebased onto a new node,
// and the in-place writes kael refuses instead of computing a wrong gradient.
#include <iostream>
#include <optional>
#include <string_view>
#include <vector>

#include "kael/kael.h"

namespace {

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

Tensor leaf(std::vector<double> values) {
    Tensor t = kael::from_vector(values);
    t.requires_grad_();
    return t;
}

long long version_of(const Tensor& t) { return static_cast<long long>(t.impl()->storage->version()); }

}  // namespace

int main() {
    std::cout << std::boolalpha;

    section("version");
    {
        Tensor x = leaf({1, 2});
        Tensor constant = kael::from_vector<double>({3, 4});
        const Tensor y = (x * constant).sum();  // MulBackward saves constant, at its version now
        std::cout << "saved: constant = " << constant << ", version " << version_of(constant) << '\n';
        constant.add_(1);
        std::cout << "after constant.add_(1): " << constant << ", version " << version_of(constant) << '\n';
        print_error([&] { y.backward(); });
    }

    section("version-view");
    {
        Tensor x = leaf({1, 2});
        const Tensor e = x.exp();  // ExpBackward saves its own output
        const Tensor loss = e.sum();
        Tensor alias = e.detach();  // no history, but the same storage and so the same counter
        alias.mul_(2);
        print_error([&] { loss.backward(); });
    }

    section("rebase");
    {
        Tensor x = leaf({0.5, 1.0});
        Tensor y = x * 2;
        std::cout << "y = x * 2:    grad_fn " << y.grad_fn()->name() << ", version " << version_of(y) << '\n';
        y.add_(1);
        std::cout << "y.add_(1):    grad_fn " << y.grad_fn()->name() << ", version " << version_of(y) << ", y = " << y
                  << '\n';
        const std::vector<kael::autograd::Edge>& edges = y.grad_fn()->next_edges();
        std::cout << "the new node's edge leads to " << edges.at(0).node->name() << '\n';
        y.exp().sum().backward();
        std::cout << "x.grad() = " << *x.grad() << "   (2 exp(2 x + 1))\n";
    }

    section("rebase-mul");
    {
        Tensor x = leaf({1, 2});
        Tensor w = leaf({3, 4});
        Tensor y = x * 2;
        y.mul_(w);  // the product's gradient needs y's value before the write
        y.sum().backward();
        std::cout << "y = x * 2; y.mul_(w): x.grad() = " << *x.grad() << ", w.grad() = " << *w.grad() << '\n';
    }

    section("refused");
    {
        Tensor x = leaf({1, 2, 3, 4});
        print_error([&] { x.add_(1); });
        {
            const kael::autograd::NoGradGuard no_grad;  // what an optimizer step does
            x.add_(1);
        }
        std::cout << "inside a NoGradGuard: x.add_(1) gives " << x << '\n';
        const Tensor y = x * 2;
        Tensor part = y.slice(0, 0, 2);
        print_error([&] { part.mul_(3); });
        Tensor z = x * 3;
        {
            const Tensor view = z.T();
            print_error([&] { z.add_(1); });
        }
        z.add_(1);
        std::cout << "once the view is gone, z.add_(1) is recorded: grad_fn " << z.grad_fn()->name() << '\n';
        Tensor buffer = kael::zeros({4}, kael::DType::F64);
        Tensor half = buffer.slice(0, 0, 2);
        print_error([&] { half.copy_(x.slice(0, 0, 2) * 1.0); });
    }
    return 0;
}

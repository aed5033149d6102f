// Chapter 06, "Saved tensors and in-place operations": the version counter catching a
// write into a saved tensor, an in-place operation on a non-leaf rebased onto a new node,
// writes through a view rebasing the view's base (CopySlices), and the in-place writes kael
// still refuses.
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

    section("view-write");
    {
        // A write through a view of a tensor in the graph: the base's history is rebased
        // onto a CopySlices node, and the view's own history is made again from the base's.
        Tensor x = leaf({1, 2, 3, 4});
        Tensor y = x * 2;
        Tensor part = y.slice(0, 0, 2);
        const Tensor rest = y.slice(0, 2, 4);  // another view of y, made before the write
        part.mul_(3);
        std::cout << "y.slice(0, 0, 2).mul_(3): y = " << y << '\n';
        std::cout << "y.grad_fn " << y.grad_fn()->name() << ", part.grad_fn " << part.grad_fn()->name()
                  << ", rest.grad_fn " << rest.grad_fn()->name() << '\n';
        (y * kael::from_vector<double>({1, 2, 3, 4})).sum().backward();
        std::cout << "x.grad() = " << *x.grad() << "   (2 * [1, 2, 3, 4], times 3 where the write was)\n";
    }

    section("buffer-view");
    {
        // A plain buffer (no history) written through a view with a value that has one.
        Tensor x = leaf({1, 2, 3});
        Tensor buffer = kael::zeros({4}, kael::DType::F64);
        buffer.slice(0, 0, 2).copy_(x.slice(0, 0, 2));
        std::cout << "buffer.requires_grad " << buffer.requires_grad() << ", grad_fn " << buffer.grad_fn()->name()
                  << '\n';
        (buffer * kael::arange(4, kael::DType::F64)).sum().backward();
        std::cout << "x.grad() = " << *x.grad() << '\n';
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
        Tensor first = x.slice(0, 0, 2);
        print_error([&] { first.mul_(3); });
        Tensor buffer = kael::zeros({4}, kael::DType::F64);
        const Tensor alias = buffer.detach();  // the same memory, outside autograd
        print_error([&] { buffer.copy_(x * 1.0); });
    }
    return 0;
}

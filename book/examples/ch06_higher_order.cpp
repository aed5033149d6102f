// Chapter 06, "Higher derivatives and gradcheck": the second derivative of tanh through
// autograd::grad with create_graph, a gradient penalty, the reference cycle that
// backward(create_graph = true) leaves between a leaf and its gradient, why finite
// differences need float64, and what gradcheck reports.
#include <cmath>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "kael/kael.h"

namespace {

using kael::DType;
using kael::Tensor;
namespace autograd = kael::autograd;

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

}  // namespace

int main() {
    std::cout << std::boolalpha;

    section("tanh");
    {
        Tensor x = leaf({-2.0, -0.5, 0.0, 0.3, 1.7});
        const Tensor y = kael::tanh(x).sum();
        const Tensor first = *autograd::grad({y}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
        std::cout << "dy/dx     = " << first << '\n';
        std::cout << "            requires_grad " << first.requires_grad() << ", grad_fn " << first.grad_fn()->name()
                  << '\n';
        const Tensor second = *autograd::grad({first.sum()}, {x})[0];
        std::cout << "d2y/dx2   = " << second << '\n';
        const autograd::NoGradGuard no_grad;
        const Tensor t = kael::tanh(x);
        const Tensor closed = -2 * t * (1 - t * t);
        std::cout << "-2 t (1 - t^2) = " << closed << '\n';
        std::cout << "largest difference " << std::scientific << std::setprecision(1)
                  << kael::max(kael::abs(second - closed)).item() << std::defaultfloat << '\n';
    }

    section("without-create-graph");
    {
        Tensor x = leaf({0.3});
        const Tensor first = *autograd::grad({kael::tanh(x).sum()}, {x})[0];
        std::cout << "dy/dx = " << first << ", requires_grad " << first.requires_grad() << '\n';
        print_error([&] { (void)autograd::grad({first.sum()}, {x}); });
    }

    section("penalty");
    {
        // f(x) = sum(tanh(w * x)) and the penalty |df/dx|^2, differentiated with respect to w.
        Tensor w = leaf({0.7, -1.3});
        Tensor x = leaf({0.4, 0.9});
        const Tensor f = kael::tanh(w * x).sum();
        const Tensor dx = *autograd::grad({f}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
        const Tensor penalty = (dx * dx).sum();
        const Tensor dw = *autograd::grad({penalty}, {w})[0];
        std::cout << "df/dx = " << dx << "\npenalty = " << penalty << "\nd penalty / dw = " << dw << '\n';
    }

    section("cycle");
    {
        std::weak_ptr<autograd::Node> with_backward;
        {
            Tensor x = leaf({0.5, 1.5});
            kael::tanh(x).sum().backward(std::nullopt, /*retain_graph=*/false, /*create_graph=*/true);
            std::cout << "after backward(create_graph = true): x.grad().grad_fn " << x.grad()->grad_fn()->name()
                      << '\n';
            with_backward = x.grad()->grad_fn();
        }
        std::cout << "x is gone; the graph of its gradient is still alive: " << !with_backward.expired() << '\n';
        std::weak_ptr<autograd::Node> cleared;
        {
            Tensor x = leaf({0.5, 1.5});
            kael::tanh(x).sum().backward(std::nullopt, false, true);
            cleared = x.grad()->grad_fn();
            x.set_grad(std::nullopt);  // breaks the cycle
        }
        std::cout << "the same, with x.set_grad(std::nullopt) first:     " << !cleared.expired() << '\n';
        std::weak_ptr<autograd::Node> with_grad;
        {
            Tensor x = leaf({0.5, 1.5});
            const Tensor g = *autograd::grad({kael::tanh(x).sum()}, {x}, {}, std::nullopt, true)[0];
            with_grad = g.grad_fn();
        }
        std::cout << "the same, with autograd::grad(create_graph = true): " << !with_grad.expired() << '\n';
    }

    section("finite-differences");
    {
        // The derivative of exp at 1 is e. Central differences with eps = 1e-6, in both dtypes.
        const double eps = 1e-6;
        const double exact = std::exp(1.0);
        for (const DType dtype : {DType::F32, DType::F64}) {
            const Tensor plus = kael::exp(kael::full({1}, 1.0 + eps, dtype));
            const Tensor minus = kael::exp(kael::full({1}, 1.0 - eps, dtype));
            const double numeric = (plus - minus).item() / (2 * eps);
            std::cout << std::left << std::setw(8) << kael::to_string(dtype) << std::right << " numeric "
                      << std::setprecision(10) << numeric << "   exact " << exact << "   relative error "
                      << std::scientific << std::setprecision(1) << std::abs(numeric - exact) / exact
                      << std::defaultfloat << '\n';
        }
    }

    section("gradcheck");
    {
        kael::manual_seed(1);
        Tensor a = kael::randn({2, 3}, DType::F64);
        Tensor b = kael::randn({3}, DType::F64);
        a.requires_grad_();
        b.requires_grad_();
        const autograd::CheckedFunction f = [](const std::vector<Tensor>& in) { return kael::tanh(in[0]) * in[1]; };
        const autograd::GradcheckResult good = autograd::gradcheck(f, {a, b});
        std::cout << "tanh(a) * b:   ok " << good.ok << ", " << good.compared << " Jacobian elements compared\n";
        // A hook that scales the gradient by 1.1 stands for a formula that is 10% off.
        Tensor x = kael::randn({4}, DType::F64);
        x.requires_grad_();
        x.register_hook([](const Tensor& g) -> std::optional<Tensor> { return g * 1.1; });
        const autograd::GradcheckResult bad =
            autograd::gradcheck([](const std::vector<Tensor>& in) { return kael::exp(in[0]); }, {x});
        std::cout << "exp, 10% off:  ok " << bad.ok << ", " << bad.compared << " compared\n";
        std::cout << "  worst: " << bad.report << '\n';
        Tensor single = kael::ones({2});
        single.requires_grad_();
        print_error([&] { (void)autograd::gradcheck([](const std::vector<Tensor>& in) { return in[0]; }, {single}); });
    }
    return 0;
}

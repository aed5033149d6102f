// ADR 0004 (a PyTorch-shaped API with typed errors): the three spellings of one operation,
// which exception each kind of mistake raises with its real message, and the places where
// kael deliberately differs from PyTorch.
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <string_view>
#include <type_traits>

#include "kael/kael.h"

namespace {

using kael::DType;
using kael::Tensor;
using I = std::int64_t;

void section(std::string_view name) { std::cout << "--- section: " << name << " ---\n"; }

// Runs `body` and prints the most specific kael exception class it throws, then the message.
template <typename Body> void classify(std::string_view what, Body body) {
    std::cout << what << '\n';
    try {
        body();
        std::cout << "  no exception\n";
    } catch (const kael::IndexError& e) {
        std::cout << "  IndexError: " << e.what() << '\n';
    } catch (const kael::ValueError& e) {
        std::cout << "  ValueError: " << e.what() << '\n';
    } catch (const kael::TypeError& e) {
        std::cout << "  TypeError: " << e.what() << '\n';
    } catch (const kael::Error& e) {
        std::cout << "  Error: " << e.what() << '\n';
    }
}

}  // namespace

int main() {
    section("spellings");
    {
        const Tensor a = kael::from_vector({1.0, 2.0, 3.0});
        const Tensor b = kael::from_vector({10.0, 20.0, 30.0});
        // book-region: spellings
        const Tensor by_function = kael::add(a, b);
        const Tensor by_method = a.add(b);
        const Tensor by_operator = a + b;
        const Tensor comparison = a < b;  // a Bool tensor, not a bool
        // end-book-region: spellings
        std::cout << "kael::add(a, b)  " << by_function << '\n';
        std::cout << "a.add(b)         " << by_method << '\n';
        std::cout << "a + b            " << by_operator << '\n';
        std::cout << "a < b            " << comparison << '\n';
        std::cout << "a < b is a kael::Tensor: " << std::boolalpha
                  << std::is_same_v<decltype(a < b), Tensor> << '\n';
        std::cout << "kael::all(a < b).item<std::uint8_t>() = " << int{kael::all(a < b).item<std::uint8_t>()} << '\n';
    }

    section("errors");
    {
        const Tensor t = kael::zeros({3});
        const Tensor m = kael::zeros({2, 3});
        classify("t.at<float>({3}) on a tensor of shape [3]", [&] { (void)t.at<float>({3}); });
        classify("sum(m, {2}) on a 2-d tensor", [&] { (void)kael::sum(m, {2}); });
        classify("cross_entropy with target 3 for 3 classes", [&] {
            (void)kael::cross_entropy(kael::zeros({1, 3}), kael::from_vector({I{3}}));
        });
        classify("zeros({2, 3}) + zeros({2})", [&] { (void)(m + kael::zeros({2})); });
        classify("matmul of [2, 3] and [2, 3]", [&] { (void)kael::matmul(m, m); });
        classify("dropout(t, 1.5)", [&] { (void)kael::dropout(t, 1.5); });
        classify("mean of an int64 tensor", [] { (void)kael::mean(kael::from_vector({I{1}, I{2}})); });
        classify("mask - mask for Bool tensors", [] {
            const Tensor mask = kael::from_vector({true, false});
            (void)(mask - mask);
        });
        classify("t.data_ptr<double>() on a float32 tensor", [&] { (void)t.data_ptr<double>(); });
        classify("floor_divide(int64 [1], int64 [0])", [] {
            (void)kael::floor_divide(kael::from_vector({I{1}}), kael::from_vector({I{0}}));
        });
        classify("add_(1) on an expanded tensor", [] {
            Tensor expanded = kael::zeros({1, 3}).expand({2, 3});
            expanded.add_(1);
        });
    }

    section("catch-all");
    {
        // Every kind derives from kael::Error, which derives from std::runtime_error.
        try {
            (void)kael::matmul(kael::zeros({2, 3}), kael::zeros({2, 3}));
        } catch (const std::runtime_error& e) {
            std::cout << "caught as std::runtime_error: " << e.what() << '\n';
        }
    }

    section("differences");
    {
        std::cout << "arange(3).dtype()  " << kael::arange(3).dtype() << '\n';
        std::cout << "arange(3, DType::I64)  " << kael::arange(3, DType::I64) << '\n';
        const Tensor transposed = kael::ones({3, 2}).T();
        const Tensor sum = transposed + kael::ones({2, 3});
        std::cout << "ones({3, 2}).T() + ones({2, 3}): strides " << kael::to_string(sum.strides())
                  << ", contiguous " << std::boolalpha << sum.is_contiguous() << '\n';
        const double nan = std::numeric_limits<double>::quiet_NaN();
        std::cout << "sign([nan, -0.0])  " << kael::sign(kael::from_vector({nan, -0.0})) << '\n';
        const kael::ValuesIndices best = kael::max(kael::from_vector({1.0, 7.0, 7.0}), 0);
        std::cout << "max(t, 0) returns a struct: values " << best.values.item<double>() << ", indices "
                  << best.indices.item<I>() << '\n';
    }
    return 0;
}

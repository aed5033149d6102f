// Chapter 05, "Matrix multiplication": PyTorch's rank rules, the errors, and how close
// kael's own kernel and the BLAS path come to a product computed in double.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <limits>
#include <string_view>

#include "kael/kael.h"

namespace {

using kael::DType;
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

void show(const char* label, const Tensor& a, const Tensor& b) {
    const Tensor c = kael::matmul(a, b);
    std::cout << std::left << std::setw(26) << label << kael::to_string(a.shape()) << " x "
              << kael::to_string(b.shape()) << " -> " << kael::to_string(c.shape()) << '\n';
}

// The largest |x - y| over two float tensors of one shape, in double.
double max_difference(const Tensor& x, const Tensor& y) {
    const Tensor d = kael::abs(kael::sub(x.to(DType::F64), y.to(DType::F64)));
    return kael::max(d).item<double>();
}

}  // namespace

int main() {
    section("ranks");
    show("dot product", kael::ones({4}), kael::ones({4}));
    show("matrix x vector", kael::ones({3, 4}), kael::ones({4}));
    show("vector x matrix", kael::ones({4}), kael::ones({4, 5}));
    show("matrix x matrix", kael::ones({3, 4}), kael::ones({4, 5}));
    show("batch x matrix", kael::ones({2, 3, 4}), kael::ones({4, 5}));
    show("batch x batch", kael::ones({2, 3, 4}), kael::ones({2, 4, 5}));
    show("broadcast batches", kael::ones({2, 1, 3, 4}), kael::ones({6, 4, 5}));
    show("vector x batch", kael::ones({4}), kael::ones({6, 4, 5}));
    std::cout << "[[1, 2, 3], [4, 5, 6]] x [[7, 8], [9, 10], [11, 12]] = "
              << kael::matmul(kael::arange(1, 7, 1, DType::F64).view({2, 3}),
                              kael::arange(7, 13, 1, DType::F64).view({3, 2}))
              << '\n';

    section("errors");
    print_error([] { (void)kael::matmul(kael::zeros({2, 3}), kael::zeros({4, 5})); });
    print_error([] { (void)kael::matmul(kael::zeros({2, 2}), kael::zeros({2, 2}, DType::F64)); });
    print_error([] { (void)kael::matmul(kael::zeros({2}, DType::Bool), kael::zeros({2}, DType::Bool)); });
    print_error([] { (void)kael::matmul(kael::scalar(1.0), kael::zeros({2})); });
    print_error([] { (void)kael::matmul(kael::zeros({2, 2, 3}), kael::zeros({3, 3, 2})); });

    section("kernels");
    {
        kael::manual_seed(5);
        const I m = 300;
        const I k = 700;
        const I n = 200;
        const Tensor a = kael::randn({m, k});
        const Tensor b = kael::randn({k, n});
        const Tensor exact = kael::matmul(a.to(DType::F64), b.to(DType::F64));
        std::cout << "A [300, 700] x B [700, 200], float32, entries from randn\n";
        std::cout << "BLAS compiled in: " << std::boolalpha << kael::blas_available() << '\n';
        kael::set_matmul_backend(kael::MatmulBackend::Kael);
        const Tensor own = kael::matmul(a, b);
        const Tensor own_transposed = kael::matmul(a.T().contiguous().T(), b);
        std::cout << std::scientific << std::setprecision(2);
        std::cout << "kael's kernel:                largest |error| against float64 = " << max_difference(own, exact) << '\n';
        std::cout << "kael's kernel, A column-major: largest |error| against float64 = " << max_difference(own_transposed, exact)
                  << '\n';
        if (kael::blas_available()) {
            kael::set_matmul_backend(kael::MatmulBackend::Blas);
            const Tensor blas = kael::matmul(a, b);
            std::cout << "BLAS:                         largest |error| against float64 = " << max_difference(blas, exact)
                      << '\n';
        }
        kael::set_matmul_backend(kael::MatmulBackend::Auto);
        std::cout << "largest |entry| of the product = " << kael::max(kael::abs(exact)).item<double>() << '\n';
        std::cout << std::defaultfloat;
    }

    section("integers");
    {
        const I big = std::numeric_limits<I>::max();
        const Tensor row = kael::from_vector({big, I{1}}, {1, 2});
        const Tensor column = kael::from_vector({I{1}, I{1}}, {2, 1});
        std::cout << "[[INT64_MAX, 1]] x [[1], [1]] = " << kael::matmul(row, column) << '\n';
        std::cout << "zeros({2, 0}) x zeros({0, 3}) = " << kael::matmul(kael::zeros({2, 0}), kael::zeros({0, 3}))
                  << '\n';
    }
    // Arithmetic per byte decides which resource limits an operation. One memory-bound and
    // one compute-bound operation, timed on the machine that built the book (best of
    // several runs).
    section("intensity");
    {
        const auto best_ms = [](auto&& f) {
            double best = 1e300;
            for (int rep = 0; rep < 7; ++rep) {
                const auto start = std::chrono::steady_clock::now();
                f();
                const auto stop = std::chrono::steady_clock::now();
                best = std::min(best, std::chrono::duration<double, std::milli>(stop - start).count());
            }
            return best;
        };
        const auto report = [](const char* label, double flops, double bytes, double ms) {
            std::cout << label << std::right << std::fixed << std::setprecision(1) << std::setw(7)
                      << flops / 1e6 << " M operations, " << std::setw(5) << bytes / 1e6 << " MB, "
                      << std::setprecision(2) << std::setw(6) << flops / bytes << " per byte\n"
                      << "                   " << std::setw(6) << ms << " ms: " << std::setprecision(1)
                      << std::setw(6) << flops / ms / 1e6 << " GFLOP/s, " << std::setw(5)
                      << bytes / ms / 1e6 << " GB/s\n"
                      << std::defaultfloat << std::setprecision(6);
        };
        const std::int64_t n = 4 * 1024 * 1024;
        Tensor a = kael::rand({n});
        const Tensor b = kael::rand({n});
        const double add_ms = best_ms([&] { a.add_(b); });
        // a += b reads a and b and writes a: 12 bytes and one addition per element.
        const double add_flops = static_cast<double>(n);
        report("a += b, 4M float32 ", add_flops, 12.0 * static_cast<double>(n), add_ms);
        const std::int64_t m = 512;
        const Tensor x = kael::rand({m, m});
        const Tensor y = kael::rand({m, m});
        const double mm_ms = best_ms([&] { (void)kael::matmul(x, y); });
        // Two m x m inputs read and one written, at the least; 2 m^3 multiply-adds.
        const double mm_flops = 2.0 * static_cast<double>(m * m * m);
        report("matmul 512 x 512   ", mm_flops, 12.0 * static_cast<double>(m * m), mm_ms);
        std::cout << "operations per second, product over addition: " << std::fixed << std::setprecision(0)
                  << (mm_flops / mm_ms) / (add_flops / add_ms) << std::defaultfloat << std::setprecision(6)
                  << '\n';
    }
    return 0;
}

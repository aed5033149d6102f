// Chapter 02, "Factories" and "Random numbers": the worked examples of every factory, the
// messages of their checks, and the properties of the random samplers.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <limits>
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

}  // namespace

int main() {
    section("basic");
    std::cout << "empty({2, 2}).strides() = " << kael::to_string(kael::empty({2, 2}).strides())
              << '\n';
    std::cout << "zeros({2}, I64)         " << kael::zeros({2}, DType::I64) << '\n';
    std::cout << "ones({3}, F64)          " << kael::ones({3}, DType::F64) << '\n';
    std::cout << "full({3}, -0.5)         " << kael::full({3}, -0.5) << '\n';
    std::cout << "full({2}, 3.9, I64)     " << kael::full({2}, 3.9, DType::I64) << '\n';
    std::cout << "full({2}, 0.1, Bool)    " << kael::full({2}, 0.1, DType::Bool) << '\n';
    std::cout << "zeros({0, 3})           " << kael::zeros({0, 3}) << '\n';
    const Tensor like = kael::ones_like(kael::zeros({1, 3}, DType::I64));
    std::cout << "ones_like(int64 [1, 3]) " << like << '\n';

    section("arange");
    std::cout << "arange(4)                    " << kael::arange(4) << '\n';
    std::cout << "arange(1, 2, 0.3)            " << kael::arange(1, 2, 0.3) << '\n';
    std::cout << "arange(10, 0, -3, I64)       " << kael::arange(10, 0, -3, DType::I64) << '\n';
    std::cout << "arange(0.5, 3.5, 1.5, F64)   " << kael::arange(0.5, 3.5, 1.5, DType::F64) << '\n';
    std::cout << "arange(0.5, 3.5, 1.5, I64)   " << kael::arange(0.5, 3.5, 1.5, DType::I64) << '\n';
    std::cout << "arange(1.7, 6, 1.9, I64)     " << kael::arange(1.7, 6, 1.9, DType::I64) << '\n';

    section("arange-drift");
    {
        // The thousandth value of 0, 0.1, 0.2, ... computed two ways in double.
        double accumulated = 0.0;
        for (int i = 0; i < 999; ++i) {
            accumulated += 0.1;
        }
        const Tensor t = kael::arange(0, 100, 0.1, DType::F64);
        std::cout << std::setprecision(17);
        std::cout << "value += 0.1, 999 times   = " << accumulated << '\n';
        std::cout << "arange(0, 100, 0.1)[999]  = " << t.at<double>({999}) << '\n';
        std::cout << "0 + 999 * 0.1             = " << 999 * 0.1 << '\n';
        std::cout << std::setprecision(6);
    }

    section("arange-errors");
    print_error([] { (void)kael::arange(0, 5, 0); });
    print_error([] { (void)kael::arange(5, 0); });
    print_error([] { (void)kael::arange(0, std::numeric_limits<double>::infinity()); });

    section("linspace");
    std::cout << "linspace(0, 1, 5)      " << kael::linspace(0, 1, 5) << '\n';
    std::cout << "linspace(2, -2, 4)     " << kael::linspace(2, -2, 4) << '\n';
    std::cout << "linspace(3, 7, 1)      " << kael::linspace(3, 7, 1) << '\n';
    std::cout << "linspace(3, 7, 0)      " << kael::linspace(3, 7, 0) << '\n';
    print_error([] { (void)kael::linspace(0, 1, 3, DType::I64); });

    section("linspace-ends");
    {
        // float32, 0.1 to 0.7 in 7 steps: compare each value with the single-formula
        // start + i * delta, computed in float as linspace does.
        const std::int64_t steps = 7;
        const Tensor t = kael::linspace(0.1, 0.7, steps);
        const float first = 0.1f;
        const float last = 0.7f;
        const float delta = (last - first) / static_cast<float>(steps - 1);
        std::cout << std::setprecision(9);
        for (std::int64_t i = 0; i < steps; ++i) {
            const float from_start = first + delta * static_cast<float>(i);
            std::cout << "i = " << i << ": linspace " << t.at<float>({i})
                      << ", start + i * delta " << from_start
                      << (from_start == t.at<float>({i}) ? "" : "   <- differs") << '\n';
        }
        std::cout << "end as float: " << last << '\n';
        std::cout << std::setprecision(6);
    }

    section("eye");
    std::cout << kael::eye(3, DType::I64) << '\n';

    section("scalar");
    const Tensor s = kael::scalar(-2.5);
    std::cout << s << ", dim() = " << s.dim() << ", numel() = " << s.numel() << '\n';

    section("from-vector");
    std::cout << kael::from_vector({1.5f, 2.5f}) << '\n';
    std::cout << kael::from_vector({1.5, 2.5}) << '\n';
    std::cout << kael::from_vector(std::vector<std::int64_t>{10, 20, 30, 40}, {2, 2}) << '\n';
    std::cout << kael::from_vector({true, false, false}) << '\n';
    print_error([] { (void)kael::from_vector({1.0, 2.0, 3.0}, {2, 2}); });

    section("bytes-overflow");
    // 2^60 * 4 elements fit in int64; their 2^62 * 8 bytes of float64 do not.
    print_error([] { (void)kael::empty({std::int64_t{1} << 60, 4}, DType::F64); });
    print_error([] { (void)kael::zeros({3, -1}); });

    section("random");
    kael::manual_seed(2024);
    const Tensor u32 = kael::rand({4});
    kael::manual_seed(2024);
    const Tensor u64 = kael::rand({4}, DType::F64);
    std::cout << std::setprecision(9);
    for (std::int64_t i = 0; i < 4; ++i) {
        std::cout << "draw " << i << ": float64 " << u64.at<double>({i}) << " -> float32 "
                  << u32.at<float>({i}) << (static_cast<float>(u64.at<double>({i})) == u32.at<float>({i})
                                                ? "  (equal after rounding)"
                                                : "  (differs)")
                  << '\n';
    }
    std::cout << std::setprecision(6);
    kael::manual_seed(7);
    const Tensor r1 = kael::randint(0, 10, {8});
    kael::manual_seed(7);
    const Tensor r2 = kael::randint(0, 10, {8});
    std::cout << "randint(0, 10, {8}) twice after manual_seed(7): "
              << (std::equal(r1.data_ptr<std::int64_t>(), r1.data_ptr<std::int64_t>() + 8,
                             r2.data_ptr<std::int64_t>())
                      ? "same values"
                      : "different values")
              << '\n';
    const Tensor perm = kael::randperm(6);
    std::vector<std::int64_t> sorted(perm.data_ptr<std::int64_t>(), perm.data_ptr<std::int64_t>() + 6);
    std::sort(sorted.begin(), sorted.end());
    std::cout << "randperm(6) sorted: " << kael::from_vector(sorted) << '\n';
    std::cout << "bernoulli({4}, 0.0) " << kael::bernoulli({4}, 0.0) << '\n';
    std::cout << "bernoulli({4}, 1.0, Bool) " << kael::bernoulli({4}, 1.0, DType::Bool) << '\n';

    section("random-errors");
    print_error([] { (void)kael::randn({3}, DType::Bool); });
    print_error([] { (void)kael::randint(5, 5, {3}); });
    print_error([] { (void)kael::bernoulli({3}, 1.5); });
}

// Chapter 05, "Reductions": sums over different dimensions, accumulator types, accuracy of
// float sums, empty inputs, NaN, the variance and logsumexp, each on real values.
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
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();

    section("dims");
    {
        const Tensor t = kael::arange(0, 24, 1, DType::I64).view({2, 3, 4});
        std::cout << "t = arange(24).view({2, 3, 4})\n";
        std::cout << "sum(t, {2})        " << kael::sum(t, {2}) << '\n';
        std::cout << "sum(t, {0})        " << kael::sum(t, {0}) << '\n';
        std::cout << "sum(t, {1})        " << kael::sum(t, {1}) << '\n';
        std::cout << "sum(t, {0, 2})     " << kael::sum(t, {0, 2}) << '\n';
        std::cout << "sum(t, {1}, true)  shape " << kael::to_string(kael::sum(t, {1}, true).shape()) << '\n';
        std::cout << "sum(t)             " << kael::sum(t) << '\n';
        print_error([&] { (void)kael::sum(t, {3}); });
        print_error([&] { (void)kael::sum(t, {0, -3}); });
    }

    section("dtypes");
    {
        std::cout << "sum(bool [true, true, false])  " << kael::sum(kael::from_vector({true, true, false})) << '\n';
        std::cout << "prod(int64 [3, 4])             " << kael::prod(kael::from_vector({I{3}, I{4}})) << '\n';
        std::cout << "sum(float32 [1.5, 2])          " << kael::sum(kael::from_vector({1.5f, 2.0f})) << '\n';
        std::cout << "mean(float64 [1, 2, 4])        " << kael::mean(kael::from_vector({1.0, 2.0, 4.0})) << '\n';
        print_error([] { (void)kael::mean(kael::from_vector({I{1}, I{2}})); });
    }

    section("float-sum");
    {
        // Ten million copies of 0.1f. The exact sum of the stored value 0.100000001490116...
        // is 1000000.0149.
        const I n = 10'000'000;
        const Tensor t = kael::full({n}, 0.1f);
        const float* x = t.data_ptr<float>();
        float running = 0.0f;
        double wide = 0.0;
        for (I i = 0; i < n; ++i) {
            running += x[i];
            wide += static_cast<double>(x[i]);
        }
        std::cout << std::fixed << std::setprecision(4);
        std::cout << "one float running total      " << running << '\n';
        std::cout << "one double running total     " << wide << '\n';
        std::cout << "kael::sum (blocked float32)  " << kael::sum(t).item<float>() << '\n';
        std::cout << "kael::sum of float64 copy    " << kael::sum(t.to(DType::F64)).item<double>() << '\n';
        std::cout << std::defaultfloat;
    }

    section("empty");
    {
        const Tensor e = kael::zeros({0});
        std::cout << "sum(empty)   " << kael::sum(e) << '\n';
        std::cout << "prod(empty)  " << kael::prod(e) << '\n';
        std::cout << "mean(empty)  " << kael::mean(e) << '\n';
        std::cout << "any(empty)   " << kael::any(e) << '\n';
        std::cout << "all(empty)   " << kael::all(e) << '\n';
        std::cout << "logsumexp(zeros({1, 0}), {1})  " << kael::logsumexp(kael::zeros({1, 0}), {1}) << '\n';
        std::cout << "sum(zeros({2, 0}), {1})        " << kael::sum(kael::zeros({2, 0}), {1}) << '\n';
        std::cout << "amax(zeros({0, 2}), {1})       " << kael::amax(kael::zeros({0, 2}), {1}) << '\n';
        print_error([&] { (void)kael::max(e); });
        print_error([] { (void)kael::amax(kael::zeros({2, 0}), {1}); });
    }

    section("nan");
    {
        const Tensor x = kael::from_vector({1.0, nan, 3.0, nan});
        std::cout << "x = " << x << '\n';
        std::cout << "max(x)     " << kael::max(x) << '\n';
        std::cout << "amin(x)    " << kael::amin(x) << '\n';
        std::cout << "argmax(x)  " << kael::argmax(x) << '\n';
        std::cout << "argmin(x)  " << kael::argmin(x) << '\n';
        std::cout << "sum(x)     " << kael::sum(x) << '\n';
        const Tensor ties = kael::from_vector({I{3}, I{1}, I{3}, I{1}});
        std::cout << "argmax([3, 1, 3, 1]) " << kael::argmax(ties) << "   argmin " << kael::argmin(ties) << '\n';
        const kael::ValuesIndices best = kael::max(kael::from_vector({1.0, 5.0, 5.0, 1.0}, {2, 2}), 1);
        std::cout << "max([[1, 5], [5, 1]], 1): values " << best.values << "\n                           indices "
                  << best.indices << '\n';
    }

    section("var");
    {
        const Tensor x = kael::from_vector({1e9 + 1, 1e9 + 2, 1e9 + 3});
        const double* v = x.data_ptr<double>();
        double sum = 0;
        double squares = 0;
        for (int i = 0; i < 3; ++i) {
            sum += v[i];
            squares += v[i] * v[i];
        }
        const double one_pass = (squares - sum * sum / 3) / 2;
        std::cout << std::setprecision(17);
        std::cout << "x = [1e9 + 1, 1e9 + 2, 1e9 + 3]\n";
        std::cout << "one pass, (sum x^2 - (sum x)^2 / n) / (n - 1)  " << one_pass << '\n';
        std::cout << "kael::var(x), two passes                      " << kael::var(x).item<double>() << '\n';
        std::cout << std::defaultfloat << std::setprecision(6);
        std::cout << "var([5.0])                " << kael::var(kael::from_vector({5.0})) << '\n';
        std::cout << "var([5.0], {}, 0)         " << kael::var(kael::from_vector({5.0}), {}, 0) << '\n';
        std::cout << "std([[1,2,3],[4,5,6]], {0}, 0)  "
                  << kael::std(kael::arange(1, 7, 1, DType::F64).view({2, 3}), {0}, 0) << '\n';
    }

    section("logsumexp");
    {
        const Tensor x = kael::from_vector({1000.0, 1000.0});
        std::cout << "log(sum(exp(x)))   " << kael::log(kael::sum(kael::exp(x))) << '\n';
        std::cout << "logsumexp(x, {0})  " << std::setprecision(12) << kael::logsumexp(x, {0}).item<double>()
                  << std::setprecision(6) << '\n';
        std::cout << "logsumexp([-inf, -inf], {0})  " << kael::logsumexp(kael::from_vector({-inf, -inf}), {0}) << '\n';
        std::cout << "logsumexp([inf, 1], {0})      " << kael::logsumexp(kael::from_vector({inf, 1.0}), {0}) << '\n';
    }

    section("cumsum");
    {
        const Tensor m = kael::arange(1, 7, 1, DType::F64).view({2, 3});
        std::cout << "cumsum(m, 1)  " << kael::cumsum(m, 1) << '\n';
        std::cout << "cumsum(m, 0)  " << kael::cumsum(m, 0) << '\n';
        std::cout << "cumsum(bool [true, true, false], 0)  " << kael::cumsum(kael::from_vector({true, true, false}), 0)
                  << '\n';
    }
    // A reducer's four steps, visible in the results: the identity on an empty row, the
    // step and merge in every sum, the finish in the mean's division by the count.
    section("reducers");
    {
        const Tensor x = kael::from_vector({3.0f, 1.0f, 4.0f, 1.0f, 5.0f, 9.0f, 2.0f, 6.0f}, {2, 4});
        std::cout << "x = from_vector({3, 1, 4, 1, 5, 9, 2, 6}, {2, 4}), float32\n";
        std::cout << "sum(x, {1})      " << kael::sum(x, {1}) << '\n';
        std::cout << "prod(x, {1})     " << kael::prod(x, {1}) << '\n';
        std::cout << "amax(x, {1})     " << kael::amax(x, {1}) << '\n';
        std::cout << "mean(x, {1})     " << kael::mean(x, {1}) << '\n';
        std::cout << "all(x > 1, {1})  " << kael::all(x > 1, {1}) << '\n';
        const Tensor none = kael::zeros({2, 0});
        std::cout << "rows of length 0, e = zeros({2, 0}):\n";
        std::cout << "sum(e, {1})      " << kael::sum(none, {1}) << '\n';
        std::cout << "prod(e, {1})     " << kael::prod(none, {1}) << '\n';
        std::cout << "mean(e, {1})     " << kael::mean(none, {1}) << '\n';
    }

    // Two of the cures of the concepts section, each against the formula it replaces, in
    // float32 throughout.
    section("stable");
    {
        const Tensor x = kael::from_vector({100.f, 101.f, 102.f});
        const Tensor e = kael::exp(x);
        std::cout << "x = [100, 101, 102]\n";
        std::cout << "exp(x) / sum(exp(x))      " << e / kael::sum(e) << '\n';
        const Tensor shifted = kael::exp(x - kael::max(x));
        std::cout << "with m = max(x) = " << kael::max(x).item<float>() << ":\n";
        std::cout << "exp(x-m) / sum(exp(x-m))  " << shifted / kael::sum(shifted) << '\n';
        const Tensor near = kael::from_vector({10000.f, 10001.f, 10002.f, 10003.f});
        const Tensor mean = kael::mean(near);
        std::cout << "y = [10000, 10001, 10002, 10003]\n";
        std::cout << "mean(y * y) - mean(y)^2   " << kael::mean(near * near) - mean * mean << '\n';
        std::cout << "var(y, {}, 0), two passes " << kael::var(near, {}, 0) << '\n';
    }
    return 0;
}

// Chapter 05, "Element-wise operations": result dtypes, division, powers, Bool arithmetic,
// clamp, sign, rounding and NaN, each on real values. Every error line is the real text of
// the exception, printed with e.what().
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <string_view>
#include <type_traits>
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

Tensor ints(std::vector<I> v) { return kael::from_vector(v); }
Tensor doubles(std::vector<double> v) { return kael::from_vector(v); }

}  // namespace

int main() {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();

    section("promotion");
    {
        const Tensor i = ints({1, 2, 3});
        const Tensor f = kael::from_vector({0.5f, 0.5f, 0.5f});
        const Tensor b = kael::from_vector({true, false, true});
        std::cout << "int64 + float32            -> " << (i + f).dtype() << '\n';
        std::cout << "int64 + 2.5                -> " << (i + 2.5).dtype() << '\n';
        std::cout << "float32 + 2.5              -> " << (f + 2.5).dtype() << '\n';
        std::cout << "bool + 1                   -> " << (b + 1).dtype() << '\n';
        std::cout << "bool + bool                -> " << (b + b).dtype() << '\n';
        std::cout << "int64 [3] + float64 0-d    -> " << (i + kael::scalar(1.0, DType::F64)).dtype() << '\n';
        std::cout << "float32 [3] + float64 0-d  -> " << (f + kael::scalar(1.0, DType::F64)).dtype() << '\n';
        std::cout << "float32 [3] + float64 [1]  -> " << (f + kael::ones({1}, DType::F64)).dtype() << '\n';
    }

    section("division");
    {
        const Tensor a = ints({7, -7, 7, -7});
        const Tensor b = ints({2, 2, -2, -2});
        std::cout << "a                  " << a << '\n';
        std::cout << "b                  " << b << '\n';
        std::cout << "a / b              " << a / b << '\n';
        std::cout << "floor_divide(a, b) " << kael::floor_divide(a, b) << '\n';
        std::cout << "remainder(a, b)    " << kael::remainder(a, b) << '\n';
        const Tensor x = doubles({7.5, -7.5, 7.5, -7.5});
        const Tensor y = doubles({2, 2, -2, -2});
        std::cout << "floor_divide(x, y) " << kael::floor_divide(x, y) << '\n';
        std::cout << "remainder(x, y)    " << kael::remainder(x, y) << '\n';
        std::cout << "[1, -1, 0] / 0.0   " << doubles({1, -1, 0}) / doubles({0, 0, 0}) << '\n';
    }

    section("division-errors");
    print_error([] { (void)kael::floor_divide(ints({5, 6}), ints({1, 0})); });
    print_error([] { (void)kael::remainder(ints({5}), 0); });

    section("pow");
    {
        std::cout << "pow([2, 3, -2], [10, 3, 3])      " << kael::pow(ints({2, 3, -2}), ints({10, 3, 3})) << '\n';
        std::cout << "pow([2, 1, -1, -1], [-1, -5, -3, -2]) "
                  << kael::pow(ints({2, 1, -1, -1}), ints({-1, -5, -3, -2})) << '\n';
        std::cout << "pow(int64 [4, 9], 0.5)           " << kael::pow(ints({4, 9}), 0.5) << '\n';
        std::cout << "pow(2, int64 [3, 4])             " << kael::pow(2, ints({3, 4})) << '\n';
        std::cout << "pow(float64 [4, 0.5], -1)        " << kael::pow(doubles({4, 0.5}), -1) << '\n';
    }

    section("pow-errors");
    print_error([] { (void)kael::pow(ints({2}), -1); });
    print_error([] { (void)kael::pow(kael::from_vector({true}), kael::from_vector({true})); });

    section("bool");
    {
        const Tensor p = kael::from_vector({true, true, false, false});
        const Tensor q = kael::from_vector({true, false, true, false});
        std::cout << "p      " << p << '\n';
        std::cout << "q      " << q << '\n';
        std::cout << "p + q  " << p + q << '\n';
        std::cout << "p * q  " << p * q << '\n';
        std::cout << "sum(p + q) = " << kael::sum(p + q).item<I>() << " (a count, in int64)\n";
        print_error([&] { (void)(p - q); });
        print_error([&] { (void)(-p); });
        std::cout << "logical_xor(p, q) " << kael::logical_xor(p, q) << '\n';
    }

    section("clamp");
    {
        std::cout << "clamp([1, nan, 5, 3], 2, 4)       " << kael::clamp(doubles({1, nan, 5, 3}), 2, 4) << '\n';
        std::cout << "clamp([1, 5], 3, 2)  (min > max)  " << kael::clamp(doubles({1, 5}), 3, 2) << '\n';
        std::cout << "clamp(int64 [-3, 2], 0.5)         " << kael::clamp(ints({-3, 2}), 0.5) << '\n';
        std::cout << "clamp(bool [true, false], 0, 5)   "
                  << kael::clamp(kael::from_vector({true, false}), 0, 5) << '\n';
        print_error([] { (void)kael::clamp(doubles({1}), std::nullopt, std::nullopt); });
    }

    section("sign-round");
    {
        const Tensor s = kael::sign(doubles({-2, 0, -0.0, 3, nan, -inf}));
        std::cout << "sign([-2, 0, -0, 3, nan, -inf]) " << s << '\n';
        std::cout << "signbit of sign(-0.0): " << std::signbit(s.at<double>({2})) << '\n';
        std::cout << "round([0.5, 1.5, 2.5, -1.5, -0.4, 3.5]) "
                  << kael::round(doubles({0.5, 1.5, 2.5, -1.5, -0.4, 3.5})) << '\n';
        std::cout << "std::round(2.5) = " << std::round(2.5) << ", std::nearbyint(2.5) = " << std::nearbyint(2.5)
                  << '\n';
        std::cout << "floor([-1.5, 1.5]) " << kael::floor(doubles({-1.5, 1.5})) << '\n';
        std::cout << "relu([-1, 0, 2, nan]) " << kael::relu(doubles({-1, 0, 2, nan})) << '\n';
    }

    section("nan");
    {
        const Tensor a = doubles({1, nan, 3});
        const Tensor b = doubles({2, 0, nan});
        std::cout << "maximum([1, nan, 3], [2, 0, nan]) " << kael::maximum(a, b) << '\n';
        std::cout << "minimum([1, nan, 3], [2, 0, nan]) " << kael::minimum(a, b) << '\n';
        std::cout << "std::fmax(nan, 0) = " << std::fmax(nan, 0.0) << "   std::max(nan, 0.0) = " << std::max(nan, 0.0)
                  << "   std::max(0.0, nan) = " << std::max(0.0, nan) << '\n';
        std::cout << "[nan] == [nan] " << (doubles({nan}) == doubles({nan})) << '\n';
        std::cout << "[nan] != [nan] " << (doubles({nan}) != doubles({nan})) << '\n';
    }

    section("compare");
    {
        std::cout << "int64 [2, 3] < 2.5  " << (ints({2, 3}) < 2.5) << '\n';
        const Tensor column = kael::arange(0, 3, 1, DType::I64).view({3, 1});
        std::cout << "[[0], [1], [2]] < [1, 2]  " << (column < ints({1, 2})) << '\n';
        const Tensor condition = kael::from_vector({true, false, true});
        std::cout << "where(c, int64 [1, 2, 3], float64 [10, 20, 30]) "
                  << kael::where(condition, ints({1, 2, 3}), doubles({10, 20, 30})) << '\n';
        std::cout << "where(c, int64 [1, 2, 3], 0)                    "
                  << kael::where(condition, ints({1, 2, 3}), 0) << '\n';
        print_error([] { (void)kael::where(ints({1}), ints({1}), ints({2})); });
        std::cout << "isclose([1.5, 2], [1, 2], rtol=0, atol=0.5) "
                  << kael::isclose(doubles({1.5, 2}), doubles({1, 2}), 0, 0.5) << '\n';
    }

    // The five steps of every element-wise kernel, done by hand with the public pieces for
    // one mixed-dtype addition, and compared with what kael::add returns.
    section("pattern");
    {
        const Tensor a = kael::arange(0, 6, 1, DType::I64).view({2, 3});
        const Tensor b = kael::from_vector({0.5f, 0.25f, 0.125f});
        std::cout << "a: " << a.dtype() << ' ' << kael::to_string(a.shape()) << "   b: " << b.dtype()
                  << ' ' << kael::to_string(b.shape()) << '\n';
        const DType dtype = kael::result_dtype(a, b);
        std::cout << "1. result dtype  result_dtype(a, b) = " << dtype << '\n';
        const Tensor a_cast = a.to(dtype);
        const Tensor b_cast = b.to(dtype);
        std::cout << std::boolalpha << "2. cast          a.to(" << dtype << ") is a new tensor: "
                  << !a_cast.is_same(a) << "\n                 b.to(" << dtype
                  << ") is b itself:    " << b_cast.is_same(b) << '\n';
        const kael::TensorIterator iter =
            kael::TensorIteratorConfig().declare_output(dtype).add_input(a_cast).add_input(b_cast).build();
        std::cout << "3. iterator      " << iter.describe() << '\n';
        kael::dispatch(dtype, [&]<typename T>() {
            std::cout << "4. dispatch      T is a " << sizeof(T) << "-byte "
                      << (std::is_floating_point_v<T> ? "floating" : "integer") << " type\n";
            kael::run_typed<T, T, T>(iter, [](T x, T y) { return x + y; });
        });
        std::cout << "5. element       x + y, run over the loop:\n   " << iter.output() << '\n';
        const Tensor sum = kael::add(a, b);
        std::cout << "kael::add(a, b):\n   " << sum << '\n';
        std::cout << "the same values: " << (kael::all(iter.output() == sum).item<std::uint8_t>() != 0)
                  << std::noboolalpha << '\n';
    }
    return 0;
}

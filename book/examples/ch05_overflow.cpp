// Chapter 05, "Integer overflow": integer arithmetic wraps around modulo 2^64, the one
// overflowing division is defined, and float-to-integer conversion saturates instead.
#include <cstdint>
#include <iostream>
#include <limits>
#include <string_view>
#include <vector>

#include "kael/kael.h"

namespace {

using I = std::int64_t;
using kael::Tensor;

void section(std::string_view name) { std::cout << "--- section: " << name << " ---\n"; }

Tensor ints(std::vector<I> v) { return kael::from_vector(v); }

}  // namespace

int main() {
    constexpr I kMax = std::numeric_limits<I>::max();
    constexpr I kMin = std::numeric_limits<I>::min();

    section("wrap");
    std::cout << "INT64_MAX + 1                  " << ints({kMax}) + 1 << '\n';
    std::cout << "INT64_MIN - 1                  " << ints({kMin}) - ints({1}) << '\n';
    std::cout << "INT64_MAX * 2                  " << ints({kMax}) * 2 << '\n';
    std::cout << "neg([INT64_MIN, INT64_MIN + 1]) " << kael::neg(ints({kMin, kMin + 1})) << '\n';
    std::cout << "abs([INT64_MIN, INT64_MIN + 1]) " << kael::abs(ints({kMin, kMin + 1})) << '\n';
    std::cout << "pow(2, [62, 63, 64])           " << kael::pow(2, ints({62, 63, 64})) << '\n';
    std::cout << "sum([INT64_MAX, 1])            " << kael::sum(ints({kMax, 1})) << '\n';
    std::cout << "prod([2^32, 2^32])             " << kael::prod(ints({I{1} << 32, I{1} << 32})) << '\n';
    std::cout << "cumsum([INT64_MAX, 1, 1], 0)   " << kael::cumsum(ints({kMax, 1, 1}), 0) << '\n';

    section("division");
    std::cout << "floor_divide(INT64_MIN, -1)      " << kael::floor_divide(ints({kMin}), ints({-1})) << '\n';
    std::cout << "remainder(INT64_MIN, -1)         " << kael::remainder(ints({kMin}), ints({-1})) << '\n';
    std::cout << "floor_divide(INT64_MIN + 1, -1)  " << kael::floor_divide(ints({kMin + 1}), ints({-1})) << '\n';

    section("saturate");
    std::cout << "[1e19, -1e19, nan, 2.9, -2.9].to(int64)  "
              << kael::from_vector({1e19, -1e19, std::numeric_limits<double>::quiet_NaN(), 2.9, -2.9})
                     .to(kael::DType::I64)
              << '\n';
    return 0;
}

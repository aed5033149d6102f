// Chapter 05, "A vectorizable exp": how far kael::exp on float32 (which runs the polynomial
// fast_exp) lies from the correctly rounded result, measured over the whole input range,
// and what it returns at the edges.
#include <bit>
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

void section(std::string_view name) { std::cout << "--- section: " << name << " ---\n"; }

// The distance in units in the last place between two non-negative floats: how many
// representable floats lie between them. Works across the subnormal range as well.
std::int64_t ulps(float a, float b) {
    return std::abs(static_cast<std::int64_t>(std::bit_cast<std::uint32_t>(a)) -
                    static_cast<std::int64_t>(std::bit_cast<std::uint32_t>(b)));
}

// Compares kael::exp with exp computed in double and rounded once to float (the correctly
// rounded answer in all but astronomically rare cases) on n evenly spaced inputs.
void measure(const char* label, double low, double high, std::int64_t n) {
    const Tensor x = kael::linspace(low, high, n, DType::F32);
    const Tensor y = kael::exp(x);
    const float* in = x.data_ptr<float>();
    const float* out = y.data_ptr<float>();
    std::int64_t histogram[3] = {0, 0, 0};
    std::int64_t worst = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        const auto reference = static_cast<float>(std::exp(static_cast<double>(in[i])));
        const std::int64_t d = ulps(out[i], reference);
        worst = std::max(worst, d);
        ++histogram[std::min<std::int64_t>(d, 2)];
    }
    std::cout << std::left << std::setw(34) << label << std::right << std::setw(10) << n << " inputs   exact "
              << std::fixed << std::setprecision(2) << std::setw(6)
              << 100.0 * static_cast<double>(histogram[0]) / static_cast<double>(n) << "%   1 ulp "
              << std::setw(6) << 100.0 * static_cast<double>(histogram[1]) / static_cast<double>(n)
              << "%   more " << histogram[2] << "   worst " << worst << " ulp\n";
}

}  // namespace

int main() {
    section("accuracy");
    measure("normal results [-87.3, 88.7]", -87.33, 88.72, 20'000'000);
    measure("subnormal results [-103.9, -87.4]", -103.97, -87.34, 2'000'000);
    measure("near zero [-1, 1]", -1.0, 1.0, 2'000'001);

    section("edges");
    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const Tensor x = kael::from_vector({0.0f, 88.72f, 88.73f, -87.33f, -100.0f, -103.9f, -104.0f, inf, -inf, nan});
    const Tensor y = kael::exp(x);
    std::cout << std::defaultfloat << std::setprecision(9);
    for (std::int64_t i = 0; i < x.numel(); ++i) {
        const float input = x.at<float>({i});
        const float result = y.at<float>({i});
        std::cout << "exp(" << std::setw(11) << input << ") = " << std::setw(15) << result << "   std::exp: " << std::setw(15)
                  << std::exp(input) << (std::fpclassify(result) == FP_SUBNORMAL ? "   (subnormal)" : "") << '\n';
    }
    std::cout << "float64 exp(1) = " << std::setprecision(17) << kael::exp(kael::ones({1}, DType::F64)).item<double>()
              << " (std::exp, not fast_exp)\n";
    return 0;
}

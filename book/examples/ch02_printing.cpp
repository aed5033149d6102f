// Chapter 02, "Printing": what operator<< writes for every dtype, for 0-d, empty, strided
// and large tensors, and that it leaves the caller's stream as it found it.
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>

#include "kael/kael.h"

namespace {

using kael::DType;
using kael::Tensor;

void section(std::string_view name) { std::cout << "--- section: " << name << " ---\n"; }

}  // namespace

int main() {
    section("dtypes");
    std::cout << kael::from_vector({0.125f, -3.0f}) << '\n';
    std::cout << kael::from_vector({1.0 / 3.0, 2e-5}) << '\n';
    std::cout << kael::arange(-2, 2, 1, DType::I64) << '\n';
    std::cout << kael::from_vector({false, true}) << '\n';
    const float inf = std::numeric_limits<float>::infinity();
    std::cout << kael::from_vector({inf, -inf, std::numeric_limits<float>::quiet_NaN()}) << '\n';

    section("shapes");
    std::cout << kael::scalar(7.0, DType::I64) << '\n';
    std::cout << kael::zeros({2, 1, 2}) << '\n';
    std::cout << kael::empty({3, 0}) << '\n';

    section("strided");
    // The transpose of [[0, 1, 2], [3, 4, 5]], built by hand as chapter 03's transpose will.
    const Tensor m = kael::arange(0, 6, 1, DType::I64);
    auto impl = std::make_shared<kael::TensorImpl>(*m.impl());
    impl->shape = {3, 2};
    impl->strides = {1, 3};
    const Tensor mt = Tensor::from_impl(std::move(impl));
    std::cout << "storage order: " << m << '\n';
    std::cout << "transposed:    " << mt << '\n';

    section("summary");
    std::ostringstream thousand;
    thousand << kael::arange(1000, DType::I64);
    std::cout << "1000 elements print in full: " << thousand.str().size() << " characters, "
              << (thousand.str().find("...") == std::string::npos ? "no" : "with an")
              << " ellipsis\n";
    std::cout << kael::arange(1001, DType::I64) << '\n';
    std::cout << kael::linspace(0, 1, 5000) << '\n';

    section("flags");
    std::ostringstream text;
    text << std::setprecision(3) << 2.718281828 << " | " << kael::full({2}, 2.718281828)
         << " | " << 2.718281828;
    std::cout << text.str() << '\n';
    std::cout << "precision after printing: " << text.precision() << ", fixed set: "
              << std::boolalpha << static_cast<bool>(text.flags() & std::ios::fixed) << '\n';
}

// ADR 0001 (runtime data type): what the dtype tables, dispatch, conversion, promotion
// and the dtype checks do on real values. Each part prints one section of the output.
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "kael/kael.h"

namespace {

using kael::DType;

constexpr DType kAll[] = {DType::F32, DType::F64, DType::I64, DType::Bool};

void section(std::string_view name) { std::cout << "--- section: " << name << " ---\n"; }

// The spelling of the C++ type that dispatch hands to a lambda.
template <typename T> std::string_view cpp_name() {
    if constexpr (std::is_same_v<T, float>) {
        return "float";
    } else if constexpr (std::is_same_v<T, double>) {
        return "double";
    } else if constexpr (std::is_same_v<T, std::int64_t>) {
        return "std::int64_t";
    } else {
        return "std::uint8_t";
    }
}

// Runs f and prints the kind and message of the kael error it throws.
template <typename F> void show_error(std::string_view what, F&& f) {
    std::cout << what << '\n';
    try {
        f();
        std::cout << "  no error\n";
    } catch (const kael::TypeError& error) {
        std::cout << "  TypeError: " << error.what() << '\n';
    } catch (const kael::Error& error) {
        std::cout << "  Error: " << error.what() << '\n';
    }
}

}  // namespace

int main() {
    section("table");
    std::cout << "dtype     element_size  dispatch gives  sizeof(T)\n";
    for (const DType dtype : kAll) {
        // book-region: dispatch-call
        // One switch picks T; everything inside the lambda is ordinary typed code.
        const auto [name, size] = kael::dispatch(dtype, []<typename T>() {
            return std::pair{cpp_name<T>(), static_cast<std::int64_t>(sizeof(T))};
        });
        // end-book-region: dispatch-call
        std::cout << std::left << std::setw(10) << kael::to_string(dtype) << std::setw(14)
                  << kael::element_size(dtype) << std::setw(16) << name << size << '\n';
    }

    section("trace");
    // full() reads the dtype once; to() reads it once per operand; no loop reads it at all.
    const kael::Tensor counts = kael::full({2}, 2.5, DType::I64);
    const kael::Tensor flags = counts.to(DType::Bool);
    std::cout << "full({2}, 2.5, I64)   " << counts << "  nbytes " << counts.nbytes()
              << "\n";
    std::cout << ".to(Bool)             " << flags << "  nbytes " << flags.nbytes()
              << "\n";
    std::cout << "raw byte of flags[0]: " << int{flags.data_ptr<std::uint8_t>()[0]} << '\n';
    std::cout << "counts.to(I64) is the same tensor: " << std::boolalpha
              << counts.to(DType::I64).is_same(counts) << '\n';

    section("convert");
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    std::cout << "convert_value<std::uint8_t>(2.5)    = "
              << int{kael::convert_value<std::uint8_t>(2.5)} << '\n';
    std::cout << "convert_value<std::uint8_t>(-0.0)   = "
              << int{kael::convert_value<std::uint8_t>(-0.0)} << '\n';
    std::cout << "convert_value<std::uint8_t>(NaN)    = "
              << int{kael::convert_value<std::uint8_t>(nan)} << '\n';
    std::cout << "convert_value<std::int64_t>(-2.7)   = "
              << kael::convert_value<std::int64_t>(-2.7) << '\n';
    std::cout << "convert_value<std::int64_t>(1e30)   = "
              << kael::convert_value<std::int64_t>(1e30) << '\n';
    std::cout << "convert_value<std::int64_t>(-inf)   = "
              << kael::convert_value<std::int64_t>(-inf) << '\n';
    std::cout << "convert_value<std::int64_t>(NaN)    = "
              << kael::convert_value<std::int64_t>(nan) << '\n';
    std::cout << "convert_value<float>(16777217 as int64) = " << std::fixed
              << std::setprecision(1) << kael::convert_value<float>(std::int64_t{16777217})
              << '\n';

    section("promote");
    std::cout << "promote_types  float32  float64  int64    bool\n";
    for (const DType a : kAll) {
        std::cout << std::left << std::setw(15) << kael::to_string(a);
        for (const DType b : kAll) {
            const std::string name{kael::to_string(kael::promote_types(a, b))};
            std::cout << (b == DType::Bool ? name : name + std::string(9 - name.size(), ' '));
        }
        std::cout << '\n';
    }
    std::cout << "dtype_category: float32=" << kael::dtype_category(DType::F32)
              << " float64=" << kael::dtype_category(DType::F64)
              << " int64=" << kael::dtype_category(DType::I64)
              << " bool=" << kael::dtype_category(DType::Bool) << '\n';

    section("scalar");
    std::cout << "float32 with 2.5  -> " << kael::promote_with_scalar(DType::F32, 2.5) << '\n';
    std::cout << "float64 with 2.5  -> " << kael::promote_with_scalar(DType::F64, 2.5) << '\n';
    std::cout << "int64   with 2.5  -> " << kael::promote_with_scalar(DType::I64, 2.5) << '\n';
    std::cout << "bool    with 3    -> " << kael::promote_with_scalar(DType::Bool, 3) << '\n';
    std::cout << "int64   with true -> " << kael::promote_with_scalar(DType::I64, true) << '\n';

    section("errors");
    const kael::Tensor floats = kael::zeros({2});
    show_error("zeros({2}).data_ptr<double>()", [&] { (void)floats.data_ptr<double>(); });
    show_error("linspace(0, 1, 5, I64)", [] { (void)kael::linspace(0, 1, 5, DType::I64); });
    show_error("arange(0, 3, 1, Bool)", [] { (void)kael::arange(0, 3, 1, DType::Bool); });
    show_error("zeros({2}).to(F64).data_ptr<double>()",
               [&] { (void)floats.to(DType::F64).data_ptr<double>(); });
    return 0;
}

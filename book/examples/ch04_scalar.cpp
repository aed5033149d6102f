// Chapter 02 explains Scalar and the scalar promotion rule next to the dtype tables, but both
// are stage 5 code, so their output comes from this program, run against stage 5, and the
// chapter shows it as a later run. (The chapter's other programs run against stage 3, which
// has no Scalar.)
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <string_view>

#include "kael/kael.h"

namespace {

using kael::DType;

void section(std::string_view name) { std::cout << "--- section: " << name << " ---\n"; }

}  // namespace

int main() {
    // The category rule of chapter 02's table, computed by promote_with_scalar.
    section("scalar-promotion");
    std::cout << "float32 tensor, scalar 0.5  -> " << kael::promote_with_scalar(DType::F32, 0.5) << '\n';
    std::cout << "float64 tensor, scalar 0.5  -> " << kael::promote_with_scalar(DType::F64, 0.5) << '\n';
    std::cout << "int64 tensor,   scalar 0.5  -> " << kael::promote_with_scalar(DType::I64, 0.5) << '\n';
    std::cout << "int64 tensor,   scalar 7    -> " << kael::promote_with_scalar(DType::I64, 7) << '\n';
    std::cout << "bool tensor,    scalar 7    -> " << kael::promote_with_scalar(DType::Bool, 7) << '\n';
    std::cout << "int64 tensor,   scalar true -> " << kael::promote_with_scalar(DType::I64, true) << '\n';
    std::cout << "bool tensor,    scalar 0.5  -> " << kael::promote_with_scalar(DType::Bool, 0.5) << '\n';

    // An integer beyond 2^53 survives as int64 and loses its last bit through a double.
    section("scalar");
    const std::int64_t big_id = (std::int64_t{1} << 53) + 1;
    std::cout << "Scalar(" << big_id << ").as<int64_t>() = " << kael::Scalar(big_id).as<std::int64_t>()
              << '\n';
    std::cout << "Scalar(" << big_id << ").as<double>()  = " << std::fixed << std::setprecision(0)
              << kael::Scalar(big_id).as<double>() << '\n'
              << std::defaultfloat << std::setprecision(6);
    std::cout << "Scalar(true).dtype() = " << kael::Scalar(true).dtype()
              << ", Scalar(3).dtype() = " << kael::Scalar(3).dtype()
              << ", Scalar(2.5).dtype() = " << kael::Scalar(2.5).dtype() << '\n';
    return 0;
}

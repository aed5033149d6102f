// Chapter 02, "Concepts": the three layers, identity and sharing, element-unit addresses,
// value conversion, promotion, contiguity and the reachable extent, each on real tensors.
// Every section prints what the library computed; nothing here is typed in by hand.
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <string_view>

#include "kael/kael.h"

namespace {

using kael::DType;
using kael::Shape;
using kael::Strides;
using kael::Tensor;

void section(std::string_view name) { std::cout << "--- section: " << name << " ---\n"; }

// A second interpretation of `base`'s bytes. Chapter 03 gives such tensors names
// (transpose, slice, ...); here the impl is filled in by hand, the way those views will.
Tensor reinterpret(const Tensor& base, Shape shape, Strides strides, std::int64_t offset) {
    auto impl = std::make_shared<kael::TensorImpl>();
    impl->storage = base.impl()->storage;
    impl->shape = std::move(shape);
    impl->strides = std::move(strides);
    impl->offset = offset;
    impl->dtype = base.dtype();
    impl->device = base.device();
    return Tensor::from_impl(std::move(impl));
}

// An impl over a fresh storage of `bytes` bytes, validated but not wrapped in a Tensor.
void check_layout(std::string_view label, std::int64_t bytes, Shape shape, Strides strides,
                  std::int64_t offset) {
    kael::TensorImpl impl;
    impl.storage = std::make_shared<kael::Storage>(bytes);
    impl.shape = std::move(shape);
    impl.strides = std::move(strides);
    impl.offset = offset;
    std::cout << label << ": ";
    try {
        impl.validate();
        std::cout << "valid\n";
    } catch (const kael::Error& e) {
        std::cout << "rejected\n" << e.what() << '\n';
    }
}

const char* yes_no(bool value) { return value ? "true" : "false"; }

}  // namespace

int main() {
    section("identity");
    const Tensor x = kael::arange(0, 6, 1, DType::I64);  // 0 1 2 3 4 5, shape [6]
    const Tensor m = reinterpret(x, {2, 3}, {3, 1}, 0);
    const Tensor alias = m;                 // a second handle to the same tensor
    const Tensor mt = reinterpret(m, {3, 2}, {1, 3}, 0);  // the transpose, by hand
    const Tensor copy = m.clone();
    std::cout << "m     = " << m << '\n';
    std::cout << "mt    = " << mt << '\n';
    std::cout << "m.is_same(alias)        " << yes_no(m.is_same(alias)) << '\n';
    std::cout << "m.is_same(mt)           " << yes_no(m.is_same(mt)) << '\n';
    std::cout << "m.shares_storage(mt)    " << yes_no(m.shares_storage(mt)) << '\n';
    std::cout << "m.shares_storage(copy)  " << yes_no(m.shares_storage(copy)) << '\n';
    mt.at<std::int64_t>({2, 0}) = 20;  // writes storage position 2
    std::cout << "after mt[2, 0] = 20:\n";
    std::cout << "m     = " << m << '\n';
    std::cout << "copy  = " << copy << '\n';

    section("addresses");
    for (const DType dtype : {DType::F32, DType::F64, DType::I64, DType::Bool}) {
        const Tensor t = kael::zeros({2, 3}, dtype);
        const std::byte* base = t.data_ptr_raw();
        const std::byte* element = kael::dispatch(dtype, [&]<typename T>() {
            return reinterpret_cast<const std::byte*>(&t.at<T>({1, 2}));
        });
        std::cout << dtype << ": strides " << kael::to_string(t.strides()) << ", element [1, 2] at byte "
                  << (element - base) << " of " << t.impl()->storage->nbytes() << '\n';
    }

    section("conversion");
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    std::cout << "bool  <- 0.5     : " << int{kael::convert_value<std::uint8_t>(0.5)} << '\n';
    std::cout << "bool  <- -3.0    : " << int{kael::convert_value<std::uint8_t>(-3.0)} << '\n';
    std::cout << "bool  <- -0.0    : " << int{kael::convert_value<std::uint8_t>(-0.0)} << '\n';
    std::cout << "bool  <- NaN     : " << int{kael::convert_value<std::uint8_t>(nan)} << '\n';
    std::cout << "bool  <- int64 4 : "
              << int{kael::convert_value<std::uint8_t>(std::int64_t{4})} << '\n';
    std::cout << "int64 <- 3.99    : " << kael::convert_value<std::int64_t>(3.99) << '\n';
    std::cout << "int64 <- -3.99   : " << kael::convert_value<std::int64_t>(-3.99) << '\n';
    std::cout << "int64 <- 1e19    : " << kael::convert_value<std::int64_t>(1e19) << '\n';
    std::cout << "int64 <- -inf    : " << kael::convert_value<std::int64_t>(-inf) << '\n';
    std::cout << "int64 <- NaN     : " << kael::convert_value<std::int64_t>(nan) << '\n';
    std::cout.precision(17);
    std::cout << "float  <- int64 16777217         : "
              << kael::convert_value<float>(std::int64_t{16777217}) << '\n';
    std::cout << "double <- int64 16777217         : "
              << kael::convert_value<double>(std::int64_t{16777217}) << '\n';
    std::cout << "double <- int64 9007199254740993 : "
              << kael::convert_value<double>((std::int64_t{1} << 53) + 1) << '\n';
    std::cout.precision(6);

    section("promotion");
    const DType all[] = {DType::Bool, DType::I64, DType::F32, DType::F64};
    // One row per left operand, one column per right operand.
    std::cout << "          bool      int64     float32   float64\n";
    for (const DType a : all) {
        std::string row(kael::to_string(a));
        for (std::size_t column = 0; column < 4; ++column) {
            row.resize(10 * (column + 1), ' ');
            row += kael::to_string(kael::promote_types(a, all[column]));
        }
        std::cout << row << '\n';
    }

    // The scalar promotion table needs stage 5's promote_with_scalar: ch04_scalar.cpp.

    section("contiguity");
    const Tensor storage24 = kael::zeros({24});
    const struct {
        const char* label;
        Shape shape;
        Strides strides;
        std::int64_t offset;
    } layouts[] = {
        {"row-major [2, 3]", {2, 3}, {3, 1}, 0},
        {"its transpose [3, 2]", {3, 2}, {1, 3}, 0},
        {"every other element [4]", {4}, {2}, 0},
        {"rows with a gap [2, 3]", {2, 3}, {5, 1}, 0},
        {"size-1 middle dim [2, 1, 3]", {2, 1, 3}, {3, 17, 1}, 0},
        {"row-major [2, 3], offset 6", {2, 3}, {3, 1}, 6},
        {"empty [4, 0]", {4, 0}, {7, 7}, 0},
    };
    for (const auto& layout : layouts) {
        const Tensor t = reinterpret(storage24, layout.shape, layout.strides, layout.offset);
        std::cout << layout.label << ", strides " << kael::to_string(layout.strides)
                  << ": " << (t.is_contiguous() ? "contiguous" : "not contiguous") << '\n';
    }

    section("extent");
    check_layout("[2, 3] float32, strides [3, 1], offset 0, 24 bytes", 24, {2, 3}, {3, 1}, 0);
    check_layout("[3] float32, stride [2], offset 1, 28 bytes", 28, {3}, {2}, 1);
    check_layout("[2, 3] float32, strides [3, 1], offset 1, 24 bytes", 24, {2, 3}, {3, 1}, 1);
}

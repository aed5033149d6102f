// Chapter 01: the shape arithmetic of kael/shape.h and kael/checked_math.h on the chapter's
// worked examples, and the messages of the checks that guard it. The first two sections
// are the ones chapter 00 shows as a later run: stage 1 has no check of its own inside the
// library or an installed header.
#include <cstdint>
#include <iostream>
#include <limits>

#include "kael/checked_math.h"
#include "kael/error.h"
#include "kael/shape.h"

namespace {

using kael::Index;
using kael::Shape;
using kael::Strides;
using kael::to_string;

void section(const char* name) { std::cout << "--- section: " << name << " ---\n"; }

template <typename Body>
void print_error(Body body) {
    try {
        body();
        std::cout << "no exception\n";
    } catch (const kael::Error& e) {
        std::cout << e.what() << '\n';
    }
}

}  // namespace

int main() {
    // A check inside a library source file: the path is relative to kael/.
    section("check-in-library");
    print_error([] { (void)kael::numel(kael::Shape{2, -3}); });

    // A check inside an inline function of an installed header.
    section("check-in-header");
    print_error([] { (void)kael::detail::checked_mul(std::int64_t{1} << 62, 4, "byte count"); });

    section("numel");
    for (const Shape& shape : {Shape{}, Shape{5}, Shape{2, 3, 4}, Shape{2, 0, 4}}) {
        std::cout << "numel(" << to_string(shape) << ") = " << kael::numel(shape) << '\n';
    }

    section("strides");
    for (const Shape& shape :
         {Shape{}, Shape{5}, Shape{2, 3}, Shape{2, 3, 4}, Shape{2, 0, 3}, Shape{0}}) {
        std::cout << "contiguous_strides(" << to_string(shape)
                  << ") = " << to_string(kael::contiguous_strides(shape)) << '\n';
    }

    section("offset");
    std::cout << "shape [2, 3], strides [3, 1], offset 0, index [1, 2] -> "
              << kael::offset_from_index({2, 3}, {3, 1}, 0, Index{1, 2}) << '\n';
    std::cout << "shape [2, 3], strides [3, 1], offset 4, index [1, 2] -> "
              << kael::offset_from_index({2, 3}, {3, 1}, 4, Index{1, 2}) << '\n';
    std::cout << "shape [3, 2], strides [1, 3], offset 0, index [2, 1] -> "
              << kael::offset_from_index({3, 2}, {1, 3}, 0, Index{2, 1}) << '\n';
    std::cout << "shape [], strides [], offset 7, index [] -> "
              << kael::offset_from_index({}, {}, 7, Index{}) << '\n';

    // Every element of the transposed layout, in the order a reader of the tensor sees it.
    section("transposed");
    const Shape t_shape{3, 2};
    const Strides t_strides{1, 3};
    for (std::int64_t k = 0; k < kael::numel(t_shape); ++k) {
        const Index index = kael::index_from_linear(k, t_shape);
        std::cout << "element " << k << ": index " << to_string(index) << " -> storage position "
                  << kael::offset_from_index(t_shape, t_strides, 0, index) << '\n';
    }

    section("linear");
    for (std::int64_t k = 0; k < 6; ++k) {
        std::cout << "index_from_linear(" << k << ", [2, 3]) = "
                  << to_string(kael::index_from_linear(k, {2, 3})) << '\n';
    }
    std::cout << "index_from_linear(13, [2, 3, 4]) = "
              << to_string(kael::index_from_linear(13, {2, 3, 4})) << '\n';
    std::cout << "index_from_linear(0, []) = " << to_string(kael::index_from_linear(0, {}))
              << '\n';

    section("wrap");
    std::cout << "wrap_dim(-1, 3) = " << kael::wrap_dim(-1, 3) << '\n';
    std::cout << "wrap_dim(-3, 3) = " << kael::wrap_dim(-3, 3) << '\n';
    std::cout << "wrap_dim(0, 0) = " << kael::wrap_dim(0, 0) << '\n';
    std::cout << "wrap_dim(-1, 0) = " << kael::wrap_dim(-1, 0) << '\n';
    std::cout << "dim_position(-1, 2) = " << kael::dim_position(-1, 2) << '\n';

    section("wrap-errors");
    print_error([] { (void)kael::wrap_dim(2, 2); });
    print_error([] { (void)kael::wrap_dim(-4, 3); });
    print_error([] { (void)kael::wrap_dim(1, 0); });
    print_error([] { (void)kael::dim_position(0, 0); });

    section("index-errors");
    print_error([] { (void)kael::offset_from_index({3}, {1}, 0, Index{3}); });
    print_error([] { (void)kael::offset_from_index({2, 3}, {3, 1}, 0, Index{1}); });
    print_error([] { (void)kael::index_from_linear(6, {2, 3}); });
    print_error([] { (void)kael::index_from_linear(0, {2, 0}); });

    section("shape-errors");
    print_error([] { (void)kael::numel({2, -1}); });
    print_error([] { (void)kael::contiguous_strides({3, -2}); });

    // The limit of int64, from both sides.
    section("overflow");
    constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
    const std::int64_t two31 = std::int64_t{1} << 31;
    std::cout << "int64 max = " << max << '\n';
    std::cout << "max / 2 = " << max / 2 << '\n';
    std::cout << "checked_mul(max / 2, 2) = " << kael::detail::checked_mul(max / 2, 2, "x") << '\n';
    print_error([] { (void)kael::detail::checked_mul(std::int64_t{1} << 62, 2, "product"); });
    std::cout << "checked_add(max - 1, 1) = " << kael::detail::checked_add(max - 1, 1, "x")
              << '\n';
    print_error([] { (void)kael::detail::checked_add(std::numeric_limits<std::int64_t>::max(), 1, "sum"); });
    std::cout << "numel([2^31, 2^30, 2]) = " << kael::numel({two31, two31 / 2, 2}) << '\n';
    print_error([two31] { (void)kael::numel({two31, two31, 2}); });
    print_error([] { (void)kael::detail::checked_mul(-1, 2, "size"); });

    // Strides when a size is near the limit: the outermost size never enters a stride,
    // an inner one does.
    section("stride-overflow");
    const std::int64_t two62 = std::int64_t{1} << 62;
    std::cout << "contiguous_strides([2^62, 4]) = "
              << to_string(kael::contiguous_strides({two62, 4})) << '\n';
    print_error([two62] { (void)kael::contiguous_strides({2, two62, 4}); });
    std::cout << "offset_from_index([2], [2^62], 0, [1]) = "
              << kael::offset_from_index({2}, {two62}, 0, Index{1}) << '\n';
    print_error([two62] { (void)kael::offset_from_index({3}, {two62}, 0, Index{2}); });

    // Shapes with no elements whose other sizes multiply past the limit.
    section("empty-huge");
    for (const Shape& shape : {Shape{two62, 0, 4}, Shape{two62, 4, 0}}) {
        std::cout << "numel(" << to_string(shape) << ") = " << kael::numel(shape)
                  << ", contiguous_strides = " << to_string(kael::contiguous_strides(shape))
                  << '\n';
    }
    // Without the zero the same sizes have a real element count, and it does not fit.
    print_error([two62] { (void)kael::numel({two62, 4, 1}); });
    return 0;
}

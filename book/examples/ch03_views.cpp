// Chapter 03, "Views": every view of the chapter applied to real tensors, with the shape,
// strides and offset the library computed, the storage they share, and the errors the view
// functions raise. Nothing printed here is typed in by hand.
#include <cstdint>
#include <iostream>
#include <optional>
#include <string_view>
#include <vector>

#include "kael/kael.h"

namespace {

using kael::DType;
using kael::Shape;
using kael::Strides;
using kael::Tensor;

void section(std::string_view name) { std::cout << "--- section: " << name << " ---\n"; }

const char* yes_no(bool value) { return value ? "true" : "false"; }

// One line of metadata, then the elements in logical order.
void show(std::string_view label, const Tensor& t) {
    std::cout << label << ": shape " << kael::to_string(t.shape()) << ", strides "
              << kael::to_string(t.strides()) << ", offset " << t.offset() << '\n'
              << "    " << t << '\n';
}

// Only the metadata, for tensors whose values do not matter.
void meta(std::string_view label, const Tensor& t) {
    std::cout << label << ": shape " << kael::to_string(t.shape()) << ", strides "
              << kael::to_string(t.strides()) << ", offset " << t.offset() << '\n';
}

template <typename F> void attempt(std::string_view label, F&& f) {
    std::cout << label << '\n';
    try {
        f();
        std::cout << "    no error\n";
    } catch (const kael::Error& e) {
        std::cout << "    " << e.what() << '\n';
    }
}

const char* overlap_name(kael::MemOverlap overlap) {
    switch (overlap) {
    case kael::MemOverlap::No:
        return "No";
    case kael::MemOverlap::Yes:
        return "Yes";
    case kael::MemOverlap::TooHard:
        return "TooHard";
    }
    return "?";
}

void try_view_strides(const Shape& shape, const Strides& strides, const Shape& target) {
    const std::optional<Strides> result = kael::view_strides(shape, strides, target);
    std::cout << "  as " << kael::to_string(target) << ": "
              << (result ? "strides " + kael::to_string(*result) : std::string("no strides exist"))
              << '\n';
}

}  // namespace

int main() {
    // [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
    const Tensor grid = kael::arange(0, 12, 1, DType::I64).view({3, 4});

    section("grid");
    show("grid", grid);
    std::cout << "grid storage holds " << grid.impl()->storage->nbytes() << " bytes\n";

    section("sharing");
    const Tensor base = kael::zeros({6}, DType::I64);
    const Tensor m = base.view({2, 3});
    const Tensor row = m[1];
    std::cout << "m.shares_storage(base)    " << yes_no(m.shares_storage(base)) << '\n';
    std::cout << "m.is_same(base)           " << yes_no(m.is_same(base)) << '\n';
    std::cout << "row.shares_storage(base)  " << yes_no(row.shares_storage(base)) << '\n';
    row.at<std::int64_t>({2}) = 7;  // m[1, 2], storage position 5
    std::cout << "after row[2] = 7:\n";
    show("base", base);
    show("m", m);
    std::cout << "version seen through base before: " << base.impl()->storage->version() << '\n';
    m.impl()->storage->bump_version();  // what an in-place op on m does (chapter 05)
    std::cout << "version seen through row after m's bump: " << row.impl()->storage->version()
              << '\n';

    section("transpose");
    show("grid.transpose(0, 1)", grid.transpose(0, 1));
    show("grid.T()", grid.T());
    const Tensor cube = kael::arange(0, 24, 1, DType::I64).view({2, 3, 4});
    meta("cube", cube);
    meta("cube.T()", cube.T());
    meta("cube.mT()", cube.mT());
    meta("cube.permute({1, 2, 0})", cube.permute({1, 2, 0}));
    meta("cube.permute({-1, 0, 1})", cube.permute({-1, 0, 1}));

    section("slice");
    show("grid.slice(1, 1, 4, 2)", grid.slice(1, 1, 4, 2));
    show("grid.slice(0, 1)", grid.slice(0, 1));
    const Tensor five = kael::arange(0, 5, 1, DType::I64);
    show("five", five);
    show("five.slice(0, -2)", five.slice(0, -2));
    show("five.slice(0, 1, -1)", five.slice(0, 1, -1));
    show("five.slice(0, -100, 100)", five.slice(0, -100, 100));
    show("five.slice(0, 0, 5, 3)", five.slice(0, 0, 5, 3));
    show("five.slice(0, 0, 5, 2)", five.slice(0, 0, 5, 2));
    show("five.slice(0, 3, 1)", five.slice(0, 3, 1));
    show("five.slice(0, 7)", five.slice(0, 7));

    section("select");
    show("grid.select(0, 1)", grid.select(0, 1));
    show("grid.select(1, -1)", grid.select(1, -1));
    show("grid[2]", grid[2]);
    show("grid[1][2]", grid[1][2]);
    show("grid.narrow(1, 1, 2)", grid.narrow(1, 1, 2));
    show("grid.narrow(0, -1, 1)", grid.narrow(0, -1, 1));

    section("compose");
    const Tensor inner = grid.slice(0, 1).slice(1, 1, 3);
    show("grid.slice(0, 1).slice(1, 1, 3)", inner);
    show("  .transpose(0, 1)", inner.transpose(0, 1));
    show("  .transpose(0, 1)[1]", inner.transpose(0, 1)[1]);

    section("expand");
    const Tensor column = kael::arange(0, 3, 1, DType::I64).view({3, 1});
    show("column", column);
    show("column.expand({3, 4})", column.expand({3, 4}));
    const Tensor three = kael::arange(0, 3, 1, DType::I64);
    show("three.expand({2, -1})", three.expand({2, -1}));
    meta("three.expand({1, 3})", three.expand({1, 3}));
    meta("column.expand({2, 3, 5})", column.expand({2, 3, 5}));
    const Tensor e = column.expand({3, 4});
    std::cout << "column.expand({3, 4}) has " << e.numel() << " elements over "
              << e.impl()->storage->nbytes() << " bytes of storage\n";

    section("squeeze");
    const Tensor ones = kael::zeros({2, 1, 3, 1});
    meta("t", ones);
    meta("t.squeeze()", ones.squeeze());
    meta("t.squeeze(1)", ones.squeeze(1));
    meta("t.squeeze(0)", ones.squeeze(0));
    const Tensor m23 = kael::zeros({2, 3});
    meta("m23", m23);
    meta("m23.unsqueeze(0)", m23.unsqueeze(0));
    meta("m23.unsqueeze(1)", m23.unsqueeze(1));
    meta("m23.unsqueeze(2)", m23.unsqueeze(2));
    meta("m23.T().unsqueeze(1)", m23.T().unsqueeze(1));
    std::cout << "m23.unsqueeze(1).is_contiguous(): " << yes_no(m23.unsqueeze(1).is_contiguous())
              << '\n';

    section("view-works");
    const Tensor t43 = grid.transpose(0, 1);
    show("t = grid.transpose(0, 1)", t43);
    show("t.view({2, 2, 3})", t43.view({2, 2, 3}));
    std::cout << "shares storage with grid: " << yes_no(t43.view({2, 2, 3}).shares_storage(grid))
              << '\n';

    section("view-fails");
    attempt("t.view({12})", [&] { (void)t43.view({12}); });
    const Tensor r = t43.reshape({12});
    show("t.reshape({12})", r);
    std::cout << "shares storage with grid: " << yes_no(r.shares_storage(grid)) << '\n';
    const Tensor same = grid.reshape({2, 6});
    std::cout << "grid.reshape({2, 6}) shares storage with grid: " << yes_no(same.shares_storage(grid))
              << '\n';

    section("chunks");
    const Tensor y = kael::arange(0, 24, 1, DType::I64).view({2, 3, 4}).permute({2, 0, 1});
    meta("y = arange(24).view({2, 3, 4}).permute({2, 0, 1})", y);
    std::cout << "view_strides(y.shape(), y.strides(), ...):\n";
    for (const Shape& target : {Shape{4, 6}, Shape{4, 3, 2}, Shape{2, 2, 6}, Shape{4, 1, 6, 1},
                                Shape{8, 3}, Shape{24}}) {
        try_view_strides(y.shape(), y.strides(), target);
    }

    section("infer");
    std::cout << "infer_size({2, -1, 3}, 12) = " << kael::to_string(kael::infer_size({2, -1, 3}, 12))
              << '\n';
    std::cout << "infer_size({-1}, 12)       = " << kael::to_string(kael::infer_size({-1}, 12)) << '\n';
    attempt("infer_size({5, -1}, 12)", [] { (void)kael::infer_size({5, -1}, 12); });
    attempt("infer_size({-1, -1}, 12)", [] { (void)kael::infer_size({-1, -1}, 12); });
    attempt("infer_size({0, -1}, 0)", [] { (void)kael::infer_size({0, -1}, 0); });

    section("flatten");
    meta("cube.flatten()", cube.flatten());
    meta("cube.flatten(1)", cube.flatten(1));
    meta("cube.flatten(0, 1)", cube.flatten(0, 1));
    meta("cube.unflatten(2, {2, -1})", cube.unflatten(2, {2, -1}));
    const Tensor ct = cube.transpose(0, 2);
    meta("cube.transpose(0, 2)", ct);
    meta("cube.transpose(0, 2).unflatten(0, {2, 2})", ct.unflatten(0, {2, 2}));
    const Tensor flat = ct.flatten();
    std::cout << "cube.transpose(0, 2).flatten() shares storage with cube: "
              << yes_no(flat.shares_storage(cube)) << '\n';

    section("detach");
    const Tensor d = grid.detach();
    meta("grid.detach()", d);
    std::cout << "is_same(grid): " << yes_no(d.is_same(grid))
              << ", shares_storage(grid): " << yes_no(d.shares_storage(grid)) << '\n';

    section("overlap");
    const struct {
        const char* label;
        Tensor tensor;
    } cases[] = {
        {"grid", grid},
        {"grid.transpose(0, 1)", grid.transpose(0, 1)},
        {"grid.slice(1, 0, 4, 2)", grid.slice(1, 0, 4, 2)},
        {"zeros({3, 1}).expand({3, 4})", kael::zeros({3, 1}).expand({3, 4})},
        {"zeros({1}).expand({1})", kael::zeros({1}).expand({1})},
        {"zeros({3}).as_strided({2, 2}, {1, 1}, 0)", kael::zeros({3}).as_strided({2, 2}, {1, 1}, 0)},
        {"zeros({8}).as_strided({2, 2}, {3, 1}, 0)", kael::zeros({8}).as_strided({2, 2}, {3, 1}, 0)},
        {"zeros({20}).as_strided({3, 3}, {2, 5}, 0)",
         kael::zeros({20}).as_strided({3, 3}, {2, 5}, 0)},
        {"zeros({12}).as_strided({2, 3}, {4, 3}, 0)",
         kael::zeros({12}).as_strided({2, 3}, {4, 3}, 0)},
    };
    for (const auto& c : cases) {
        std::cout << c.label << ", strides " << kael::to_string(c.tensor.strides()) << ": "
                  << overlap_name(kael::has_internal_overlap(c.tensor)) << '\n';
    }

    section("partial");
    const Tensor ten = kael::arange(10);
    std::cout << "t, t                          " << yes_no(kael::may_partially_overlap(ten, ten)) << '\n';
    std::cout << "t[0:5], t[5:]                 "
              << yes_no(kael::may_partially_overlap(ten.slice(0, 0, 5), ten.slice(0, 5))) << '\n';
    std::cout << "t[0:6], t[5:]                 "
              << yes_no(kael::may_partially_overlap(ten.slice(0, 0, 6), ten.slice(0, 5))) << '\n';
    std::cout << "t[1:], t[:9]                  "
              << yes_no(kael::may_partially_overlap(ten.slice(0, 1), ten.slice(0, 0, 9))) << '\n';
    std::cout << "t[0::2], t[1::2]              "
              << yes_no(kael::may_partially_overlap(ten.slice(0, 0, std::nullopt, 2),
                                                    ten.slice(0, 1, std::nullopt, 2)))
              << '\n';
    std::cout << "t, t.clone()                  "
              << yes_no(kael::may_partially_overlap(ten, ten.clone())) << '\n';

    // The checks at work in chapter 05's in-place operations (stage 6) are in
    // ch05_overlap_checks.cpp.

    section("contiguous");
    const Tensor tt = grid.transpose(0, 1);
    const Tensor c1 = grid.contiguous();
    const Tensor c2 = tt.contiguous();
    std::cout << "grid.is_contiguous(): " << yes_no(grid.is_contiguous())
              << ", grid.contiguous().is_same(grid): " << yes_no(c1.is_same(grid)) << '\n';
    std::cout << "t.is_contiguous(): " << yes_no(tt.is_contiguous())
              << ", t.contiguous().shares_storage(t): " << yes_no(c2.shares_storage(tt)) << '\n';
    show("t.contiguous()", c2);
    show("t.contiguous().view({12})", c2.view({12}));

    section("errors");
    attempt("five.slice(0, 0, 5, 0)", [&] { (void)five.slice(0, 0, 5, 0); });
    attempt("five.slice(0, 0, 5, -1)", [&] { (void)five.slice(0, 0, 5, -1); });
    attempt("five.slice(1)", [&] { (void)five.slice(1); });
    attempt("grid.select(1, 4)", [&] { (void)grid.select(1, 4); });
    attempt("grid.narrow(1, 3, 2)", [&] { (void)grid.narrow(1, 3, 2); });
    attempt("zeros({2, 3}).expand({2, 4})", [] { (void)kael::zeros({2, 3}).expand({2, 4}); });
    attempt("zeros({2, 3}).expand({3})", [] { (void)kael::zeros({2, 3}).expand({3}); });
    attempt("zeros({2, 3}).expand({-1, 2, 3})", [] { (void)kael::zeros({2, 3}).expand({-1, 2, 3}); });
    attempt("cube.permute({0, 0, 1})", [&] { (void)cube.permute({0, 0, 1}); });
    attempt("zeros({3}).mT()", [] { (void)kael::zeros({3}).mT(); });
    attempt("grid.view({5, -1})", [&] { (void)grid.view({5, -1}); });
    attempt("zeros({6}).as_strided({2, 2}, {3, 1}, 2)",
            [] { (void)kael::zeros({6}).as_strided({2, 2}, {3, 1}, 2); });
    attempt("zeros({6}).as_strided({2}, {-1}, 3)",
            [] { (void)kael::zeros({6}).as_strided({2}, {-1}, 3); });
    return 0;
}

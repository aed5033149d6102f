// Chapter 04: broadcasting, Scalar, type promotion and the TensorIterator, each on real
// tensors. Every section prints what the library computed; nothing is typed in by hand,
// except the column of PyTorch's answers, which the program compares with kael's.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kael/kael.h"

namespace {

using kael::DType;
using kael::Scalar;
using kael::Shape;
using kael::Tensor;
using kael::TensorIterator;
using kael::TensorIteratorConfig;

void section(std::string_view name) { std::cout << "--- section: " << name << " ---\n"; }

const std::vector<DType> kDtypes{DType::Bool, DType::I64, DType::F32, DType::F64};

std::string padded(std::string_view text, std::size_t width) {
    std::string s(text);
    s.resize(std::max(width, s.size()), ' ');
    return s;
}

std::string name(DType dtype) { return std::string(kael::to_string(dtype)); }

void show_broadcast(const Shape& a, const Shape& b) {
    std::cout << padded(kael::to_string(a), 12) << " with " << padded(kael::to_string(b), 10)
              << " -> ";
    try {
        std::cout << kael::to_string(kael::broadcast_shapes(a, b)) << '\n';
    } catch (const kael::Error& e) {
        std::cout << "error\n  " << e.what() << '\n';
    }
}

// The loop an iterator computed for `label`.
void show_loop(std::string_view label, const TensorIterator& iter) {
    std::cout << label << '\n' << "  " << iter.describe() << '\n';
}

template <typename F> void report(std::string_view label, F&& f) {
    std::cout << label << ": ";
    try {
        f();
        std::cout << "ok\n";
    } catch (const kael::Error& e) {
        std::cout << "error\n  " << e.what() << '\n';
    }
}

// Best of several timings of `f`, in microseconds.
template <typename F> double best_microseconds(F&& f) {
    double best = 1e300;
    for (int rep = 0; rep < 7; ++rep) {
        const auto start = std::chrono::steady_clock::now();
        f();
        const auto stop = std::chrono::steady_clock::now();
        best = std::min(best, std::chrono::duration<double, std::micro>(stop - start).count());
    }
    return best;
}

}  // namespace

int main() {
    section("broadcast");
    show_broadcast({2, 3}, {3});
    show_broadcast({3, 1}, {1, 4});
    show_broadcast({5, 1, 4}, {3, 1});
    show_broadcast({}, {2, 2});
    show_broadcast({2, 0}, {1});
    show_broadcast({8, 1, 6, 1}, {7, 1, 5});
    {
        const std::vector<Shape> three{{4, 1}, {1, 5}, {3, 1, 1}};
        std::cout << "[4, 1], [1, 5] and [3, 1, 1] together -> "
                  << kael::to_string(kael::broadcast_shapes(three)) << '\n';
    }

    section("broadcast-errors");
    show_broadcast({2, 3}, {2});
    show_broadcast({2, 0}, {2});
    show_broadcast({4, 3, 2}, {3, 3, 1});

    section("stride-zero");
    {
        const Tensor row = kael::arange(0, 3, 1, DType::F32);  // [3]
        const Tensor stretched = row.expand({2, 3});
        std::cout << "row          shape " << kael::to_string(row.shape()) << " strides "
                  << kael::to_string(row.strides()) << '\n';
        std::cout << "row expanded shape " << kael::to_string(stretched.shape()) << " strides "
                  << kael::to_string(stretched.strides()) << " shares storage "
                  << std::boolalpha << stretched.shares_storage(row) << '\n';
        std::cout << "element [1, 2] of the expanded row: " << stretched.at<float>({1, 2}) << '\n';
        const Tensor matrix = kael::zeros({2, 3});
        const TensorIterator iter =
            TensorIteratorConfig().declare_output(DType::F32).add_input(matrix).add_input(row).build();
        show_loop("[2, 3] + [3] in the iterator:", iter);
    }

    section("scalar");
    {
        const std::int64_t big = (std::int64_t{1} << 53) + 1;
        std::cout << "Scalar(true)  dtype " << Scalar(true).dtype() << '\n';
        std::cout << "Scalar(3)     dtype " << Scalar(3).dtype() << '\n';
        std::cout << "Scalar(2.5f)  dtype " << Scalar(2.5f).dtype() << '\n';
        std::cout << "Scalar(2.5)   dtype " << Scalar(2.5).dtype() << "  (a category, not a precision)\n";
        std::cout << "2^53 + 1 kept as int64:      " << Scalar(big).as<std::int64_t>() << '\n';
        std::cout << "2^53 + 1 through a double:   "
                  << Scalar(static_cast<double>(big)).as<std::int64_t>() << '\n';
        std::cout << "Scalar(-2.7).as<int64>()     " << Scalar(-2.7).as<std::int64_t>() << '\n';
        std::cout << "Scalar(2.5).as<bool byte>()  " << int{Scalar(2.5).as<std::uint8_t>()} << '\n';
        std::cout << "full({2}, 2^53 + 1, I64):    " << kael::full({2}, big, DType::I64) << '\n';
    }

    section("promote-types");
    std::cout << padded("", 9);
    for (const DType b : kDtypes) {
        std::cout << padded(name(b), 9);
    }
    std::cout << '\n';
    for (const DType a : kDtypes) {
        std::cout << padded(name(a), 9);
        for (const DType b : kDtypes) {
            std::cout << padded(name(kael::promote_types(a, b)), 9);
        }
        std::cout << '\n';
    }

    section("promote-scalar");
    {
        // What PyTorch 1.13's torch.result_type(tensor, scalar) returned for the same pairs.
        struct Row {
            DType tensor;
            Scalar scalar;
            std::string_view scalar_text;
            DType torch;
        };
        const std::vector<Row> rows{
            {DType::Bool, true, "true", DType::Bool},   {DType::Bool, 7, "7", DType::I64},
            {DType::Bool, 0.5, "0.5", DType::F32},      {DType::I64, true, "true", DType::I64},
            {DType::I64, 7, "7", DType::I64},           {DType::I64, 0.5, "0.5", DType::F32},
            {DType::F32, 7, "7", DType::F32},           {DType::F32, 0.5, "0.5", DType::F32},
            {DType::F64, 0.5, "0.5", DType::F64},
        };
        std::cout << "tensor   scalar  kael     torch\n";
        for (const Row& row : rows) {
            const DType ours = kael::promote_with_scalar(row.tensor, row.scalar);
            std::cout << padded(name(row.tensor), 9) << padded(row.scalar_text, 8)
                      << padded(name(ours), 9) << padded(name(row.torch), 9)
                      << (ours == row.torch ? "same" : "DIFFERENT") << '\n';
        }
    }

    section("result-dtype");
    {
        // Rows: a tensor of shape [3]; columns: a 0-d tensor. Each cell is kael's answer,
        // then PyTorch 1.13's torch.result_type for the same two tensors.
        const DType torch[4][4] = {
            {DType::Bool, DType::I64, DType::F32, DType::F64},
            {DType::I64, DType::I64, DType::F32, DType::F64},
            {DType::F32, DType::F32, DType::F32, DType::F32},
            {DType::F64, DType::F64, DType::F64, DType::F64},
        };
        std::cout << padded("[3] \\ 0-d", 10);
        for (const DType b : kDtypes) {
            std::cout << padded(name(b), 10);
        }
        std::cout << '\n';
        int differences = 0;
        for (std::size_t i = 0; i < kDtypes.size(); ++i) {
            std::cout << padded(name(kDtypes[i]), 10);
            const Tensor dimensioned = kael::zeros({3}, kDtypes[i]);
            for (std::size_t j = 0; j < kDtypes.size(); ++j) {
                const DType ours = kael::result_dtype(dimensioned, kael::scalar(0, kDtypes[j]));
                differences += ours != torch[i][j] ? 1 : 0;
                std::cout << padded(name(ours), 10);
            }
            std::cout << '\n';
        }
        std::cout << "cells where PyTorch differs: " << differences << '\n';
    }

    section("result-dtype-lists");
    {
        const Tensor ints = kael::zeros({3}, DType::I64);
        const Tensor floats = kael::zeros({3}, DType::F32);
        const Tensor bools = kael::zeros({3}, DType::Bool);
        const Tensor double0 = kael::scalar(1.0, DType::F64);
        const Tensor int0 = kael::scalar(1, DType::I64);
        std::cout << "int64 [3], float64 [], bool [3]   -> "
                  << kael::result_dtype(std::vector<Tensor>{ints, double0, bools}) << '\n';
        std::cout << "float32 [3], float64 []           -> "
                  << kael::result_dtype(std::vector<Tensor>{floats, double0}) << '\n';
        std::cout << "int64 [], float64 []              -> "
                  << kael::result_dtype(std::vector<Tensor>{int0, double0}) << '\n';
        std::cout << "int64 [3], float32 [3]            -> " << kael::result_dtype(ints, floats)
                  << '\n';
        std::cout << "int64 [] with the scalar 0.5      -> " << kael::result_dtype(int0, 0.5) << '\n';
    }

    section("combine");
    std::cout << "higher \\ lower ";
    for (const DType b : kDtypes) {
        std::cout << padded(name(b), 9);
    }
    std::cout << '\n';
    for (const DType a : kDtypes) {
        std::cout << padded(name(a), 15);
        for (const DType b : kDtypes) {
            std::cout << padded(name(kael::combine_categories(a, b)), 9);
        }
        std::cout << '\n';
    }

    section("byte-strides");
    {
        const Tensor x = kael::zeros({2, 3}, DType::F64);
        show_loop("float64 [2, 3] compared into a bool output:",
                  TensorIteratorConfig().declare_output(DType::Bool).add_input(x).build());
        const Tensor ints = kael::zeros({3, 2}, DType::I64).transpose(0, 1);
        show_loop("transposed int64 [2, 3] copied into a new float32 tensor:",
                  TensorIteratorConfig()
                      .declare_output(DType::F32)
                      .add_input(ints)
                      .allow_mixed_input_dtypes()
                      .build());
    }

    section("coalesce-contiguous");
    {
        const Tensor a = kael::zeros({2, 3, 4});
        show_loop("contiguous [2, 3, 4] + contiguous [2, 3, 4]:",
                  TensorIteratorConfig().declare_output(DType::F32).add_input(a).add_input(a).build());
    }

    section("coalesce-broadcast");
    {
        const Tensor matrix = kael::zeros({1000, 1000});
        const Tensor row = kael::zeros({1000});
        const Tensor column = kael::zeros({1000, 1});
        show_loop("[1000, 1000] + [1000]:", TensorIteratorConfig()
                                                .declare_output(DType::F32)
                                                .add_input(matrix)
                                                .add_input(row)
                                                .build());
        show_loop("[1000, 1000] + [1000, 1]:", TensorIteratorConfig()
                                                   .declare_output(DType::F32)
                                                   .add_input(matrix)
                                                   .add_input(column)
                                                   .build());
    }

    section("coalesce-transposed");
    {
        const Tensor t = kael::zeros({3, 4}).transpose(0, 1);
        std::cout << "input: shape " << kael::to_string(t.shape()) << ", strides "
                  << kael::to_string(t.strides()) << " (elements)\n";
        show_loop("copy of the transposed [4, 3] into a new tensor:",
                  TensorIteratorConfig().declare_output(DType::F32).add_input(t).build());
        const Tensor out = kael::zeros({4, 3}).transpose(0, 1);
        const Tensor in = kael::zeros({4, 3}).transpose(0, 1);
        show_loop("transposed [3, 4] written into a transposed [3, 4] output:",
                  TensorIteratorConfig().add_output(out).add_input(in).build());
    }

    section("coalesce-every-other");
    {
        const Tensor a = kael::zeros({3, 4}).slice(1, 0, 4, 2);
        std::cout << "every other column of [3, 4]: shape " << kael::to_string(a.shape())
                  << ", strides " << kael::to_string(a.strides()) << '\n';
        show_loop("read into a new tensor:",
                  TensorIteratorConfig().declare_output(DType::F32).add_input(a).build());
        const Tensor b = kael::zeros({3, 5}).slice(1, 0, 4, 2);
        std::cout << "every other column of [3, 5], first four: shape " << kael::to_string(b.shape())
                  << ", strides " << kael::to_string(b.strides()) << '\n';
        show_loop("read into a new tensor:",
                  TensorIteratorConfig().declare_output(DType::F32).add_input(b).build());
    }

    section("coalesce-size-one");
    {
        const Tensor a = kael::zeros({3, 1, 4}).slice(2, 0, 2);
        std::cout << "input: shape " << kael::to_string(a.shape()) << ", strides "
                  << kael::to_string(a.strides()) << '\n';
        show_loop("read into a new tensor:",
                  TensorIteratorConfig().declare_output(DType::F32).add_input(a).build());
        const Tensor b = kael::zeros({1, 4, 1, 3, 1});
        show_loop("contiguous [1, 4, 1, 3, 1]:",
                  TensorIteratorConfig().declare_output(DType::F32).add_input(b).build());
        show_loop("a 0-d tensor:", TensorIteratorConfig()
                                       .declare_output(DType::F32)
                                       .add_input(kael::scalar(2.0))
                                       .build());
    }

    section("size-one-blocks");
    {
        // A transposed output with a size-1 dimension between its two real ones.
        const Tensor out = kael::zeros({3, 4}).transpose(0, 1).unsqueeze(1);  // [4, 1, 3]
        const Tensor in = kael::zeros({3, 4}).transpose(0, 1).unsqueeze(1);
        std::cout << "output and input: shape " << kael::to_string(out.shape()) << ", strides "
                  << kael::to_string(out.strides()) << '\n';
        show_loop("with the size-1 dimension:",
                  TensorIteratorConfig().add_output(out).add_input(in).build());
        show_loop("the same tensors squeezed to [4, 3]:", TensorIteratorConfig()
                                                             .add_output(out.squeeze(1))
                                                             .add_input(in.squeeze(1))
                                                             .build());
    }

    section("for-each");
    {
        // out[i, j, k] = a[i, 0, k] + b[j, 0]: nothing coalesces, so the odometer turns.
        const Tensor a = kael::zeros({2, 1, 3});
        const Tensor b = kael::zeros({4, 1});
        const TensorIterator iter =
            TensorIteratorConfig().declare_output(DType::F32).add_input(a).add_input(b).build();
        std::cout << iter.describe() << '\n';
        std::vector<std::byte*> base;
        for (std::size_t i = 0; i < iter.num_operands(); ++i) {
            base.push_back(iter.operand(i).data_ptr_raw());
        }
        int run = 0;
        iter.for_each([&](std::byte** data, const std::int64_t* strides, std::int64_t n) {
            std::cout << "run " << run++ << ": n " << n << ", byte offsets";
            for (std::size_t i = 0; i < base.size(); ++i) {
                std::cout << ' ' << std::setw(2) << (data[i] - base[i]);
            }
            std::cout << ", inner strides";
            for (std::size_t i = 0; i < base.size(); ++i) {
                std::cout << ' ' << strides[i];
            }
            std::cout << '\n';
        });
    }

    section("run-typed");
    {
        const Tensor a = kael::arange(0, 6, 1, DType::I64).view({2, 3}).transpose(0, 1);  // [3, 2]
        const Tensor b = kael::from_vector({std::int64_t{100}, std::int64_t{200}});      // [2]
        const TensorIterator iter =
            TensorIteratorConfig().declare_output(DType::I64).add_input(a).add_input(b).build();
        kael::run_typed<std::int64_t, std::int64_t, std::int64_t>(
            iter, [](std::int64_t x, std::int64_t y) { return x * 10 + y; });
        std::cout << "a (transposed): " << a << '\n';
        std::cout << "b:              " << b << '\n';
        std::cout << "a * 10 + b:     " << iter.output() << '\n';

        const Tensor x = kael::from_vector({1.5f, -2.0f, 0.0f, 3.0f});
        const TensorIterator positive =
            TensorIteratorConfig().declare_output(DType::Bool).add_input(x).build();
        kael::run_typed<std::uint8_t, float>(
            positive, [](float v) { return static_cast<std::uint8_t>(v > 0.0f); });
        std::cout << "x > 0:          " << positive.output() << '\n';
    }

    section("run-typed-errors");
    {
        const TensorIterator iter =
            TensorIteratorConfig().declare_output(DType::F32).add_input(kael::zeros({2})).build();
        report("run_typed<double, float> on a float32 output", [&] {
            kael::run_typed<double, float>(iter, [](float v) { return static_cast<double>(v); });
        });
        report("run_typed<float, double> on a float32 input", [&] {
            kael::run_typed<float, double>(iter, [](double v) { return static_cast<float>(v); });
        });
        report("run_typed<float, float, float> with one input", [&] {
            kael::run_typed<float, float, float>(iter, [](float v, float w) { return v + w; });
        });
    }

    section("config-errors");
    {
        const Tensor f = kael::zeros({2, 3});
        const Tensor i = kael::zeros({2, 3}, DType::I64);
        report("add_output [2, 3], input [3] (the input stretches)", [&] {
            (void)TensorIteratorConfig().add_output(kael::zeros({2, 3})).add_input(kael::zeros({3})).build();
        });
        report("add_output [3], input [2, 3] (the output would have to grow)", [&] {
            (void)TensorIteratorConfig().add_output(kael::zeros({3})).add_input(f).build();
        });
        report("add_output [1, 3], input [2, 3]", [&] {
            (void)TensorIteratorConfig().add_output(kael::zeros({1, 3})).add_input(f).build();
        });
        report("inputs float32 and int64", [&] {
            (void)TensorIteratorConfig().declare_output(DType::F32).add_input(f).add_input(i).build();
        });
        report("inputs float32 and int64, mixed dtypes allowed", [&] {
            (void)TensorIteratorConfig()
                .declare_output(DType::F32)
                .add_input(f)
                .add_input(i)
                .allow_mixed_input_dtypes()
                .build();
        });
        report("no output", [&] { (void)TensorIteratorConfig().add_input(f).build(); });
        report("eight inputs", [&] {
            TensorIteratorConfig config;
            config.declare_output(DType::F32);
            for (int k = 0; k < 8; ++k) {
                config.add_input(f);
            }
            (void)config.build();
        });
    }

    section("layout");
    {
        const Tensor a = kael::zeros({3, 4});
        const Tensor b = kael::zeros({4, 3});
        const TensorIterator iter =
            TensorIteratorConfig().declare_output(DType::F32).add_input(a.T()).add_input(b).build();
        std::cout << "a.T() has strides " << kael::to_string(a.T().strides()) << '\n';
        show_loop("a.T() + b in the iterator:", iter);
        std::cout << "output strides " << kael::to_string(iter.output().strides())
                  << ", contiguous " << std::boolalpha << iter.output().is_contiguous() << '\n';
        // Chapter 05's a.T() + b and b + a.T() take their results from these iterators (its
        // operator+ is stage 6 code, so the program builds the iterators itself).
        const TensorIterator swapped =
            TensorIteratorConfig().declare_output(DType::F32).add_input(b).add_input(a.T()).build();
        std::cout << "b + a.T(): output strides " << kael::to_string(swapped.output().strides())
                  << ", contiguous " << swapped.output().is_contiguous() << '\n';
        // When every input is transposed, the new output is transposed too, and all three
        // operands stream in memory order: as fast as the contiguous case. 16 MB per
        // operand, beyond the caches.
        const Tensor p = kael::rand({2048, 2048});
        const Tensor q = kael::rand({2048, 2048});
        const auto time_sum = [](const Tensor& x, const Tensor& y) {
            const TensorIterator loop =
                TensorIteratorConfig().declare_output(DType::F32).add_input(x).add_input(y).build();
            return best_microseconds(
                [&] { kael::run_typed<float, float, float>(loop, [](float u, float v) { return u + v; }); });
        };
        const double in_order = time_sum(p, q);
        const double across = time_sum(p.T(), q.T());
        std::cout << std::fixed << std::setprecision(0);
        std::cout << "[2048, 2048] p + q:      " << in_order << " us\n";
        std::cout << "[2048, 2048] p.T + q.T:  " << across << " us (" << std::setprecision(1)
                  << across / in_order << "x)\n";
    }

    section("fast-path");
    {
        // Three inputs of 1 MiB each (small enough to stay in cache), three inner loops:
        // a row broadcast gives element-sized strides in every run (contiguous_run), a
        // column broadcast repeats one value along each run (broadcast_run), and a
        // transposed input steps across rows (strided_run).
        const Tensor matrix = kael::rand({512, 512});
        const Tensor row = kael::rand({512});
        const Tensor column = kael::rand({512, 1});
        const Tensor transposed = kael::rand({512, 512}).transpose(0, 1);
        const auto time_add = [&](const Tensor& other) {
            const TensorIterator iter = TensorIteratorConfig()
                                            .declare_output(DType::F32)
                                            .add_input(matrix)
                                            .add_input(other)
                                            .build();
            return best_microseconds(
                [&] { kael::run_typed<float, float, float>(iter, [](float x, float y) { return x + y; }); });
        };
        const double contiguous = time_add(row);
        const double repeated = time_add(column);
        const double strided = time_add(transposed);
        std::cout << std::fixed << std::setprecision(0);
        std::cout << "[512, 512] + [512]          (contiguous runs): " << contiguous << " us\n";
        std::cout << "[512, 512] + [512, 1]       (a repeated input): " << repeated << " us\n";
        std::cout << "[512, 512] + transposed     (strided runs):    " << strided << " us\n";
    }
    // A column against a row: both operands stretch, each along the dimension where it has
    // size 1, with stride 0 there. book/figures/draw.py draws the broadcasting figure of
    // the book from these lines.
    section("broadcast-outer");
    {
        const Tensor column = kael::arange(0, 30, 10, DType::I64).view({3, 1});
        const Tensor row = kael::arange(0, 4, 1, DType::I64).view({1, 4});
        const Shape shape = kael::broadcast_shapes(column.shape(), row.shape());
        for (const auto& [label, t] : {std::pair{"column", column}, std::pair{"row", row}}) {
            std::cout << label << ": shape " << kael::to_string(t.shape()) << ", strides "
                      << kael::to_string(t.strides()) << ", storage [";
            for (std::int64_t k = 0; k < t.numel(); ++k) {
                std::cout << (k == 0 ? "" : ", ") << t.data_ptr<std::int64_t>()[k];
            }
            const Tensor e = t.expand(shape);
            std::cout << "]\n  expanded to " << kael::to_string(e.shape()) << ": strides "
                      << kael::to_string(e.strides()) << '\n';
        }
        const TensorIterator iter =
            TensorIteratorConfig().declare_output(DType::I64).add_input(column).add_input(row).build();
        kael::run_typed<std::int64_t, std::int64_t, std::int64_t>(
            iter, [](std::int64_t x, std::int64_t y) { return x + y; });
        std::cout << "column + row: " << iter.describe() << '\n';
        std::cout << "  " << iter.output() << '\n';
    }
    return 0;
}

// Chapter 13, "Looking inside a tensor": kael::explain on the views of chapter 03. One
// 3x4 float32 matrix and four views of it, each described from its metadata alone, then
// the matrix again after an in-place write, and a tensor in a small graph.
#include <iostream>
#include <string_view>

#include "kael/kael.h"

namespace {

using kael::Tensor;

void section(std::string_view name) { std::cout << "--- section: " << name << " ---\n"; }

}  // namespace

int main() {
    // The elements 0 .. 11, row by row: chapter 03's grid.
    const Tensor grid = kael::arange(12.0).reshape({3, 4});

    section("matrix");
    std::cout << kael::explain(grid);

    section("transpose");
    const Tensor transposed = grid.transpose(0, 1);
    std::cout << kael::explain(transposed);

    section("column");
    const Tensor column = grid.select(1, 2);  // grid[:, 2]
    std::cout << kael::explain(column);

    section("slice-step");
    const Tensor every_other = grid.slice(1, 1, 4, 2);  // grid[:, 1:4:2]
    std::cout << kael::explain(every_other);

    section("expand");
    const Tensor row = kael::arange(4.0);
    const Tensor repeated = row.unsqueeze(0).expand({3, 4});  // one row read three times
    std::cout << kael::explain(repeated);

    section("version");
    Tensor written = kael::zeros({3, 4});
    written.add_(1.0);
    written.mul_(2.0);
    std::cout << kael::explain(written);

    section("graph");
    Tensor w = kael::ones({4, 2});
    w.requires_grad_();
    const Tensor loss = kael::matmul(grid, w).exp().sum();
    std::cout << kael::explain(loss);
    return 0;
}

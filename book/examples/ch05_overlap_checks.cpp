// Chapter 03 writes the overlap checks and shows them at work in chapter 05's in-place
// operations. add_ is stage 6 code, so that part runs here, against stage 6, and chapter 03
// shows it as a later run.
#include <iostream>
#include <string_view>

#include "kael/kael.h"

namespace {

using kael::Tensor;

void section(std::string_view name) { std::cout << "--- section: " << name << " ---\n"; }

// One line of metadata, then the elements in logical order.
void show(std::string_view label, const Tensor& t) {
    std::cout << label << ": shape " << kael::to_string(t.shape()) << ", strides "
              << kael::to_string(t.strides()) << ", offset " << t.offset() << '\n'
              << "    " << t << '\n';
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

}  // namespace

int main() {
    // has_internal_overlap refuses the write to an expanded tensor; may_partially_overlap
    // makes t[1:] += t[:3] copy its operand first, so each element gets its old neighbour.
    section("inplace");
    Tensor expanded = kael::zeros({3, 1}).expand({3, 4});
    attempt("zeros({3, 1}).expand({3, 4}).add_(1)", [&] { expanded.add_(1); });
    Tensor owned = expanded.clone();
    owned.add_(1);
    show("zeros({3, 1}).expand({3, 4}).clone().add_(1)", owned);
    Tensor seq = kael::from_vector({1.0, 2.0, 3.0, 4.0});
    seq.slice(0, 1).add_(seq.slice(0, 0, 3));
    show("t = [1, 2, 3, 4]; t[1:] += t[:3]", seq);
    std::cout << "version of t's storage: " << seq.impl()->storage->version() << '\n';
    return 0;
}

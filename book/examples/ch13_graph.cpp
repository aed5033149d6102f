// Chapter 13, "The graph as a picture": autograd::to_dot of a small network's loss, two
// Linear layers with a GELU between them and cross-entropy at the end.
//
// The section "dot" is the DOT text itself, which Graphviz draws (dot -Tsvg); the book's
// figure script renders it for the chapter.
#include <iostream>
#include <memory>
#include <string_view>

#include "kael/kael.h"

namespace {

void section(std::string_view name) { std::cout << "--- section: " << name << " ---\n"; }

}  // namespace

int main() {
    kael::manual_seed(0);
    // book-region: loss
    kael::nn::Linear hidden(3, 5);
    kael::nn::GELU gelu;
    kael::nn::Linear output(5, 2);
    const kael::Tensor x = kael::randn({4, 3});
    const kael::Tensor target = kael::from_vector<std::int64_t>({0, 1, 1, 0});
    const kael::Tensor loss = kael::cross_entropy(output(gelu(hidden(x))), target);
    // end-book-region: loss

    section("dot");
    std::cout << kael::autograd::to_dot(loss);
    return 0;
}

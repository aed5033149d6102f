// Chapter 06, "A real graph": the nodes that
//
//     loss = (x * w).sum() + x.exp().mean()
//
// records, found from loss.grad_fn() through nothing but the public Node API (name(),
// sequence_nr(), next_edges()), then the order in which backward() runs them, observed
// with a hook on every node, and the gradients that arrive at the leaves.
//
// The section "graph" has one line per node, which book/figures/draw.py reads to draw the
// chapter's figure:
//
//     node <id> <name> [<leaf>] created <k> inputs <n> next <id> <id> ...
//
// <id> numbers the nodes in the order a breadth-first walk from loss.grad_fn() meets them,
// <leaf> names the tensor an AccumulateGrad node writes into, <k> is the node's place in
// the order of creation (0 for the first node this graph recorded), <n> is how many edges
// of the graph lead into the node (what the engine counts before it starts), and each
// <id> after "next" is where one of the node's edges leads ("-" for an edge to an input
// outside the graph).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "kael/kael.h"

namespace {

using kael::Tensor;
using kael::autograd::AccumulateGrad;
using kael::autograd::Node;

void section(std::string_view name) { std::cout << "--- section: " << name << " ---\n"; }

Tensor leaf(std::vector<double> values) {
    Tensor t = kael::from_vector(values);
    t.requires_grad_();
    return t;
}

}  // namespace

int main() {
    // book-region: loss
    Tensor x = leaf({0.0, 1.0, 2.0});
    Tensor w = leaf({3.0, 4.0, 5.0});
    const Tensor loss = (x * w).sum() + x.exp().mean();
    // end-book-region: loss

    // Every node reachable from loss.grad_fn(), breadth first, each once.
    std::vector<std::shared_ptr<Node>> nodes{loss.grad_fn()};
    std::map<const Node*, std::size_t> id{{loss.grad_fn().get(), 0}};
    std::map<const Node*, int> inputs;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        for (const kael::autograd::Edge& edge : nodes[i]->next_edges()) {
            if (!edge.is_valid()) {
                continue;
            }
            ++inputs[edge.node.get()];
            if (id.emplace(edge.node.get(), nodes.size()).second) {
                nodes.push_back(edge.node);
            }
        }
    }
    auto leaf_name = [&](const Node& node) -> std::string {
        const auto* accumulate = dynamic_cast<const AccumulateGrad*>(&node);
        if (accumulate == nullptr) {
            return "";
        }
        return accumulate->leaf().get() == x.impl().get() ? " x" : accumulate->leaf().get() == w.impl().get() ? " w" : " ?";
    };
    std::vector<std::uint64_t> created;
    for (const auto& node : nodes) {
        created.push_back(node->sequence_nr());
    }
    std::sort(created.begin(), created.end());
    auto creation_rank = [&](const Node& node) {
        return std::lower_bound(created.begin(), created.end(), node.sequence_nr()) - created.begin();
    };

    section("graph");
    std::cout << "loss = (x * w).sum() + x.exp().mean()\n";
    for (const auto& node : nodes) {
        std::cout << "node " << id[node.get()] << ' ' << node->name() << leaf_name(*node) << " created "
                  << creation_rank(*node) << " inputs " << inputs[node.get()] << " next";
        for (const kael::autograd::Edge& edge : node->next_edges()) {
            std::cout << ' ';
            if (edge.is_valid()) {
                std::cout << id[edge.node.get()];
            } else {
                std::cout << '-';
            }
        }
        std::cout << '\n';
    }

    // A hook on each node's incoming gradient records when the engine runs it.
    std::vector<std::string> order;
    for (const auto& node : nodes) {
        const std::string label = "node " + std::to_string(id[node.get()]) + " " + node->name() + leaf_name(*node);
        node->add_pre_hook([&order, label](const Tensor& grad) -> std::optional<Tensor> {
            std::ostringstream line;
            line << label << " receives " << grad;
            order.push_back(line.str());
            return std::nullopt;
        });
    }
    loss.backward();

    section("order");
    for (std::size_t i = 0; i < order.size(); ++i) {
        std::cout << i + 1 << ". " << order[i] << '\n';
    }

    section("grads");
    std::cout << "x.grad() = " << *x.grad() << "   (w + exp(x) / 3)\n";
    std::cout << "w.grad() = " << *w.grad() << "   (x)\n";
    return 0;
}

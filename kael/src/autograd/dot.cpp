// The graph as Graphviz DOT (chapter 13): a walk over next_edges from the root's grad_fn,
// each node written once.
#include "kael/autograd/dot.h"

#include <cstddef>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "autograd/recording.h"
#include "kael/autograd/node.h"

namespace kael::autograd {
namespace {

// A DOT string literal: quotes and backslashes escaped, a line break as DOT's \n.
std::string quoted(const std::string& text) {
    std::string out = "\"";
    for (const char c : text) {
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        if (c == '"' || c == '\\') {
            out += '\\';
        }
        out += c;
    }
    return out + '"';
}

std::string label_of(const Node& node) {
    if (const auto* accumulate = dynamic_cast<const AccumulateGrad*>(&node)) {
        return node.name() + '\n' + to_string(accumulate->leaf()->shape);
    }
    return node.name();
}

}  // namespace

std::string to_dot(const Tensor& root) {
    std::ostringstream dot;
    dot << "digraph autograd {\n"
        << "  node [shape=box, fontname=\"Helvetica\", fontsize=11];\n"
        << "  edge [fontname=\"Helvetica\", fontsize=9];\n"
        << "  root [shape=ellipse, label=" << quoted("tensor " + to_string(root.shape())) << "];\n";
    // The root's grad_fn, or a leaf's AccumulateGrad node.
    const std::shared_ptr<Node> start = gradient_edge(root).node;
    if (start == nullptr) {
        dot << "}\n";
        return dot.str();
    }
    std::unordered_map<const Node*, std::size_t> ids;
    std::vector<const Node*> stack;
    auto visit = [&](const Node* node) {
        const auto [it, inserted] = ids.emplace(node, ids.size());
        if (inserted) {
            dot << "  n" << it->second << " [label=" << quoted(label_of(*node)) << "];\n";
            stack.push_back(node);
        }
        return it->second;
    };
    const std::size_t first = visit(start.get());  // writes the node's line before the arrow's
    dot << "  n" << first << " -> root [label=" << quoted(to_string(root.shape())) << "];\n";
    while (!stack.empty()) {
        const Node* node = stack.back();
        stack.pop_back();
        const std::size_t to = ids.at(node);
        const auto& edges = node->next_edges();
        for (std::size_t i = 0; i < edges.size(); ++i) {
            if (!edges[i].is_valid()) {
                continue;
            }
            const std::size_t from = visit(edges[i].node.get());
            dot << "  n" << from << " -> n" << to << " [label=" << quoted(to_string(node->input_meta()[i].shape))
                << "];\n";
        }
    }
    dot << "}\n";
    return dot.str();
}

}  // namespace kael::autograd

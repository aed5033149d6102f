// Reference solution of exercise 06.2.
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "exercise.h"

namespace exercise {

using kael::autograd::Edge;
using kael::autograd::Node;

std::vector<std::shared_ptr<Node>> execution_order(const std::shared_ptr<Node>& root) {
    // Pass 1: count the edges into every reachable node, with an explicit stack.
    std::unordered_map<Node*, int> dependencies;
    std::unordered_set<Node*> seen{root.get()};
    std::vector<Node*> stack{root.get()};
    while (!stack.empty()) {
        Node* node = stack.back();
        stack.pop_back();
        for (const Edge& edge : node->next_edges()) {
            if (!edge.is_valid()) {
                continue;
            }
            ++dependencies[edge.node.get()];
            if (seen.insert(edge.node.get()).second) {
                stack.push_back(edge.node.get());
            }
        }
    }
    // Pass 2: release nodes as their counts reach zero, the latest created first.
    auto later_first = [](const std::shared_ptr<Node>& a, const std::shared_ptr<Node>& b) {
        return a->sequence_nr() < b->sequence_nr();
    };
    std::priority_queue<std::shared_ptr<Node>, std::vector<std::shared_ptr<Node>>, decltype(later_first)> ready(
        later_first);
    ready.push(root);
    std::vector<std::shared_ptr<Node>> order;
    while (!ready.empty()) {
        std::shared_ptr<Node> node = ready.top();
        ready.pop();
        for (const Edge& edge : node->next_edges()) {
            if (edge.is_valid() && --dependencies[edge.node.get()] == 0) {
                ready.push(edge.node);
            }
        }
        order.push_back(std::move(node));
    }
    return order;
}

}  // namespace exercise

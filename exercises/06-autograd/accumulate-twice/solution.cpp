// Reference solution of exercise 06.3.
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "autograd/recording.h"
#include "exercise.h"
#include "kael/error.h"
#include "kael/factory.h"
#include "kael/ops.h"

namespace exercise {

using kael::autograd::Edge;
using kael::autograd::Grads;
using kael::autograd::Node;

void backward(const kael::Tensor& output) {
    KAEL_CHECK(output.numel() == 1 && output.requires_grad(),
               "backward needs a one-element output that requires grad");
    const Edge start = kael::autograd::gradient_edge(output);

    // How many edges lead into each node: its buffer is complete when that many arrived.
    std::unordered_map<Node*, int> dependencies;
    std::unordered_set<Node*> seen{start.node.get()};
    std::vector<Node*> stack{start.node.get()};
    while (!stack.empty()) {
        Node* node = stack.back();
        stack.pop_back();
        for (const Edge& edge : node->next_edges()) {
            if (edge.is_valid()) {
                ++dependencies[edge.node.get()];
                if (seen.insert(edge.node.get()).second) {
                    stack.push_back(edge.node.get());
                }
            }
        }
    }

    std::unordered_map<Node*, Grads> buffers;
    auto deliver = [&](const Edge& edge, kael::Tensor grad) {
        Grads& buffer = buffers[edge.node.get()];
        if (buffer.size() <= edge.input_nr) {
            buffer.resize(edge.input_nr + 1);
        }
        auto& slot = buffer[edge.input_nr];
        slot = slot ? kael::add(*slot, grad) : grad;  // two uses, one sum
    };
    deliver(start, kael::ones_like(output));

    auto later_first = [](const std::shared_ptr<Node>& a, const std::shared_ptr<Node>& b) {
        return a->sequence_nr() < b->sequence_nr();
    };
    std::priority_queue<std::shared_ptr<Node>, std::vector<std::shared_ptr<Node>>, decltype(later_first)> ready(
        later_first);
    ready.push(start.node);
    const kael::autograd::NoGradGuard no_grad;  // the backward pass itself is not recorded
    while (!ready.empty()) {
        const std::shared_ptr<Node> node = ready.top();
        ready.pop();
        Grads incoming = std::move(buffers[node.get()]);
        buffers.erase(node.get());
        node->run_hooks(incoming);
        Grads outgoing = node->run(std::move(incoming));
        const std::vector<Edge>& edges = node->next_edges();
        for (std::size_t i = 0; i < edges.size(); ++i) {
            if (!edges[i].is_valid()) {
                continue;
            }
            if (i < outgoing.size() && outgoing[i]) {
                kael::Tensor grad = *outgoing[i];
                const kael::DType wanted = node->input_meta()[i].dtype;
                deliver(edges[i], grad.dtype() == wanted ? grad : grad.to(wanted));
            }
            if (--dependencies[edges[i].node.get()] == 0) {
                ready.push(edges[i].node);
            }
        }
    }
}

}  // namespace exercise

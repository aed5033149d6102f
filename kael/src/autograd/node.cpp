// Nodes, AccumulateGrad, and the iterative release that lets long graphs die without
// deep recursion.
#include "kael/autograd/node.h"

#include <atomic>
#include <utility>

#include "autograd/recording.h"
#include "kael/autograd/grad_mode.h"
#include "kael/ops/binary.h"

namespace kael::autograd {
namespace {

std::atomic<std::uint64_t> next_sequence_nr{0};

// A tensor the leaf may keep as its gradient: one nobody else holds, so that adding
// into it later in place cannot change a tensor the user sees. Anything else is copied.
Tensor owned_gradient(Tensor grad) {
    const bool owned = grad.use_count() == 1 && grad.impl()->storage.use_count() == 1 && grad.is_contiguous();
    return owned ? grad : grad.clone();
}

}  // namespace

void release_node(std::shared_ptr<Node> node) noexcept {
    // The destructor of the node released here may release the nodes before it, which
    // would recurse once per node along a chain. Instead, a release that happens while
    // another is in progress only queues the node; the outermost call drains the queue.
    thread_local std::vector<std::shared_ptr<Node>> pending;
    thread_local bool draining = false;
    if (node == nullptr || node.use_count() > 1) {
        return;  // not the last reference: dropping it destroys nothing
    }
    pending.push_back(std::move(node));
    if (draining) {
        return;
    }
    draining = true;
    while (!pending.empty()) {
        std::shared_ptr<Node> next = std::move(pending.back());
        pending.pop_back();
        next.reset();  // may queue the nodes this one pointed to
    }
    draining = false;
}

AutogradMeta::~AutogradMeta() {
    if (view_base != nullptr && view_base->autograd != nullptr) {
        meta_of(*view_base)->live_views.fetch_sub(1, std::memory_order_relaxed);
    }
    release_node(std::move(grad_fn));
}

Node::Node(std::string name)
    : name_(std::move(name)), sequence_nr_(next_sequence_nr.fetch_add(1, std::memory_order_relaxed)) {}

Node::~Node() {
    for (Edge& edge : next_edges_) {
        release_node(std::move(edge.node));
    }
}

void Node::add_input(Edge edge, InputMeta meta) {
    next_edges_.push_back(std::move(edge));
    input_meta_.push_back(std::move(meta));
}

void Node::add_pre_hook(GradHook hook) { pre_hooks_.push_back(std::move(hook)); }

namespace {

void apply_hooks(const std::vector<GradHook>& hooks, Grads& grads) {
    for (const GradHook& hook : hooks) {
        if (!grads.empty() && grads[0]) {
            if (std::optional<Tensor> replaced = hook(*grads[0])) {
                grads[0] = std::move(replaced);
            }
        }
    }
}

}  // namespace

void Node::run_hooks(Grads& grads) { apply_hooks(pre_hooks_, grads); }

AccumulateGrad::AccumulateGrad(std::shared_ptr<TensorImpl> leaf) : Node("AccumulateGrad"), leaf_(std::move(leaf)) {}

void AccumulateGrad::run_hooks(Grads& grads) {
    apply_hooks(meta_of(*leaf_)->hooks, grads);
    Node::run_hooks(grads);
}

Grads AccumulateGrad::apply(Grads grads) {
    AutogradMeta& meta = *meta_of(*leaf_);
    Tensor grad = std::move(*grads.at(0));
    if (!meta.grad) {
        // With create_graph the gradient keeps its history, so it can be differentiated.
        meta.grad = is_grad_enabled() ? grad : owned_gradient(std::move(grad));
    } else if (is_grad_enabled()) {
        meta.grad = add(*meta.grad, grad);  // out of place: the old gradient may be in a graph
    } else {
        meta.grad->add_(grad);  // in place: every handle to the gradient sees the sum
    }
    return {};
}

}  // namespace kael::autograd

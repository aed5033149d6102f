// Nodes, their hooks, and the iterative release that lets long graphs die without deep
// recursion. AccumulateGrad has a file of its own (accumulate_grad.cpp).
#include "kael/autograd/node.h"

#include <atomic>
#include <utility>

#include "autograd/recording.h"
#include "kael/autograd/grad_mode.h"

namespace kael::autograd {
namespace {

std::atomic<std::uint64_t> next_sequence_nr{0};

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

AutogradMeta::~AutogradMeta() { release_node(std::move(grad_fn)); }

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

void Node::add_retain_hook(GradHook hook) { retain_hooks_.push_back(std::move(hook)); }

namespace {

// A hook may replace a gradient, but only with one of the same shape, dtype and device: the
// formula downstream, or the leaf, would otherwise compute with something it cannot use.
// The messages begin as PyTorch's do.
void check_hook_result(const Tensor& original, const Tensor& result) {
    KAEL_CHECK(result.shape() == original.shape(), "hook 'hook' has changed the size of value: it was "
                                                       << to_string(original.shape()) << " and the hook returned "
                                                       << to_string(result.shape()));
    KAEL_CHECK(result.dtype() == original.dtype(), "hook 'hook' has changed the type of value: it was "
                                                       << original.dtype() << " and the hook returned " << result.dtype());
    KAEL_CHECK(result.device() == original.device(), "hook 'hook' has changed the type of value: it was on "
                                                         << original.device() << " and the hook returned one on "
                                                         << result.device());
}

}  // namespace

void run_gradient_hooks(const std::vector<GradHook>& hooks, Grads& grads) {
    for (const GradHook& hook : hooks) {
        if (grads.empty() || !grads[0]) {
            return;
        }
        if (std::optional<Tensor> replaced = hook(*grads[0])) {
            check_hook_result(*grads[0], *replaced);
            grads[0] = std::move(replaced);
        }
    }
}

void Node::run_hooks(Grads& grads) {
    run_gradient_hooks(pre_hooks_, grads);
    run_gradient_hooks(retain_hooks_, grads);
}

}  // namespace kael::autograd

// The engine: runs the nodes of a graph in dependency order, from the outputs back to
// the leaves, summing the gradients that meet where a tensor was used more than once.
//
// It never recurses: a first pass over the graph counts, for every node, the edges that
// lead into it; a node is ready when all of them have delivered, and ready nodes wait in
// a queue ordered by creation (latest first, which retraces the forward pass). A chain of
// 10,000 operations costs 10,000 loop iterations, not 10,000 stack frames.
#include "kael/autograd/engine.h"

#include <algorithm>
#include <queue>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "autograd/recording.h"
//> stage 14
#include "autograd/anomaly_check.h"
#include "kael/autograd/anomaly.h"
//< stage 14
#include "kael/error.h"
#include "kael/factory.h"
#include "kael/ops/binary.h"
#include "kael/view.h"
#include "ops/native.h"
//> stage 14
#include "kael/profiler.h"
//< stage 14

namespace kael::autograd {
namespace {

// One gradient wanted by autograd::grad: the slot of a node's incoming gradients that
// holds it, and its place in the returned list.
struct Capture {
    std::uint32_t slot;
    std::size_t index;
};

struct LaterFirst {
    bool operator()(const std::shared_ptr<Node>& a, const std::shared_ptr<Node>& b) const noexcept {
        return a->sequence_nr() < b->sequence_nr();
    }
};

// The state of one backward pass.
class GraphTask {
public:
    GraphTask(bool keep_graph, bool accumulate) : keep_graph_(keep_graph), accumulate_(accumulate) {}

    void add_root(const Edge& edge, Tensor grad) {
        add_gradient(edge, std::move(grad));
        roots_.push_back(edge.node);
    }

    void capture(const Edge& edge, std::size_t index) {
        captures_[edge.node.get()].push_back({edge.input_nr, index});
        captured_.resize(std::max(captured_.size(), index + 1));
    }

    void run() {
        count_dependencies();
        std::priority_queue<std::shared_ptr<Node>, std::vector<std::shared_ptr<Node>>, LaterFirst> ready;
        std::unordered_set<Node*> queued;
        for (const std::shared_ptr<Node>& root : roots_) {
            if (dependencies_[root.get()] == 0 && queued.insert(root.get()).second) {
                ready.push(root);
            }
        }
        while (!ready.empty()) {
            const std::shared_ptr<Node> node = ready.top();
            ready.pop();
            Grads incoming = take_buffer(node.get());
            node->run_hooks(incoming);
            take_captures(node.get(), incoming);
            if (!executes(node.get())) {
                continue;
            }
            Grads outgoing;
            if (std::any_of(incoming.begin(), incoming.end(), [](const auto& g) { return g.has_value(); })) {
//> stage 14
                const profiler::Scope backward(node->name().c_str(), "backward");  // chapter 13
//< stage 14
                outgoing = node->run(std::move(incoming));
                validate(*node, outgoing);
//> stage 14
                if (is_anomaly_enabled()) {
                    check_gradients(*node, outgoing);
                }
//< stage 14
            }
            if (!keep_graph_) {
                node->release_saved();
            }
            const std::vector<Edge>& edges = node->next_edges();
            for (std::size_t i = 0; i < edges.size(); ++i) {
                if (!edges[i].is_valid()) {
                    continue;
                }
                if (i < outgoing.size() && outgoing[i]) {
                    add_gradient(edges[i], std::move(*outgoing[i]));
                }
                if (--dependencies_[edges[i].node.get()] == 0) {
                    ready.push(edges[i].node);
                }
            }
        }
    }

    [[nodiscard]] GradList& captured() noexcept { return captured_; }

private:
    // Counts the edges into every node reachable from the roots, without recursion. For
    // autograd::grad only the nodes that lead to a wanted gradient run, so only their
    // edges count.
    void count_dependencies() {
        std::vector<std::pair<Node*, Node*>> edges;  // (from, to)
        std::vector<Node*> stack;
        std::unordered_set<Node*> seen;
        for (const std::shared_ptr<Node>& root : roots_) {
            if (seen.insert(root.get()).second) {
                stack.push_back(root.get());
            }
        }
        while (!stack.empty()) {
            Node* node = stack.back();
            stack.pop_back();
            for (const Edge& edge : node->next_edges()) {
                if (!edge.is_valid()) {
                    continue;
                }
                edges.emplace_back(node, edge.node.get());
                if (seen.insert(edge.node.get()).second) {
                    stack.push_back(edge.node.get());
                }
            }
        }
        if (!accumulate_) {
            mark_needed(edges);
        }
        for (const auto& [from, to] : edges) {
            if (executes(from)) {
                ++dependencies_[to];
            }
        }
    }

    // A node is needed when a wanted gradient is reachable from it, found by walking the
    // edges backwards from the nodes that hold the wanted gradients.
    void mark_needed(const std::vector<std::pair<Node*, Node*>>& edges) {
        std::unordered_multimap<Node*, Node*> parents;
        for (const auto& [from, to] : edges) {
            parents.emplace(to, from);
        }
        std::vector<Node*> stack;
        for (const auto& entry : captures_) {
            stack.push_back(entry.first);
        }
        while (!stack.empty()) {
            Node* node = stack.back();
            stack.pop_back();
            auto [first, last] = parents.equal_range(node);
            for (auto it = first; it != last; ++it) {
                if (runs_.insert(it->second).second) {
                    stack.push_back(it->second);
                }
            }
        }
    }

    // backward() runs every node; autograd::grad only those on a path to a wanted gradient,
    // and never AccumulateGrad, so no grad() changes.
    [[nodiscard]] bool executes(Node* node) const { return accumulate_ || runs_.count(node) != 0; }

    void add_gradient(const Edge& edge, Tensor grad) {
        Grads& buffer = buffers_[edge.node.get()];
        if (buffer.size() <= edge.input_nr) {
            buffer.resize(edge.input_nr + 1);
        }
        std::optional<Tensor>& slot = buffer[edge.input_nr];
        if (!slot) {
            slot = std::move(grad);
        } else if (can_add_in_place(*slot)) {
            native::add_(*slot, grad, 1);  // a tensor used twice gets the sum
        } else {
            slot = add(*slot, grad);
        }
    }

    // The first gradient of a tensor used twice may take the second in place when nothing
    // else can see it: the backward is not recorded (grad mode off), the buffer's handle is
    // the only one to it and to its memory (not a view of another gradient, not saved by
    // any node), and it fills its memory exactly (not an expanded view). PyTorch's input
    // buffer adds in place under the same conditions; out of place, the GPT-2 token
    // embedding's two gradients would cost a third [50257, 768] array every step.
    static bool can_add_in_place(const Tensor& buffered) {
        const auto& storage = buffered.impl()->storage;
        return !is_grad_enabled() && buffered.use_count() == 1 && storage.use_count() == 1 &&
               storage->nbytes() == buffered.nbytes() && is_non_overlapping_and_dense(buffered);
    }

    Grads take_buffer(Node* node) {
        auto it = buffers_.find(node);
        if (it == buffers_.end()) {
            return {};
        }
        Grads grads = std::move(it->second);
        buffers_.erase(it);
        return grads;
    }

    void take_captures(Node* node, const Grads& incoming) {
        auto it = captures_.find(node);
        if (it == captures_.end()) {
            return;
        }
        for (const Capture& capture : it->second) {
            if (capture.slot < incoming.size() && incoming[capture.slot]) {
                captured_[capture.index] = incoming[capture.slot];
            }
        }
    }

    // Every gradient a formula returns must have its input's shape (a formula that forgot to
    // undo a broadcast would otherwise corrupt everything after it); its dtype is converted
    // to the input's, as when a float32 tensor meets a float64 one.
    static void validate(const Node& node, Grads& grads) {
        KAEL_CHECK(grads.size() == node.next_edges().size(),
                   node.name() << " returned " << grads.size() << " gradients, expected " << node.next_edges().size());
        for (std::size_t i = 0; i < grads.size(); ++i) {
            if (!grads[i]) {
                continue;
            }
            if (!node.needs_input_grad(i)) {
                grads[i].reset();
                continue;
            }
            const InputMeta& meta = node.input_meta()[i];
            KAEL_CHECK(grads[i]->shape() == meta.shape,
                       "function " << node.name() << " returned an invalid gradient at index " << i << ": got shape "
                                   << to_string(grads[i]->shape()) << " but expected " << to_string(meta.shape));
            if (grads[i]->dtype() != meta.dtype) {
                grads[i] = grads[i]->to(meta.dtype);
            }
        }
    }

    bool keep_graph_;
    bool accumulate_;
    std::vector<std::shared_ptr<Node>> roots_;
    std::unordered_map<Node*, std::int64_t> dependencies_;
    std::unordered_map<Node*, Grads> buffers_;
    std::unordered_map<Node*, std::vector<Capture>> captures_;
    std::unordered_set<Node*> runs_;
    GradList captured_;
};

// The gradient an output starts with: the one given, checked against the output, or 1 for
// a one-element output.
Tensor initial_gradient(const Tensor& output, const GradList& grad_outputs, std::size_t i) {
    if (i < grad_outputs.size() && grad_outputs[i]) {
        const Tensor& given = *grad_outputs[i];
        KAEL_CHECK_VALUE(given.shape() == output.shape(),
                         "Mismatch in shape: grad_output[" << i << "] has a shape of " << to_string(given.shape())
                                                           << " and output[" << i << "] has a shape of "
                                                           << to_string(output.shape()));
        KAEL_CHECK_TYPE(is_floating_point(given.dtype()),
                        "Mismatch in dtype: grad_output[" << i << "] has dtype " << given.dtype() << " and output["
                                                          << i << "] has dtype " << output.dtype()
                                                          << "; a gradient must be floating point");
        return given.dtype() == output.dtype() ? given : given.to(output.dtype());
    }
    KAEL_CHECK(output.numel() == 1, "grad can be implicitly created only for scalar outputs: output["
                                        << i << "] has shape " << to_string(output.shape())
                                        << "; pass a gradient of that shape");
    return ones_like(output);
}

void check_outputs(const std::vector<Tensor>& outputs, const GradList& grad_outputs) {
    KAEL_CHECK_VALUE(!outputs.empty(), "backward needs at least one output");
    KAEL_CHECK_VALUE(grad_outputs.empty() || grad_outputs.size() == outputs.size(),
                     "got " << grad_outputs.size() << " gradients for " << outputs.size() << " outputs");
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        KAEL_CHECK(outputs[i].requires_grad(),
                   "element " << i << " of tensors does not require grad and does not have a grad_fn");
    }
}

// Runs `task` with grad mode set to `create_graph`: a recorded backward pass builds the
// graph of the gradients.
void run_task(GraphTask& task, bool create_graph) {
    const bool previous = is_grad_enabled();
    set_grad_enabled(create_graph);
    try {
        task.run();
    } catch (...) {
        set_grad_enabled(previous);
        throw;
    }
    set_grad_enabled(previous);
}

}  // namespace

void backward(const std::vector<Tensor>& outputs, const GradList& grad_outputs, bool retain_graph,
              bool create_graph) {
    check_outputs(outputs, grad_outputs);
    GraphTask task(retain_graph || create_graph, /*accumulate=*/true);
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        task.add_root(gradient_edge(outputs[i]), initial_gradient(outputs[i], grad_outputs, i));
    }
    run_task(task, create_graph);
}

GradList grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs, const GradList& grad_outputs,
              std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
    check_outputs(outputs, grad_outputs);
    KAEL_CHECK_VALUE(!inputs.empty(), "grad requires at least one input");
    GraphTask task(retain_graph.value_or(create_graph), /*accumulate=*/false);
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        KAEL_CHECK(inputs[i].requires_grad(), "one of the differentiated tensors (input " << i
                                                                                          << ") does not require grad");
        task.capture(gradient_edge(inputs[i]), i);
    }
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        task.add_root(gradient_edge(outputs[i]), initial_gradient(outputs[i], grad_outputs, i));
    }
    run_task(task, create_graph);
    GradList result = std::move(task.captured());
    result.resize(inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        KAEL_CHECK(result[i] || allow_unused,
                   "one of the differentiated tensors (input " << i
                                                               << ") appears to not have been used in the graph; "
                                                                  "pass allow_unused = true if this is intended");
    }
    return result;
}

void zero_grad(const std::vector<Tensor>& tensors, bool set_to_none) {
    for (Tensor t : tensors) {
        if (set_to_none) {
            t.set_grad(std::nullopt);
        } else if (std::optional<Tensor> g = t.grad()) {
            const NoGradGuard no_grad;
            g->zero_();
        }
    }
}

}  // namespace kael::autograd

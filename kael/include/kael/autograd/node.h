#pragma once
/// \file
/// \brief The graph: nodes that run backward formulas, the edges between them, and
/// AccumulateGrad, which writes a gradient into a leaf.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kael/autograd/meta.h"
#include "kael/shape.h"
#include "kael/tensor.h"

namespace kael::autograd {

/// Gradients flowing through a node: one per output on the way in, one per input on the
/// way out. An empty entry means "no gradient" (an input that does not require grad, or
/// one the formula does not differentiate, such as an index).
using Grads = std::vector<std::optional<Tensor>>;

/// Where a gradient goes next: input slot `input_nr` of `node`. An edge without a node
/// stands for an input that does not require grad.
struct Edge {
    /// The node that receives the gradient; null for an input outside the graph.
    std::shared_ptr<Node> node;
    /// Which of that node's incoming gradients this is.
    std::uint32_t input_nr = 0;

    /// True when a gradient has somewhere to go.
    [[nodiscard]] bool is_valid() const noexcept { return node != nullptr; }
};

/// What a gradient for one forward input must look like: the engine checks every
/// gradient a formula returns against it, and converts its dtype where they differ.
struct InputMeta {
    /// The forward input's shape, which its gradient must have.
    Shape shape;
    /// The forward input's dtype, to which its gradient is converted.
    DType dtype = DType::F32;
};

/// One recorded operation, seen from the backward pass: it maps the gradient of its
/// output to gradients of its inputs and knows where each of those goes (next_edges).
///
/// Nodes are owned by the tensors they produced (grad_fn) and by the nodes after them
/// (edges), never by the nodes before them, so the graph is freed when the last tensor
/// that can reach it dies.
class Node : public std::enable_shared_from_this<Node> {
public:
    /// `name` is what error messages and grad_fn()->name() show, such as "MulBackward".
    explicit Node(std::string name);
    /// Releases the next nodes through an iterative queue (a chain of 10,000 nodes must not
    /// recurse 10,000 destructors deep).
    virtual ~Node();
    Node(const Node&) = delete;
    Node& operator=(const Node&) = delete;

    /// The node's name, as PyTorch's grad_fn names: "MulBackward", "AccumulateGrad".
    [[nodiscard]] const std::string& name() const noexcept { return name_; }
    /// The order of creation: a later node runs first when several are ready, which
    /// follows the forward pass backwards.
    [[nodiscard]] std::uint64_t sequence_nr() const noexcept { return sequence_nr_; }
    /// One edge per forward input.
    [[nodiscard]] const std::vector<Edge>& next_edges() const noexcept { return next_edges_; }
    /// One entry per forward input: the shape and dtype its gradient must have.
    [[nodiscard]] const std::vector<InputMeta>& input_meta() const noexcept { return input_meta_; }
    /// True when input `index` takes part in the graph, so its gradient is worth computing.
    [[nodiscard]] bool needs_input_grad(std::size_t index) const noexcept {
        return index < next_edges_.size() && next_edges_[index].is_valid();
    }

    /// Makes room for `count` inputs, so that recording allocates once.
    void reserve_inputs(std::size_t count) {
        next_edges_.reserve(count);
        input_meta_.reserve(count);
    }
    /// Adds the edge and metadata of the next forward input; called while recording.
    void add_input(Edge edge, InputMeta meta);
    /// Adds a hook run on this node's incoming gradient before the formula sees it; this is
    /// how Tensor::register_hook works on a non-leaf.
    void add_pre_hook(GradHook hook);
    /// Adds a hook that sees the incoming gradient after every pre-hook has run, whenever
    /// it was registered: retain_grad() keeps the gradient the formula will use.
    void add_retain_hook(GradHook hook);

    /// Runs the hooks registered on this node's incoming gradient: the pre-hooks, which may
    /// replace it with a tensor of the same shape, dtype and device (kael::Error
    /// otherwise, as in PyTorch), then the retain hooks. The engine calls it before the
    /// gradient is captured or used.
    virtual void run_hooks(Grads& grads);
    /// Runs the backward formula on gradients the hooks have already seen.
    [[nodiscard]] Grads run(Grads grads) { return apply(std::move(grads)); }
    /// Frees what the node saved for backward; running it again afterwards is an error.
    /// The engine calls it after a backward pass without retain_graph.
    virtual void release_saved() {}

protected:
    /// The backward formula: gradients of the outputs in, gradients of the inputs out.
    [[nodiscard]] virtual Grads apply(Grads grads) = 0;

private:
    std::string name_;
    std::uint64_t sequence_nr_;
    std::vector<Edge> next_edges_;
    std::vector<InputMeta> input_meta_;
    std::vector<GradHook> pre_hooks_;
    std::vector<GradHook> retain_hooks_;
};

/// Runs `hooks` in order on the first incoming gradient, each seeing what the one before
/// returned; kael::Error for a hook that returns a tensor of another shape, dtype or
/// device than the gradient it was given.
void run_gradient_hooks(const std::vector<GradHook>& hooks, Grads& grads);

/// The node at the end of every path: it adds the incoming gradient into a leaf's grad().
///
/// It holds the leaf's TensorImpl, not a copy of the tensor, so every handle to the leaf,
/// the optimizer's included, sees the gradient (ADR 0002). The gradient it stores is one
/// the leaf owns, laid out like the leaf (PyTorch's layout contract): later backward
/// passes add into it in place, so it must never be a tensor someone else holds, or a
/// view whose elements share memory. It follows the leaf's dtype and device, which
/// Tensor::move_to_ may have changed since the forward pass.
class AccumulateGrad final : public Node {
public:
    /// A node that accumulates into `leaf`.
    explicit AccumulateGrad(std::shared_ptr<TensorImpl> leaf);
    /// The leaf this node writes into.
    [[nodiscard]] const std::shared_ptr<TensorImpl>& leaf() const noexcept { return leaf_; }
    /// Runs the leaf's own hooks (Tensor::register_hook on a leaf) as well as the node's.
    void run_hooks(Grads& grads) override;

protected:
    [[nodiscard]] Grads apply(Grads grads) override;

private:
    std::shared_ptr<TensorImpl> leaf_;
};

}  // namespace kael::autograd

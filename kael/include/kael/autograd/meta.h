#pragma once
/// \file
/// \brief AutogradMeta: what a tensor carries once it takes part in autograd.

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "kael/tensor.h"

namespace kael::autograd {

class Node;

/// A function run on the gradient of a tensor before it is used (Tensor::register_hook).
/// Returning a tensor replaces the gradient; returning nothing keeps it.
using GradHook = std::function<std::optional<Tensor>(const Tensor&)>;

/// The autograd state of one TensorImpl, which holds it as an AutogradMetaInterface: core
/// code sees only that interface. Tensors outside autograd have none (a null
/// `TensorImpl::autograd`), so they pay one pointer.
///
/// A tensor is a *leaf* when it has no grad_fn: the user created it. A leaf requires grad
/// when the user said so; a non-leaf requires grad because an input of the operation that
/// made it did, and its grad_fn is the node that sends gradients back through that
/// operation.
struct AutogradMeta final : AutogradMetaInterface {
    /// Set on leaves by requires_grad_(); for non-leaves, grad_fn says it instead.
    bool requires_grad = false;
    /// The accumulated gradient: filled by backward() on leaves, and on non-leaves that
    /// asked for it with retain_grad().
    std::optional<Tensor> grad;
    /// The node that computed this tensor; null for a leaf.
    std::shared_ptr<Node> grad_fn;
    /// Which output of grad_fn this tensor is (every kael node has one output: 0).
    std::uint32_t output_nr = 0;
    /// A leaf's AccumulateGrad node, held weakly: the node holds the leaf, and the graph
    /// holds the node, so a strong pointer here would be a reference cycle.
    std::weak_ptr<Node> grad_accumulator;
    /// True after retain_grad() on a non-leaf.
    bool retains_grad = false;
    /// Hooks of a leaf, run before its gradient is accumulated. A non-leaf's hooks live
    /// on its grad_fn.
    std::vector<GradHook> hooks;

    /// For a view made while grad mode was on: the tensor whose storage it views (the
    /// first one that is not itself such a view). An in-place write through the view
    /// rebases this base's history (CopySlices, autograd/inplace.cpp), and the view's own
    /// history is then made again from the base's.
    std::shared_ptr<TensorImpl> view_base;
    /// For such a view: the storage's version when its grad_fn was last made. An in-place
    /// write to the base or to any view of it bumps the version, and the view's history is
    /// made again from the base's on its next use.
    std::int64_t view_version = 0;

    /// Guards the members that backward passes running on several threads share through a
    /// leaf (its AccumulateGrad node and the gradient it writes) and a view's remade
    /// history. Separate graphs may run on separate threads (ADR 0005); this is what lets
    /// them share parameters. It is recursive because accumulating with create_graph records
    /// operations, and recording may look up this same leaf.
    std::recursive_mutex mutex;

    AutogradMeta() = default;
    AutogradMeta(const AutogradMeta&) = delete;
    AutogradMeta& operator=(const AutogradMeta&) = delete;
    /// Hands grad_fn to the iterative release, so that freeing a long chain of nodes does
    /// not recurse once per node.
    ~AutogradMeta() override;
};

}  // namespace kael::autograd

// kael::explain (chapter 13): the metadata of chapters 03 and 06 read back in words.
#include "kael/debug.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <sstream>
#include <unordered_set>
#include <vector>

#include "autograd/recording.h"
#include "kael/autograd/anomaly.h"
#include "kael/autograd/node.h"
#include "kael/view.h"

namespace kael {
namespace {

constexpr std::size_t kNodesShown = 16;

void describe_graph(std::ostream& out, const Tensor& t) {
    const std::shared_ptr<autograd::Node> start = autograd::gradient_edge(t).node;
    if (start == nullptr) {
        out << "graph:         none (backward() from this tensor would fail)\n";
        return;
    }
    out << "graph:         the nodes backward() would run, from this tensor:\n";
    std::vector<const autograd::Node*> stack{start.get()};
    std::unordered_set<const autograd::Node*> seen{start.get()};
    std::size_t shown = 0;
    while (!stack.empty()) {
        const autograd::Node* node = stack.back();
        stack.pop_back();
        if (shown < kNodesShown) {
            out << "  " << node->name();
            if (const auto* accumulate = dynamic_cast<const autograd::AccumulateGrad*>(node)) {
                out << " into a leaf of shape " << to_string(accumulate->leaf()->shape);
            } else {
                out << " (forward: " << autograd::forward_name(*node) << " on " << autograd::describe_inputs(*node)
                    << ')';
            }
            out << '\n';
        }
        ++shown;
        const auto& edges = node->next_edges();
        for (auto edge = edges.rbegin(); edge != edges.rend(); ++edge) {
            if (edge->is_valid() && seen.insert(edge->node.get()).second) {
                stack.push_back(edge->node.get());
            }
        }
    }
    if (shown > kNodesShown) {
        out << "  ... and " << shown - kNodesShown << " more nodes\n";
    }
}

}  // namespace

std::string explain(const Tensor& t) {
    const std::shared_ptr<const TensorImpl> impl = t.impl();
    const Storage& storage = *impl->storage;
    std::ostringstream out;
    out << "tensor:        " << to_string(t.shape()) << ' ' << to_string(t.dtype()) << " on " << to_string(t.device())
        << ", " << t.numel() << (t.numel() == 1 ? " element" : " elements") << " of " << element_size(t.dtype())
        << (element_size(t.dtype()) == 1 ? " byte" : " bytes") << '\n';
    out << "layout:        strides " << to_string(t.strides()) << ", offset " << t.offset() << ", "
        << (t.is_contiguous() ? "contiguous" : "not contiguous") << '\n';
    // The impls holding the storage: this tensor's, its views', a saved tensor's in a graph.
    out << "storage:       " << storage.nbytes() << " bytes on " << to_string(storage.device()) << ", version "
        << storage.version() << ", shared by " << impl->storage.use_count() << " tensor impl"
        << (impl->storage.use_count() == 1 ? "" : "s") << '\n';
    const auto [first, end] = reachable_bytes(t);
    out << "reaches:       ";
    if (first == end) {
        out << "no bytes (no elements)\n";
    } else {
        out << "bytes [" << first << ", " << end << ") of the storage, " << end - first << " of " << storage.nbytes()
            << '\n';
    }
    const std::optional<Tensor> base = autograd::view_base(t);
    out << "view:          ";
    if (base) {
        out << "a tracked view of a " << to_string(base->shape()) << " base"
            << (base->shares_storage(t) ? ", sharing its storage" : "") << '\n';
    } else {
        out << "not a tracked view (autograd tracks the views made in grad mode)\n";
    }
    out << "requires_grad: " << (t.requires_grad() ? "true" : "false");
    if (t.requires_grad()) {
        out << (t.is_leaf() ? ", a leaf" : ", computed by " + t.grad_fn()->name());
        if (const std::optional<Tensor> grad = t.grad()) {
            out << ", grad " << to_string(grad->shape());
        }
    }
    out << '\n';
    if (t.requires_grad()) {
        describe_graph(out, t);
    }
    return out.str();
}

}  // namespace kael

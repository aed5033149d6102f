// Recording: saved tensors, the formula node, and the functions every differentiable
// operation calls to attach its result to the graph.
#include "autograd/recording.h"

#include <algorithm>
#include <utility>

#include "kael/error.h"
#include "kael/ops/reduce.h"

namespace kael::autograd {
namespace {

// The node of every recorded operation: a name, its edges, and the formula, a closure that
// holds the saved tensors. Releasing the node drops the closure, and with it the tensors.
class FormulaNode final : public Node {
public:
    FormulaNode(const char* name, Formula formula) : Node(name), formula_(std::move(formula)) {}

    void release_saved() override { formula_ = nullptr; }

protected:
    Grads apply(Grads grads) override {
        KAEL_CHECK(formula_ != nullptr,
                   "Trying to backward through the graph a second time (or directly access saved tensors after "
                   "they have already been freed): "
                       << name()
                       << " has already run and freed what it saved. Saved values are freed when backward() or "
                          "autograd::grad() passes them; pass retain_graph = true to the first call if you need "
                          "to go backward through the graph a second time");
        return formula_(*grads.at(0), *this);
    }

private:
    Formula formula_;
};

const Tensor* pointer_of(const Input& input) noexcept { return input.get(); }
const Tensor* pointer_of(const Tensor* input) noexcept { return input; }

}  // namespace

AutogradMeta& ensure_meta(const Tensor& t) {
    TensorImpl& impl = ImplAccess::impl(t);
    if (impl.autograd == nullptr) {
        impl.autograd = std::make_unique<AutogradMeta>();
    }
    return *meta_of(impl);
}

bool should_record(std::initializer_list<Input> inputs) noexcept {
    if (!is_grad_enabled()) {
        return false;
    }
    for (const Input& input : inputs) {
        if (input.get() != nullptr && input.get()->requires_grad()) {
            return true;
        }
    }
    return false;
}

bool should_record_all(const std::vector<const Tensor*>& inputs) noexcept {
    return is_grad_enabled() && std::any_of(inputs.begin(), inputs.end(), [](const Tensor* t) {
               return t != nullptr && t->requires_grad();
           });
}

SavedTensor::SavedTensor(const Tensor& t, bool is_output)
    : data_(is_output ? t.detach() : t), version_(t.impl()->storage->version()), is_output_(is_output) {}

Tensor SavedTensor::unpack(Node& node) const {
    const std::int64_t version = data_.impl()->storage->version();
    KAEL_CHECK(version == version_,
               "one of the variables needed for gradient computation has been modified by an inplace "
               "operation: the "
                   << data_.dtype() << " tensor of shape " << to_string(data_.shape()) << " saved by "
                   << node.name() << " is at version " << version << "; expected version " << version_
                   << " instead. Make the in-place change on a clone(), or make it out of place");
    if (is_output_ && is_grad_enabled()) {
        // A recorded backward pass (create_graph) differentiates through this value too,
        // so it gets back the history that was left out to avoid the cycle.
        Tensor attached = data_.detach();
        AutogradMeta& meta = ensure_meta(attached);
        meta.grad_fn = node.shared_from_this();
        meta.output_nr = 0;
        return attached;
    }
    return data_;
}

Edge gradient_edge(const Tensor& t) {
    AutogradMeta* meta = meta_of(t);
    if (meta == nullptr) {
        return {};
    }
    if (meta->grad_fn != nullptr) {
        return {meta->grad_fn, meta->output_nr};
    }
    if (!meta->requires_grad) {
        return {};
    }
    std::shared_ptr<Node> accumulator = meta->grad_accumulator.lock();
    if (accumulator == nullptr) {
        accumulator = std::make_shared<AccumulateGrad>(ImplAccess::shared(t));
        meta->grad_accumulator = accumulator;
    }
    return {accumulator, 0};
}

namespace {

// The one implementation behind both record() overloads: `inputs` may hold null entries
// for absent optional inputs.
template <typename Pointers>
void record_node(const Tensor& out, const char* name, const Pointers& inputs, Formula formula) {
    if (!is_floating_point(out.dtype())) {
        return;  // integer and bool results never require grad
    }
    auto node = std::make_shared<FormulaNode>(name, std::move(formula));
    node->reserve_inputs(inputs.size());
    for (const auto& input : inputs) {
        const Tensor* t = pointer_of(input);
        if (t == nullptr) {
            node->add_input({}, {});
            continue;
        }
        if (t->is_same(out)) {
            return;  // the operation returned its input unchanged: nothing to record
        }
        node->add_input(gradient_edge(*t), {t->shape(), t->dtype()});
    }
    AutogradMeta& meta = ensure_meta(out);
    release_node(std::exchange(meta.grad_fn, std::move(node)));
    meta.output_nr = 0;
}

}  // namespace

void record(const Tensor& out, const char* name, std::initializer_list<Input> inputs, Formula formula) {
    record_node(out, name, inputs, std::move(formula));
}

void record(const Tensor& out, const char* name, const std::vector<const Tensor*>& inputs, Formula formula) {
    record_node(out, name, inputs, std::move(formula));
}

void record_view(const Tensor& out, const Tensor& base, const char* name, Formula formula) {
    record(out, name, {base}, std::move(formula));
    AutogradMeta* view = meta_of(out);
    if (view == nullptr) {
        return;  // record() found nothing to record
    }
    // Views of views count against the first base: that is the tensor whose storage, and
    // whose history, an in-place write would change. It requires grad, so it has a meta.
    const AutogradMeta* base_meta = meta_of(base);
    std::shared_ptr<TensorImpl> root =
        base_meta->view_base != nullptr ? base_meta->view_base : ImplAccess::shared(base);
    meta_of(*root)->live_views.fetch_add(1, std::memory_order_relaxed);
    view->view_base = std::move(root);
}

Tensor sum_to(const Tensor& grad, const Shape& shape) {
    if (grad.shape() == shape) {
        return grad;
    }
    const std::int64_t leading = grad.dim() - static_cast<std::int64_t>(shape.size());
    Dims dims;
    for (std::int64_t d = 0; d < leading; ++d) {
        dims.push_back(d);
    }
    for (std::size_t d = 0; d < shape.size(); ++d) {
        if (shape[d] == 1 && grad.size(leading + static_cast<std::int64_t>(d)) != 1) {
            dims.push_back(leading + static_cast<std::int64_t>(d));
        }
    }
    const Tensor summed = dims.empty() ? grad : sum(grad, dims, /*keepdim=*/true);
    return summed.reshape(shape);
}

}  // namespace kael::autograd

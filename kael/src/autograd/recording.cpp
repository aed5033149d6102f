// Recording: saved tensors, the formula node, tracked views, and the functions every
// differentiable operation calls to attach its result to the graph.
#include "autograd/recording.h"

#include <algorithm>
#include <mutex>
#include <utility>

#include "autograd/views.h"
#include "kael/error.h"
#include "kael/ops/reduce.h"

namespace kael::autograd {
namespace {

// SavedTensors made on this thread and not yet claimed by a node (take_saved_count).
thread_local std::int64_t unclaimed_saved_tensors = 0;

// The node of every recorded operation: a name, its edges, and the formula, a closure that
// holds the saved tensors. Releasing a node that saved tensors drops the closure, and with
// it the tensors; a node that saved none keeps its formula and can run again.
class FormulaNode final : public Node {
public:
    FormulaNode(const char* name, Formula formula, bool saves_tensors)
        : Node(name), formula_(std::move(formula)), saves_tensors_(saves_tensors) {}

    void release_saved() override {
        if (saves_tensors_) {
            formula_ = nullptr;
        }
    }

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
    bool saves_tensors_;
};

const Tensor* pointer_of(const Input& input) noexcept { return input.get(); }
const Tensor* pointer_of(const Tensor* input) noexcept { return input; }

// The edge into a leaf that requires grad: its AccumulateGrad node, made on first use and
// shared by every later use, from any thread.
Edge accumulator_edge(const Tensor& leaf, AutogradMeta& meta) {
    const std::lock_guard<std::recursive_mutex> lock(meta.mutex);
    std::shared_ptr<Node> accumulator = meta.grad_accumulator.lock();
    if (accumulator == nullptr) {
        accumulator = std::make_shared<AccumulateGrad>(ImplAccess::shared(leaf));
        meta.grad_accumulator = accumulator;
    }
    return {accumulator, 0};
}

// True for a tensor computed by a recorded operation, or given history by an in-place write.
bool has_history(const TensorImpl& impl) noexcept {
    const AutogradMeta* meta = meta_of(impl);
    return meta != nullptr && meta->grad_fn != nullptr;
}

// A tracked view's history, remade when it is stale: when the storage was written in place
// since it was made (the view now shows values of the base's newer history), or when the
// view has none but its base has been given history since (a write through another view). The new node is the general view
// backward, from the base's geometry to the view's (AsStridedBackward, as PyTorch's).
// Returns the view's grad_fn; call it with the view's lock held.
std::shared_ptr<Node> current_view_history(const Tensor& view, AutogradMeta& meta) {
    const std::shared_ptr<TensorImpl>& base_impl = meta.view_base;
    if (base_impl->storage != ImplAccess::impl(view).storage) {
        return meta.grad_fn;  // the base moved to other storage (move_to_): the view no longer shows it
    }
    const std::int64_t version = base_impl->storage->version();
    const bool base_requires_grad = requires_grad(*base_impl);
    if (version == meta.view_version && (meta.grad_fn != nullptr || !has_history(*base_impl))) {
        return meta.grad_fn;
    }
    meta.view_version = version;
    std::shared_ptr<Node> remade;
    if (base_requires_grad) {
        const Tensor base = ImplAccess::wrap(base_impl);
        auto node = std::make_shared<ViewOfBase>(base, view);
        node->add_input(gradient_edge(base), {base.shape(), base.dtype()});
        remade = std::move(node);
    }
    release_node(std::exchange(meta.grad_fn, remade));
    meta.output_nr = 0;
    return remade;
}

}  // namespace

std::int64_t take_saved_count() noexcept { return std::exchange(unclaimed_saved_tensors, 0); }

AutogradMeta& ensure_meta(const Tensor& t) {
    TensorImpl& impl = ImplAccess::impl(t);
    if (impl.autograd == nullptr) {
        impl.autograd = std::make_unique<AutogradMeta>();
    }
    return *meta_of(impl);
}

bool requires_grad(const TensorImpl& impl) noexcept {
    const AutogradMeta* meta = meta_of(impl);
    if (meta == nullptr) {
        return false;
    }
    if (meta->requires_grad || meta->grad_fn != nullptr) {
        return true;
    }
    // A view joins the graph when its base has been given history since the view was made
    // (a write through another view of it). A base that is merely marked with
    // requires_grad_() later does not pull its earlier views in: the mark belongs to the
    // base's impl, not to the views' (ADR 0002).
    return meta->view_base != nullptr && meta->view_base->storage == impl.storage && has_history(*meta->view_base);
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
    : data_(is_output ? t.detach() : t), storage_(t.impl()->storage), version_(t.impl()->storage->version()),
      is_output_(is_output) {
    ++unclaimed_saved_tensors;
}

Tensor SavedTensor::unpack(Node& node) const {
    const std::shared_ptr<Storage>& storage = data_.impl()->storage;
    KAEL_CHECK(storage_.lock() == storage,
               "one of the variables needed for gradient computation has been moved to other storage: the "
                   << data_.dtype() << " tensor of shape " << to_string(data_.shape()) << " saved by " << node.name()
                   << " was changed by move_to_ after the forward pass. Move tensors before computing with them, "
                      "or compute again after the move");
    const std::int64_t version = storage->version();
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
    if (meta->view_base != nullptr) {
        const std::lock_guard<std::recursive_mutex> lock(meta->mutex);
        if (std::shared_ptr<Node> history = current_view_history(t, *meta)) {
            return {std::move(history), meta->output_nr};
        }
    } else if (meta->grad_fn != nullptr) {
        return {meta->grad_fn, meta->output_nr};
    }
    return meta->requires_grad ? accumulator_edge(t, *meta) : Edge{};
}

std::shared_ptr<Node> grad_fn_of(const Tensor& t) {
    AutogradMeta* meta = meta_of(t);
    if (meta == nullptr) {
        return nullptr;
    }
    if (meta->view_base != nullptr) {
        const std::lock_guard<std::recursive_mutex> lock(meta->mutex);
        return current_view_history(t, *meta);
    }
    return meta->grad_fn;
}

namespace {

// The one implementation behind both record() overloads: `inputs` may hold null entries
// for absent optional inputs.
template <typename Pointers>
void record_node(const Tensor& out, const char* name, const Pointers& inputs, Formula formula) {
    const bool saves_tensors = take_saved_count() > 0;
    if (!is_floating_point(out.dtype())) {
        return;  // integer and bool results never require grad
    }
    auto node = std::make_shared<FormulaNode>(name, std::move(formula), saves_tensors);
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

void track_view(const Tensor& view, const Tensor& base) {
    // Views of views count against the first base: that is the tensor whose history an
    // in-place write through any of them changes.
    std::optional<Tensor> root = view_base(base);
    AutogradMeta& meta = ensure_meta(view);
    meta.view_base = ImplAccess::shared(root ? *root : base);
    meta.view_version = view.impl()->storage->version();
}

std::optional<Tensor> view_base(const Tensor& t) {
    const AutogradMeta* meta = meta_of(t);
    if (meta == nullptr || meta->view_base == nullptr) {
        return std::nullopt;
    }
    return ImplAccess::wrap(meta->view_base);
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

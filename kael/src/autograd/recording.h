#pragma once
// Recording the graph: the narrow interface through which the differentiable functions
// (autograd/functions/) attach a result to the graph. Internal to the library; users see the
// graph only through Tensor's autograd members and kael/autograd/*.h.
//
// A function records when should_record() says an input requires grad, with a node that
// holds its backward formula and the tensors the formula reads:
//
//     autograd::record(out, "MulBackward", {a, b},
//                      [a = autograd::SavedTensor(a), b = autograd::SavedTensor(b)](
//                          const Tensor& grad, autograd::Node& node) {
//                          return autograd::Grads{mul(grad, b.unpack(node)), mul(grad, a.unpack(node))};
//                      });
//
// autograd/functions/function.h wraps these steps into the few shapes formulas take.
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <vector>

#include "kael/autograd/meta.h"
#include "kael/autograd/node.h"
#include "kael/autograd/grad_mode.h"
#include "kael/tensor.h"

namespace kael::autograd {

// The autograd layer's way into a Tensor's impl (a friend of Tensor), so that nothing
// outside the library can rewrite an impl that validate() has passed.
struct ImplAccess {
    static TensorImpl& impl(const Tensor& t) noexcept { return *t.impl_; }
    static const std::shared_ptr<TensorImpl>& shared(const Tensor& t) noexcept { return t.impl_; }
    // A handle to an impl the layer holds (a leaf, a view's base), validated like any other.
    static Tensor wrap(std::shared_ptr<TensorImpl> impl) { return Tensor(std::move(impl)); }
};

// The impl's AutogradMeta, or null when it has none. The impl holds it as the core's
// opaque AutogradMetaInterface; every meta is made by ensure_meta, so it is an AutogradMeta.
[[nodiscard]] inline AutogradMeta* meta_of(const TensorImpl& impl) noexcept {
    return static_cast<AutogradMeta*>(impl.autograd.get());
}

// The tensor's AutogradMeta, or null when it has none.
[[nodiscard]] inline AutogradMeta* meta_of(const Tensor& t) noexcept { return meta_of(ImplAccess::impl(t)); }

// The tensor's AutogradMeta, created on first use.
AutogradMeta& ensure_meta(const Tensor& t);

// One input of a recorded operation: a tensor, or an optional tensor that may be absent
// (layer_norm's weight and bias).
class Input {
public:
    Input(const Tensor& t) noexcept : tensor_(&t) {}  // NOLINT(google-explicit-constructor)
    Input(const std::optional<Tensor>& t) noexcept : tensor_(t ? &*t : nullptr) {}  // NOLINT
    [[nodiscard]] const Tensor* get() const noexcept { return tensor_; }

private:
    const Tensor* tensor_;
};

// True when grad mode is on and at least one input requires grad: only then is a node
// worth building. Costs a thread-local read and one pointer test per input otherwise.
[[nodiscard]] bool should_record(std::initializer_list<Input> inputs) noexcept;

// should_record for a list of inputs (cat, stack).
[[nodiscard]] bool should_record_all(const std::vector<const Tensor*>& inputs) noexcept;

template <typename... Inputs> [[nodiscard]] bool should_record(const Inputs&... inputs) noexcept {
    return should_record({Input(inputs)...});
}

// A tensor kept for the backward pass, with the version of its storage at that moment.
//
// Unpacking checks the version: an in-place write to the tensor (or to any view of its
// storage) between forward and backward would make the formula compute with the wrong
// values, so it is an error instead. So is a move_to_ of the tensor, which gives it other
// storage. A node's own output is kept without its autograd state, which would point back
// at the node (a reference cycle); unpacking it inside a recorded backward pass reattaches
// the node as its grad_fn.
//
// A node remembers whether its formula saved any tensor: one that did frees them after a
// backward pass (unless retain_graph) and refuses to run again; one that saved nothing,
// such as sum's, can run any number of times, as in PyTorch.
class SavedTensor {
public:
    // Saves an input of the operation (kept as it is, history included).
    explicit SavedTensor(const Tensor& t) : SavedTensor(t, false) {}
    // Saves the operation's own result.
    [[nodiscard]] static SavedTensor output(const Tensor& out) { return SavedTensor(out, true); }

    // The saved tensor; kael::Error naming `node` and both versions when it was modified.
    [[nodiscard]] Tensor unpack(Node& node) const;

private:
    SavedTensor(const Tensor& t, bool is_output);

    Tensor data_;
    std::weak_ptr<const Storage> storage_;
    std::int64_t version_;
    bool is_output_;
};

// How many SavedTensors were made on this thread since the last record() took the count:
// the formula passed to record() captures them, so a count above zero means the node
// saved something.
[[nodiscard]] std::int64_t take_saved_count() noexcept;

// A backward formula: the gradient of the output in, one gradient per input out (empty
// where an input needs none). `node` is the running node, for SavedTensor::unpack and
// needs_input_grad.
using Formula = std::function<Grads(const Tensor& grad, Node& node)>;

// Makes `out` the result of a new node called `name` with `formula`, whose edges lead to
// `inputs`. Call it only when should_record(inputs) holds. An output that is not floating
// point gets no node: integer and bool tensors never require grad.
void record(const Tensor& out, const char* name, std::initializer_list<Input> inputs, Formula formula);

// record() for operations with a list of inputs (cat, stack).
void record(const Tensor& out, const char* name, const std::vector<const Tensor*>& inputs, Formula formula);

// Marks `view`, just made from `base` in grad mode, as a view of base's storage: an
// in-place write through it rebases the history of the tensor whose storage it shares
// (autograd/inplace.cpp), and its own history follows that tensor's from then on.
void track_view(const Tensor& view, const Tensor& base);

// The tensor whose storage a tracked view shares (the first one that is not itself a
// tracked view), or nothing for a tensor that is not a tracked view.
[[nodiscard]] std::optional<Tensor> view_base(const Tensor& t);

// True when gradients flow to the tensor of `impl`: a leaf marked with requires_grad_(),
// the result of a recorded operation, or a tracked view of such a tensor.
[[nodiscard]] bool requires_grad(const TensorImpl& impl) noexcept;

// The node that computed `t`, remade first if `t` is a tracked view whose storage was
// written in place since its history was made (it then views the base's new history).
[[nodiscard]] std::shared_ptr<Node> grad_fn_of(const Tensor& t);

// Registers retain_grad()'s hook on the current grad_fn of `t`: when the tensor asks for it
// (tensor_autograd.cpp), and again when an in-place rebase gives it a new grad_fn (inplace.cpp).
void retain_grad_on_node(const Tensor& t);

// Where the gradient of `t` goes: its grad_fn, the AccumulateGrad node of a leaf that
// requires grad (created on first use), or nowhere.
[[nodiscard]] Edge gradient_edge(const Tensor& t);

// Sums `grad` down to `shape`, undoing a broadcast: the leading dimensions broadcasting
// added, and the dimensions of size 1 it stretched.
[[nodiscard]] Tensor sum_to(const Tensor& grad, const Shape& shape);

// Drops a reference to a node without recursing: the last reference to each node in a
// long chain is released from a queue, one node at a time.
void release_node(std::shared_ptr<Node> node) noexcept;

}  // namespace kael::autograd

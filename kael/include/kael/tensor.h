#pragma once
/// \file
/// \brief Tensor: the shared handle to a validated TensorImpl.

#include <cstddef>
#include <cstdint>
//> stage 7
#include <functional>
//< stage 7
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "kael/dtype.h"
//> stage 6
#include "kael/scalar.h"
//< stage 6
#include "kael/shape.h"
#include "kael/tensor_impl.h"

namespace kael {
//> stage 7

class Tensor;

namespace autograd {
class Node;
struct ImplAccess;
/// A function run on a tensor's gradient during backward (Tensor::register_hook); a
/// returned tensor replaces the gradient.
using GradHook = std::function<std::optional<Tensor>(const Tensor&)>;
}  // namespace autograd
//< stage 7

/// A tensor: one std::shared_ptr to a TensorImpl and nothing else (ADR 0002).
///
/// Copying a Tensor shares it: `Tensor b = a;` makes a second handle to the same tensor,
/// and a write through b is visible through a. clone() makes an independent copy. There is
/// no default constructor and no empty state: every Tensor refers to an impl that passed
/// TensorImpl::validate(). Use std::optional<Tensor> where a tensor may be absent.
class Tensor {
public:
    /// Wraps an impl after validating it. The only way to turn an impl into a Tensor.
    /// The caller hands over the only reference (`from_impl(std::move(impl))`): a copy
    /// kept elsewhere could change the impl after it was checked. Throws kael::Error for a
    /// null or shared impl, and whatever validate() throws.
    static Tensor from_impl(std::shared_ptr<TensorImpl> impl);

    // ---- Queries ----------------------------------------------------------------------

    /// The size of each dimension.
    [[nodiscard]] const Shape& shape() const noexcept { return impl_->shape; }
    /// The stride of each dimension, in elements.
    [[nodiscard]] const Strides& strides() const noexcept { return impl_->strides; }
    /// The position of the first element in the storage, in elements.
    [[nodiscard]] std::int64_t offset() const noexcept { return impl_->offset; }
    /// The element type.
    [[nodiscard]] DType dtype() const noexcept { return impl_->dtype; }
    /// The device the elements live on.
    [[nodiscard]] Device device() const noexcept { return impl_->device; }
    /// The size of dimension `dim`; negative values count from the end.
    [[nodiscard]] std::int64_t size(std::int64_t dim) const;
    /// The stride of dimension `dim`; negative values count from the end.
    [[nodiscard]] std::int64_t stride(std::int64_t dim) const;
    /// The number of elements.
    [[nodiscard]] std::int64_t numel() const { return impl_->numel(); }
    /// The number of dimensions.
    [[nodiscard]] std::int64_t dim() const noexcept { return impl_->dim(); }
    /// See TensorImpl::is_contiguous.
    [[nodiscard]] bool is_contiguous() const { return impl_->is_contiguous(); }
    /// The bytes the elements occupy: numel() * element_size(dtype()). A view's storage
    /// can be much larger.
    [[nodiscard]] std::int64_t nbytes() const { return numel() * element_size(dtype()); }

    /// True when both handles refer to the same tensor (the same impl).
    [[nodiscard]] bool is_same(const Tensor& other) const noexcept {
        return impl_ == other.impl_;
    }
    /// True when both tensors read the same storage, so a write through one can change
    /// the other.
    [[nodiscard]] bool shares_storage(const Tensor& other) const noexcept {
        return impl_->storage == other.impl_->storage;
    }
    /// The impl, read-only, for library code that builds new tensors from this one. It is
    /// const so that no caller can change a validated layout behind validate()'s back; the
    /// storage it points to stays writable, as the elements of any tensor are.
    [[nodiscard]] std::shared_ptr<const TensorImpl> impl() const noexcept { return impl_; }
    /// How many Tensor handles (and other owners) share this tensor's impl.
    [[nodiscard]] long use_count() const noexcept { return impl_.use_count(); }

    // ---- Element access ---------------------------------------------------------------

    /// A pointer to the first element (the offset included). Throws TypeError unless T is
    /// the C++ type of dtype(), and kael::Error for a tensor that is not on the CPU.
    template <ElementType T> [[nodiscard]] T* data_ptr() const {
        check_dtype<T>();
        check_on_cpu("data_ptr");
        return reinterpret_cast<T*>(first_element());
    }

    /// An untyped pointer to the first element. Throws for a tensor that is not on the CPU.
    [[nodiscard]] std::byte* data_ptr_raw() const {
        check_on_cpu("data_ptr_raw");
        return first_element();
    }

    /// The address of the first element on the tensor's own device, without any check.
    /// For a CUDA tensor this is a device address that only device code may dereference.
    [[nodiscard]] std::byte* device_data() const noexcept { return first_element(); }

    /// A reference to one element. Negative indices count from the end of their dimension.
    /// Throws TypeError for the wrong T, ValueError for the wrong number of indices, and
    /// IndexError for an index out of range.
    template <ElementType T> [[nodiscard]] T& at(std::span<const std::int64_t> index) const {
        check_dtype<T>();
        check_on_cpu("at");
        return *(reinterpret_cast<T*>(impl_->storage->data()) + element_offset(index));
    }

    /// See at(std::span). Allows `t.at<float>({1, 2})`.
    template <ElementType T> [[nodiscard]] T& at(std::initializer_list<std::int64_t> index) const {
        return at<T>(std::span<const std::int64_t>(index.begin(), index.size()));
    }

    /// The value of a one-element tensor of any shape ([], [1], [1, 1]) as T. Throws
    /// ValueError unless numel() == 1 and TypeError for the wrong T.
    template <ElementType T> [[nodiscard]] T item() const {
        check_dtype<T>();
        check_single_element();
        T value{};
        copy_single_element_to(reinterpret_cast<std::byte*>(&value));
        return value;
    }

    /// The value of a one-element tensor of any dtype, converted to double.
    [[nodiscard]] double item() const;

    // ---- Conversions and copies ---------------------------------------------------------

    /// This tensor with elements converted to `target`. Returns *this (no copy) when the
    /// dtype already matches; otherwise a new contiguous tensor.
    [[nodiscard]] Tensor to(DType target) const;
    /// This tensor on `target`. Returns *this when already there; otherwise a new
    /// contiguous tensor on the target device.
    [[nodiscard]] Tensor to(Device target) const;
    /// to(Device::CPU).
    [[nodiscard]] Tensor cpu() const { return to(Device::CPU); }
    /// to(Device::CUDA).
    [[nodiscard]] Tensor cuda() const { return to(Device::CUDA); }
    /// A new contiguous tensor with its own storage and offset 0, whatever the layout of
    /// this one.
    [[nodiscard]] Tensor clone() const;
    /// *this when already contiguous, clone() otherwise.
    [[nodiscard]] Tensor contiguous() const;
//> stage 4

    // ---- Views: new impls over the same storage (chapter 03) ---------------------------
    // A view shares this tensor's storage, so writes through either are visible through
    // both, and so is the storage's version counter. Every view goes through as_strided.

    /// The funnel of every view: a new tensor over this tensor's storage with the given
    /// metadata, validated like any other tensor (kael::Error if it would read outside the
    /// storage).
    [[nodiscard]] Tensor as_strided(const Shape& shape, const Strides& strides,
                                    std::int64_t offset) const;
    /// The same elements with a new shape, without copying. One size may be -1 (inferred).
    /// Throws ValueError when the element counts differ or when the strides cannot express
    /// the new shape (reshape() copies in that case).
    [[nodiscard]] Tensor view(const Shape& shape) const;
    /// view(shape) when the strides allow it, otherwise a contiguous copy with that shape.
    [[nodiscard]] Tensor reshape(const Shape& shape) const;
    /// Swaps two dimensions.
    [[nodiscard]] Tensor transpose(std::int64_t dim0, std::int64_t dim1) const;
    /// All dimensions reversed (for a matrix, its transpose).
    [[nodiscard]] Tensor T() const;
    /// The last two dimensions swapped; needs at least two dimensions.
    [[nodiscard]] Tensor mT() const;
    /// The dimensions reordered: dimension i of the result is dimension dims[i] of this.
    [[nodiscard]] Tensor permute(const std::vector<std::int64_t>& dims) const;
    /// Elements start, start + step, ... before end along `dim`. Bounds follow Python
    /// slicing: negative values count from the end, and out-of-range values are clamped.
    /// Throws ValueError unless step > 0.
    [[nodiscard]] Tensor slice(std::int64_t dim, std::optional<std::int64_t> start = std::nullopt,
                               std::optional<std::int64_t> end = std::nullopt,
                               std::int64_t step = 1) const;
    /// The sub-tensor at `index` along `dim`, with that dimension removed.
    [[nodiscard]] Tensor select(std::int64_t dim, std::int64_t index) const;
    /// `length` elements from `start` along `dim`; unlike slice, out-of-range is an error.
    [[nodiscard]] Tensor narrow(std::int64_t dim, std::int64_t start, std::int64_t length) const;
    /// select(0, index): `t[i]` as in PyTorch.
    [[nodiscard]] Tensor operator[](std::int64_t index) const { return select(0, index); }
    /// Size-1 dimensions repeated to `shape` with stride 0, without copying. -1 keeps a
    /// size; new dimensions may be added in front.
    [[nodiscard]] Tensor expand(const Shape& shape) const;
    /// expand(other.shape()).
    [[nodiscard]] Tensor expand_as(const Tensor& other) const;
    /// Every size-1 dimension removed.
    [[nodiscard]] Tensor squeeze() const;
    /// Dimension `dim` removed if its size is 1; otherwise the same shape.
    [[nodiscard]] Tensor squeeze(std::int64_t dim) const;
    /// A size-1 dimension inserted at `dim` (in [-dim() - 1, dim()]).
    [[nodiscard]] Tensor unsqueeze(std::int64_t dim) const;
    /// Dimensions start_dim..end_dim merged into one, as reshape() does.
    [[nodiscard]] Tensor flatten(std::int64_t start_dim = 0, std::int64_t end_dim = -1) const;
    /// Dimension `dim` split into `sizes` (one may be -1); always a view.
    [[nodiscard]] Tensor unflatten(std::int64_t dim, const Shape& sizes) const;
    /// A new tensor over the same storage and metadata. From chapter 06 on it is also cut
    /// off from the autograd graph.
    [[nodiscard]] Tensor detach() const;
//< stage 4
//> stage 6

    // ---- Operations as methods (chapter 05) ----------------------------------------------
    // Each calls the free function of the same name in kael/ops/*.h.

    /// kael::add(*this, other, alpha).
    [[nodiscard]] Tensor add(const Tensor& other, Scalar alpha = 1) const;
    /// kael::sub(*this, other, alpha).
    [[nodiscard]] Tensor sub(const Tensor& other, Scalar alpha = 1) const;
    /// kael::add(*this, other, alpha) with a scalar.
    [[nodiscard]] Tensor add(Scalar other, Scalar alpha = 1) const;
    /// kael::sub(*this, other, alpha) with a scalar.
    [[nodiscard]] Tensor sub(Scalar other, Scalar alpha = 1) const;
    /// kael::mul(*this, other).
    [[nodiscard]] Tensor mul(const Tensor& other) const;
    /// kael::mul(*this, other) with a scalar.
    [[nodiscard]] Tensor mul(Scalar other) const;
    /// kael::div(*this, other).
    [[nodiscard]] Tensor div(const Tensor& other) const;
    /// kael::div(*this, other) with a scalar.
    [[nodiscard]] Tensor div(Scalar other) const;
    /// kael::pow(*this, exponent).
    [[nodiscard]] Tensor pow(Scalar exponent) const;
    /// kael::matmul(*this, other).
    [[nodiscard]] Tensor matmul(const Tensor& other) const;
    /// kael::exp(*this).
    [[nodiscard]] Tensor exp() const;
    /// kael::log(*this).
    [[nodiscard]] Tensor log() const;
    /// kael::sqrt(*this).
    [[nodiscard]] Tensor sqrt() const;
    /// kael::abs(*this).
    [[nodiscard]] Tensor abs() const;
    /// kael::relu(*this).
    [[nodiscard]] Tensor relu() const;
    /// kael::sigmoid(*this).
    [[nodiscard]] Tensor sigmoid() const;
    /// kael::tanh(*this).
    [[nodiscard]] Tensor tanh() const;
    /// kael::clamp(*this, min, max).
    [[nodiscard]] Tensor clamp(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
    /// kael::softmax(*this, dim).
    [[nodiscard]] Tensor softmax(std::int64_t dim) const;
    /// kael::log_softmax(*this, dim).
    [[nodiscard]] Tensor log_softmax(std::int64_t dim) const;
    /// kael::sum(*this).
    [[nodiscard]] Tensor sum() const;
    /// kael::sum(*this, dims, keepdim).
    [[nodiscard]] Tensor sum(const std::vector<std::int64_t>& dims, bool keepdim = false) const;
    /// kael::mean(*this).
    [[nodiscard]] Tensor mean() const;
    /// kael::mean(*this, dims, keepdim).
    [[nodiscard]] Tensor mean(const std::vector<std::int64_t>& dims, bool keepdim = false) const;
    /// kael::max(*this): the largest element.
    [[nodiscard]] Tensor max() const;
    /// kael::min(*this): the smallest element.
    [[nodiscard]] Tensor min() const;
    /// kael::argmax(*this, dim, keepdim).
    [[nodiscard]] Tensor argmax(std::int64_t dim, bool keepdim = false) const;
    /// kael::masked_fill(*this, mask, value).
    [[nodiscard]] Tensor masked_fill(const Tensor& mask, Scalar value) const;

    // ---- In-place operations (chapter 05) -------------------------------------------------
    // They write into this tensor's storage, so every view of it sees the change, and they
    // bump the storage's version counter. Each refuses a tensor whose elements share
    // memory (an expanded tensor: kael::Error), a result dtype that cannot be cast to this
    // tensor's (TypeError), and shapes that would have to grow this tensor (ValueError).
    // An operand that partially overlaps this tensor is copied first.

    /// this += alpha * other.
    Tensor& add_(const Tensor& other, Scalar alpha = 1);
    /// this += alpha * value.
    Tensor& add_(Scalar value, Scalar alpha = 1);
    /// this -= alpha * other.
    Tensor& sub_(const Tensor& other, Scalar alpha = 1);
    /// this -= alpha * value.
    Tensor& sub_(Scalar value, Scalar alpha = 1);
    /// this *= other.
    Tensor& mul_(const Tensor& other);
    /// this *= value.
    Tensor& mul_(Scalar value);
    /// this /= other (true division: this tensor must be floating point).
    Tensor& div_(const Tensor& other);
    /// this /= value.
    Tensor& div_(Scalar value);
    /// Every element set to `value`.
    Tensor& fill_(Scalar value);
    /// Every element set to 0.
    Tensor& zero_();
    /// The elements of `src` (broadcast to this shape, converted to this dtype) copied in.
    Tensor& copy_(const Tensor& src);
    /// Each element limited to [min, max].
    Tensor& clamp_(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
    /// `value` written wherever `mask` (Bool, broadcastable to this shape) is true.
    Tensor& masked_fill_(const Tensor& mask, Scalar value);
    /// Every element negated.
    Tensor& neg_();
//< stage 6
//> stage 7

    // ---- Autograd (chapter 06) -------------------------------------------------------------
    // The state lives in the impl's AutogradMeta, so every handle to this tensor sees it.

    /// True when gradients flow to this tensor: a leaf marked with requires_grad_(), the
    /// result of a recorded operation on such a tensor, or a view of one (made in grad
    /// mode).
    [[nodiscard]] bool requires_grad() const noexcept;
    /// Marks a leaf as needing its gradient, or clears the mark. TypeError for a dtype that
    /// is not floating point; kael::Error for clearing it on a non-leaf.
    Tensor& requires_grad_(bool requires_grad = true);
    /// True for a tensor that no recorded operation produced (it has no grad_fn).
    [[nodiscard]] bool is_leaf() const;
    /// The node that produced this tensor, or null for a leaf.
    [[nodiscard]] std::shared_ptr<autograd::Node> grad_fn() const;
    /// The gradient accumulated by backward(): set on leaves that require grad and on
    /// tensors that called retain_grad(), empty otherwise.
    [[nodiscard]] std::optional<Tensor> grad() const;
    /// Replaces the gradient (empty to clear it). ValueError or TypeError unless it has
    /// this tensor's shape and dtype.
    void set_grad(const std::optional<Tensor>& grad);
    /// Keeps the gradient of this non-leaf in grad() after backward: the gradient after
    /// every hook registered on this tensor has run, whenever they were registered. A leaf
    /// keeps its gradient anyway, so on a leaf this does nothing. kael::Error for a tensor
    /// that does not require grad.
    void retain_grad() const;
    /// True for a non-leaf after retain_grad(); false for every leaf, as in PyTorch.
    [[nodiscard]] bool retains_grad() const noexcept;
    /// Runs `hook` on the gradient of this tensor each time backward computes it, before
    /// it is used; a tensor returned by the hook replaces the gradient.
    void register_hook(autograd::GradHook hook) const;
    /// Cuts this tensor out of the graph in place: it becomes a leaf that does not require
    /// grad. kael::Error for a view of a tensor that requires grad (use detach()).
    Tensor& detach_();
    /// Computes the gradient of this tensor with respect to every leaf it depends on and
    /// adds it into their grad(). `gradient` defaults to 1 for a one-element tensor and is
    /// required otherwise; see autograd::backward.
    void backward(const std::optional<Tensor>& gradient = std::nullopt, bool retain_graph = false,
                  bool create_graph = false) const;
//< stage 7
//> stage 8

    // ---- Moving in place (chapter 07) ------------------------------------------------------

    /// Moves this tensor to `target` in place: the impl gets the converted storage, so every
    /// handle to it (a module's member, an optimizer's list) sees the move, and a gradient
    /// moves along. Views made earlier keep the old storage. kael::Error for a tensor
    /// computed by a recorded operation (move its leaves instead) or a device kael lacks.
    Tensor& move_to_(Device target);
    /// Converts this tensor's elements to `target` in place, as move_to_(Device) moves them.
    Tensor& move_to_(DType target);
//< stage 8
//> stage 13
    /// Makes this tensor a view of `source`'s storage with source's strides and offset, in
    /// place, as PyTorch's set_: every handle to it (a module's member, its registry, an
    /// optimizer) then reads source's bytes, without a copy. That is how a model takes
    /// weights out of a memory-mapped checkpoint (chapter 12). Views made earlier keep the
    /// old storage; a gradient stays. ValueError unless shapes are equal, TypeError unless
    /// dtypes are, kael::Error for another device or a tensor computed by a recorded
    /// operation.
    Tensor& set_(const Tensor& source);
//< stage 13

private:
    explicit Tensor(std::shared_ptr<TensorImpl> impl);

    // The address of the first element: storage base plus offset, except for an empty
    // tensor, whose storage may be null or whose offset may point past the end.
    [[nodiscard]] std::byte* first_element() const noexcept;
    // Copies the one element's bytes to host memory, from the CPU or a device.
    void copy_single_element_to(std::byte* host) const;
    // The storage position of an index, negative entries wrapped once.
    [[nodiscard]] std::int64_t element_offset(std::span<const std::int64_t> index) const;
    void check_on_cpu(const char* what) const;
    void check_single_element() const;

    template <ElementType T> void check_dtype() const {
        KAEL_CHECK_TYPE(dtype_of_v<T> == dtype(), "expected dtype " << dtype_of_v<T>
                                                                    << " but tensor has "
                                                                    << dtype());
    }

    std::shared_ptr<TensorImpl> impl_;
//> stage 7
    // The autograd layer reaches the impl to record grad_fn and accumulate gradients.
    friend struct autograd::ImplAccess;
//< stage 7
};

/// Prints the elements as a flat list in logical (row-major) order, then shape, dtype and,
/// off the CPU, the device: `tensor([0.0000, 1.0000], shape=[2], dtype=float32)`. More than
/// 1000 elements are summarized as the first three, "...", and the last three. The
/// caller's stream flags are left untouched.
std::ostream& operator<<(std::ostream& os, const Tensor& t);

/// A new contiguous tensor with t's elements converted to `target`: the copy behind
/// Tensor::to(DType), which returns t itself when the dtype already matches.
[[nodiscard]] Tensor to_copy(const Tensor& t, DType target);
/// A new contiguous tensor with t's elements on `target`: the copy behind Tensor::to(Device).
[[nodiscard]] Tensor to_copy(const Tensor& t, Device target);
/// t.clone(): a new contiguous tensor with its own storage.
[[nodiscard]] Tensor clone(const Tensor& t);

}  // namespace kael

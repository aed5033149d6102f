#pragma once
// The copies and views as the library's own code calls them: below the functions users
// call, and never recording a graph.
//
// A user's t.to(kael::F64) or kael::view(t, shape) reaches the top of the operation stack,
// which from chapter 06 on is the autograd layer. Core and the operations layer sit below
// it and must not call up into it, so their own code names these functions instead:
// native::contiguous(t), native::view(t, shape), ... Until chapter 06 there is only one level
// of operations, and native:: is another name for kael::. From chapter 06 on it names the
// functions below autograd, which core/tensor.cpp and core/view.cpp then define.
#include "kael/tensor.h"
//> stage 4
#include "kael/view.h"
//< stage 4

//> until 7
//| namespace kael {
//| // One level of operations: native::f is kael::f.
//| namespace native = ::kael;
//< until 7
//> stage 7
namespace kael::native {
//< stage 7

/// `t` itself when it already has `target`'s dtype, a converted copy otherwise.
[[nodiscard]] Tensor to(const Tensor& t, DType target);
/// `t` itself when it is already on `target`, a copy there otherwise.
[[nodiscard]] Tensor to(const Tensor& t, Device target);
/// `t` itself when it is contiguous, a contiguous copy otherwise.
[[nodiscard]] Tensor contiguous(const Tensor& t);
//> stage 7

// Until chapter 06 these are the public functions of kael/tensor.h and kael/view.h; from it
// the autograd layer defines those, and core these, of the same meaning.
[[nodiscard]] Tensor to_copy(const Tensor& self, DType target);
[[nodiscard]] Tensor to_copy(const Tensor& self, Device target);
[[nodiscard]] Tensor clone(const Tensor& self);
[[nodiscard]] Tensor as_strided(const Tensor& self, const Shape& shape, const Strides& strides, std::int64_t offset);
[[nodiscard]] Tensor view(const Tensor& self, const Shape& shape);
[[nodiscard]] Tensor reshape(const Tensor& self, const Shape& shape);
[[nodiscard]] Tensor transpose(const Tensor& self, std::int64_t dim0, std::int64_t dim1);
[[nodiscard]] Tensor permute(const Tensor& self, const std::vector<std::int64_t>& dims);
[[nodiscard]] Tensor slice(const Tensor& self, std::int64_t dim, std::optional<std::int64_t> start,
                           std::optional<std::int64_t> end, std::int64_t step);
[[nodiscard]] Tensor select(const Tensor& self, std::int64_t dim, std::int64_t index);
[[nodiscard]] Tensor expand(const Tensor& self, const Shape& shape);
[[nodiscard]] Tensor squeeze(const Tensor& self);
[[nodiscard]] Tensor squeeze(const Tensor& self, std::int64_t dim);
[[nodiscard]] Tensor unsqueeze(const Tensor& self, std::int64_t dim);
[[nodiscard]] Tensor unflatten(const Tensor& self, std::int64_t dim, const Shape& sizes);
//< stage 7

}  // namespace

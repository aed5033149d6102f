#pragma once
// The operations below autograd (chapter 06), as the autograd layer and the operations
// themselves call them.
//
// Each public function with a backward formula, kael::exp say, is defined by the autograd
// layer (kael/src/autograd/functions/), which runs native::exp from here and records the
// formula. The native functions check their arguments, promote, allocate and compute, and
// never record: they are what the public functions were in chapter 05. Their documentation
// is that of the public function of the same name. The copies and views below autograd are
// core's (core/native.h).
//
// In chapter 05 there is one level of operations, and this header only brings in
// core/native.h, where native:: is another name for kael::; the operations already call each
// other as native::sum, native::div, ... so that chapter 06 changes no call.
#include "core/native.h"
//> stage 7

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "kael/ops/nn.h"
#include "kael/ops/reduce.h"
#include "kael/scalar.h"
#include "kael/shape.h"
#include "kael/tensor.h"

namespace kael::native {

// ---- one operand (ops/unary.cpp) ------------------------------------------------------------
Tensor neg(const Tensor& t);
Tensor abs(const Tensor& t);
Tensor sign(const Tensor& t);
Tensor exp(const Tensor& t);
Tensor log(const Tensor& t);
Tensor log1p(const Tensor& t);
Tensor expm1(const Tensor& t);
Tensor sqrt(const Tensor& t);
Tensor rsqrt(const Tensor& t);
Tensor sin(const Tensor& t);
Tensor cos(const Tensor& t);
Tensor tanh(const Tensor& t);
Tensor sigmoid(const Tensor& t);
Tensor relu(const Tensor& t);
Tensor gelu(const Tensor& t, std::string_view approximate);
Tensor silu(const Tensor& t);
Tensor floor(const Tensor& t);
Tensor ceil(const Tensor& t);
Tensor round(const Tensor& t);
Tensor clamp(const Tensor& t, std::optional<Scalar> min, std::optional<Scalar> max);

// ---- two operands (ops/binary.cpp) ----------------------------------------------------------
Tensor add(const Tensor& a, const Tensor& b, Scalar alpha);
Tensor add(const Tensor& t, Scalar s, Scalar alpha);
Tensor sub(const Tensor& a, const Tensor& b, Scalar alpha);
Tensor sub(const Tensor& t, Scalar s, Scalar alpha);
Tensor sub(Scalar s, const Tensor& t, Scalar alpha);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& t, Scalar s);
Tensor div(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& t, Scalar s);
Tensor div(Scalar s, const Tensor& t);
Tensor floor_divide(const Tensor& a, const Tensor& b);
Tensor remainder(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& t, Scalar exponent);
Tensor pow(Scalar base, const Tensor& t);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
Tensor atan2(const Tensor& a, const Tensor& b);

// ---- selection by a mask (ops/compare.cpp) --------------------------------------------------
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b);

// ---- reductions (ops/reduce.cpp) ------------------------------------------------------------
Tensor sum(const Tensor& t, const Dims& dims, bool keepdim);
Tensor prod(const Tensor& t, const Dims& dims, bool keepdim);
Tensor mean(const Tensor& t, const Dims& dims, bool keepdim);
Tensor amax(const Tensor& t, const Dims& dims, bool keepdim);
Tensor amin(const Tensor& t, const Dims& dims, bool keepdim);
Tensor max(const Tensor& t);
Tensor min(const Tensor& t);
ValuesIndices max(const Tensor& t, std::int64_t dim, bool keepdim);
ValuesIndices min(const Tensor& t, std::int64_t dim, bool keepdim);
Tensor var(const Tensor& t, const Dims& dims, double correction, bool keepdim);
Tensor std(const Tensor& t, const Dims& dims, double correction, bool keepdim);
Tensor logsumexp(const Tensor& t, const Dims& dims, bool keepdim);
Tensor cumsum(const Tensor& t, std::int64_t dim);

// ---- neural-network functions (ops/nn.cpp) --------------------------------------------------
Tensor softmax(const Tensor& t, std::int64_t dim);
Tensor log_softmax(const Tensor& t, std::int64_t dim);
Tensor nll_loss(const Tensor& log_probs, const Tensor& target, Reduction reduction, std::int64_t ignore_index);
Tensor layer_norm(const Tensor& t, const Shape& normalized_shape, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps);

// ---- indexing (ops/indexing.cpp) ------------------------------------------------------------
Tensor index_select(const Tensor& t, std::int64_t dim, const Tensor& index);
Tensor gather(const Tensor& t, std::int64_t dim, const Tensor& index);
Tensor scatter_add(const Tensor& t, std::int64_t dim, const Tensor& index, const Tensor& src);
Tensor tril(const Tensor& t, std::int64_t diagonal);
Tensor triu(const Tensor& t, std::int64_t diagonal);

// ---- joining (ops/join.cpp) -----------------------------------------------------------------
Tensor cat(const std::vector<Tensor>& tensors, std::int64_t dim);

// ---- matrix products (ops/linalg.cpp) -------------------------------------------------------
Tensor matmul(const Tensor& a, const Tensor& b);
Tensor dot(const Tensor& a, const Tensor& b);

// ---- in place (ops/inplace.cpp) -------------------------------------------------------------
Tensor& add_(Tensor& self, const Tensor& other, Scalar alpha);
Tensor& sub_(Tensor& self, const Tensor& other, Scalar alpha);
Tensor& mul_(Tensor& self, const Tensor& other);
Tensor& div_(Tensor& self, const Tensor& other);
Tensor& fill_(Tensor& self, Scalar value);
Tensor& copy_(Tensor& self, const Tensor& src);
Tensor& clamp_(Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max);
Tensor& masked_fill_(Tensor& self, const Tensor& mask, Scalar value);
Tensor& neg_(Tensor& self);


// ---- used only by backward passes (ops/backward.cpp) ----------------------------------------
// gelu'(x) (order 1) or gelu''(x) (order 2) at every element, for the approximation named
// as gelu() names it.
Tensor gelu_derivative(const Tensor& x, std::string_view approximate, int order);
// index_select's gradient: zeros of the input's `shape`, with slice j of `grad` along `dim`
// added to slice positions[j] (1-d, int64, already checked by the forward), in place.
Tensor index_select_backward(const Tensor& grad, const Shape& shape, std::int64_t dim, const Tensor& positions);
//> stage 13
// Cross entropy of [N, C] logits against class indices [N], fused (ops/nn.cpp): the reduced
// loss, as cross_entropy gives it, each row's log_sum = log sum_j e^x_ij, and how many
// targets were not ignore_index.
struct CrossEntropyRows {
    Tensor loss;
    Tensor log_sums;
    std::int64_t used;
};
CrossEntropyRows cross_entropy_rows(const Tensor& logits, const Tensor& target, Reduction reduction,
                                    std::int64_t ignore_index);
// Its gradient for the logits: row_grads[i] (d total / d loss_i) times
// e^(x_ij - log_sum_i) - [j = target_i]; zero on rows whose target is ignore_index.
Tensor cross_entropy_rows_backward(const Tensor& logits, const Tensor& target, const Tensor& log_sums,
                                   const Tensor& row_grads, std::int64_t ignore_index);
//< stage 13
//> stage 12

// ---- attention (ops/attention.cpp) ------------------------------------------------------------
// The forward's result and the probabilities its backward needs.
struct AttentionForward {
    Tensor out;
    Tensor probabilities;  // softmax(q k^T * scale), 0 past the causal bound, contiguous
};
// The gradients of q, k and v.
struct AttentionGrads {
    Tensor q, k, v;
};
// The scale the caller gave, or 1 / sqrt(D).
double attention_scale(const Tensor& q, std::optional<double> scale);
// `causal_offset`: none for no mask, else query i sees keys 0 .. i + offset (0 is PyTorch's
// is_causal, the top-left alignment; S - T the lower-right one of a KV cache).
AttentionForward attention_forward(const Tensor& q, const Tensor& k, const Tensor& v,
                                   std::optional<std::int64_t> causal_offset, double scale);
AttentionGrads attention_backward(const Tensor& grad, const Tensor& q, const Tensor& k, const Tensor& v,
                                  const Tensor& probabilities, double scale);
//< stage 12

}  // namespace kael::native
//< stage 7

#pragma once
/// \file
/// \brief The in-place operations as functions: Tensor::add_ and its siblings call these.
///
/// Each writes into `self`'s storage, so every view of it sees the change, and bumps the
/// storage's version counter. Each refuses a tensor whose elements share memory (an
/// expanded tensor: kael::Error), a result dtype that cannot be cast to self's
/// (TypeError), and shapes that would have to grow self (ValueError). An operand that
/// partially overlaps self is copied first. They return `self`.

#include <optional>

#include "kael/scalar.h"
#include "kael/tensor.h"

namespace kael {

/// self += alpha * other (Tensor::add_).
Tensor& add_(Tensor& self, const Tensor& other, Scalar alpha = 1);
/// self -= alpha * other (Tensor::sub_).
Tensor& sub_(Tensor& self, const Tensor& other, Scalar alpha = 1);
/// self *= other (Tensor::mul_).
Tensor& mul_(Tensor& self, const Tensor& other);
/// self /= other (Tensor::div_); self must be floating point.
Tensor& div_(Tensor& self, const Tensor& other);
/// Every element of self set to `value` (Tensor::fill_).
Tensor& fill_(Tensor& self, Scalar value);
/// The elements of `src`, broadcast to self's shape and converted to its dtype, copied
/// into self (Tensor::copy_).
Tensor& copy_(Tensor& self, const Tensor& src);
/// Each element of self limited to [min, max] (Tensor::clamp_).
Tensor& clamp_(Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
/// `value` written into self wherever `mask` (Bool, broadcastable to self) is true
/// (Tensor::masked_fill_).
Tensor& masked_fill_(Tensor& self, const Tensor& mask, Scalar value);
/// Every element of self negated (Tensor::neg_).
Tensor& neg_(Tensor& self);

}  // namespace kael

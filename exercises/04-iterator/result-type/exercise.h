#pragma once
// Exercise 04.3: PyTorch's result_type over any mix of tensors and scalars.

#include <span>
#include <variant>

#include "kael/dtype.h"
#include "kael/scalar.h"
#include "kael/tensor.h"

namespace exercise {

/// One operand of an element-wise operation: a tensor or a plain number.
using Operand = std::variant<kael::Tensor, kael::Scalar>;

/// The dtype PyTorch's torch.result_type gives an operation over `operands`: tensors with
/// dimensions first, then 0-d tensors, then scalars, where each later group only counts
/// when it is of a higher category. Throws kael::ValueError for an empty list. See README.md.
[[nodiscard]] kael::DType result_type(std::span<const Operand> operands);

}  // namespace exercise

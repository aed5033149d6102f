#pragma once
/// \file
/// \brief gradcheck: backward formulas checked against finite differences.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kael/tensor.h"

namespace kael::autograd {

/// Tolerances and step of gradcheck, PyTorch's defaults.
struct GradcheckOptions {
    /// The step of the central differences.
    double eps = 1e-6;
    /// The absolute tolerance.
    double atol = 1e-5;
    /// The relative tolerance.
    double rtol = 1e-3;
};

/// What gradcheck found: whether every element agreed, and the worst one.
struct GradcheckResult {
    /// True when every element of every Jacobian agreed within the tolerances.
    bool ok = true;
    /// The number of Jacobian elements compared.
    std::int64_t compared = 0;
    /// The largest |analytic - numeric| - rtol * |numeric| over all elements (agreement
    /// needs it at most atol).
    double worst_excess = 0;
    /// A description of the worst element: input, output and input element, both values.
    std::string report;
};

/// The function gradcheck differentiates: float64 tensors in, one float64 tensor out.
using CheckedFunction = std::function<Tensor(const std::vector<Tensor>&)>;

/// Compares the Jacobian that backward computes with central differences of `f`.
///
/// `inputs` are float64 tensors. Those that require grad are checked: each element is
/// moved by ±eps in its own storage (so non-contiguous inputs keep their layout), and
/// each row of the analytic Jacobian comes from one call of autograd::grad. Agreement
/// means |analytic - numeric| <= atol + rtol * |numeric| for every element; the result
/// names the worst element either way.
[[nodiscard]] GradcheckResult gradcheck(const CheckedFunction& f, const std::vector<Tensor>& inputs,
                                        const GradcheckOptions& options = {});

}  // namespace kael::autograd

// gradcheck: every formula is checked against the definition of the derivative.
//
// For f: R^n -> R^m the Jacobian has m * n entries. Backward gives row i (the gradient of
// output element i) in one pass; central differences give column j from two calls of f,
// (f(x + eps e_j) - f(x - eps e_j)) / 2 eps, with an error of order eps^2. In float64 with
// eps = 1e-6 the two agree to about 1e-9 for smooth functions; a wrong formula is off by
// far more than the tolerance.
#include "kael/autograd/gradcheck.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "kael/autograd/engine.h"
#include "kael/error.h"
#include "kael/factory.h"

namespace kael::autograd {
namespace {

// The elements of `t` in row-major order, as doubles.
std::vector<double> values_of(const Tensor& t) {
    const Tensor flat = t.contiguous().to(DType::F64);
    const double* data = flat.data_ptr<double>();
    return {data, data + flat.numel()};
}

// The storage element at row-major position `position` of `t`, which gradcheck moves.
double& element(const Tensor& t, std::int64_t position) {
    const Index index = index_from_linear(position, t.shape());
    return t.at<double>(std::span<const std::int64_t>(index.data(), index.size()));
}

}  // namespace

GradcheckResult gradcheck(const CheckedFunction& f, const std::vector<Tensor>& inputs, const GradcheckOptions& options) {
    std::vector<Tensor> checked;
    std::vector<std::size_t> positions;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        KAEL_CHECK_TYPE(inputs[i].dtype() == DType::F64,
                        "gradcheck needs float64 inputs, input " << i << " has dtype " << inputs[i].dtype());
        if (inputs[i].requires_grad()) {
            checked.push_back(inputs[i]);
            positions.push_back(i);
        }
    }
    KAEL_CHECK_VALUE(!checked.empty(), "gradcheck: no input requires grad");

    const Tensor output = f(inputs);
    KAEL_CHECK_TYPE(output.dtype() == DType::F64, "gradcheck needs a float64 output, got " << output.dtype());
    const std::int64_t rows = output.numel();

    // analytic[k][row * n_k + column]: d output[row] / d input_k[column], from backward.
    std::vector<std::vector<double>> analytic(checked.size());
    for (std::size_t k = 0; k < checked.size(); ++k) {
        analytic[k].assign(static_cast<std::size_t>(rows * checked[k].numel()), 0.0);
    }
    if (output.requires_grad()) {
        for (std::int64_t row = 0; row < rows; ++row) {
            Tensor seed = zeros(output.shape(), DType::F64);
            seed.data_ptr<double>()[row] = 1.0;
            const GradList grads = grad({output}, checked, {seed}, /*retain_graph=*/true, false, /*allow_unused=*/true);
            for (std::size_t k = 0; k < checked.size(); ++k) {
                if (grads[k]) {
                    const std::vector<double> g = values_of(*grads[k]);
                    std::copy(g.begin(), g.end(), analytic[k].begin() + row * checked[k].numel());
                }
            }
        }
    }

    // Grad mode stays as it is: f may itself differentiate (a check of second derivatives).
    GradcheckResult result;
    for (std::size_t k = 0; k < checked.size(); ++k) {
        const std::int64_t columns = checked[k].numel();
        for (std::int64_t column = 0; column < columns; ++column) {
            double& x = element(checked[k], column);
            const double original = x;
            x = original + options.eps;
            const std::vector<double> plus = values_of(f(inputs));
            x = original - options.eps;
            const std::vector<double> minus = values_of(f(inputs));
            x = original;
            for (std::int64_t row = 0; row < rows; ++row) {
                const auto r = static_cast<std::size_t>(row);
                const double numeric = (plus[r] - minus[r]) / (2 * options.eps);
                const double exact = analytic[k][static_cast<std::size_t>(row * columns + column)];
                double excess = std::abs(exact - numeric) - options.rtol * std::abs(numeric);
                if (std::isnan(excess)) {
                    excess = std::numeric_limits<double>::infinity();  // a NaN never agrees
                }
                result.ok = result.ok && excess <= options.atol;
                if (result.compared == 0 || excess > result.worst_excess) {
                    std::ostringstream report;
                    report << "input " << positions[k] << ", output element " << row << ", input element " << column
                           << ": backward gives " << exact << ", finite differences give " << numeric;
                    result.worst_excess = excess;
                    result.report = report.str();
                }
                ++result.compared;
            }
        }
    }
    return result;
}

}  // namespace kael::autograd

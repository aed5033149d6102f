// Reference solution of exercise 05.2.
#include <cmath>
#include <numbers>

#include "exercise.h"
#include "kael/error.h"
#include "kael/factory.h"

namespace exercise {
namespace {

// The same formulas as kael::gelu, for one element.
template <typename T> T gelu_exact(T x) {
    constexpr T kInvSqrt2 = static_cast<T>(1 / std::numbers::sqrt2);
    return T{0.5} * x * (T{1} + std::erf(x * kInvSqrt2));
}

template <typename T> T gelu_tanh(T x) {
    constexpr T kBeta = static_cast<T>(std::numbers::sqrt2 * std::numbers::inv_sqrtpi);
    constexpr T kKappa = static_cast<T>(0.044715);
    const T inner = kBeta * (x + kKappa * x * x * x);
    return T{0.5} * x * (T{1} + std::tanh(inner));
}

}  // namespace

kael::Tensor bias_gelu(const kael::Tensor& x, const kael::Tensor& bias, std::string_view approximate) {
    KAEL_CHECK_VALUE(approximate == "none" || approximate == "tanh",
                     "bias_gelu: approximate must be 'none' or 'tanh', got '" << approximate << "'");
    KAEL_CHECK_VALUE(x.dim() >= 1, "bias_gelu needs an input with at least one dimension");
    KAEL_CHECK_VALUE(bias.dim() == 1 && bias.size(0) == x.size(-1),
                     "bias_gelu: bias of shape " << kael::to_string(bias.shape())
                                                 << " does not match the last dimension of input shape "
                                                 << kael::to_string(x.shape()));
    KAEL_CHECK_TYPE(x.dtype() == bias.dtype(),
                    "bias_gelu: input and bias need one dtype, got " << x.dtype() << " and " << bias.dtype());
    const bool tanh_form = approximate == "tanh";
    // contiguous() returns the tensor itself when it already is contiguous: no copy.
    const kael::Tensor input = x.contiguous();
    const kael::Tensor shift = bias.contiguous();
    kael::Tensor out = kael::empty(x.shape(), x.dtype());
    kael::dispatch_floating(x.dtype(), "bias_gelu", [&]<typename T>() {
        const T* in = input.data_ptr<T>();
        const T* b = shift.data_ptr<T>();
        T* result = out.data_ptr<T>();
        const std::int64_t width = x.size(-1);
        const std::int64_t count = out.numel();
        for (std::int64_t start = 0; start < count; start += width) {
            for (std::int64_t j = 0; j < width; ++j) {
                const T v = in[start + j] + b[j];
                result[start + j] = tanh_form ? gelu_tanh(v) : gelu_exact(v);
            }
        }
    });
    return out;
}

}  // namespace exercise

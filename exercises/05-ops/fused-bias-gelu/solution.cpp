// Reference solution of exercise 05.2.
#include "exercise.h"
#include "kernels/cpu/gelu.h"
#include "kael/error.h"
#include "kael/factory.h"

namespace exercise {
namespace {

// One pass over rows of x: add the bias and apply `gelu` while the value is in a register.
// `gelu` is a template parameter, not a runtime flag tested per element, so the inner loop
// is branch-free and the compiler vectorizes it.
template <typename T, typename Gelu>
void bias_gelu_rows(const T* in, const T* bias, T* out, std::int64_t count, std::int64_t width, Gelu gelu) {
    for (std::int64_t start = 0; start < count; start += width) {
        for (std::int64_t j = 0; j < width; ++j) {
            out[start + j] = gelu(in[start + j] + bias[j]);
        }
    }
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
        // kael::gelu's own element functions (src/kernels/cpu/gelu.h), so the two agree.
        if (tanh_form) {
            bias_gelu_rows(in, b, result, count, width, [](T v) { return kael::detail::gelu_tanh(v); });
        } else {
            bias_gelu_rows(in, b, result, count, width, [](T v) { return kael::detail::gelu_exact(v); });
        }
    });
    return out;
}

}  // namespace exercise

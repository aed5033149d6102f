// Reference solution of exercise 02.1.
#include <cmath>

#include "exercise.h"
#include "kael/error.h"

namespace exercise {
namespace {

bool is_close(double a, double b, double rtol, double atol, bool equal_nan) {
    if (std::isnan(a) || std::isnan(b)) {
        return equal_nan && std::isnan(a) && std::isnan(b);
    }
    if (a == b) {
        return true;  // also equal infinities, for which a - b would be NaN
    }
    if (std::isinf(a) || std::isinf(b)) {
        return false;
    }
    return std::abs(a - b) <= atol + rtol * std::abs(b);
}

// Reads the element at `index` of a tensor of any dtype as a double.
double value_at(const kael::Tensor& t, const kael::Index& index) {
    return kael::dispatch(t.dtype(), [&]<typename T>() {
        return kael::convert_value<double>(t.at<T>(index));
    });
}

}  // namespace

bool allclose(const kael::Tensor& a, const kael::Tensor& b, double rtol, double atol,
              bool equal_nan) {
    KAEL_CHECK_VALUE(a.shape() == b.shape(), "allclose needs equal shapes, got "
                                                 << kael::to_string(a.shape()) << " and "
                                                 << kael::to_string(b.shape()));
    KAEL_CHECK_VALUE(rtol >= 0 && atol >= 0,
                     "allclose needs non-negative tolerances, got rtol=" << rtol
                                                                         << " and atol=" << atol);
    for (std::int64_t i = 0; i < a.numel(); ++i) {
        const kael::Index index = kael::index_from_linear(i, a.shape());
        if (!is_close(value_at(a, index), value_at(b, index), rtol, atol, equal_nan)) {
            return false;
        }
    }
    return true;
}

}  // namespace exercise

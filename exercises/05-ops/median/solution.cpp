// Reference solution of exercise 05.1.
#include <algorithm>
#include <cmath>
#include <vector>

#include "exercise.h"
#include "kael/error.h"
#include "kael/factory.h"

namespace exercise {

kael::ValuesIndices median(const kael::Tensor& t, std::int64_t dim, bool keepdim) {
    KAEL_CHECK_TYPE(t.dtype() != kael::DType::Bool, "median does not support dtype bool");
    if (t.dim() == 0) {
        (void)kael::wrap_dim(dim, 0);  // a 0-d tensor accepts dim 0 and -1
        return {t.clone(), kael::zeros({}, kael::DType::I64)};
    }
    const std::int64_t d = kael::wrap_dim(dim, t.dim());
    const std::int64_t length = t.size(d);
    KAEL_CHECK_INDEX(length > 0, "median(): cannot take the median over dimension " << d
                                                                                    << " of size 0");

    // Move `dim` last, keeping the other dimensions in order, so every slice is one
    // contiguous row and the rows come out in the order of the result.
    std::vector<std::int64_t> order;
    kael::Shape shape;
    for (std::int64_t i = 0; i < t.dim(); ++i) {
        if (i != d) {
            order.push_back(i);
            shape.push_back(t.size(i));
        } else if (keepdim) {
            shape.push_back(1);
        }
    }
    order.push_back(d);
    const kael::Tensor rows = t.permute(order).contiguous();

    kael::Tensor values = kael::empty(shape, t.dtype());
    kael::Tensor indices = kael::empty(shape, kael::DType::I64);
    kael::dispatch_no_bool(t.dtype(), "median", [&]<typename T>() {
        const T* in = rows.data_ptr<T>();
        T* value = values.data_ptr<T>();
        std::int64_t* index = indices.data_ptr<std::int64_t>();
        const std::int64_t count = values.numel();
        std::vector<T> scratch(static_cast<std::size_t>(length));
        for (std::int64_t r = 0; r < count; ++r) {
            const T* row = in + r * length;
            const T* end = row + length;
            // A NaN anywhere makes the median NaN; report the first one, as argmax does.
            const T* nan = std::find_if(row, end, [](T x) { return x != x; });
            if (nan != end) {
                value[r] = *nan;
                index[r] = nan - row;
                continue;
            }
            std::copy(row, end, scratch.begin());
            const auto middle = scratch.begin() + (length - 1) / 2;  // the lower middle
            std::nth_element(scratch.begin(), middle, scratch.end());
            value[r] = *middle;
            index[r] = std::find(row, end, *middle) - row;  // its first occurrence
        }
    });
    return {values, indices};
}

}  // namespace exercise

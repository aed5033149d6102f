// Reference solution of exercise 03.2.
#include <cstddef>

#include "exercise.h"
#include "kael/checked_math.h"
#include "kael/error.h"

namespace exercise {

kael::Tensor unfold(const kael::Tensor& t, std::int64_t dim, std::int64_t size, std::int64_t step) {
    const std::int64_t d = kael::wrap_dim(dim, t.dim());  // a 0-d tensor accepts 0 and -1
    const std::int64_t length = t.dim() == 0 ? 1 : t.size(d);
    KAEL_CHECK_VALUE(size >= 0, "unfold: size must be non-negative, got " << size);
    KAEL_CHECK_VALUE(size <= length, "unfold: maximum size for tensor at dimension "
                                         << d << " is " << length << " but size is " << size);
    KAEL_CHECK_VALUE(step > 0, "unfold: step is " << step << " but must be > 0");
    if (t.dim() == 0) {
        return t.as_strided({size}, {1}, t.offset());
    }
    const auto p = static_cast<std::size_t>(d);
    kael::Shape shape = t.shape();
    kael::Strides strides = t.strides();
    shape.push_back(size);          // the new last dimension walks through one window ...
    strides.push_back(strides[p]);  // ... one element of dimension d at a time
    shape[p] = (length - size) / step + 1;  // the windows
    strides[p] = kael::detail::checked_mul(strides[p], step, "unfold stride");
    return t.as_strided(shape, strides, t.offset());
}

}  // namespace exercise

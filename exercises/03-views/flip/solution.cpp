// Reference solution of exercise 03.1.
#include <cstddef>

#include "exercise.h"
#include "kael/error.h"
#include "kael/factory.h"

namespace exercise {

kael::Tensor flip(const kael::Tensor& t, const std::vector<std::int64_t>& dims) {
    const std::int64_t ndim = t.dim();
    // A 0-d tensor accepts dimension 0 (and -1) like a 1-d one, so it gets one flag too.
    std::vector<bool> flipped(static_cast<std::size_t>(ndim == 0 ? 1 : ndim), false);
    for (const std::int64_t dim : dims) {
        const auto d = static_cast<std::size_t>(kael::wrap_dim(dim, ndim));
        KAEL_CHECK_VALUE(!flipped[d], "flip: dim " << d << " appears multiple times in the list of dims "
                                                   << kael::to_string(dims));
        flipped[d] = true;
    }

    const kael::Tensor out = kael::empty(t.shape(), t.dtype(), t.device());
    const std::int64_t count = t.numel();
    if (count == 0) {
        return out;
    }
    const kael::Shape& shape = t.shape();
    // The walk's own strides: negative along flipped dimensions. The start is the source
    // position of the output's first element: the last index along each flipped dimension.
    kael::Strides steps = t.strides();
    std::int64_t start = t.offset();
    for (std::size_t d = 0; d < shape.size(); ++d) {
        if (flipped[d]) {
            start += (shape[d] - 1) * steps[d];
            steps[d] = -steps[d];
        }
    }
    kael::dispatch(t.dtype(), [&]<typename T>() {
        const T* source = reinterpret_cast<const T*>(t.impl()->storage->data());
        T* target = out.data_ptr<T>();
        kael::Index counter(shape.size(), 0);
        std::int64_t position = start;
        for (std::int64_t written = 0; written < count; ++written) {
            target[written] = source[position];
            // The odometer: bump the last dimension, carry into the next one out on wrap.
            for (std::size_t d = shape.size(); d-- > 0;) {
                position += steps[d];
                if (++counter[d] < shape[d]) {
                    break;
                }
                position -= steps[d] * shape[d];
                counter[d] = 0;
            }
        }
    });
    return out;
}

}  // namespace exercise

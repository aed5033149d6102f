#include "kael/broadcast.h"

#include <algorithm>

#include "kael/error.h"

namespace kael {

Shape broadcast_shapes(const Shape& a, const Shape& b) {
    const std::size_t ndim = std::max(a.size(), b.size());
    Shape result(ndim);
    // Walk from the last dimension; a missing leading dimension counts as size 1.
    for (std::size_t i = 0; i < ndim; ++i) {
        const std::int64_t size_a = i < a.size() ? a[a.size() - 1 - i] : 1;
        const std::int64_t size_b = i < b.size() ? b[b.size() - 1 - i] : 1;
        KAEL_CHECK_VALUE(size_a == size_b || size_a == 1 || size_b == 1,
                         "shapes " << to_string(a) << " and " << to_string(b)
                                   << " cannot be broadcast: sizes " << size_a << " and " << size_b
                                   << " differ at dimension " << ndim - 1 - i
                                   << " of the result and neither is 1");
        result[ndim - 1 - i] = size_a == 1 ? size_b : size_a;
    }
    return result;
}

Shape broadcast_shapes(std::span<const Shape> shapes) {
    Shape result;
    for (const Shape& shape : shapes) {
        result = broadcast_shapes(result, shape);
    }
    return result;
}

bool is_broadcastable_to(const Shape& from, const Shape& to) {
    if (from.size() > to.size()) {
        return false;
    }
    for (std::size_t i = 0; i < from.size(); ++i) {
        const std::int64_t size = from[from.size() - 1 - i];
        if (size != 1 && size != to[to.size() - 1 - i]) {
            return false;
        }
    }
    return true;
}

}  // namespace kael

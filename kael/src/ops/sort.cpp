// Sorting along a dimension (chapter 11). Each run of the dimension is copied out to be
// contiguous, its positions are sorted by the values they point at, and the first `count`
// are kept: std::sort for all of them, std::partial_sort when only the top few are asked
// for (top-k sampling wants 50 of 50,257). The comparison breaks ties by position, which
// makes the order deterministic and the same as a stable sort's. A tensor on a device is
// ordered on the CPU and its positions sent back: sorting is rare next to the products.
#include "ops/sort.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>
#include <vector>

#include "kael/factory.h"
#include "ops/native.h"

namespace kael::native {
namespace {

// Does `a` come before `b`? NaN counts as larger than every number, so it sorts last
// ascending and first descending, as PyTorch's sort does.
template <typename T> bool comes_before(T a, T b, bool descending) {
    if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(a) || std::isnan(b)) {
            return descending ? std::isnan(a) && !std::isnan(b) : std::isnan(b) && !std::isnan(a);
        }
    }
    return descending ? a > b : a < b;
}

template <typename T>
void order_runs(const T* values, std::int64_t runs, std::int64_t length, bool descending, std::int64_t count,
                std::int64_t* out) {
    std::vector<std::int64_t> positions(static_cast<std::size_t>(length));
    for (std::int64_t r = 0; r < runs; ++r) {
        const T* run = values + r * length;
        std::iota(positions.begin(), positions.end(), std::int64_t{0});
        const auto before = [&](std::int64_t a, std::int64_t b) {
            if (comes_before(run[a], run[b], descending)) {
                return true;
            }
            return !comes_before(run[b], run[a], descending) && a < b;
        };
        if (count < length) {
            std::partial_sort(positions.begin(), positions.begin() + count, positions.end(), before);
        } else {
            std::sort(positions.begin(), positions.end(), before);
        }
        std::copy_n(positions.begin(), count, out + r * count);
    }
}

}  // namespace

Tensor order_along(const Tensor& t, std::int64_t dim, bool descending, std::int64_t count) {
    const std::int64_t d = wrap_dim(dim, t.dim());
    // The dimension moves last and each run becomes contiguous.
    const Tensor runs = native::contiguous(native::transpose(native::to(t, Device::CPU), d, -1));
    const std::int64_t length = runs.size(-1);
    Shape shape = runs.shape();
    shape.back() = count;
    Tensor order = empty(shape, DType::I64);
    const std::int64_t run_count = count == 0 ? 0 : runs.numel() / length;  // count <= length
    dispatch(t.dtype(), [&]<typename T>() {
        order_runs(runs.data_ptr<T>(), run_count, length, descending, count, order.data_ptr<std::int64_t>());
    });
    return native::to(native::contiguous(native::transpose(order, d, -1)), t.device());
}

}  // namespace kael::native

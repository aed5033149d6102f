#include "core/copy.h"
//> stage 10

#include "core/device_backend.h"
//< stage 10

namespace kael::detail {

//> until 4
//| // The simplest correct walk: visit elements in row-major order and let at() find each one
//| // through the strides. Chapter 03 replaces it with a loop that steps pointers directly.
//| void convert_strided(const Tensor& out, const Tensor& src) {
//|     KAEL_CHECK(out.shape() == src.shape(), "convert_strided needs equal shapes, got "
//|                                                << to_string(out.shape()) << " and "
//|                                                << to_string(src.shape()));
//|     dispatch(out.dtype(), [&]<typename Out>() {
//|         dispatch(src.dtype(), [&]<typename In>() {
//|             for (std::int64_t i = 0; i < src.numel(); ++i) {
//|                 const Index index = index_from_linear(i, src.shape());
//|                 out.at<Out>(index) = convert_value<Out>(src.at<In>(index));
//|             }
//|         });
//|     });
//| }
//< until 4
//> stage 4
// Walks src in row-major order with an odometer over its outer dimensions. The innermost
// dimension is a plain strided loop, and the position of each row is updated by adding and
// subtracting strides instead of being recomputed from the full index.
void convert_strided(const Tensor& out, const Tensor& src) {
    KAEL_CHECK(out.shape() == src.shape(), "convert_strided needs equal shapes, got "
                                               << to_string(out.shape()) << " and "
                                               << to_string(src.shape()));
    KAEL_CHECK(out.is_contiguous(), "convert_strided writes into a contiguous tensor");
//> stage 10
    KAEL_CHECK(out.device() == src.device(), "convert_strided copies within one device, got "
                                                 << src.device() << " to " << out.device());
    if (src.device() != Device::CPU) {
        device::convert_strided(out.dtype(), out.device_data(), src.dtype(), src.device_data(), src.shape(),
                                src.strides());
        return;
    }
//< stage 10
    const std::int64_t count = src.numel();
    if (count == 0) {
        return;
    }
    dispatch(out.dtype(), [&]<typename Out>() {
        dispatch(src.dtype(), [&]<typename In>() {
            Out* dst = out.data_ptr<Out>();
            const In* base = src.data_ptr<In>();
            if (src.dim() == 0) {
                dst[0] = convert_value<Out>(base[0]);
                return;
            }
            const Shape& shape = src.shape();
            const Strides& strides = src.strides();
            const std::size_t last = shape.size() - 1;
            const std::int64_t row_size = shape[last];
            const std::int64_t row_stride = strides[last];

            Index counter(last, 0);      // the index of the current row, outer dims only
            std::int64_t row_start = 0;  // its position relative to base
            for (std::int64_t written = 0; written < count; written += row_size) {
                const In* row = base + row_start;
                for (std::int64_t j = 0; j < row_size; ++j) {
                    dst[written + j] = convert_value<Out>(row[j * row_stride]);
                }
                // Advance the odometer: bump the innermost outer dimension, carrying into
                // the next one out whenever a dimension wraps around to 0.
                // row_start only ever names an element of the view, and a wrap subtracts the
                // dimension's extent: stepping past the end first would overflow for a huge
                // stride that a size-1 or last position never uses (found by fuzz_views).
                for (std::size_t d = last; d-- > 0;) {
                    if (++counter[d] < shape[d]) {
                        row_start += strides[d];
                        break;
                    }
                    row_start -= strides[d] * (shape[d] - 1);
                    counter[d] = 0;
                }
            }
        });
    });
}
//< stage 4

}  // namespace kael::detail

// external_tensor (external.h).
#include "external.h"

#include <utility>

#include "kael/checked_math.h"

namespace kael::python {

Tensor external_tensor(std::byte* data, const Shape& shape, const Strides& strides, DType dtype,
                       std::shared_ptr<void> owner) {
    // From the first element to the end of the last: the last starts at sum((size - 1) * stride).
    const std::int64_t itemsize = element_size(dtype);
    std::int64_t last = 0;
    for (std::size_t d = 0; d < shape.size(); ++d) {
        if (shape[d] > 0) {
            last = detail::checked_add(last, detail::checked_mul(shape[d] - 1, strides[d], "external tensor extent"),
                                       "external tensor extent");
        }
    }
    const std::int64_t nbytes =
        numel(shape) == 0 ? 0
                          : detail::checked_mul(detail::checked_add(last, 1, "external tensor extent"), itemsize,
                                                "external tensor extent");
    auto impl = std::make_shared<TensorImpl>();
    impl->storage = std::make_shared<Storage>(Storage::external(data, nbytes, std::move(owner)));
    impl->shape = shape;
    impl->strides = strides;
    impl->dtype = dtype;
    impl->device = Device::CPU;
    return Tensor::from_impl(std::move(impl));
}

}  // namespace kael::python

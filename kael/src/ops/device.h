#pragma once
// The operations' route to the device backend (chapter 09). An operation checks its
// arguments and promotes as before; when its operands live on a device, it casts them
// there, builds the iterator there (the output is allocated on the operands' device) and
// runs the backend's kernel instead of the CPU's. The dtype rules are the CPU's own
// (dispatch_for refuses what the CPU kernel would refuse, with the same message).
//
// Each operation that runs on a device says so in a short stage-10 block at its top, which
// calls one of the functions below. A table of kernels per operation and backend (PyTorch's
// DispatchStub) would remove those blocks; with one device backend the explicit branch is
// the plainer of the two to read, and it keeps the CPU path of chapter 05 exactly as it was.
// An operation without such a block reaches the CPU kernel, whose data_ptr refuses a
// device tensor with "call cpu() first": a clear error, never a wrong result.
#include <string_view>

#include "core/native.h"
#include "cuda/elementwise.h"
#include "ops/elementwise.h"

namespace kael::detail {

/// True when `t` lives on a device rather than the host.
inline bool on_device(const Tensor& t) { return t.device() != Device::CPU; }

/// The device of an operation with operands `a` and `b`: the first one on a device.
inline Device device_of(const Tensor& a, const Tensor& b) { return on_device(a) ? a.device() : b.device(); }

/// `t` ready to be an input on `device` in `dtype`. A 0-d CPU tensor, such as the one
/// Tensor::add_(Scalar) makes from a number, is copied to the device as PyTorch allows;
/// any other tensor stays where it is, and the iterator names both devices if that is
/// not `device`.
inline Tensor input_on(const Tensor& t, Device device, DType dtype) {
    const Tensor moved = t.dim() == 0 && t.device() == Device::CPU ? native::to(t, device) : t;
    return native::to(moved, dtype);
}

/// Throws what the CPU kernel of `op` throws for a dtype outside `kinds`.
template <Dtypes kinds> void check_kernel_dtype(DType dtype, std::string_view op) {
    dispatch_for<kinds>(dtype, op, []<typename T>() {});
}

/// out = a op (alpha * b) on the device, in `dtype`, with a and b broadcast.
template <Dtypes kinds>
Tensor device_binary(cuda::BinaryOp op, const Tensor& a, const Tensor& b, DType dtype, std::string_view name,
                     Scalar alpha = 1) {
    check_kernel_dtype<kinds>(dtype, name);
    const Device device = device_of(a, b);
    const TensorIterator iter = TensorIteratorConfig()
                                    .declare_output(dtype)
                                    .add_input(input_on(a, device, dtype))
                                    .add_input(input_on(b, device, dtype))
                                    .build();
    cuda::binary(op, iter, alpha);
    return iter.output();
}

/// self = self op (alpha * other) on the device, computed in self's dtype: the in-place
/// form of device_binary. The caller has checked that self can be written and hold it.
template <Dtypes kinds>
void device_binary_into(cuda::BinaryOp op, const Tensor& self, const Tensor& other, std::string_view name,
                        Scalar alpha = 1) {
    check_kernel_dtype<kinds>(self.dtype(), name);
    const TensorIterator iter = TensorIteratorConfig()
                                    .add_output(self)
                                    .add_input(self)
                                    .add_input(input_on(other, self.device(), self.dtype()))
                                    .build();
    cuda::binary(op, iter, alpha);
}

/// self = src, converted to self's dtype, where either lives on a device. A source on
/// another device is copied over first (to(Device) makes it contiguous on the way).
inline void device_copy_into(const Tensor& self, const Tensor& src) {
    if (self.device() == Device::CPU) {
        run_conversion(TensorIteratorConfig().add_output(self).add_input(native::to(src, Device::CPU)).build());
        return;
    }
    cuda::copy(TensorIteratorConfig().add_output(self).add_input(native::to(src, self.device())).build());
}

/// out = t op (alpha * value), or value op (alpha * t) when `scalar_first`, on the device.
template <Dtypes kinds>
Tensor device_with_scalar(cuda::BinaryOp op, const Tensor& t, Scalar value, DType dtype, std::string_view name,
                          Scalar alpha = 1, bool scalar_first = false) {
    check_kernel_dtype<kinds>(dtype, name);
    const TensorIterator iter = TensorIteratorConfig().declare_output(dtype).add_input(native::to(t, dtype)).build();
    cuda::binary_with_scalar(op, iter, value, alpha, scalar_first);
    return iter.output();
}

/// out = op(a, b) as Bool on the device, both operands compared in `dtype`.
inline Tensor device_compare(cuda::CompareOp op, const Tensor& a, const Tensor& b, DType dtype) {
    const Device device = device_of(a, b);
    const TensorIterator iter = TensorIteratorConfig()
                                    .declare_output(DType::Bool)
                                    .add_input(input_on(a, device, dtype))
                                    .add_input(input_on(b, device, dtype))
                                    .build();
    cuda::compare(op, iter);
    return iter.output();
}

/// out = op(t) as Bool on the device.
inline Tensor device_classify(cuda::ClassifyOp op, const Tensor& t) {
    const TensorIterator iter = TensorIteratorConfig().declare_output(DType::Bool).add_input(t).build();
    cuda::classify(op, iter);
    return iter.output();
}

/// out = condition ? a : b on the device, a and b in `dtype`; any of the three may be the
/// one on the device, and a 0-d CPU operand (a number) is copied over.
inline Tensor device_where(const Tensor& condition, const Tensor& a, const Tensor& b, DType dtype) {
    const Device device = on_device(condition) ? condition.device() : device_of(a, b);
    const TensorIterator iter = TensorIteratorConfig()
                                    .declare_output(dtype)
                                    .add_input(input_on(condition, device, DType::Bool))
                                    .add_input(input_on(a, device, dtype))
                                    .add_input(input_on(b, device, dtype))
                                    .allow_mixed_input_dtypes()
                                    .build();
    cuda::where(iter);
    return iter.output();
}

/// out = op(t) on the device, in `dtype`.
template <Dtypes kinds>
Tensor device_unary(cuda::UnaryOp op, const Tensor& t, DType dtype, std::string_view name) {
    check_kernel_dtype<kinds>(dtype, name);
    const TensorIterator iter = TensorIteratorConfig().declare_output(dtype).add_input(native::to(t, dtype)).build();
    cuda::unary(op, iter);
    return iter.output();
}

}  // namespace kael::detail

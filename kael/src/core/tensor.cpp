#include "kael/tensor.h"

#include <cstring>
#include <utility>

#include "core/copy.h"
#include "core/device_backend.h"
#include "core/native.h"
#include "kael/factory.h"

namespace kael {

Tensor::Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {
    KAEL_CHECK(impl_ != nullptr, "cannot create a tensor from a null impl");
    impl_->validate();
}

Tensor Tensor::from_impl(std::shared_ptr<TensorImpl> impl) {
    // A second owner of the impl could rewrite its strides after validate() passed them.
    KAEL_CHECK(impl == nullptr || impl.use_count() == 1,
               "from_impl needs the only reference to the impl (pass std::move(impl)); it has "
                   << impl.use_count() << " owners");
    return Tensor(std::move(impl));
}

std::int64_t Tensor::size(std::int64_t dim) const { return shape()[dim_position(dim, this->dim())]; }

std::int64_t Tensor::stride(std::int64_t dim) const {
    return strides()[dim_position(dim, this->dim())];
}

std::byte* Tensor::first_element() const noexcept {
    std::byte* base = impl_->storage->data();
    // Moving a null pointer, or moving a pointer further than one past the end of its block,
    // is undefined behavior, and an empty view may have either.
    return numel() == 0 ? base : base + offset() * element_size(dtype());
}

std::int64_t Tensor::element_offset(std::span<const std::int64_t> index) const {
    KAEL_CHECK_VALUE(static_cast<std::int64_t>(index.size()) == dim(),
                     "got " << index.size() << " indices for a tensor with " << dim()
                            << " dimensions");
    Index wrapped(index.begin(), index.end());
    for (std::size_t i = 0; i < wrapped.size(); ++i) {
        if (wrapped[i] < 0) {
            wrapped[i] += shape()[i];  // once: -1 is the last, and -size - 1 stays negative
        }
    }
    return offset_from_index(shape(), strides(), offset(), wrapped);
}

void Tensor::check_on_cpu(const char* what) const {
    KAEL_CHECK(device() == Device::CPU, what << " needs a tensor on the CPU, but this one is on "
                                             << device() << "; call cpu() first");
}

void Tensor::check_single_element() const {
    KAEL_CHECK_VALUE(numel() == 1, "item() needs a tensor with exactly one element, got "
                                       << numel() << " elements");
}

// A device tensor's element cannot be read through a pointer: it is copied to the host.
void Tensor::copy_single_element_to(std::byte* host) const {
    const std::int64_t nbytes = element_size(dtype());
    if (device() == Device::CPU) {
        std::memcpy(host, first_element(), static_cast<std::size_t>(nbytes));
    } else {
        device::copy_to_host(host, first_element(), nbytes);
    }
}

double Tensor::item() const {
    check_single_element();
    return dispatch(dtype(), [&]<typename T>() { return convert_value<double>(item<T>()); });
}

//> until 7
//| Tensor Tensor::to(DType target) const { return target == dtype() ? *this : kael::to_copy(*this, target); }
//|
//| Tensor Tensor::to(Device target) const { return target == device() ? *this : kael::to_copy(*this, target); }
//|
//| Tensor Tensor::clone() const { return kael::clone(*this); }
//|
//| Tensor Tensor::contiguous() const { return is_contiguous() ? *this : clone(); }
//|
//< until 7
//> stage 7
// to(), clone() and contiguous() record a graph from chapter 06 on, so they move up to the
// autograd layer (autograd/tensor_methods.cpp) with the other methods that make tensors.

//< stage 7
}  // namespace kael

//> until 7
//| namespace kael {
//< until 7
//> stage 7
// From chapter 06 on these are the copies below autograd: kael::clone, which Tensor::clone
// calls, is the autograd layer's (autograd/functions/copy.cpp), which copies here and records
// CloneBackward.
namespace kael::native {
//< stage 7

Tensor to_copy(const Tensor& self, DType target) {
    Tensor out = empty(self.shape(), target, self.device());
    detail::convert_strided(out, self);
    return out;
}

Tensor to(const Tensor& t, DType target) { return t.dtype() == target ? t : native::to_copy(t, target); }

Tensor to(const Tensor& t, Device target) { return t.device() == target ? t : native::to_copy(t, target); }

Tensor contiguous(const Tensor& t) { return t.is_contiguous() ? t : native::clone(t); }

Tensor to_copy(const Tensor& self, Device target) {
    const Tensor source = native::contiguous(self);
    Tensor out = empty(self.shape(), self.dtype(), target);
    if (self.nbytes() > 0) {
        if (target == Device::CPU) {
            device::copy_to_host(out.device_data(), source.device_data(), self.nbytes());
        } else {
            device::copy_to_device(out.device_data(), source.device_data(), self.nbytes());
        }
    }
    return out;
}

Tensor clone(const Tensor& self) {
    Tensor out = empty(self.shape(), self.dtype(), self.device());
    if (!self.is_contiguous()) {
        detail::convert_strided(out, self);
    } else if (self.nbytes() > 0) {  // memcpy must not see the null pointer of an empty storage
        if (self.device() == Device::CPU) {
            std::memcpy(out.data_ptr_raw(), self.data_ptr_raw(), static_cast<std::size_t>(self.nbytes()));
        } else {
            device::copy_within_device(out.device_data(), self.device_data(), self.nbytes());
        }
    }
    return out;
}

}  // namespace

// Chapter 02, "Implementation": the dtype tables, dispatch, the Bool byte, devices, Storage,
// validation, the Tensor handle, element access and conversions, run on real values. Error
// messages are the exceptions' own text, printed with e.what().
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <limits>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "kael/kael.h"

namespace {

using kael::Device;
using kael::DType;
using kael::Shape;
using kael::Strides;
using kael::Tensor;

void section(std::string_view name) { std::cout << "--- section: " << name << " ---\n"; }

template <typename Body> void print_error(Body body) {
    try {
        body();
        std::cout << "no exception\n";
    } catch (const kael::Error& e) {
        std::cout << e.what() << '\n';
    }
}

// The raw bytes of a CPU tensor's storage, in hex.
void print_bytes(const Tensor& t) {
    const auto& storage = *t.impl()->storage;
    for (std::int64_t i = 0; i < storage.nbytes(); ++i) {
        std::cout << (i == 0 ? "" : " ") << std::hex << std::setw(2) << std::setfill('0')
                  << static_cast<int>(storage.data()[i]) << std::dec << std::setfill(' ');
    }
    std::cout << '\n';
}

// An int64 tensor over a storage of `count` elements holding 0, 1, 2, ..., read through
// the given layout. Views (chapter 03) produce such layouts; here they are built by hand.
Tensor over_counting_storage(std::int64_t count, Shape shape, Strides strides,
                             std::int64_t offset) {
    auto impl = std::make_shared<kael::TensorImpl>();
    impl->storage = std::make_shared<kael::Storage>(count * 8);
    auto* values = reinterpret_cast<std::int64_t*>(impl->storage->data());
    for (std::int64_t i = 0; i < count; ++i) {
        values[i] = i;
    }
    impl->shape = std::move(shape);
    impl->strides = std::move(strides);
    impl->offset = offset;
    impl->dtype = DType::I64;
    return Tensor::from_impl(std::move(impl));
}

// A float32 impl over `bytes` bytes, for showing what validate() rejects.
kael::TensorImpl layout(std::int64_t bytes, Shape shape, Strides strides, std::int64_t offset = 0) {
    kael::TensorImpl impl;
    impl.storage = std::make_shared<kael::Storage>(bytes);
    impl.shape = std::move(shape);
    impl.strides = std::move(strides);
    impl.offset = offset;
    return impl;
}

}  // namespace

int main() {
    section("tables");
    for (const DType dtype : {DType::F32, DType::F64, DType::I64, DType::Bool}) {
        std::cout << std::left << std::setw(8) << kael::to_string(dtype) << std::right
                  << " element_size " << kael::element_size(dtype) << ", floating "
                  << (kael::is_floating_point(dtype) ? "yes" : "no ") << ", category "
                  << kael::dtype_category(dtype) << '\n';
    }

    section("unreachable");
    print_error([] { (void)kael::element_size(static_cast<DType>(9)); });

    section("dispatch");
    for (const DType dtype : {DType::F32, DType::F64, DType::I64, DType::Bool}) {
        // One lambda, instantiated four times; each instantiation reports its T.
        const auto bytes = kael::dispatch(dtype, []<typename T>() { return sizeof(T); });
        const bool is_integer = kael::dispatch(
            dtype, []<typename T>() { return std::numeric_limits<T>::is_integer; });
        std::cout << dtype << " -> T with sizeof(T) = " << bytes
                  << (is_integer ? ", an integer type" : ", a floating type") << '\n';
    }

    section("dispatch-errors");
    print_error([] { (void)kael::rand({2}, DType::I64); });
    print_error([] { (void)kael::arange(0, 4, 1, DType::Bool); });

    section("bool");
    const Tensor flags = kael::full({3}, 2.5, DType::Bool);
    std::cout << "storage bytes: ";
    print_bytes(flags);
    std::cout << flags << '\n';

    section("bool-bytes");
    const Tensor normalized = kael::from_vector(std::vector<std::uint8_t>{0, 7, 255, 1});
    std::cout << "from_vector<uint8_t>{0, 7, 255, 1} stores: ";
    print_bytes(normalized);
    const Tensor converted = kael::from_vector({0.0f, -0.5f, 3.0f}).to(DType::Bool);
    std::cout << "{0.0, -0.5, 3.0}.to(Bool) stores: ";
    print_bytes(converted);

    section("saturating");
    const double values[] = {2.9, -2.9, 0x1p62, 0x1p63, -0x1p63, 1e300, -1e300,
                             std::numeric_limits<double>::quiet_NaN()};
    for (const double value : values) {
        std::cout << "saturating_cast<int64_t>(" << value
                  << ") = " << kael::saturating_cast<std::int64_t>(value) << '\n';
    }

    // Scalar is stage 5 code: its section is in ch04_scalar.cpp.

    section("devices");
    std::cout << "parse_device(\"cuda:0\") = " << kael::parse_device("cuda:0") << '\n';
    std::cout << "cuda_is_available() = " << std::boolalpha << kael::cuda_is_available()
              << std::noboolalpha << '\n';
    print_error([] { (void)kael::parse_device("cuda:1"); });
    print_error([] { (void)kael::zeros({2}).cuda(); });

    section("storage");
    for (const std::int64_t nbytes : {1, 7, 200, 5000}) {
        const kael::Storage storage(nbytes);
        const auto address = reinterpret_cast<std::uintptr_t>(storage.data());
        std::cout << "Storage(" << nbytes << "): address % 64 = " << address % 64 << '\n';
    }
    const kael::Storage nothing(0);
    std::cout << "Storage(0): data() is " << (nothing.data() == nullptr ? "null" : "not null")
              << '\n';
    print_error([] { kael::Storage storage(-8); });
    print_error([] { kael::Storage storage(64, Device::CUDA); });

    section("validate");
    {
        kael::TensorImpl no_storage = layout(24, {2, 3}, {3, 1});
        no_storage.storage = nullptr;
        print_error([&] { no_storage.validate(); });
    }
    print_error([] { layout(24, {2, -3}, {3, 1}).validate(); });
    print_error([] { layout(24, {2, 3}, {1}).validate(); });
    print_error([] { layout(24, {2, 3}, {3, -1}).validate(); });
    print_error([] { layout(24, {2, 3}, {3, 1}, -2).validate(); });
    {
        kael::TensorImpl wrong_device = layout(24, {2, 3}, {3, 1});
        wrong_device.device = Device::CUDA;
        print_error([&] { wrong_device.validate(); });
    }
    print_error([] { layout(16, {4}, {std::int64_t{1} << 62}).validate(); });
    print_error([] { layout(16, {2, 3}, {3, 1}).validate(); });

    section("handle");
    std::cout << "sizeof(Tensor) = " << sizeof(Tensor) << ", sizeof(std::shared_ptr<TensorImpl>) = "
              << sizeof(std::shared_ptr<kael::TensorImpl>) << '\n';
    Tensor weights = kael::ones({2, 2}, DType::I64);
    Tensor same = weights;              // shares
    Tensor snapshot = weights.clone();  // copies
    same.at<std::int64_t>({1, 1}) = -4;
    snapshot.at<std::int64_t>({0, 0}) = 9;
    std::cout << "weights  = " << weights << '\n';
    std::cout << "same     = " << same << '\n';
    std::cout << "snapshot = " << snapshot << '\n';
    std::cout << "use_count of the impl: " << weights.use_count() << '\n';

    section("queries");
    // Rows of 3 elements, 5 apart, starting at position 2 of a 12-element storage.
    const Tensor view = over_counting_storage(12, {2, 3}, {5, 1}, 2);
    std::cout << view << '\n';
    std::cout << "size(-1) = " << view.size(-1) << ", stride(0) = " << view.stride(0)
              << ", offset = " << view.offset() << ", numel = " << view.numel()
              << ", dim = " << view.dim() << '\n';
    std::cout << "is_contiguous = " << std::boolalpha << view.is_contiguous()
              << std::noboolalpha << ", nbytes = " << view.nbytes()
              << ", storage nbytes = " << view.impl()->storage->nbytes() << '\n';
    std::cout << "data_ptr<int64_t>()[0] = " << view.data_ptr<std::int64_t>()[0] << '\n';
    print_error([&] { (void)view.size(2); });

    section("dtype-error");
    print_error([] { (void)kael::zeros({2}).data_ptr<double>(); });

    section("at");
    // The transpose of a [2, 3] matrix over 0..5: shape [3, 2], strides [1, 3].
    const Tensor t = over_counting_storage(6, {3, 2}, {1, 3}, 0);
    std::cout << "t = " << t << '\n';
    std::cout << "t.at({-1, 0}) = " << t.at<std::int64_t>({-1, 0}) << '\n';
    std::cout << "t.at({1, -1}) = " << t.at<std::int64_t>({1, -1}) << '\n';
    print_error([&] { (void)t.at<std::int64_t>({-4, 0}); });
    print_error([&] { (void)t.at<std::int64_t>({1}); });

    section("item");
    std::cout << "scalar(2.5).item() = " << kael::scalar(2.5).item() << '\n';
    std::cout << "full({1, 1}, 7, I64).item<int64_t>() = "
              << kael::full({1, 1}, 7, DType::I64).item<std::int64_t>() << '\n';
    std::cout << "item() of the element at offset 4 = "
              << over_counting_storage(6, {}, {}, 4).item() << '\n';
    print_error([] { (void)kael::zeros({3}).item(); });

    section("to");
    const Tensor source = kael::from_vector({-1.75, 0.0, 2.5});
    std::cout << source.to(DType::F32) << '\n';
    std::cout << source.to(DType::I64) << '\n';
    std::cout << source.to(DType::Bool) << '\n';
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::cout << kael::from_vector({1e20, -1e20, nan}).to(DType::I64) << '\n';
    std::cout << "to(F64) of a float64 tensor is the same tensor: " << std::boolalpha
              << source.to(DType::F64).is_same(source) << '\n';
    std::cout << "contiguous() of a contiguous tensor is the same tensor: "
              << source.contiguous().is_same(source) << std::noboolalpha << '\n';

    section("clone");
    const Tensor strided = over_counting_storage(12, {2, 3}, {5, 1}, 2);
    const Tensor packed = strided.clone();
    std::cout << "source: strides " << kael::to_string(strided.strides()) << ", offset "
              << strided.offset() << ", storage " << strided.impl()->storage->nbytes()
              << " bytes\n";
    std::cout << "clone:  strides " << kael::to_string(packed.strides()) << ", offset "
              << packed.offset() << ", storage " << packed.impl()->storage->nbytes()
              << " bytes\n";
    std::cout << packed << '\n';
}

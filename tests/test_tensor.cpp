// Tensor: the shared handle, element access, conversions, copies and printing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <iomanip>
#include <limits>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>
#include <type_traits>

#include "helpers.h"
#include "kael/device.h"
#include "kael/factory.h"
#include "kael/tensor.h"

namespace {

using kael::testing::message_of;

using kael::DType;
using kael::Shape;
using kael::Strides;
using kael::Tensor;

// Builds a tensor by hand over a storage of `storage_elements` elements holding 0, 1, 2...
// Offsets and strides that only views produce (chapter 03) can be tested here already.
template <typename T = std::int64_t>
Tensor make_tensor(std::int64_t storage_elements, Shape shape, Strides strides,
                   std::int64_t offset) {
    auto impl = std::make_shared<kael::TensorImpl>();
    impl->storage = std::make_shared<kael::Storage>(storage_elements * static_cast<std::int64_t>(sizeof(T)));
    T* data = reinterpret_cast<T*>(impl->storage->data());
    for (std::int64_t i = 0; i < storage_elements; ++i) {
        data[i] = static_cast<T>(i);
    }
    impl->shape = std::move(shape);
    impl->strides = std::move(strides);
    impl->offset = offset;
    impl->dtype = kael::dtype_of_v<T>;
    return Tensor::from_impl(std::move(impl));
}

std::string printed(const Tensor& t) {
    std::ostringstream text;
    text << t;
    return text.str();
}


// ---- the handle ------------------------------------------------------------------------

TEST(Tensor, IsOneSharedPointer) {
    static_assert(sizeof(Tensor) == sizeof(std::shared_ptr<kael::TensorImpl>));
    static_assert(!std::is_default_constructible_v<Tensor>);
    SUCCEED();
}

TEST(Tensor, CopySharesData) {
    Tensor a = kael::zeros({2, 3});
    Tensor b = a;
    b.data_ptr<float>()[4] = 42.0f;
    EXPECT_EQ(a.data_ptr<float>()[4], 42.0f);
    EXPECT_TRUE(a.is_same(b));
    EXPECT_TRUE(a.shares_storage(b));
}

TEST(Tensor, CloneDoesNotShareData) {
    Tensor a = kael::zeros({2, 3});
    Tensor c = a.clone();
    c.at<float>({0, 0}) = 1.0f;
    EXPECT_EQ(a.at<float>({0, 0}), 0.0f);
    EXPECT_FALSE(a.is_same(c));
    EXPECT_FALSE(a.shares_storage(c));
    EXPECT_EQ(c.shape(), a.shape());
    EXPECT_EQ(c.dtype(), a.dtype());
}

TEST(Tensor, CloneOfOffsetTensorStartsAtZero) {
    // Three int64 elements starting at position 2 of a 5-element storage.
    const Tensor view = make_tensor(5, {3}, {1}, 2);
    const Tensor c = view.clone();
    EXPECT_EQ(c.offset(), 0);
    EXPECT_EQ(c.impl()->storage->nbytes(), 24);  // sized for its 3 elements only
    EXPECT_EQ(c.at<std::int64_t>({0}), 2);
    EXPECT_EQ(c.at<std::int64_t>({2}), 4);
}

TEST(Tensor, CloneOfStridedTensorIsContiguous) {
    // A transposed [2, 3] over 0..5 reads 0 3 1 4 2 5 in logical order.
    const Tensor t = make_tensor(6, {3, 2}, {1, 3}, 0);
    const Tensor c = t.clone();
    EXPECT_TRUE(c.is_contiguous());
    const std::int64_t* values = c.data_ptr<std::int64_t>();
    EXPECT_EQ((std::vector<std::int64_t>(values, values + 6)),
              (std::vector<std::int64_t>{0, 3, 1, 4, 2, 5}));
}

TEST(Tensor, FromImplValidates) {
    EXPECT_THROW(Tensor::from_impl(nullptr), kael::Error);
    const auto impl_over = [](std::int64_t nbytes) {
        auto impl = std::make_shared<kael::TensorImpl>();
        impl->storage = std::make_shared<kael::Storage>(nbytes);
        impl->shape = {2, 3};
        impl->strides = {3, 1};
        return impl;
    };
    EXPECT_THROW(Tensor::from_impl(impl_over(23)), kael::Error);  // needs 24 bytes
    EXPECT_NO_THROW(Tensor::from_impl(impl_over(24)));
}

// A second owner of the impl could change its layout after validate() accepted it, so
// from_impl takes only the sole reference, and impl() hands out a read-only one.
TEST(Tensor, ValidatedLayoutCannotBeChangedFromOutside) {
    auto impl = std::make_shared<kael::TensorImpl>();
    impl->storage = std::make_shared<kael::Storage>(24);
    impl->shape = {6};
    impl->strides = {1};
    const auto kept = impl;  // the copy that could rewrite the strides later
    EXPECT_THROW(Tensor::from_impl(impl), kael::Error);
    EXPECT_EQ(impl.use_count(), 2);  // nothing was taken over

    const Tensor t = kael::arange(0, 6);
    static_assert(std::is_same_v<decltype(t.impl()), std::shared_ptr<const kael::TensorImpl>>);
    static_assert(!std::is_assignable_v<decltype((t.impl()->strides)), kael::Strides>);
    // The last element of the extent is checked too: an offset at the top of int64 cannot
    // wrap around to a small byte count.
    auto far = std::make_shared<kael::TensorImpl>();
    far->storage = std::make_shared<kael::Storage>(8);
    far->shape = {1};
    far->strides = {1};
    far->offset = std::numeric_limits<std::int64_t>::max();
    EXPECT_THROW(Tensor::from_impl(std::move(far)), kael::ValueError);
}

TEST(Tensor, Queries) {
    const Tensor t = make_tensor(10, {2, 3}, {4, 1}, 1);
    EXPECT_EQ(t.shape(), (Shape{2, 3}));
    EXPECT_EQ(t.strides(), (Strides{4, 1}));
    EXPECT_EQ(t.offset(), 1);
    EXPECT_EQ(t.dtype(), DType::I64);
    EXPECT_EQ(t.device(), kael::Device::CPU);
    EXPECT_EQ(t.numel(), 6);
    EXPECT_EQ(t.dim(), 2);
    EXPECT_EQ(t.size(0), 2);
    EXPECT_EQ(t.size(-1), 3);
    EXPECT_EQ(t.stride(0), 4);
    EXPECT_EQ(t.stride(-1), 1);
    EXPECT_FALSE(t.is_contiguous());
    EXPECT_EQ(t.nbytes(), 48);  // the elements, not the 80-byte storage
    EXPECT_EQ(t.impl()->storage->nbytes(), 80);
}

TEST(Tensor, SizeAndStrideRejectOutOfRangeDims) {
    const Tensor t = kael::zeros({2, 3});
    EXPECT_THROW((void)t.size(2), kael::IndexError);
    EXPECT_THROW((void)t.size(-3), kael::IndexError);
    EXPECT_THROW((void)t.stride(2), kael::IndexError);
    EXPECT_THROW((void)kael::scalar(1.0).size(0), kael::IndexError);  // 0-d has no dims
}

// ---- element access --------------------------------------------------------------------

TEST(Tensor, DataPtrRespectsOffset) {
    const Tensor t = make_tensor(5, {3}, {1}, 2);
    EXPECT_EQ(t.data_ptr<std::int64_t>()[0], 2);
    EXPECT_EQ(reinterpret_cast<std::int64_t*>(t.data_ptr_raw())[0], 2);
    EXPECT_EQ(t.data_ptr<std::int64_t>(),
              reinterpret_cast<std::int64_t*>(t.impl()->storage->data()) + 2);
}

TEST(Tensor, DataPtrWrongTypeMessage) {
    const Tensor t = kael::zeros({2});
    EXPECT_THROW((void)t.data_ptr<double>(), kael::TypeError);
    const std::string message = message_of([&] { (void)t.data_ptr<double>(); });
    EXPECT_NE(message.find("check 'dtype_of_v<T> == dtype()' failed: expected dtype float64 but "
                           "tensor has float32"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("include/kael/tensor.h:"), std::string::npos) << message;
}

TEST(Tensor, EmptyTensorPointerIsTheStorageBase) {
    const Tensor t = kael::zeros({3, 0, 2});
    EXPECT_EQ(t.data_ptr<float>(), nullptr);
    // An empty view whose offset lies past the end of its storage.
    const Tensor past_end = make_tensor(4, {0}, {1}, 9);
    EXPECT_EQ(past_end.data_ptr_raw(), past_end.impl()->storage->data());
}

TEST(TensorAt, ReadsAndWrites) {
    Tensor t = kael::zeros({2, 3});
    t.at<float>({1, 2}) = 5.0f;
    EXPECT_EQ(t.data_ptr<float>()[5], 5.0f);
    EXPECT_EQ(t.at<float>({1, 2}), 5.0f);
}

TEST(TensorAt, RespectsOffsetAndStrides) {
    // Shape [2, 2], strides [4, 2], offset 1 over 0..9 reads 1 3 / 5 7.
    const Tensor t = make_tensor(10, {2, 2}, {4, 2}, 1);
    EXPECT_EQ(t.at<std::int64_t>({0, 0}), 1);
    EXPECT_EQ(t.at<std::int64_t>({0, 1}), 3);
    EXPECT_EQ(t.at<std::int64_t>({1, 0}), 5);
    EXPECT_EQ(t.at<std::int64_t>({1, 1}), 7);
}

TEST(TensorAt, NegativeIndicesCountFromTheEnd) {
    // The transposed [3, 2] view over 0..5.
    const Tensor t = make_tensor(6, {3, 2}, {1, 3}, 0);
    EXPECT_EQ(t.at<std::int64_t>({-1, 0}), 2);
    EXPECT_EQ(t.at<std::int64_t>({-1, -1}), 5);
    EXPECT_EQ(t.at<std::int64_t>({-3, -2}), 0);
}

TEST(TensorAt, IndicesWrapOnlyOnce) {
    const Tensor t = kael::zeros({3});
    EXPECT_NO_THROW((void)t.at<float>({-3}));
    EXPECT_THROW((void)t.at<float>({-4}), kael::IndexError);
    EXPECT_NO_THROW((void)t.at<float>({2}));
    EXPECT_THROW((void)t.at<float>({3}), kael::IndexError);
}

TEST(TensorAt, WrongIndexCountThrows) {
    const Tensor t = kael::zeros({2, 3});
    EXPECT_THROW((void)t.at<float>({1}), kael::ValueError);
    EXPECT_THROW((void)t.at<float>({1, 1, 1}), kael::ValueError);
    EXPECT_THROW((void)t.at<double>({1, 1}), kael::TypeError);
}

TEST(TensorAt, AcceptsASpan) {
    const Tensor t = kael::arange(6).to(DType::I64);
    const kael::Index index{4};
    EXPECT_EQ(t.at<std::int64_t>(index), 4);
}

TEST(TensorItem, WorksForAnyOneElementShape) {
    EXPECT_EQ(kael::scalar(3.5).item<float>(), 3.5f);
    EXPECT_EQ(kael::full({1}, 2.0).item<float>(), 2.0f);
    EXPECT_EQ(kael::full({1, 1}, 7.0, DType::I64).item<std::int64_t>(), 7);
}

TEST(TensorItem, RequiresExactlyOneElement) {
    EXPECT_THROW((void)kael::zeros({2}).item(), kael::ValueError);
    EXPECT_THROW((void)kael::zeros({0}).item<float>(), kael::ValueError);
    EXPECT_THROW((void)kael::zeros({1}).item<double>(), kael::TypeError);
}

TEST(TensorItem, UntypedItemConvertsToDouble) {
    EXPECT_EQ(kael::scalar(2.5).item(), 2.5);
    EXPECT_EQ(kael::full({1}, 9.0, DType::I64).item(), 9.0);
    EXPECT_EQ(kael::full({1}, 1.0, DType::Bool).item(), 1.0);
}

TEST(TensorItem, RespectsOffset) {
    const Tensor t = make_tensor(5, {}, {}, 3);
    EXPECT_EQ(t.item<std::int64_t>(), 3);
}

// ---- conversions -----------------------------------------------------------------------

TEST(TensorTo, SameDtypeReturnsSameImpl) {
    const Tensor t = kael::zeros({2});
    EXPECT_TRUE(t.to(DType::F32).is_same(t));
    EXPECT_TRUE(t.to(kael::Device::CPU).is_same(t));
    EXPECT_TRUE(t.cpu().is_same(t));
}

TEST(TensorTo, FloatToIntTruncatesTowardsZero) {
    const Tensor t = kael::from_vector({-2.7, -0.5, 0.5, 2.7}).to(DType::I64);
    EXPECT_EQ(t.dtype(), DType::I64);
    const std::int64_t* v = t.data_ptr<std::int64_t>();
    EXPECT_EQ(v[0], -2);
    EXPECT_EQ(v[1], 0);
    EXPECT_EQ(v[2], 0);
    EXPECT_EQ(v[3], 2);
}

TEST(TensorTo, FloatToIntSaturates) {
    const double inf = std::numeric_limits<double>::infinity();
    const Tensor t =
        kael::from_vector({1e30, -inf, std::numeric_limits<double>::quiet_NaN()}).to(DType::I64);
    EXPECT_EQ(t.at<std::int64_t>({0}), std::numeric_limits<std::int64_t>::max());
    EXPECT_EQ(t.at<std::int64_t>({1}), std::numeric_limits<std::int64_t>::min());
    EXPECT_EQ(t.at<std::int64_t>({2}), 0);
}

TEST(TensorTo, ToBoolMapsNonZeroToOne) {
    const Tensor t = kael::from_vector({0.0f, 2.5f, -1.0f, std::nanf("")}).to(DType::Bool);
    const std::uint8_t* v = t.data_ptr<std::uint8_t>();
    EXPECT_EQ(v[0], 0);
    EXPECT_EQ(v[1], 1);
    EXPECT_EQ(v[2], 1);
    EXPECT_EQ(v[3], 1);
}

TEST(TensorTo, DoubleToFloatRoundsToNearest) {
    const Tensor t = kael::from_vector({0.1, 1.0 + 1e-9}).to(DType::F32);
    EXPECT_EQ(t.at<float>({0}), 0.1f);
    EXPECT_EQ(t.at<float>({1}), 1.0f);
}

TEST(TensorTo, KeepsShapeAndReadsStridedSources) {
    const Tensor t = make_tensor(6, {3, 2}, {1, 3}, 0).to(DType::F64);
    EXPECT_EQ(t.shape(), (Shape{3, 2}));
    EXPECT_EQ(t.strides(), (Strides{2, 1}));
    EXPECT_EQ(t.at<double>({0, 1}), 3.0);
    EXPECT_EQ(t.at<double>({2, 0}), 2.0);
}

TEST(TensorTo, ContiguousReturnsSelfOnlyWhenContiguous) {
    const Tensor a = kael::zeros({2, 3});
    EXPECT_TRUE(a.contiguous().is_same(a));
    const Tensor t = make_tensor(6, {3, 2}, {1, 3}, 0);
    const Tensor c = t.contiguous();
    EXPECT_FALSE(c.is_same(t));
    EXPECT_TRUE(c.is_contiguous());
}

TEST(TensorTo, CudaWithoutBackendThrows) {
    if (kael::cuda_is_available()) {
        GTEST_SKIP() << "a CUDA device is present";
    }
    EXPECT_THROW((void)kael::zeros({2}).cuda(), kael::Error);
}

// ---- printing --------------------------------------------------------------------------

TEST(TensorPrint, EveryDtype) {
    EXPECT_EQ(printed(kael::arange(6).to(DType::F64)),
              "tensor([0.0000, 1.0000, 2.0000, 3.0000, 4.0000, 5.0000], shape=[6], "
              "dtype=float64)");
    EXPECT_EQ(printed(kael::arange(0, 6).to(DType::I64)),
              "tensor([0, 1, 2, 3, 4, 5], shape=[6], dtype=int64)");
    EXPECT_EQ(printed(kael::from_vector({true, false, true})),
              "tensor([true, false, true], shape=[3], dtype=bool)");
    EXPECT_EQ(printed(kael::full({2}, -1.5)), "tensor([-1.5000, -1.5000], shape=[2], dtype=float32)");
}

TEST(TensorPrint, ShapeIsPrintedSeparately) {
    EXPECT_EQ(printed(kael::arange(6).to(DType::I64).contiguous()),
              "tensor([0, 1, 2, 3, 4, 5], shape=[6], dtype=int64)");
    EXPECT_EQ(printed(kael::from_vector({1.f, 2.f, 3.f, 4.f}, {2, 2})),
              "tensor([1.0000, 2.0000, 3.0000, 4.0000], shape=[2, 2], dtype=float32)");
}

TEST(TensorPrint, ScalarAndEmpty) {
    EXPECT_EQ(printed(kael::scalar(3.5)), "tensor([3.5000], shape=[], dtype=float32)");
    EXPECT_EQ(printed(kael::zeros({2, 0})), "tensor([], shape=[2, 0], dtype=float32)");
}

TEST(TensorPrint, StridedTensorsPrintInLogicalOrder) {
    EXPECT_EQ(printed(make_tensor(6, {3, 2}, {1, 3}, 0)),
              "tensor([0, 3, 1, 4, 2, 5], shape=[3, 2], dtype=int64)");
}

TEST(TensorPrint, SummarizesAboveOneThousandElements) {
    EXPECT_EQ(printed(kael::arange(1500)),
              "tensor([0.0000, 1.0000, 2.0000, ..., 1497.0000, 1498.0000, 1499.0000], "
              "shape=[1500], dtype=float32)");
    // Exactly at the threshold every element is printed.
    const std::string full = printed(kael::arange(1000).to(DType::I64));
    EXPECT_EQ(full.find("..."), std::string::npos);
    EXPECT_NE(full.find(", 500, 501, "), std::string::npos);
    EXPECT_NE(printed(kael::arange(1001).to(DType::I64)).find("0, 1, 2, ..., 998, 999, 1000]"),
              std::string::npos);
}

TEST(TensorPrint, NonFiniteValues) {
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_EQ(printed(kael::from_vector({inf, -inf, std::nanf("")})),
              "tensor([inf, -inf, nan], shape=[3], dtype=float32)");
}

TEST(TensorPrint, LeavesStreamFlagsUntouched) {
    std::ostringstream text;
    text << std::setprecision(2) << kael::zeros({1}) << ' ' << 3.14159;
    EXPECT_EQ(text.str(), "tensor([0.0000], shape=[1], dtype=float32) 3.1");
    EXPECT_EQ(text.precision(), 2);
    EXPECT_FALSE(text.flags() & std::ios::fixed);
}

}  // namespace

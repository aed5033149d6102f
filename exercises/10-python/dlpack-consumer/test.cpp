// Tests of exercise 10.2. Every test fails until tensor_from_dlpack is implemented. The
// producer here is a few lines of C++ that lend a buffer the way NumPy or PyTorch lend
// theirs, and count the calls of their deleter.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "exercise.h"
#include "kael/error.h"
#include "kael/storage.h"
#include "kael/tensor.h"
#include "kael/tensor_impl.h"

namespace {

using exercise::tensor_from_dlpack;
using kael::DType;
using kael::Shape;
using kael::Strides;

constexpr DLDataType kFloat32{kDLFloat, 32, 1};
constexpr DLDataType kFloat64{kDLFloat, 64, 1};
constexpr DLDataType kInt64{kDLInt, 64, 1};

// The producer's side of one loan: its memory (256 bytes on an 8-byte boundary), the shape
// and strides arrays the DLTensor points at, and what its deleter has seen. It stays where
// it was made, since manager_ctx points at it.
struct Producer {
    std::vector<double> memory = std::vector<double>(32);
    std::vector<std::int64_t> shape;
    std::vector<std::int64_t> strides;
    DLManagedTensor managed{};
    int deleted = 0;
    DLManagedTensor* handed_back = nullptr;

    // `strides` empty: the DLTensor gets null strides (row-major).
    Producer(std::vector<std::int64_t> shape_, std::vector<std::int64_t> strides_, DLDataType dtype,
             std::ptrdiff_t data_offset = 0, std::uint64_t byte_offset = 0)
        : shape(std::move(shape_)), strides(std::move(strides_)) {
        DLTensor& t = managed.dl_tensor;
        t.data = bytes() + data_offset;
        t.device = {kDLCPU, 0};
        t.ndim = static_cast<int>(shape.size());
        t.dtype = dtype;
        t.shape = shape.empty() ? nullptr : shape.data();
        t.strides = strides.empty() ? nullptr : strides.data();
        t.byte_offset = byte_offset;
        managed.manager_ctx = this;
        managed.deleter = [](DLManagedTensor* self) {
            auto* producer = static_cast<Producer*>(self->manager_ctx);
            ++producer->deleted;
            producer->handed_back = self;
        };
    }
    Producer(const Producer&) = delete;
    Producer& operator=(const Producer&) = delete;

    std::byte* bytes() { return reinterpret_cast<std::byte*>(memory.data()); }
    template <typename T> T read(std::size_t byte) {
        T value{};
        std::memcpy(&value, bytes() + byte, sizeof value);
        return value;
    }
    template <typename T> void write(std::size_t byte, T value) { std::memcpy(bytes() + byte, &value, sizeof value); }
};

std::int64_t storage_bytes(const kael::Tensor& t) { return t.impl()->storage->nbytes(); }

TEST(TensorFromDlpack, ContiguousWithoutStrides) {
    Producer p({2, 3}, {}, kFloat32);
    for (std::size_t k = 0; k < 6; ++k) {
        p.write<float>(4 * k, 1.5F * static_cast<float>(k));
    }
    const kael::Tensor t = tensor_from_dlpack(&p.managed);
    EXPECT_EQ(t.dtype(), DType::F32);
    EXPECT_EQ(t.device(), kael::Device::CPU);
    EXPECT_EQ(t.shape(), (Shape{2, 3}));
    EXPECT_EQ(t.strides(), (Strides{3, 1}));  // null strides: row-major
    EXPECT_TRUE(t.is_contiguous());
    EXPECT_EQ(t.at<float>({0, 0}), 0.0F);
    EXPECT_EQ(t.at<float>({0, 2}), 3.0F);
    EXPECT_EQ(t.at<float>({1, 1}), 6.0F);
    EXPECT_EQ(t.data_ptr_raw(), p.bytes());  // the producer's memory itself
    EXPECT_EQ(p.deleted, 0);                 // still in use
}

TEST(TensorFromDlpack, TheThreeDTypesThatMap) {
    Producer f64({4}, {}, kFloat64);
    f64.write<double>(24, 0.25);
    const kael::Tensor a = tensor_from_dlpack(&f64.managed);
    EXPECT_EQ(a.dtype(), DType::F64);
    EXPECT_EQ(a.at<double>({3}), 0.25);
    Producer i64({2, 2}, {}, kInt64);
    i64.write<std::int64_t>(16, -7);
    const kael::Tensor b = tensor_from_dlpack(&i64.managed);
    EXPECT_EQ(b.dtype(), DType::I64);
    EXPECT_EQ(b.at<std::int64_t>({1, 0}), -7);
    Producer f32({5}, {}, kFloat32);
    EXPECT_EQ(tensor_from_dlpack(&f32.managed).dtype(), DType::F32);
}

TEST(TensorFromDlpack, WritesAreSharedBothWays) {
    Producer p({3, 4}, {}, kFloat32);
    const kael::Tensor t = tensor_from_dlpack(&p.managed);
    t.at<float>({2, 1}) = 42.0F;
    EXPECT_EQ(p.read<float>(4 * (2 * 4 + 1)), 42.0F);
    p.write<float>(4 * (1 * 4 + 3), -3.0F);
    EXPECT_EQ(t.at<float>({1, 3}), -3.0F);
}

TEST(TensorFromDlpack, StridesCountElements) {
    // The transpose of a row-major [2, 3] float64 matrix: shape [3, 2], strides [1, 3].
    Producer p({3, 2}, {1, 3}, kFloat64);
    for (std::size_t k = 0; k < 6; ++k) {
        p.write<double>(8 * k, static_cast<double>(k));
    }
    const kael::Tensor t = tensor_from_dlpack(&p.managed);
    EXPECT_EQ(t.strides(), (Strides{1, 3}));
    EXPECT_FALSE(t.is_contiguous());
    for (std::int64_t i = 0; i < 3; ++i) {
        for (std::int64_t j = 0; j < 2; ++j) {
            EXPECT_EQ(t.at<double>({i, j}), static_cast<double>(i + 3 * j)) << i << ", " << j;
        }
    }
    // Every other int64 of a row of 8, twice: strides [8, 2].
    Producer q({2, 4}, {8, 2}, kInt64);
    for (std::size_t k = 0; k < 16; ++k) {
        q.write<std::int64_t>(8 * k, static_cast<std::int64_t>(100 + k));
    }
    const kael::Tensor u = tensor_from_dlpack(&q.managed);
    EXPECT_EQ(u.at<std::int64_t>({0, 3}), 106);
    EXPECT_EQ(u.at<std::int64_t>({1, 1}), 110);
}

TEST(TensorFromDlpack, TheByteOffsetMovesTheFirstElement) {
    Producer p({2}, {2}, kFloat32, 0, 8);
    for (std::size_t k = 0; k < 8; ++k) {
        p.write<float>(4 * k, static_cast<float>(k));
    }
    const kael::Tensor t = tensor_from_dlpack(&p.managed);
    EXPECT_EQ(t.data_ptr_raw(), p.bytes() + 8);
    EXPECT_EQ(t.at<float>({0}), 2.0F);
    EXPECT_EQ(t.at<float>({1}), 4.0F);
    // A data pointer inside the buffer and an offset from it add up.
    Producer q({3}, {}, kInt64, 16, 24);
    q.write<std::int64_t>(40, 5);
    q.write<std::int64_t>(56, 7);
    const kael::Tensor u = tensor_from_dlpack(&q.managed);
    EXPECT_EQ(u.data_ptr_raw(), q.bytes() + 40);
    EXPECT_EQ(u.at<std::int64_t>({0}), 5);
    EXPECT_EQ(u.at<std::int64_t>({2}), 7);
}

TEST(TensorFromDlpack, ZeroStridesAndSizeOneDimensions) {
    // One row read three times, and a size-1 dimension whose stride points far away.
    Producer p({3, 4}, {0, 1}, kFloat32);
    p.write<float>(8, 9.0F);
    const kael::Tensor t = tensor_from_dlpack(&p.managed);
    EXPECT_EQ(t.at<float>({0, 2}), 9.0F);
    EXPECT_EQ(t.at<float>({2, 2}), 9.0F);
    Producer q({1, 3}, {std::int64_t{1} << 40, 1}, kFloat64);
    q.write<double>(16, 2.5);
    const kael::Tensor u = tensor_from_dlpack(&q.managed);
    EXPECT_EQ(u.at<double>({0, 2}), 2.5);
    EXPECT_EQ(storage_bytes(u), 24);
}

TEST(TensorFromDlpack, TheStorageEndsAtTheLastElement) {
    Producer gaps({2, 3}, {6, 1}, kFloat32);  // rows 6 floats apart, 3 used
    EXPECT_EQ(storage_bytes(tensor_from_dlpack(&gaps.managed)), (6 + 2 + 1) * 4);
    Producer dense({2, 3}, {}, kInt64);
    EXPECT_EQ(storage_bytes(tensor_from_dlpack(&dense.managed)), 48);
    Producer repeated({5, 2}, {0, 0}, kFloat64);
    EXPECT_EQ(storage_bytes(tensor_from_dlpack(&repeated.managed)), 8);
    Producer scalar({}, {}, kFloat64);
    EXPECT_EQ(storage_bytes(tensor_from_dlpack(&scalar.managed)), 8);
    Producer empty({4, 0}, {}, kFloat32);
    EXPECT_EQ(storage_bytes(tensor_from_dlpack(&empty.managed)), 0);
}

TEST(TensorFromDlpack, TheDeleterRunsOnceWhenTheLastViewDies) {
    Producer p({2, 3}, {}, kFloat32);
    p.write<float>(4 * 5, 8.0F);
    std::optional<kael::Tensor> t = tensor_from_dlpack(&p.managed);
    std::optional<kael::Tensor> copy = *t;
    std::optional<kael::Tensor> view = t->transpose(0, 1);
    std::optional<kael::Tensor> row = (*t)[1];
    t.reset();
    copy.reset();
    EXPECT_EQ(p.deleted, 0);
    EXPECT_EQ(view->at<float>({2, 1}), 8.0F);  // the views still read the loan
    view.reset();
    EXPECT_EQ(p.deleted, 0);
    EXPECT_EQ(row->at<float>({2}), 8.0F);
    row.reset();
    EXPECT_EQ(p.deleted, 1);
    EXPECT_EQ(p.handed_back, &p.managed);  // called with the managed tensor itself
}

TEST(TensorFromDlpack, ACloneDoesNotHoldTheLoan) {
    Producer p({3}, {}, kInt64);
    p.write<std::int64_t>(8, 11);
    std::optional<kael::Tensor> t = tensor_from_dlpack(&p.managed);
    const kael::Tensor clone = t->clone();
    t.reset();
    EXPECT_EQ(p.deleted, 1);
    EXPECT_EQ(clone.at<std::int64_t>({1}), 11);
}

// A producer that lives on the heap and frees itself in its deleter, as a real one does:
// after the call, `managed` points at freed memory.
struct SelfFreeing {
    static inline int freed = 0;
    std::vector<float> memory{1.0F, 2.0F, 3.0F};
    std::int64_t shape[1] = {3};
    DLManagedTensor managed{};
};

TEST(TensorFromDlpack, ADeleterThatFreesItsProducer) {
    SelfFreeing::freed = 0;
    auto owned = std::make_unique<SelfFreeing>();
    owned->managed.dl_tensor = DLTensor{owned->memory.data(), {kDLCPU, 0}, 1, kFloat32, owned->shape, nullptr, 0};
    owned->managed.manager_ctx = owned.get();
    owned->managed.deleter = [](DLManagedTensor* self) {
        ++SelfFreeing::freed;
        delete static_cast<SelfFreeing*>(self->manager_ctx);
    };
    std::optional<kael::Tensor> t = tensor_from_dlpack(&owned->managed);
    (void)owned.release();  // the loan is kael's now
    EXPECT_EQ(t->at<float>({2}), 3.0F);
    t.reset();
    EXPECT_EQ(SelfFreeing::freed, 1);
}

TEST(TensorFromDlpack, ANullDeleterIsNeverCalled) {
    Producer p({2}, {}, kFloat64);
    p.managed.deleter = nullptr;  // allowed: the producer has nothing to release
    p.write<double>(8, 4.0);
    std::optional<kael::Tensor> t = tensor_from_dlpack(&p.managed);
    EXPECT_EQ(t->at<double>({1}), 4.0);
    t.reset();
    EXPECT_EQ(p.deleted, 0);
}

TEST(TensorFromDlpack, EmptyAndZeroDimensionalTensorsAreLoansToo) {
    // No element, and no data at all.
    Producer empty({0, 3}, {}, kFloat32);
    empty.managed.dl_tensor.data = nullptr;
    std::optional<kael::Tensor> t = tensor_from_dlpack(&empty.managed);
    EXPECT_EQ(t->shape(), (Shape{0, 3}));
    EXPECT_EQ(t->numel(), 0);
    t.reset();
    EXPECT_EQ(empty.deleted, 1);
    // A scalar: no dimensions, null shape and strides, one element.
    Producer scalar({}, {}, kInt64, 8);
    scalar.write<std::int64_t>(8, 123);
    std::optional<kael::Tensor> s = tensor_from_dlpack(&scalar.managed);
    EXPECT_EQ(s->dim(), 0);
    EXPECT_EQ(s->item<std::int64_t>(), 123);
    s.reset();
    EXPECT_EQ(scalar.deleted, 1);
}

TEST(TensorFromDlpack, ShapeAndStridesAreCopied) {
    // The producer's arrays are only borrowed for the call.
    Producer p({2, 3}, {3, 1}, kFloat32);
    const kael::Tensor t = tensor_from_dlpack(&p.managed);
    p.shape = {9, 9};
    p.strides = {0, 0};
    EXPECT_EQ(t.shape(), (Shape{2, 3}));
    EXPECT_EQ(t.strides(), (Strides{3, 1}));
}

TEST(TensorFromDlpack, RefusesMemoryOffTheCpu) {
    for (const DLDeviceType device : {kDLCUDA, kDLCUDAHost, kDLCUDAManaged, kDLOpenCL, kDLVulkan, kDLMetal,
                                      kDLROCM, kDLROCMHost, kDLExtDev}) {
        Producer p({4}, {}, kFloat32);
        p.managed.dl_tensor.device = {device, 0};
        EXPECT_THROW((void)tensor_from_dlpack(&p.managed), kael::TypeError) << device;
        EXPECT_EQ(p.deleted, 0) << device;  // refused: still the producer's
    }
}

TEST(TensorFromDlpack, RefusesDTypesKaelLacks) {
    // float16, bfloat16, float128, int8, int16, int32, uint8 to uint64, complex64, an
    // opaque handle, and the bool of later DLPack versions (code 6), which 0.6 lacks.
    const std::vector<DLDataType> refused{
        {kDLFloat, 16, 1},   {kDLBfloat, 16, 1}, {kDLFloat, 128, 1}, {kDLInt, 8, 1},
        {kDLInt, 16, 1},     {kDLInt, 32, 1},    {kDLUInt, 8, 1},    {kDLUInt, 16, 1},
        {kDLUInt, 32, 1},    {kDLUInt, 64, 1},   {kDLComplex, 64, 1}, {kDLOpaqueHandle, 64, 1},
        {6, 8, 1},           {kDLInt, 1, 1},
    };
    for (const DLDataType dtype : refused) {
        Producer p({4}, {}, dtype);
        EXPECT_THROW((void)tensor_from_dlpack(&p.managed), kael::TypeError)
            << int{dtype.code} << "/" << int{dtype.bits};
        EXPECT_EQ(p.deleted, 0);
    }
}

TEST(TensorFromDlpack, RefusesVectorLanes) {
    for (const std::uint16_t lanes : {std::uint16_t{0}, std::uint16_t{2}, std::uint16_t{4}}) {
        Producer p({4}, {}, DLDataType{kDLFloat, 32, lanes});
        EXPECT_THROW((void)tensor_from_dlpack(&p.managed), kael::TypeError) << lanes;
        EXPECT_EQ(p.deleted, 0);
    }
    Producer one({4}, {}, DLDataType{kDLFloat, 32, 1});
    EXPECT_NO_THROW((void)tensor_from_dlpack(&one.managed));
}

TEST(TensorFromDlpack, RefusesNegativeStrides) {
    // x[::-1] of four floats: the data pointer at the last one, stride -1.
    Producer reversed({4}, {-1}, kFloat32, 12);
    EXPECT_THROW((void)tensor_from_dlpack(&reversed.managed), kael::ValueError);
    Producer columns({2, 3}, {3, -1}, kFloat32, 8);
    EXPECT_THROW((void)tensor_from_dlpack(&columns.managed), kael::ValueError);
    Producer size_one({1, 3}, {-3, 1}, kFloat32);  // never stepped along, still refused
    EXPECT_THROW((void)tensor_from_dlpack(&size_one.managed), kael::ValueError);
    EXPECT_EQ(reversed.deleted + columns.deleted + size_one.deleted, 0);
    Producer zero({2, 3}, {0, 1}, kFloat32);  // 0 is the smallest allowed
    EXPECT_NO_THROW((void)tensor_from_dlpack(&zero.managed));
}

TEST(TensorFromDlpack, RefusesMisalignedData) {
    struct Case {
        DLDataType dtype;
        std::ptrdiff_t data_offset;
        std::uint64_t byte_offset;
        bool aligned;
    };
    const std::vector<Case> cases{
        {kFloat32, 0, 0, true},  {kFloat32, 4, 0, true},  {kFloat32, 1, 0, false}, {kFloat32, 2, 0, false},
        {kFloat32, 3, 0, false}, {kFloat32, 0, 4, true},  {kFloat32, 0, 2, false}, {kFloat32, 0, 5, false},
        {kFloat32, 2, 2, true},  {kFloat32, 1, 2, false}, {kFloat64, 8, 0, true},  {kFloat64, 4, 0, false},
        {kFloat64, 7, 0, false}, {kInt64, 0, 8, true},    {kInt64, 0, 4, false},   {kInt64, 4, 4, true},
        {kInt64, 9, 0, false},
    };
    for (const Case& c : cases) {
        Producer p({2}, {}, c.dtype, c.data_offset, c.byte_offset);
        if (c.aligned) {
            EXPECT_NO_THROW((void)tensor_from_dlpack(&p.managed)) << c.data_offset << " + " << c.byte_offset;
        } else {
            EXPECT_THROW((void)tensor_from_dlpack(&p.managed), kael::ValueError)
                << c.data_offset << " + " << c.byte_offset;
            EXPECT_EQ(p.deleted, 0);
        }
    }
}

TEST(TensorFromDlpack, RefusesMalformedDescriptions) {
    EXPECT_THROW((void)tensor_from_dlpack(nullptr), kael::ValueError);
    Producer negative_rank({2}, {}, kFloat32);
    negative_rank.managed.dl_tensor.ndim = -1;
    EXPECT_THROW((void)tensor_from_dlpack(&negative_rank.managed), kael::ValueError);
    Producer no_shape({2, 3}, {}, kFloat32);
    no_shape.managed.dl_tensor.shape = nullptr;
    EXPECT_THROW((void)tensor_from_dlpack(&no_shape.managed), kael::ValueError);
    Producer negative_size({2, -3}, {}, kFloat32);
    EXPECT_THROW((void)tensor_from_dlpack(&negative_size.managed), kael::ValueError);
    Producer no_data({2, 3}, {}, kFloat32);
    no_data.managed.dl_tensor.data = nullptr;
    EXPECT_THROW((void)tensor_from_dlpack(&no_data.managed), kael::ValueError);
    EXPECT_EQ(negative_rank.deleted + no_shape.deleted + negative_size.deleted + no_data.deleted, 0);
}

TEST(TensorFromDlpack, RefusesExtentsPastInt64) {
    // Two float32 elements 2^61 - 2 apart end at byte 2^63 - 4, the last that int64 counts;
    // one element further apart they end at 2^63. The second element is never touched.
    const std::int64_t far = (std::int64_t{1} << 61) - 2;
    Producer fits({2}, {far}, kFloat32);
    EXPECT_EQ(storage_bytes(tensor_from_dlpack(&fits.managed)), (far + 1) * 4);
    Producer too_far({2}, {far + 1}, kFloat32);
    EXPECT_THROW((void)tensor_from_dlpack(&too_far.managed), kael::ValueError);
    Producer wraps({3, 3}, {std::int64_t{1} << 62, std::int64_t{1} << 62}, kInt64);
    EXPECT_THROW((void)tensor_from_dlpack(&wraps.managed), kael::ValueError);
    EXPECT_EQ(too_far.deleted + wraps.deleted, 0);
}

TEST(TensorFromDlpack, ARefusedLoanStaysWithItsProducer) {
    // Refused, the managed tensor is untouched and still the producer's: it may fix the
    // description and lend it again, and the deleter then runs once, for the one loan taken.
    Producer p({3}, {}, DLDataType{kDLInt, 32, 1});
    p.write<std::int64_t>(16, 77);
    EXPECT_THROW((void)tensor_from_dlpack(&p.managed), kael::TypeError);
    EXPECT_EQ(p.deleted, 0);
    EXPECT_EQ(p.managed.dl_tensor.data, p.bytes());
    p.managed.dl_tensor.dtype = kInt64;
    std::optional<kael::Tensor> t = tensor_from_dlpack(&p.managed);
    EXPECT_EQ(t->at<std::int64_t>({2}), 77);
    t.reset();
    EXPECT_EQ(p.deleted, 1);
}

}  // namespace

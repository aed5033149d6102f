// TensorImpl: contiguity and the validation that every tensor passes before use.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>

#include "kael/tensor_impl.h"

namespace {

using kael::DType;
using kael::Shape;
using kael::Strides;
using kael::TensorImpl;

TensorImpl make_impl(std::int64_t storage_bytes, Shape shape, Strides strides,
                     std::int64_t offset = 0, DType dtype = DType::F32) {
    TensorImpl impl;
    impl.storage = std::make_shared<kael::Storage>(storage_bytes);
    impl.shape = std::move(shape);
    impl.strides = std::move(strides);
    impl.offset = offset;
    impl.dtype = dtype;
    return impl;
}

std::string validation_message(const TensorImpl& impl) {
    try {
        impl.validate();
    } catch (const kael::Error& error) {
        return error.what();
    }
    return "valid";
}

// ---- contiguity ------------------------------------------------------------------------

TEST(TensorImpl, RowMajorIsContiguous) {
    EXPECT_TRUE(make_impl(24, {2, 3}, {3, 1}).is_contiguous());
    EXPECT_TRUE(make_impl(96, {2, 3, 4}, {12, 4, 1}).is_contiguous());
}

TEST(TensorImpl, TransposedIsNotContiguous) {
    EXPECT_FALSE(make_impl(24, {3, 2}, {1, 3}).is_contiguous());
}

TEST(TensorImpl, GappedRowsAreNotContiguous) {
    // Every other element: strided, not consecutive.
    EXPECT_FALSE(make_impl(40, {5}, {2}).is_contiguous());
    EXPECT_FALSE(make_impl(64, {2, 3}, {4, 1}).is_contiguous());
}

TEST(TensorImpl, SizeOneDimensionsMayHaveAnyStride) {
    EXPECT_TRUE(make_impl(24, {2, 1, 3}, {3, 99, 1}).is_contiguous());
    EXPECT_TRUE(make_impl(4, {1, 1}, {7, 5}).is_contiguous());
}

TEST(TensorImpl, EmptyTensorsAreContiguous) {
    EXPECT_TRUE(make_impl(0, {3, 0, 2}, {5, 7, 9}).is_contiguous());
}

TEST(TensorImpl, ZeroDimensionalImpl) {
    const TensorImpl impl = make_impl(4, {}, {});
    EXPECT_EQ(impl.numel(), 1);
    EXPECT_EQ(impl.dim(), 0);
    EXPECT_TRUE(impl.is_contiguous());
    EXPECT_NO_THROW(impl.validate());
    EXPECT_THROW(make_impl(3, {}, {}).validate(), kael::Error);  // one float needs 4 bytes
}

TEST(TensorImpl, OffsetDoesNotAffectContiguity) {
    EXPECT_TRUE(make_impl(40, {2, 3}, {3, 1}, 4).is_contiguous());
}

// ---- validation ------------------------------------------------------------------------

TEST(TensorImplValidate, ExactlyAtTheLimit) {
    // [2, 3] float32 needs (5 + 1) * 4 = 24 bytes.
    EXPECT_NO_THROW(make_impl(24, {2, 3}, {3, 1}).validate());
    // Strided: shape [3], stride [2], offset 4 reaches element 8: (8 + 1) * 4 = 36 bytes.
    EXPECT_NO_THROW(make_impl(36, {3}, {2}, 4).validate());
}

TEST(TensorImplValidate, OneByteShortThrows) {
    EXPECT_THROW(make_impl(23, {2, 3}, {3, 1}).validate(), kael::Error);
    EXPECT_THROW(make_impl(35, {3}, {2}, 4).validate(), kael::Error);
}

TEST(TensorImplValidate, OffsetPastTheEndThrowsWithTheLayoutInTheMessage) {
    const std::string message = validation_message(make_impl(24, {2, 3}, {3, 1}, 1));
    EXPECT_NE(message.find("check 'bytes_needed <= impl.storage->nbytes()' failed: tensor with "
                           "shape [2, 3], strides [3, 1], offset 1 and dtype float32 needs 28 "
                           "bytes but storage has 24"),
              std::string::npos)
        << message;
}

TEST(TensorImplValidate, DtypeSizeCounts) {
    EXPECT_NO_THROW(make_impl(48, {2, 3}, {3, 1}, 0, DType::F64).validate());
    EXPECT_THROW(make_impl(47, {2, 3}, {3, 1}, 0, DType::I64).validate(), kael::Error);
    EXPECT_NO_THROW(make_impl(6, {2, 3}, {3, 1}, 0, DType::Bool).validate());
    EXPECT_THROW(make_impl(5, {2, 3}, {3, 1}, 0, DType::Bool).validate(), kael::Error);
}

TEST(TensorImplValidate, EmptyTensorNeedsNoBytes) {
    EXPECT_NO_THROW(make_impl(0, {3, 0, 2}, {0, 2, 1}).validate());
    EXPECT_NO_THROW(make_impl(0, {0}, {1}, 5).validate());  // an empty view past the end
}

TEST(TensorImplValidate, NullStorageThrows) {
    TensorImpl impl = make_impl(24, {2, 3}, {3, 1});
    impl.storage = nullptr;
    EXPECT_THROW(impl.validate(), kael::Error);
}

TEST(TensorImplValidate, NegativeSizeThrows) {
    EXPECT_THROW(make_impl(24, {2, -3}, {3, 1}).validate(), kael::ValueError);
}

TEST(TensorImplValidate, RankMismatchThrows) {
    EXPECT_THROW(make_impl(24, {2, 3}, {1}).validate(), kael::ValueError);
    EXPECT_THROW(make_impl(24, {6}, {3, 1}).validate(), kael::ValueError);
}

TEST(TensorImplValidate, NegativeStrideThrows) {
    EXPECT_THROW(make_impl(24, {6}, {-1}, 5).validate(), kael::ValueError);
    EXPECT_NO_THROW(make_impl(24, {6}, {0}, 5).validate());  // stride 0 is allowed
}

TEST(TensorImplValidate, NegativeOffsetThrows) {
    EXPECT_THROW(make_impl(24, {2}, {1}, -1).validate(), kael::ValueError);
}

TEST(TensorImplValidate, DeviceMismatchThrows) {
    TensorImpl impl = make_impl(24, {6}, {1});
    impl.device = kael::Device::CUDA;
    EXPECT_THROW(impl.validate(), kael::Error);
}

TEST(TensorImplValidate, HugeStridesOverflowThrows) {
    // 2 * 2^62 = 2^63 would wrap to INT64_MIN in plain arithmetic and pass the comparison.
    EXPECT_THROW(make_impl(12, {3}, {std::int64_t{1} << 62}).validate(), kael::ValueError);
    // The byte count can overflow after the element extent fits: (2^61) * 8 bytes.
    EXPECT_THROW(make_impl(8, {2}, {(std::int64_t{1} << 61) - 1}, 0, DType::F64).validate(),
                 kael::ValueError);
}

}  // namespace

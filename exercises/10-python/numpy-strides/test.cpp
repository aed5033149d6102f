// Tests of exercise 10.1. Every test fails until layout_from_numpy is implemented. The
// arrays are described by hand, with the numbers NumPy reports for them (shown in the
// comments), so the tests need no Python.
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "exercise.h"
#include "kael/error.h"
#include "kael/storage.h"
#include "kael/tensor.h"
#include "kael/tensor_impl.h"

namespace {

using exercise::KaelLayout;
using exercise::layout_from_numpy;
using exercise::NumpyArray;
using kael::DType;
using kael::Shape;
using kael::Strides;

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t k2To62 = std::int64_t{1} << 62;

// 4 KiB on a 64-byte boundary: base() + k is aligned to exactly the powers of two that
// divide k, which is what the alignment tests step through.
std::byte* base() {
    alignas(64) static std::array<std::byte, 4096> buffer{};
    return buffer.data();
}

NumpyArray array(std::byte* data, std::vector<std::int64_t> shape, std::vector<std::int64_t> strides,
                 char kind = 'f', std::int64_t itemsize = 4, bool writeable = true) {
    NumpyArray a;
    a.data = data;
    a.shape = std::move(shape);
    a.strides = std::move(strides);
    a.kind = kind;
    a.itemsize = itemsize;
    a.writeable = writeable;
    return a;
}

// A tensor over `nbytes` bytes from `data`, kept alive by `owner`, built the way
// kael.from_numpy builds one: external storage and an impl with the layout's fields.
kael::Tensor tensor_over(std::byte* data, const KaelLayout& layout, std::int64_t nbytes,
                         std::shared_ptr<void> owner) {
    auto impl = std::make_shared<kael::TensorImpl>();
    impl->storage = std::make_shared<kael::Storage>(kael::Storage::external(data, nbytes, std::move(owner)));
    impl->shape = layout.shape;
    impl->strides = layout.strides;
    impl->dtype = layout.dtype;
    impl->device = kael::Device::CPU;
    return kael::Tensor::from_impl(std::move(impl));
}

TEST(LayoutFromNumpy, TheFourDTypesKaelHas) {
    struct Case {
        char kind;
        std::int64_t itemsize;
        DType dtype;
    };
    for (const Case& c : {Case{'f', 4, DType::F32}, Case{'f', 8, DType::F64}, Case{'i', 8, DType::I64},
                          Case{'b', 1, DType::Bool}}) {
        // np.zeros(3, dtype): shape (3,), strides (itemsize,)
        const KaelLayout layout = layout_from_numpy(array(base(), {3}, {c.itemsize}, c.kind, c.itemsize));
        EXPECT_EQ(layout.dtype, c.dtype) << c.kind << c.itemsize;
        EXPECT_EQ(layout.shape, (Shape{3})) << c.kind << c.itemsize;
        EXPECT_EQ(layout.strides, (Strides{1})) << c.kind << c.itemsize;
        EXPECT_EQ(layout.nbytes, 3 * c.itemsize) << c.kind << c.itemsize;
    }
}

TEST(LayoutFromNumpy, EveryOtherDTypeIsATypeError) {
    struct Case {
        char kind;
        std::int64_t itemsize;
    };
    // float16, float128, int8, int16, int32, uint8 to uint64, complex64, complex128, bytes,
    // object, void, datetime64, and sizes no dtype has.
    for (const Case& c : {Case{'f', 2}, Case{'f', 16}, Case{'i', 1}, Case{'i', 2}, Case{'i', 4}, Case{'u', 1},
                          Case{'u', 2}, Case{'u', 4}, Case{'u', 8}, Case{'b', 2}, Case{'b', 8}, Case{'c', 8},
                          Case{'c', 16}, Case{'S', 4}, Case{'O', 8}, Case{'V', 8}, Case{'M', 8}, Case{'f', 0},
                          Case{'i', 0}, Case{'f', -4}}) {
        const std::int64_t step = c.itemsize > 0 ? c.itemsize : 1;
        EXPECT_THROW((void)layout_from_numpy(array(base(), {3}, {step}, c.kind, c.itemsize)), kael::TypeError)
            << c.kind << c.itemsize;
    }
}

TEST(LayoutFromNumpy, TheDTypeIsCheckedBeforeAnythingElse) {
    // Each of these is wrong twice; the dtype is what the error is about.
    EXPECT_THROW((void)layout_from_numpy(array(base(), {3}, {1}, 'u', 1, false)), kael::TypeError);  // read-only
    EXPECT_THROW((void)layout_from_numpy(array(base(), {3}, {-4}, 'i', 4)), kael::TypeError);        // negative
    EXPECT_THROW((void)layout_from_numpy(array(base() + 2, {3}, {4}, 'i', 4)), kael::TypeError);     // misaligned
    EXPECT_THROW((void)layout_from_numpy(array(base(), {3}, {3}, 'f', 2)), kael::TypeError);         // fractional
    EXPECT_THROW((void)layout_from_numpy(array(base(), {3}, {}, 'f', 2)), kael::TypeError);          // no strides
}

TEST(LayoutFromNumpy, ContiguousArraysDivideByTheItemsize) {
    // np.zeros((2, 3, 4), np.float32).strides == (48, 16, 4)
    KaelLayout layout = layout_from_numpy(array(base(), {2, 3, 4}, {48, 16, 4}));
    EXPECT_EQ(layout.dtype, DType::F32);
    EXPECT_EQ(layout.shape, (Shape{2, 3, 4}));
    EXPECT_EQ(layout.strides, (Strides{12, 4, 1}));
    EXPECT_EQ(layout.nbytes, 96);
    // np.zeros((2, 3)).strides == (24, 8)
    layout = layout_from_numpy(array(base(), {2, 3}, {24, 8}, 'f', 8));
    EXPECT_EQ(layout.dtype, DType::F64);
    EXPECT_EQ(layout.strides, (Strides{3, 1}));
    EXPECT_EQ(layout.nbytes, 48);
    // np.zeros((2, 5), bool).strides == (5, 1): a bool's stride is already in elements
    layout = layout_from_numpy(array(base(), {2, 5}, {5, 1}, 'b', 1));
    EXPECT_EQ(layout.dtype, DType::Bool);
    EXPECT_EQ(layout.strides, (Strides{5, 1}));
    EXPECT_EQ(layout.nbytes, 10);
}

TEST(LayoutFromNumpy, TransposesAndSlicesKeepTheirBytes) {
    // a = np.zeros((3, 4), np.float32), strides (16, 4).
    // a.T: shape (4, 3), strides (4, 16)
    KaelLayout layout = layout_from_numpy(array(base(), {4, 3}, {4, 16}));
    EXPECT_EQ(layout.shape, (Shape{4, 3}));
    EXPECT_EQ(layout.strides, (Strides{1, 4}));
    EXPECT_EQ(layout.nbytes, 3 * 4 + 2 * 16 + 4);  // ends at the last element, a[2, 3]
    // a[:, ::2]: shape (3, 2), strides (16, 8)
    layout = layout_from_numpy(array(base(), {3, 2}, {16, 8}));
    EXPECT_EQ(layout.strides, (Strides{4, 2}));
    EXPECT_EQ(layout.nbytes, 2 * 16 + 1 * 8 + 4);
    // a[1:, 1:]: the data pointer moves 20 bytes, shape (2, 3), strides (16, 4)
    layout = layout_from_numpy(array(base() + 20, {2, 3}, {16, 4}));
    EXPECT_EQ(layout.strides, (Strides{4, 1}));
    EXPECT_EQ(layout.nbytes, 16 + 2 * 4 + 4);
    // np.zeros((2, 3), order='F'): strides (8, 16)
    layout = layout_from_numpy(array(base(), {2, 3}, {8, 16}, 'f', 8));
    EXPECT_EQ(layout.strides, (Strides{1, 2}));
    EXPECT_EQ(layout.nbytes, 8 + 2 * 16 + 8);
}

TEST(LayoutFromNumpy, StridesMustBeWholeElements) {
    EXPECT_EQ(layout_from_numpy(array(base(), {3}, {12})).strides, (Strides{3}));
    EXPECT_THROW((void)layout_from_numpy(array(base(), {3}, {13})), kael::ValueError);
    EXPECT_THROW((void)layout_from_numpy(array(base(), {3}, {11})), kael::ValueError);
    EXPECT_THROW((void)layout_from_numpy(array(base(), {3}, {6})), kael::ValueError);  // half an element
    EXPECT_EQ(layout_from_numpy(array(base(), {3}, {16}, 'f', 8)).strides, (Strides{2}));
    EXPECT_THROW((void)layout_from_numpy(array(base(), {3}, {12}, 'f', 8)), kael::ValueError);
    EXPECT_THROW((void)layout_from_numpy(array(base(), {3}, {4}, 'f', 8)), kael::ValueError);
    EXPECT_THROW((void)layout_from_numpy(array(base(), {3}, {20}, 'i', 8)), kael::ValueError);
    EXPECT_EQ(layout_from_numpy(array(base(), {3}, {3}, 'b', 1)).strides, (Strides{3}));  // any bool stride
    // Either dimension may be the one that is off.
    EXPECT_EQ(layout_from_numpy(array(base(), {2, 3}, {12, 4})).strides, (Strides{3, 1}));
    EXPECT_THROW((void)layout_from_numpy(array(base(), {2, 3}, {12, 5})), kael::ValueError);
    EXPECT_THROW((void)layout_from_numpy(array(base(), {2, 3}, {13, 4})), kael::ValueError);
    // The float field of a packed record array, np.zeros(4, 'u1,<f4')['f1']: the records
    // are 5 bytes long and the field starts at byte 1.
    EXPECT_THROW((void)layout_from_numpy(array(base() + 1, {4}, {5})), kael::ValueError);
}

TEST(LayoutFromNumpy, NegativeStridesAreRefused) {
    // a[::-1] for a float32 array of 3: the data pointer is the last element, stride -4.
    EXPECT_THROW((void)layout_from_numpy(array(base() + 8, {3}, {-4})), kael::ValueError);
    EXPECT_THROW((void)layout_from_numpy(array(base(), {3}, {-1}, 'b', 1)), kael::ValueError);
    EXPECT_THROW((void)layout_from_numpy(array(base() + 32, {3, 4}, {-16, 4})), kael::ValueError);
    EXPECT_THROW((void)layout_from_numpy(array(base() + 12, {3, 4}, {16, -4})), kael::ValueError);
    // 0 is the smallest stride allowed: np.lib.stride_tricks.as_strided(x, (3, 4), (0, 4))
    // repeats one row three times.
    const KaelLayout layout = layout_from_numpy(array(base(), {3, 4}, {0, 4}));
    EXPECT_EQ(layout.strides, (Strides{0, 1}));
    EXPECT_EQ(layout.nbytes, 16);
}

TEST(LayoutFromNumpy, TheDataMustBeAlignedToTheItemsize) {
    EXPECT_NO_THROW((void)layout_from_numpy(array(base(), {3}, {4})));
    EXPECT_NO_THROW((void)layout_from_numpy(array(base() + 4, {3}, {4})));
    for (const std::ptrdiff_t off : {1, 2, 3, 5}) {
        EXPECT_THROW((void)layout_from_numpy(array(base() + off, {3}, {4})), kael::ValueError) << off;
    }
    EXPECT_NO_THROW((void)layout_from_numpy(array(base() + 8, {3}, {8}, 'f', 8)));
    EXPECT_NO_THROW((void)layout_from_numpy(array(base() + 16, {3}, {8}, 'i', 8)));
    for (const std::ptrdiff_t off : {1, 4, 7, 9}) {
        EXPECT_THROW((void)layout_from_numpy(array(base() + off, {3}, {8}, 'f', 8)), kael::ValueError) << off;
        EXPECT_THROW((void)layout_from_numpy(array(base() + off, {3}, {8}, 'i', 8)), kael::ValueError) << off;
    }
    // A bool is one byte: every address is aligned.
    for (const std::ptrdiff_t off : {1, 3, 7}) {
        EXPECT_NO_THROW((void)layout_from_numpy(array(base() + off, {3}, {1}, 'b', 1))) << off;
    }
}

TEST(LayoutFromNumpy, ReadOnlyArraysAreRefused) {
    EXPECT_NO_THROW((void)layout_from_numpy(array(base(), {2, 3}, {12, 4}, 'f', 4, true)));
    EXPECT_THROW((void)layout_from_numpy(array(base(), {2, 3}, {12, 4}, 'f', 4, false)), kael::ValueError);
    // np.broadcast_to(x, (3, 4)) is read-only, exactly because its rows share memory.
    EXPECT_THROW((void)layout_from_numpy(array(base(), {3, 4}, {0, 4}, 'f', 4, false)), kael::ValueError);
    EXPECT_THROW((void)layout_from_numpy(array(base(), {4}, {1}, 'b', 1, false)), kael::ValueError);
}

TEST(LayoutFromNumpy, TheExtentEndsAtTheLastElement) {
    // Every other float32 of a 6-element buffer: the last element starts at byte 16 and
    // the view needs 20 bytes, not 24. The gap after it belongs to somebody else.
    EXPECT_EQ(layout_from_numpy(array(base(), {3}, {8})).nbytes, 20);
    EXPECT_EQ(layout_from_numpy(array(base(), {2, 3}, {24, 8})).nbytes, 24 + 16 + 4);
    EXPECT_EQ(layout_from_numpy(array(base(), {4}, {8}, 'f', 8)).nbytes, 32);
    EXPECT_EQ(layout_from_numpy(array(base(), {2, 2}, {16, 8}, 'i', 8)).nbytes, 32);
    // A scalar read everywhere, np.lib.stride_tricks.as_strided(x, (3, 4), (0, 0)): one element.
    EXPECT_EQ(layout_from_numpy(array(base(), {3, 4}, {0, 0})).nbytes, 4);
}

TEST(LayoutFromNumpy, SizeOneDimensionsAddNoBytes) {
    // NumPy may give a size-1 dimension any stride; it is never stepped along.
    KaelLayout layout = layout_from_numpy(array(base(), {1, 3}, {std::int64_t{1} << 40, 4}));
    EXPECT_EQ(layout.strides, (Strides{std::int64_t{1} << 38, 1}));
    EXPECT_EQ(layout.nbytes, 12);
    layout = layout_from_numpy(array(base(), {3, 1}, {4, k2To62}));
    EXPECT_EQ(layout.strides, (Strides{1, k2To62 / 4}));
    EXPECT_EQ(layout.nbytes, 12);
    EXPECT_EQ(layout_from_numpy(array(base(), {1}, {kInt64Max - 7}, 'f', 8)).nbytes, 8);
    EXPECT_EQ(layout_from_numpy(array(base(), {1, 1, 1}, {0, 0, 0}, 'b', 1)).nbytes, 1);
    // The rules still apply to its stride, as in kael.from_numpy and torch.from_numpy.
    EXPECT_THROW((void)layout_from_numpy(array(base(), {1, 3}, {6, 4})), kael::ValueError);
    EXPECT_THROW((void)layout_from_numpy(array(base(), {1, 3}, {-12, 4})), kael::ValueError);
}

TEST(LayoutFromNumpy, EmptyArraysNeedNoBytes) {
    // np.zeros(0, np.float32): shape (0,), strides (4,)
    KaelLayout layout = layout_from_numpy(array(base(), {0}, {4}));
    EXPECT_EQ(layout.shape, (Shape{0}));
    EXPECT_EQ(layout.strides, (Strides{1}));
    EXPECT_EQ(layout.nbytes, 0);
    // np.zeros((2, 0, 3), np.float32): strides (12, 12, 4)
    layout = layout_from_numpy(array(base(), {2, 0, 3}, {12, 12, 4}));
    EXPECT_EQ(layout.shape, (Shape{2, 0, 3}));
    EXPECT_EQ(layout.strides, (Strides{3, 3, 1}));
    EXPECT_EQ(layout.nbytes, 0);
    // Nothing is reached, however far the other strides point, and there may be no data.
    EXPECT_EQ(layout_from_numpy(array(base(), {3, 0}, {k2To62, 4})).nbytes, 0);
    EXPECT_EQ(layout_from_numpy(array(base(), {0, 5}, {kInt64Max - 7, k2To62}, 'i', 8)).nbytes, 0);
    EXPECT_EQ(layout_from_numpy(array(nullptr, {0}, {8}, 'f', 8)).nbytes, 0);
    // The description is still checked as a whole.
    EXPECT_THROW((void)layout_from_numpy(array(base(), {0}, {6})), kael::ValueError);
    EXPECT_THROW((void)layout_from_numpy(array(base(), {0}, {-4})), kael::ValueError);
    EXPECT_THROW((void)layout_from_numpy(array(base() + 2, {0}, {4})), kael::ValueError);
    EXPECT_THROW((void)layout_from_numpy(array(base(), {0}, {4}, 'f', 4, false)), kael::ValueError);
    EXPECT_THROW((void)layout_from_numpy(array(base(), {0}, {4}, 'i', 4)), kael::TypeError);
}

TEST(LayoutFromNumpy, ZeroDimensionalArraysHoldOneElement) {
    // np.array(2.5): shape (), strides ()
    KaelLayout layout = layout_from_numpy(array(base(), {}, {}, 'f', 8));
    EXPECT_EQ(layout.dtype, DType::F64);
    EXPECT_TRUE(layout.shape.empty());
    EXPECT_TRUE(layout.strides.empty());
    EXPECT_EQ(layout.nbytes, 8);
    EXPECT_EQ(layout_from_numpy(array(base() + 3, {}, {}, 'b', 1)).nbytes, 1);
    EXPECT_EQ(layout_from_numpy(array(base() + 4, {}, {})).nbytes, 4);
    EXPECT_THROW((void)layout_from_numpy(array(base() + 2, {}, {})), kael::ValueError);
    EXPECT_THROW((void)layout_from_numpy(array(base(), {}, {}, 'f', 4, false)), kael::ValueError);
    EXPECT_THROW((void)layout_from_numpy(array(base(), {}, {}, 'u', 8)), kael::TypeError);
}

TEST(LayoutFromNumpy, InconsistentDescriptionsAreRefused) {
    EXPECT_THROW((void)layout_from_numpy(array(base(), {2, 3}, {4})), kael::ValueError);
    EXPECT_THROW((void)layout_from_numpy(array(base(), {2, 3}, {12, 4, 4})), kael::ValueError);
    EXPECT_THROW((void)layout_from_numpy(array(base(), {}, {4})), kael::ValueError);
    EXPECT_THROW((void)layout_from_numpy(array(base(), {2, -3}, {12, 4})), kael::ValueError);
}

TEST(LayoutFromNumpy, ExtentsPastInt64AreRefused) {
    // Two float32 elements: the second starts at the stride and ends 4 bytes later.
    EXPECT_EQ(layout_from_numpy(array(base(), {2}, {kInt64Max - 7})).nbytes, kInt64Max - 3);
    EXPECT_THROW((void)layout_from_numpy(array(base(), {2}, {kInt64Max - 3})), kael::ValueError);
    // 2 * 2^62 = 2^63, and 2^62 + 2^62 = 2^63: both wrap around in int64.
    EXPECT_THROW((void)layout_from_numpy(array(base(), {3}, {k2To62})), kael::ValueError);
    EXPECT_THROW((void)layout_from_numpy(array(base(), {2, 2}, {k2To62, k2To62})), kael::ValueError);
    EXPECT_EQ(layout_from_numpy(array(base(), {2, 2}, {k2To62, k2To62 / 2})).nbytes, k2To62 + k2To62 / 2 + 4);
}

TEST(LayoutFromNumpy, ATensorOverTheSameBytesReadsThroughTheStrides) {
    // A float32 array a of shape (3, 4) with a[i, j] = 10 i + j, in a std::vector of bytes
    // that the tensor's storage keeps alive.
    auto bytes = std::make_shared<std::vector<std::byte>>(48);
    for (std::int64_t i = 0; i < 3; ++i) {
        for (std::int64_t j = 0; j < 4; ++j) {
            const auto value = static_cast<float>(10 * i + j);
            std::memcpy(bytes->data() + 16 * i + 4 * j, &value, sizeof value);
        }
    }
    // v = a[:, 1::2].T: the data pointer moves to a[0, 1]; shape (2, 3), strides (8, 16).
    // v[i, j] is a[j, 1 + 2 i].
    std::byte* data = bytes->data() + 4;
    const KaelLayout layout = layout_from_numpy(array(data, {2, 3}, {8, 16}));
    ASSERT_EQ(layout.strides, (Strides{2, 4}));
    const std::weak_ptr<std::vector<std::byte>> watch = bytes;
    const kael::Tensor v = tensor_over(data, layout, layout.nbytes, std::move(bytes));
    EXPECT_EQ(v.shape(), (Shape{2, 3}));
    EXPECT_FALSE(v.is_contiguous());
    EXPECT_EQ(v.data_ptr_raw(), data);  // the same bytes, not a copy
    for (std::int64_t i = 0; i < 2; ++i) {
        for (std::int64_t j = 0; j < 3; ++j) {
            EXPECT_EQ(v.at<float>({i, j}), static_cast<float>(10 * j + 1 + 2 * i)) << i << ", " << j;
        }
    }
    // A write through the tensor lands where NumPy keeps a[2, 3]: byte 2 * 16 + 3 * 4.
    v.at<float>({1, 2}) = -1.0F;
    float written = 0;
    std::memcpy(&written, data + 40, sizeof written);  // data is a[0, 1], byte 4
    EXPECT_EQ(written, -1.0F);
    // The storage's owner is all that keeps the vector alive now.
    EXPECT_FALSE(watch.expired());
}

TEST(LayoutFromNumpy, Int64AndBoolTensorsOverTheirArrays) {
    auto bytes = std::make_shared<std::vector<std::byte>>(64);
    for (std::int64_t k = 0; k < 8; ++k) {
        const std::int64_t value = 100 + k;
        std::memcpy(bytes->data() + 8 * k, &value, sizeof value);
    }
    // np.arange(100, 108).reshape(2, 4)[:, ::3]: shape (2, 2), strides (32, 24)
    const KaelLayout ints = layout_from_numpy(array(bytes->data(), {2, 2}, {32, 24}, 'i', 8));
    const kael::Tensor t = tensor_over(bytes->data(), ints, ints.nbytes, bytes);
    EXPECT_EQ(t.dtype(), DType::I64);
    EXPECT_EQ(t.at<std::int64_t>({0, 0}), 100);
    EXPECT_EQ(t.at<std::int64_t>({0, 1}), 103);
    EXPECT_EQ(t.at<std::int64_t>({1, 0}), 104);
    EXPECT_EQ(t.at<std::int64_t>({1, 1}), 107);

    // Bools are single bytes holding 0 or 1: here bytes 1 and 4, three apart.
    auto flags = std::make_shared<std::vector<std::byte>>(8, std::byte{0});
    (*flags)[4] = std::byte{1};
    const KaelLayout bools = layout_from_numpy(array(flags->data() + 1, {2}, {3}, 'b', 1));
    const kael::Tensor b = tensor_over(flags->data() + 1, bools, bools.nbytes, flags);
    EXPECT_EQ(b.dtype(), DType::Bool);
    EXPECT_EQ(b.at<std::uint8_t>({0}), 0);
    EXPECT_EQ(b.at<std::uint8_t>({1}), 1);
}

TEST(LayoutFromNumpy, TheExtentIsExactlyWhatTheTensorNeeds) {
    // The tensor accepts storage of layout.nbytes bytes and refuses one byte less: the
    // extent covers the last element and nothing after it.
    auto bytes = std::make_shared<std::vector<std::byte>>(256);
    const std::vector<NumpyArray> arrays{
        array(bytes->data(), {2, 3, 4}, {48, 16, 4}),        // contiguous
        array(bytes->data(), {4, 3}, {4, 16}),               // transposed
        array(bytes->data() + 4, {3, 2}, {16, 8}),           // sliced
        array(bytes->data(), {3, 4}, {0, 4}),                // rows repeated
        array(bytes->data(), {1, 3}, {k2To62, 8}, 'f', 8),   // a size-1 dimension far out
        array(bytes->data(), {5, 2}, {3, 1}, 'b', 1),        // bool rows with gaps
        array(bytes->data() + 8, {}, {}, 'i', 8),            // 0-d
    };
    for (std::size_t k = 0; k < arrays.size(); ++k) {
        const KaelLayout layout = layout_from_numpy(arrays[k]);
        ASSERT_GT(layout.nbytes, 0) << k;
        EXPECT_NO_THROW((void)tensor_over(arrays[k].data, layout, layout.nbytes, bytes)) << k;
        EXPECT_THROW((void)tensor_over(arrays[k].data, layout, layout.nbytes - 1, bytes), kael::Error) << k;
    }
    // An empty array's tensor needs no byte at all.
    const KaelLayout empty = layout_from_numpy(array(bytes->data(), {2, 0, 3}, {12, 12, 4}));
    EXPECT_EQ(tensor_over(bytes->data(), empty, empty.nbytes, bytes).numel(), 0);
}

}  // namespace

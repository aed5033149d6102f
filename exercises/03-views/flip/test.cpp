// Tests of exercise 03.1. Every test fails until flip is implemented.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "exercise.h"
#include "kael/factory.h"

namespace {

using exercise::flip;
using kael::DType;
using kael::Shape;
using kael::Strides;
using kael::Tensor;

// The elements of an int64 tensor of any layout, in logical order.
std::vector<std::int64_t> values(const Tensor& t) {
    std::vector<std::int64_t> out;
    const Tensor c = t.contiguous();
    const std::int64_t* data = c.data_ptr<std::int64_t>();
    out.assign(data, data + c.numel());
    return out;
}

// [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]] as int64.
Tensor grid() { return kael::arange(0, 12, 1, DType::I64).view({3, 4}); }

TEST(Flip, ReversesAVector) {
    EXPECT_EQ(values(flip(kael::arange(0, 5, 1, DType::I64), {0})),
              (std::vector<std::int64_t>{4, 3, 2, 1, 0}));
    EXPECT_EQ(values(flip(kael::arange(0, 1, 1, DType::I64), {0})), (std::vector<std::int64_t>{0}));
}

TEST(Flip, RowsColumnsOrBoth) {
    EXPECT_EQ(values(flip(grid(), {0})),
              (std::vector<std::int64_t>{8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3}));
    EXPECT_EQ(values(flip(grid(), {1})),
              (std::vector<std::int64_t>{3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8}));
    EXPECT_EQ(values(flip(grid(), {0, 1})),
              (std::vector<std::int64_t>{11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
    EXPECT_EQ(values(flip(grid(), {1, 0})), values(flip(grid(), {0, 1})));
}

TEST(Flip, OnlyTheNamedDimensionsOfACubeMove) {
    const Tensor cube = kael::arange(0, 24, 1, DType::I64).view({2, 3, 4});
    const Tensor f = flip(cube, {0, 2});
    ASSERT_EQ(f.shape(), (Shape{2, 3, 4}));
    for (std::int64_t i = 0; i < 2; ++i) {
        for (std::int64_t j = 0; j < 3; ++j) {
            for (std::int64_t k = 0; k < 4; ++k) {
                EXPECT_EQ(f.at<std::int64_t>({i, j, k}), cube.at<std::int64_t>({1 - i, j, 3 - k}))
                    << i << ", " << j << ", " << k;
            }
        }
    }
}

TEST(Flip, NegativeDimensionsCountFromTheEnd) {
    EXPECT_EQ(values(flip(grid(), {-1})), values(flip(grid(), {1})));
    EXPECT_EQ(values(flip(grid(), {-2})), values(flip(grid(), {0})));
}

TEST(Flip, DimensionRangeIsCheckedOnBothSides) {
    EXPECT_NO_THROW((void)flip(grid(), {1}));
    EXPECT_NO_THROW((void)flip(grid(), {-2}));
    EXPECT_THROW((void)flip(grid(), {2}), kael::IndexError);
    EXPECT_THROW((void)flip(grid(), {-3}), kael::IndexError);
}

TEST(Flip, ADimensionNamedTwiceThrows) {
    EXPECT_NO_THROW((void)flip(grid(), {0, 1}));
    EXPECT_THROW((void)flip(grid(), {0, 0}), kael::ValueError);
    EXPECT_THROW((void)flip(grid(), {1, -1}), kael::ValueError);
    EXPECT_THROW((void)flip(grid(), {0, 1, -2}), kael::ValueError);
}

TEST(Flip, ResultIsAFreshContiguousTensor) {
    const Tensor g = grid();
    const Tensor f = flip(g, {0});
    EXPECT_EQ(f.shape(), g.shape());
    EXPECT_EQ(f.dtype(), DType::I64);
    EXPECT_EQ(f.strides(), (Strides{4, 1}));
    EXPECT_EQ(f.offset(), 0);
    EXPECT_FALSE(f.shares_storage(g));
    f.at<std::int64_t>({0, 0}) = 100;  // writing the result leaves the source alone
    EXPECT_EQ(g.at<std::int64_t>({2, 0}), 8);
}

TEST(Flip, AnEmptyListOfDimensionsCopies) {
    const Tensor g = grid();
    const Tensor f = flip(g, {});
    EXPECT_EQ(values(f), values(g));
    EXPECT_FALSE(f.shares_storage(g));
    EXPECT_TRUE(f.is_contiguous());
}

TEST(Flip, ReadsTransposedAndSteppedViews) {
    const Tensor t = grid().transpose(0, 1);  // [4, 3], strides [1, 4]
    EXPECT_EQ(values(flip(t, {0})),
              (std::vector<std::int64_t>{3, 7, 11, 2, 6, 10, 1, 5, 9, 0, 4, 8}));
    const Tensor s = grid().slice(0, 1).slice(1, 1, 4, 2);  // [[5, 7], [9, 11]], offset 5
    EXPECT_EQ(values(flip(s, {1})), (std::vector<std::int64_t>{7, 5, 11, 9}));
    EXPECT_EQ(values(flip(s, {0, 1})), (std::vector<std::int64_t>{11, 9, 7, 5}));
}

TEST(Flip, ReadsExpandedViews) {
    const Tensor e = kael::arange(0, 3, 1, DType::I64).expand({2, 3});  // strides [0, 1]
    EXPECT_EQ(values(flip(e, {0})), (std::vector<std::int64_t>{0, 1, 2, 0, 1, 2}));
    EXPECT_EQ(values(flip(e, {1})), (std::vector<std::int64_t>{2, 1, 0, 2, 1, 0}));
    EXPECT_TRUE(flip(e, {1}).is_contiguous());
}

TEST(Flip, EveryDtype) {
    const Tensor f32 = flip(kael::from_vector({1.5f, 2.5f, 3.5f}), {0});
    EXPECT_EQ(f32.dtype(), DType::F32);
    EXPECT_EQ(f32.at<float>({0}), 3.5f);
    const Tensor f64 = flip(kael::from_vector({1.25, 2.25}), {0});
    EXPECT_EQ(f64.dtype(), DType::F64);
    EXPECT_EQ(f64.at<double>({0}), 2.25);
    const Tensor b = flip(kael::from_vector({true, false, false}), {0});
    EXPECT_EQ(b.dtype(), DType::Bool);
    EXPECT_EQ(b.at<std::uint8_t>({0}), 0);
    EXPECT_EQ(b.at<std::uint8_t>({2}), 1);
}

TEST(Flip, ZeroDimensionalTensors) {
    const Tensor s = kael::scalar(4.0);
    EXPECT_EQ(flip(s, {}).item<float>(), 4.0f);
    EXPECT_EQ(flip(s, {0}).item<float>(), 4.0f);
    EXPECT_EQ(flip(s, {-1}).dim(), 0);
    EXPECT_THROW((void)flip(s, {1}), kael::IndexError);
    EXPECT_THROW((void)flip(s, {0, -1}), kael::ValueError);
}

TEST(Flip, TensorsWithoutElements) {
    const Tensor rows = flip(kael::zeros({0, 3}), {0});
    EXPECT_EQ(rows.shape(), (Shape{0, 3}));
    EXPECT_EQ(rows.numel(), 0);
    const Tensor columns = flip(kael::zeros({3, 0}), {1, 0});
    EXPECT_EQ(columns.shape(), (Shape{3, 0}));
    // An empty slice whose offset lies at the end of its storage.
    const Tensor past = kael::arange(0, 5, 1, DType::I64).slice(0, 5);
    EXPECT_EQ(flip(past, {0}).numel(), 0);
}

}  // namespace

// Tests of exercise 05.1. Every test fails until median is implemented.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "exercise.h"
#include "kael/factory.h"
#include "kael/random.h"

namespace {

using exercise::median;
using kael::DType;
using kael::Shape;
using kael::Tensor;
using I = std::int64_t;

const double kNan = std::nan("");

template <typename T> std::vector<T> values(const Tensor& t) {
    const Tensor c = t.contiguous();
    return std::vector<T>(c.data_ptr<T>(), c.data_ptr<T>() + c.numel());
}

TEST(Median, OddLengthPicksTheMiddleValue) {
    const kael::ValuesIndices m = median(kael::from_vector({3.0, 1.0, 2.0}), 0);
    EXPECT_EQ(m.values.item<double>(), 2.0);
    EXPECT_EQ(m.indices.item<I>(), 2);
    EXPECT_EQ(m.values.dim(), 0);
    EXPECT_EQ(m.indices.dtype(), DType::I64);
}

TEST(Median, EvenLengthPicksTheLowerMiddleValue) {
    // Sorted: 1 2 3 4. NumPy would average 2 and 3; PyTorch returns the lower one.
    const kael::ValuesIndices m = median(kael::from_vector({4.0, 1.0, 3.0, 2.0}), 0);
    EXPECT_EQ(m.values.item<double>(), 2.0);
    EXPECT_EQ(m.indices.item<I>(), 3);
}

TEST(Median, AlongEachDimension) {
    const Tensor t = kael::from_vector({5.0, 1.0, 3.0, 2.0, 8.0, 4.0}, {2, 3});
    const kael::ValuesIndices rows = median(t, 1);
    EXPECT_EQ(rows.values.shape(), (Shape{2}));
    EXPECT_EQ(values<double>(rows.values), (std::vector<double>{3, 4}));
    EXPECT_EQ(values<I>(rows.indices), (std::vector<I>{2, 2}));
    const kael::ValuesIndices columns = median(t, 0);
    EXPECT_EQ(columns.values.shape(), (Shape{3}));
    EXPECT_EQ(values<double>(columns.values), (std::vector<double>{2, 1, 3}));
    EXPECT_EQ(values<I>(columns.indices), (std::vector<I>{1, 0, 0}));
    EXPECT_EQ(values<double>(median(t, -1).values), (std::vector<double>{3, 4}));
}

TEST(Median, MiddleDimensionKeepsTheOrderOfTheOthers) {
    // [2, 3, 2]: the median over dim 1 of slice (i, :, k) lands at result [i, k].
    const Tensor t = kael::from_vector({1.0, 9.0, 2.0, 8.0, 3.0, 7.0, 60.0, 60.0, 40.0, 50.0, 50.0, 40.0}, {2, 3, 2});
    const kael::ValuesIndices m = median(t, 1);
    EXPECT_EQ(m.values.shape(), (Shape{2, 2}));
    EXPECT_EQ(values<double>(m.values), (std::vector<double>{2, 8, 50, 50}));
    EXPECT_EQ(values<I>(m.indices), (std::vector<I>{1, 1, 2, 1}));
}

TEST(Median, KeepdimKeepsASizeOneDimension) {
    const Tensor t = kael::from_vector({5.0, 1.0, 3.0, 2.0, 8.0, 4.0}, {2, 3});
    EXPECT_EQ(median(t, 1, true).values.shape(), (Shape{2, 1}));
    EXPECT_EQ(median(t, 0, true).indices.shape(), (Shape{1, 3}));
    EXPECT_EQ(values<double>(median(t, 0, true).values), (std::vector<double>{2, 1, 3}));
}

TEST(Median, TiesReportTheFirstOccurrence) {
    EXPECT_EQ(median(kael::from_vector({2.0, 1.0, 2.0, 2.0}), 0).indices.item<I>(), 0);
    const kael::ValuesIndices low = median(kael::from_vector({2.0, 2.0, 1.0, 1.0}), 0);
    EXPECT_EQ(low.values.item<double>(), 1.0);
    EXPECT_EQ(low.indices.item<I>(), 2);
}

TEST(Median, NanIsTheMedianOfAnySliceThatHoldsOne) {
    const kael::ValuesIndices one = median(kael::from_vector({1.0, kNan, 3.0}), 0);
    EXPECT_TRUE(std::isnan(one.values.item<double>()));
    EXPECT_EQ(one.indices.item<I>(), 1);
    const kael::ValuesIndices rows = median(kael::from_vector({kNan, 0.0, kNan, 4.0, 5.0, 6.0}, {2, 3}), 1);
    const std::vector<double> v = values<double>(rows.values);
    EXPECT_TRUE(std::isnan(v[0]));
    EXPECT_EQ(v[1], 5.0);
    EXPECT_EQ(values<I>(rows.indices), (std::vector<I>{0, 1}));
}

TEST(Median, StridedInputs) {
    // The transpose of [[0, 1, 2], [3, 4, 5]] and every second column of a [2, 6] tensor.
    const Tensor transposed = kael::arange(0, 6, 1, DType::F64).view({2, 3}).T();
    EXPECT_EQ(values<double>(median(transposed, 1).values), (std::vector<double>{0, 1, 2}));
    EXPECT_EQ(values<double>(median(transposed, 0).values), (std::vector<double>{1, 4}));
    const Tensor every_second = kael::from_vector({9.0, 0.0, 1.0, 0.0, 5.0, 0.0, 7.0, 0.0, 3.0, 0.0, 8.0, 0.0}, {2, 6})
                                    .slice(1, 0, 6, 2);
    const kael::ValuesIndices m = median(every_second, 1);
    EXPECT_EQ(values<double>(m.values), (std::vector<double>{5, 7}));
    EXPECT_EQ(values<I>(m.indices), (std::vector<I>{2, 0}));
}

TEST(Median, KeepsIntegerAndFloat32Dtypes) {
    const kael::ValuesIndices ints = median(kael::from_vector({I{7}, I{-3}, I{5}, I{0}}), 0);
    EXPECT_EQ(ints.values.dtype(), DType::I64);
    EXPECT_EQ(ints.values.item<I>(), 0);
    EXPECT_EQ(ints.indices.item<I>(), 3);
    const kael::ValuesIndices floats = median(kael::from_vector({2.5f, -1.f, 0.5f}), 0);
    EXPECT_EQ(floats.values.dtype(), DType::F32);
    EXPECT_EQ(floats.values.item<float>(), 0.5f);
}

TEST(Median, MatchesSortingOnRandomInputs) {
    kael::manual_seed(11);
    const Tensor t = kael::randn({7, 10}, DType::F64);
    for (const I dim : {I{0}, I{1}}) {
        const kael::ValuesIndices m = median(t, dim);
        const I slices = t.size(1 - dim);
        const I length = t.size(dim);
        for (I s = 0; s < slices; ++s) {
            std::vector<double> slice;
            for (I i = 0; i < length; ++i) {
                slice.push_back(dim == 0 ? t.at<double>({i, s}) : t.at<double>({s, i}));
            }
            std::vector<double> sorted = slice;
            std::sort(sorted.begin(), sorted.end());
            const double expected = sorted[static_cast<std::size_t>((length - 1) / 2)];
            EXPECT_EQ(m.values.at<double>({s}), expected);
            EXPECT_EQ(slice[static_cast<std::size_t>(m.indices.at<I>({s}))], expected);
        }
    }
}

TEST(Median, ZeroDimensionalInput) {
    const kael::ValuesIndices m = median(kael::scalar(4.0, DType::F64), 0);
    EXPECT_EQ(m.values.dim(), 0);
    EXPECT_EQ(m.values.item<double>(), 4.0);
    EXPECT_EQ(m.indices.item<I>(), 0);
    EXPECT_EQ(median(kael::scalar(4.0, DType::F64), -1).values.item<double>(), 4.0);
}

TEST(Median, EmptyDimensionsAndBadArguments) {
    EXPECT_THROW((void)median(kael::zeros({0}), 0), kael::IndexError);
    EXPECT_THROW((void)median(kael::zeros({3, 0}), 1), kael::IndexError);
    EXPECT_THROW((void)median(kael::zeros({2, 3}), 2), kael::IndexError);
    EXPECT_THROW((void)median(kael::from_vector({true, false}), 0), kael::TypeError);
    // Reducing a non-empty dimension of a tensor with no elements gives an empty result.
    EXPECT_EQ(median(kael::zeros({0, 3}), 1).values.shape(), (Shape{0}));
}

}  // namespace

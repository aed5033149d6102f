// sort, argsort and topk (chapter 11): the order, the ties, NaN, the dimension, the
// gradient, and the errors. PyTorch's own results on random inputs are compared in
// tests/python/test_sort.py; here the properties hold on their own.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kael/kael.h"

namespace {

using kael::DType;
using kael::Tensor;

template <typename T> std::vector<T> values_of(const Tensor& t) {
    const Tensor flat = t.cpu().contiguous();
    return {flat.data_ptr<T>(), flat.data_ptr<T>() + flat.numel()};
}

TEST(Sort, OrdersEachRowAndReturnsWhereEachValueCameFrom) {
    const Tensor t = kael::from_vector<float>({3, 1, 2, 0, 5, 4}, {2, 3});
    const auto [values, indices] = kael::sort(t, 1);
    EXPECT_EQ(values_of<float>(values), (std::vector<float>{1, 2, 3, 0, 4, 5}));
    EXPECT_EQ(values_of<std::int64_t>(indices), (std::vector<std::int64_t>{1, 2, 0, 0, 2, 1}));
    EXPECT_EQ(indices.dtype(), DType::I64);
}

TEST(Sort, AlongTheFirstDimensionOrdersColumns) {
    const Tensor t = kael::from_vector<float>({3, 1, 2, 0, 5, 4}, {2, 3});
    const auto [values, indices] = kael::sort(t, 0, true);
    EXPECT_EQ(values.shape(), (kael::Shape{2, 3}));
    EXPECT_EQ(values_of<float>(values), (std::vector<float>{3, 5, 4, 0, 1, 2}));
    EXPECT_EQ(values_of<std::int64_t>(indices), (std::vector<std::int64_t>{0, 1, 1, 1, 0, 0}));
}

TEST(Sort, EqualValuesKeepTheirOrderBothWays) {
    const Tensor t = kael::from_vector<std::int64_t>({2, 1, 2, 1, 2});
    EXPECT_EQ(values_of<std::int64_t>(kael::argsort(t)), (std::vector<std::int64_t>{1, 3, 0, 2, 4}));
    EXPECT_EQ(values_of<std::int64_t>(kael::argsort(t, -1, true)), (std::vector<std::int64_t>{0, 2, 4, 1, 3}));
}

TEST(Sort, NaNIsLargerThanEveryNumber) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    const Tensor t = kael::from_vector<float>({nan, 1, inf, -inf});
    EXPECT_EQ(values_of<std::int64_t>(kael::argsort(t)), (std::vector<std::int64_t>{3, 1, 2, 0}));
    EXPECT_EQ(values_of<std::int64_t>(kael::argsort(t, 0, true)), (std::vector<std::int64_t>{0, 2, 1, 3}));
}

TEST(Sort, ZeroDimensionalTensorIsARunOfOne) {
    const auto [values, indices] = kael::sort(kael::scalar(7.0));
    EXPECT_EQ(values.dim(), 0);
    EXPECT_EQ(indices.item<std::int64_t>(), 0);
    EXPECT_THROW((void)kael::sort(kael::scalar(7.0), 1), kael::IndexError);
}

TEST(Sort, GradientGoesBackToWhereEachValueCameFrom) {
    Tensor t = kael::from_vector<double>({3, 1, 2});
    t.requires_grad_(true);
    const auto [values, indices] = kael::sort(t);
    // d/dt of sum(values * [1, 10, 100]): the weight of each sorted place lands on its source.
    kael::sum(values * kael::from_vector<double>({1, 10, 100})).backward();
    EXPECT_EQ(values_of<double>(*t.grad()), (std::vector<double>{100, 1, 10}));
}

TEST(Topk, KeepsTheLargestInOrderOrTheSmallest) {
    const Tensor t = kael::from_vector<float>({4, 9, 1, 7, 3});
    const auto [largest, where] = kael::topk(t, 2);
    EXPECT_EQ(values_of<float>(largest), (std::vector<float>{9, 7}));
    EXPECT_EQ(values_of<std::int64_t>(where), (std::vector<std::int64_t>{1, 3}));
    EXPECT_EQ(values_of<float>(kael::topk(t, 3, 0, false).values), (std::vector<float>{1, 3, 4}));
    EXPECT_EQ(kael::topk(t, 0).values.numel(), 0);
}

TEST(Topk, AgreesWithTheFirstKOfAFullSortOnRandomRows) {
    kael::manual_seed(3);
    const Tensor t = kael::randn({6, 50});
    const Tensor sorted = kael::sort(t, 1, true).values;
    const Tensor top = kael::topk(t, 5, 1).values;
    EXPECT_TRUE(kael::allclose(top, sorted.narrow(1, 0, 5), 0.0, 0.0));
}

TEST(Topk, KOutsideTheDimensionAndBoolAreErrors) {
    const Tensor t = kael::ones({2, 3});
    EXPECT_THROW((void)kael::topk(t, 4), kael::Error);
    EXPECT_THROW((void)kael::topk(t, -1), kael::Error);
    EXPECT_THROW((void)kael::topk(t, 1, 2), kael::IndexError);
    EXPECT_THROW((void)kael::topk(kael::ones({3}, DType::Bool), 1), kael::TypeError);
}

}  // namespace

// Tests of exercise 03.2. Every test fails until unfold is implemented.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "exercise.h"
#include "kael/factory.h"
#include "kael/view.h"

namespace {

using exercise::unfold;
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

Tensor ten() { return kael::arange(0, 10, 1, DType::I64); }

// [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]] as int64.
Tensor grid() { return kael::arange(0, 12, 1, DType::I64).view({3, 4}); }

TEST(SlidingWindow, WindowsOfAVector) {
    const Tensor w = unfold(ten(), 0, 3, 2);
    EXPECT_EQ(w.shape(), (Shape{4, 3}));
    EXPECT_EQ(w.strides(), (Strides{2, 1}));
    EXPECT_EQ(values(w), (std::vector<std::int64_t>{0, 1, 2, 2, 3, 4, 4, 5, 6, 6, 7, 8}));
}

TEST(SlidingWindow, IsAViewThatKeepsTheOffset) {
    const Tensor t = ten();
    const Tensor tail = t.slice(0, 2);  // [2 .. 9], offset 2
    const Tensor w = unfold(tail, 0, 4, 4);
    EXPECT_TRUE(w.shares_storage(t));
    EXPECT_EQ(w.offset(), 2);
    EXPECT_EQ(values(w), (std::vector<std::int64_t>{2, 3, 4, 5, 6, 7, 8, 9}));
    w.at<std::int64_t>({1, 0}) = 60;
    EXPECT_EQ(t.at<std::int64_t>({6}), 60);
}

TEST(SlidingWindow, OverlappingWindowsSeeEachOthersWrites) {
    const Tensor w = unfold(ten(), 0, 3, 1);
    EXPECT_EQ(w.shape(), (Shape{8, 3}));
    EXPECT_EQ(w.strides(), (Strides{1, 1}));
    w.at<std::int64_t>({0, 2}) = 20;  // element 2 of the sequence
    EXPECT_EQ(w.at<std::int64_t>({1, 1}), 20);
    EXPECT_EQ(w.at<std::int64_t>({2, 0}), 20);
    EXPECT_EQ(kael::has_internal_overlap(w), kael::MemOverlap::TooHard);
    EXPECT_EQ(kael::has_internal_overlap(unfold(ten(), 0, 2, 2)), kael::MemOverlap::No);
    EXPECT_EQ(kael::has_internal_overlap(unfold(ten(), 0, 2, 3)), kael::MemOverlap::No);
}

TEST(SlidingWindow, LeftoverElementsAreDropped) {
    EXPECT_EQ(unfold(ten(), 0, 4, 3).shape(), (Shape{3, 4}));  // 0-3, 3-6, 6-9
    EXPECT_EQ(unfold(kael::arange(0, 9, 1, DType::I64), 0, 4, 3).shape(), (Shape{2, 4}));
    EXPECT_EQ(values(unfold(kael::arange(0, 9, 1, DType::I64), 0, 4, 3)),
              (std::vector<std::int64_t>{0, 1, 2, 3, 3, 4, 5, 6}));
}

TEST(SlidingWindow, SizeIsCheckedOnBothSides) {
    const Tensor whole = unfold(ten(), 0, 10, 1);
    EXPECT_EQ(whole.shape(), (Shape{1, 10}));
    EXPECT_EQ(values(whole), values(ten()));
    EXPECT_THROW((void)unfold(ten(), 0, 11, 1), kael::ValueError);
    EXPECT_EQ(unfold(ten(), 0, 0, 1).shape(), (Shape{11, 0}));
    EXPECT_EQ(unfold(ten(), 0, 0, 3).shape(), (Shape{4, 0}));
    EXPECT_THROW((void)unfold(ten(), 0, -1, 1), kael::ValueError);
}

TEST(SlidingWindow, StepMustBePositive) {
    EXPECT_EQ(unfold(ten(), 0, 3, 1).shape(), (Shape{8, 3}));
    EXPECT_THROW((void)unfold(ten(), 0, 3, 0), kael::ValueError);
    EXPECT_THROW((void)unfold(ten(), 0, 3, -1), kael::ValueError);
    const Tensor one = unfold(ten(), 0, 3, 20);  // a step past the end: one window
    EXPECT_EQ(one.shape(), (Shape{1, 3}));
    EXPECT_EQ(values(one), (std::vector<std::int64_t>{0, 1, 2}));
}

TEST(SlidingWindow, DimensionRangeIsCheckedOnBothSides) {
    EXPECT_EQ(unfold(grid(), 1, 2, 2).shape(), (Shape{3, 2, 2}));
    EXPECT_EQ(unfold(grid(), -2, 2, 1).shape(), (Shape{2, 4, 2}));
    EXPECT_THROW((void)unfold(grid(), 2, 2, 1), kael::IndexError);
    EXPECT_THROW((void)unfold(grid(), -3, 2, 1), kael::IndexError);
}

TEST(SlidingWindow, EitherDimensionOfAMatrix) {
    const Tensor columns = unfold(grid(), 1, 2, 2);
    EXPECT_EQ(columns.strides(), (Strides{4, 2, 1}));
    EXPECT_EQ(values(columns), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
    const Tensor rows = unfold(grid(), 0, 2, 1);
    EXPECT_EQ(rows.strides(), (Strides{4, 1, 4}));
    EXPECT_EQ(values(rows[1]), (std::vector<std::int64_t>{4, 8, 5, 9, 6, 10, 7, 11}));
}

TEST(SlidingWindow, StridedInputs) {
    const Tensor t = unfold(grid().transpose(0, 1), 0, 2, 1);  // [4, 3], strides [1, 4]
    EXPECT_EQ(t.shape(), (Shape{3, 3, 2}));
    EXPECT_EQ(t.strides(), (Strides{1, 4, 1}));
    EXPECT_EQ(values(t[2]), (std::vector<std::int64_t>{2, 3, 6, 7, 10, 11}));
    const Tensor s = unfold(grid().slice(1, 1), 1, 2, 1);  // columns 1-3
    EXPECT_EQ(s.shape(), (Shape{3, 2, 2}));
    EXPECT_EQ(s.strides(), (Strides{4, 1, 1}));
    EXPECT_EQ(s.offset(), 1);
    EXPECT_EQ(values(s[0]), (std::vector<std::int64_t>{1, 2, 2, 3}));
}

TEST(SlidingWindow, ZeroDimensionalTensors) {
    const Tensor s = kael::scalar(5.0);
    const Tensor w = unfold(s, 0, 1, 1);
    EXPECT_EQ(w.shape(), (Shape{1}));
    EXPECT_EQ(w.strides(), (Strides{1}));
    EXPECT_TRUE(w.shares_storage(s));
    EXPECT_EQ(unfold(s, -1, 0, 1).shape(), (Shape{0}));
    EXPECT_THROW((void)unfold(s, 0, 2, 1), kael::ValueError);
    EXPECT_THROW((void)unfold(s, 1, 1, 1), kael::IndexError);
}

}  // namespace

// Tests of exercise 01.1. Every test fails until for_each_position is implemented.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "exercise.h"
#include "kael/error.h"
#include "kael/shape.h"

namespace {

using kael::Index;
using kael::Shape;
using kael::Strides;

struct Visit {
    Index index;
    std::int64_t position;
};

std::vector<Visit> visits(const Shape& shape, const Strides& strides, std::int64_t offset) {
    std::vector<Visit> seen;
    exercise::for_each_position(shape, strides, offset,
                                [&](std::span<const std::int64_t> index, std::int64_t position) {
                                    seen.push_back({Index(index.begin(), index.end()), position});
                                });
    return seen;
}

// The slow, obviously right answer for every element, from chapter 01's functions.
void expect_matches_reference(const Shape& shape, const Strides& strides, std::int64_t offset) {
    const std::vector<Visit> seen = visits(shape, strides, offset);
    ASSERT_EQ(static_cast<std::int64_t>(seen.size()), kael::numel(shape));
    for (std::int64_t k = 0; k < kael::numel(shape); ++k) {
        const Index expected = kael::index_from_linear(k, shape);
        const auto i = static_cast<std::size_t>(k);
        EXPECT_EQ(seen[i].index, expected) << "call " << k;
        EXPECT_EQ(seen[i].position, kael::offset_from_index(shape, strides, offset, expected))
            << "call " << k;
    }
}

TEST(StridedIndexIterator, ContiguousLayoutVisitsConsecutivePositions) {
    const std::vector<Visit> seen = visits({2, 3}, {3, 1}, 0);
    ASSERT_EQ(seen.size(), 6u);
    for (std::size_t k = 0; k < seen.size(); ++k) {
        EXPECT_EQ(seen[k].position, static_cast<std::int64_t>(k));
    }
    expect_matches_reference({2, 3, 4}, {12, 4, 1}, 0);
}

TEST(StridedIndexIterator, TransposedLayout) { expect_matches_reference({3, 2}, {1, 3}, 0); }

TEST(StridedIndexIterator, OffsetAndGaps) {
    expect_matches_reference({2, 2}, {4, 2}, 1);
    expect_matches_reference({4, 1, 3}, {9, 100, 2}, 5);
}

TEST(StridedIndexIterator, BroadcastStrideZero) {
    const std::vector<Visit> seen = visits({3, 2}, {0, 1}, 4);
    ASSERT_EQ(seen.size(), 6u);
    EXPECT_EQ(seen[4].position, 4);
    EXPECT_EQ(seen[5].position, 5);
    expect_matches_reference({2, 3, 2}, {0, 2, 0}, 0);
}

TEST(StridedIndexIterator, ZeroDimensionalLayoutHasOneElement) {
    const std::vector<Visit> seen = visits({}, {}, 7);
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_TRUE(seen[0].index.empty());
    EXPECT_EQ(seen[0].position, 7);
}

TEST(StridedIndexIterator, ZeroSizedDimensionVisitsNothing) {
    EXPECT_TRUE(visits({3, 0, 2}, {0, 2, 1}, 0).empty());
    EXPECT_TRUE(visits({0}, {1}, 0).empty());
}

TEST(StridedIndexIterator, ManyDimensions) {
    expect_matches_reference({2, 1, 3, 1, 2, 2}, {30, 7, 8, 1, 3, 1}, 2);
}

TEST(StridedIndexIterator, InvalidLayoutsThrowValueError) {
    auto ignore = [](std::span<const std::int64_t>, std::int64_t) {};
    EXPECT_THROW(exercise::for_each_position({2, 3}, {1}, 0, ignore), kael::ValueError);
    EXPECT_THROW(exercise::for_each_position({2, -3}, {3, 1}, 0, ignore), kael::ValueError);
    EXPECT_THROW(exercise::for_each_position({2, 3}, {3, -1}, 0, ignore), kael::ValueError);
    EXPECT_THROW(exercise::for_each_position({2, 3}, {3, 1}, -1, ignore), kael::ValueError);
}

}  // namespace

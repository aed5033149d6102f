// Tests of exercise 04.2. Every test fails until coalesce is implemented.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "exercise.h"
#include "kael/broadcast.h"
#include "kael/error.h"
#include "kael/factory.h"
#include "kael/iterator.h"
#include "kael/shape.h"
#include "kael/view.h"

namespace {

using exercise::Loop;
using kael::DType;
using kael::Shape;
using kael::Strides;
using kael::Tensor;

void expect_loop(const Loop& actual, const Loop& expected) {
    EXPECT_EQ(actual.shape, expected.shape);
    EXPECT_EQ(actual.strides, expected.strides);
}

TEST(Coalesce, ContiguousOperandsBecomeOneDimension) {
    expect_loop(exercise::coalesce({{2, 3, 4}, {{48, 16, 4}, {48, 16, 4}}}), {{24}, {{4}, {4}}});
    expect_loop(exercise::coalesce({{2, 3, 4}, {{96, 32, 8}, {48, 16, 4}}}), {{24}, {{8}, {4}}});
}

TEST(Coalesce, ABroadcastInputKeepsTwoDimensions) {
    const Loop row{{1000, 1000}, {{4000, 4}, {4000, 4}, {0, 4}}};
    expect_loop(exercise::coalesce(row), row);
    const Loop column{{1000, 1000}, {{4000, 4}, {4000, 4}, {4, 0}}};
    expect_loop(exercise::coalesce(column), column);
}

TEST(Coalesce, EvenlySpacedRowsMerge) {
    // Every other column of [3, 4] (element strides [4, 2]) against a new contiguous [3, 2].
    expect_loop(exercise::coalesce({{3, 2}, {{8, 4}, {16, 8}}}), {{6}, {{4}, {8}}});
    // Every other column of [3, 5]: the rows are 20 bytes apart, not 16, so nothing merges.
    const Loop gaps{{3, 2}, {{8, 4}, {20, 8}}};
    expect_loop(exercise::coalesce(gaps), gaps);
}

TEST(Coalesce, OnlyMergesWhereEveryOperandAgrees) {
    expect_loop(exercise::coalesce({{2, 3, 4}, {{100, 16, 4}}}), {{2, 12}, {{100, 4}}});
    expect_loop(exercise::coalesce({{2, 3, 4}, {{48, 16, 4}, {100, 16, 4}}}),
                {{2, 12}, {{48, 4}, {100, 4}}});
    const Loop transposed{{4, 3}, {{12, 4}, {4, 16}}};
    expect_loop(exercise::coalesce(transposed), transposed);
}

TEST(Coalesce, SizeOneDimensionsAreLeftOut) {
    expect_loop(exercise::coalesce({{3, 1, 2}, {{8, 999, 4}}}), {{6}, {{4}}});
    expect_loop(exercise::coalesce({{1, 4}, {{77, 4}}}), {{4}, {{4}}});
    expect_loop(exercise::coalesce({{4, 1}, {{4, 77}}}), {{4}, {{4}}});
    // Nothing but size-1 dimensions: one element, a 0-d loop.
    expect_loop(exercise::coalesce({{1, 1}, {{5, 7}}}), {{}, {{}}});
    expect_loop(exercise::coalesce({{1}, {{4}, {0}}}), {{}, {{}, {}}});
    const Loop two{{2, 4}, {{77, 4}}};
    expect_loop(exercise::coalesce(two), two);
}

TEST(Coalesce, StrideZeroMergesWithStrideZero) {
    // A scalar broadcast over everything never moves, in any dimension.
    expect_loop(exercise::coalesce({{3, 4}, {{16, 4}, {0, 0}}}), {{12}, {{4}, {0}}});
    const Loop row{{3, 4}, {{16, 4}, {0, 4}}};
    expect_loop(exercise::coalesce(row), row);
}

TEST(Coalesce, ZeroAndOneDimensionalLoops) {
    expect_loop(exercise::coalesce({{}, {{}, {}}}), {{}, {{}, {}}});
    const Loop one{{5}, {{4}, {0}}};
    expect_loop(exercise::coalesce(one), one);
}

TEST(Coalesce, InvalidInputThrows) {
    EXPECT_THROW((void)exercise::coalesce({{3}, {}}), kael::ValueError);
    EXPECT_THROW((void)exercise::coalesce({{3, 4}, {{16, 4}, {4}}}), kael::ValueError);
    EXPECT_THROW((void)exercise::coalesce({{-3}, {{4}}}), kael::ValueError);
}

// The iterator's strides before coalescing: bytes, with 0 for added and size-1 dimensions.
Strides broadcast_byte_strides(const Tensor& t, const Shape& shape) {
    Strides strides(shape.size(), 0);
    const std::size_t lead = shape.size() - t.shape().size();
    for (std::size_t i = 0; i < t.shape().size(); ++i) {
        if (t.shape()[i] != 1) {
            strides[lead + i] = t.strides()[i] * kael::element_size(t.dtype());
        }
    }
    return strides;
}

// An input of the loop shape's trailing dimensions, some of them size 1, in a random layout.
Tensor random_input(std::mt19937& rng, const Shape& shape, DType dtype) {
    const auto pick = [&](int low, int high) {
        return std::uniform_int_distribution<int>(low, high)(rng);
    };
    Shape own(shape.begin() + pick(0, static_cast<int>(shape.size())), shape.end());
    for (std::int64_t& size : own) {
        if (pick(0, 3) == 0) {
            size = 1;
        }
    }
    switch (pick(0, 3)) {
        case 0:
            return kael::zeros(own, dtype);
        case 1: {  // every dimension reversed in memory
            const Shape reversed(own.rbegin(), own.rend());
            std::vector<std::int64_t> dims;
            for (std::size_t i = own.size(); i-- > 0;) {
                dims.push_back(static_cast<std::int64_t>(i));
            }
            return kael::zeros(reversed, dtype).permute(dims);
        }
        case 2: {  // every other element along the last dimension
            if (own.empty()) {
                return kael::zeros(own, dtype);
            }
            Shape wide = own;
            wide.back() *= 2;
            return kael::zeros(wide, dtype).slice(-1, 0, wide.back(), 2);
        }
        default: {  // a size-1 dimension stretched by expand
            if (own.empty() || own.front() == 1) {
                return kael::zeros(own, dtype);
            }
            Shape single = own;
            single.front() = 1;
            return kael::zeros(single, dtype).expand(own);
        }
    }
}

TEST(Coalesce, MatchesTheIteratorOnRandomLayouts) {
    // With a contiguous output the iterator keeps the dimensions in order (the output
    // decides first), so its loop is exactly the coalesced loop of the broadcast byte
    // strides.
    std::mt19937 rng(404);
    const auto pick = [&](int low, int high) {
        return std::uniform_int_distribution<int>(low, high)(rng);
    };
    int merged = 0;
    for (int round = 0; round < 400; ++round) {
        Shape shape(static_cast<std::size_t>(pick(0, 4)));
        for (std::int64_t& size : shape) {
            size = pick(1, 4);
        }
        const DType input_dtype = pick(0, 1) == 0 ? DType::F32 : DType::I64;
        kael::TensorIteratorConfig config;
        std::vector<Tensor> inputs;
        std::vector<Shape> input_shapes;
        const int count = pick(1, 3);
        for (int k = 0; k < count; ++k) {
            inputs.push_back(random_input(rng, shape, input_dtype));
            input_shapes.push_back(inputs.back().shape());
            config.add_input(inputs.back());
        }
        config.add_output(kael::empty(kael::broadcast_shapes(input_shapes), pick(0, 1) == 0 ? DType::F32 : DType::F64));
        const kael::TensorIterator iter = config.build();

        // The inputs may not cover every dimension of `shape`: the loop is their broadcast.
        const Shape& loop_shape = iter.output().shape();
        Loop loop{loop_shape, {broadcast_byte_strides(iter.output(), loop_shape)}};
        for (const Tensor& input : inputs) {
            loop.strides.push_back(broadcast_byte_strides(input, loop_shape));
        }
        const Loop ours = exercise::coalesce(loop);
        ASSERT_EQ(ours.shape, iter.shape()) << "round " << round;
        ASSERT_EQ(ours.strides.size(), iter.num_operands());
        for (std::size_t i = 0; i < iter.num_operands(); ++i) {
            EXPECT_EQ(ours.strides[i], iter.byte_strides(i)) << "round " << round << ", operand " << i;
        }
        merged += ours.shape.size() < loop_shape.size() ? 1 : 0;
    }
    EXPECT_GT(merged, 100);
}

}  // namespace

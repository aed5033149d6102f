// Tests of exercise 04.1. Every test fails until broadcast_strides is implemented.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "exercise.h"
#include "kael/broadcast.h"
#include "kael/error.h"
#include "kael/factory.h"
#include "kael/shape.h"
#include "kael/view.h"

namespace {

using kael::Shape;
using kael::Strides;

std::string message_of_call(const Shape& shape, const Strides& strides, const Shape& target) {
    try {
        (void)exercise::broadcast_strides(shape, strides, target);
    } catch (const kael::Error& e) {
        return e.what();
    }
    return "no kael::Error was thrown";
}

TEST(BroadcastStrides, RowStretchesOverAMatrix) {
    EXPECT_EQ(exercise::broadcast_strides({3}, {1}, {2, 3}), (Strides{0, 1}));
    EXPECT_EQ(exercise::broadcast_strides({3}, {2}, {4, 5, 3}), (Strides{0, 0, 2}));
}

TEST(BroadcastStrides, SizeOneDimensionsStretchToStrideZero) {
    EXPECT_EQ(exercise::broadcast_strides({3, 1}, {1, 1}, {3, 4}), (Strides{1, 0}));
    EXPECT_EQ(exercise::broadcast_strides({1, 3}, {7, 1}, {5, 3}), (Strides{0, 1}));
    EXPECT_EQ(exercise::broadcast_strides({2, 1, 3}, {6, 3, 1}, {2, 4, 3}), (Strides{6, 0, 1}));
}

TEST(BroadcastStrides, DimensionsThatKeepTheirSizeKeepTheirStride) {
    // Size 1 staying size 1 keeps its (arbitrary) stride; stretched to 2 it becomes 0.
    EXPECT_EQ(exercise::broadcast_strides({2, 1, 3}, {9, 100, 2}, {2, 1, 3}), (Strides{9, 100, 2}));
    EXPECT_EQ(exercise::broadcast_strides({2, 1, 3}, {9, 100, 2}, {2, 2, 3}), (Strides{9, 0, 2}));
    EXPECT_EQ(exercise::broadcast_strides({4, 3}, {1, 4}, {4, 3}), (Strides{1, 4}));
}

TEST(BroadcastStrides, AddedLeadingDimensionsGetStrideZero) {
    EXPECT_EQ(exercise::broadcast_strides({4}, {2}, {1, 4}), (Strides{0, 2}));
    EXPECT_EQ(exercise::broadcast_strides({4}, {2}, {2, 3, 4}), (Strides{0, 0, 2}));
}

TEST(BroadcastStrides, ZeroDimensionalSources) {
    EXPECT_EQ(exercise::broadcast_strides({}, {}, {2, 2}), (Strides{0, 0}));
    EXPECT_EQ(exercise::broadcast_strides({}, {}, {}), (Strides{}));
}

TEST(BroadcastStrides, ZeroSizedDimensions) {
    // Size 1 may stretch to 0; size 0 matches only 0.
    EXPECT_EQ(exercise::broadcast_strides({1}, {5}, {0}), (Strides{0}));
    EXPECT_EQ(exercise::broadcast_strides({0}, {1}, {0}), (Strides{1}));
    EXPECT_EQ(exercise::broadcast_strides({0}, {1}, {3, 0}), (Strides{0, 1}));
    EXPECT_THROW((void)exercise::broadcast_strides({0}, {1}, {1}), kael::ValueError);
    EXPECT_THROW((void)exercise::broadcast_strides({0}, {1}, {2}), kael::ValueError);
}

TEST(BroadcastStrides, MismatchedSizesThrowNamingBothShapes) {
    EXPECT_THROW((void)exercise::broadcast_strides({2, 3}, {3, 1}, {2, 4}), kael::ValueError);
    EXPECT_THROW((void)exercise::broadcast_strides({3}, {1}, {3, 2}), kael::ValueError);
    const std::string message = message_of_call({2, 3}, {3, 1}, {2, 4});
    EXPECT_NE(message.find("[2, 3]"), std::string::npos) << message;
    EXPECT_NE(message.find("[2, 4]"), std::string::npos) << message;
}

TEST(BroadcastStrides, TheTargetCannotHaveFewerDimensions) {
    // Even a leading size 1 cannot be dropped: broadcasting only adds dimensions.
    EXPECT_THROW((void)exercise::broadcast_strides({1, 3}, {3, 1}, {3}), kael::ValueError);
    EXPECT_THROW((void)exercise::broadcast_strides({3}, {1}, {}), kael::ValueError);
    EXPECT_EQ(exercise::broadcast_strides({1, 3}, {3, 1}, {1, 3}), (Strides{3, 1}));
}

TEST(BroadcastStrides, InvalidInputThrows) {
    EXPECT_THROW((void)exercise::broadcast_strides({2, 3}, {1}, {2, 3}), kael::ValueError);
    EXPECT_THROW((void)exercise::broadcast_strides({-1}, {1}, {3}), kael::ValueError);
    EXPECT_THROW((void)exercise::broadcast_strides({3}, {1}, {-3}), kael::ValueError);
    EXPECT_THROW((void)exercise::broadcast_strides({3}, {-1}, {3}), kael::ValueError);
    EXPECT_EQ(exercise::broadcast_strides({3}, {0}, {3}), (Strides{0}));
}

// Random views of real tensors, broadcast to random targets: every position the result
// reads must be the one that kael's expand() reads, and every pair that does not
// broadcast must throw.
TEST(BroadcastStrides, AgreesWithExpandOnRandomLayouts) {
    std::mt19937 rng(2024);
    const auto pick = [&](int low, int high) {
        return std::uniform_int_distribution<int>(low, high)(rng);
    };
    int checked = 0;
    for (int round = 0; round < 300; ++round) {
        Shape base(static_cast<std::size_t>(pick(0, 3)));
        for (std::int64_t& size : base) {
            size = pick(1, 4);
        }
        kael::Tensor t = kael::zeros(base);
        if (t.dim() >= 2 && pick(0, 1) == 1) {
            t = t.transpose(0, t.dim() - 1);
        }
        if (t.dim() >= 1 && t.size(-1) >= 2 && pick(0, 1) == 1) {
            t = t.slice(-1, 0, t.size(-1), 2);
        }
        // A target: up to two new leading dimensions, and some size-1 dimensions stretched.
        Shape target(static_cast<std::size_t>(pick(0, 2)));
        for (std::int64_t& size : target) {
            size = pick(1, 3);
        }
        for (const std::int64_t size : t.shape()) {
            target.push_back(size == 1 && pick(0, 1) == 1 ? pick(0, 3) : size);
        }
        const bool spoil = t.dim() > 0 && pick(0, 4) == 0;
        if (spoil) {
            target.back() += 1;  // a size other than 1 now differs
        }
        if (!kael::is_broadcastable_to(t.shape(), target)) {
            EXPECT_THROW((void)exercise::broadcast_strides(t.shape(), t.strides(), target),
                         kael::ValueError)
                << kael::to_string(t.shape()) << " to " << kael::to_string(target);
            continue;
        }
        const Strides ours = exercise::broadcast_strides(t.shape(), t.strides(), target);
        const kael::Tensor expanded = t.expand(target);
        ASSERT_EQ(ours.size(), target.size());
        for (std::size_t d = 0; d < target.size(); ++d) {
            if (target[d] != 1) {
                EXPECT_EQ(ours[d], expanded.strides()[d])
                    << kael::to_string(t.shape()) << " to " << kael::to_string(target);
            }
        }
        for (std::int64_t k = 0; k < kael::numel(target); ++k) {
            const kael::Index index = kael::index_from_linear(k, target);
            EXPECT_EQ(kael::offset_from_index(target, ours, t.offset(), index),
                      kael::offset_from_index(target, expanded.strides(), expanded.offset(), index));
        }
        ++checked;
    }
    EXPECT_GT(checked, 150);
}

}  // namespace

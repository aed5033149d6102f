// Broadcasting: the shape rule every element-wise operation follows.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "helpers.h"
#include "kael/broadcast.h"

namespace {

using kael::Shape;
using kael::testing::message_of;

// ---- broadcasting --------------------------------------------------------------------------

TEST(Broadcast, AlignsAtTheLastDimension) {
    EXPECT_EQ(kael::broadcast_shapes({2, 3}, {3}), (Shape{2, 3}));
    EXPECT_EQ(kael::broadcast_shapes({3, 1}, {1, 4}), (Shape{3, 4}));
    EXPECT_EQ(kael::broadcast_shapes({5, 1, 4}, {3, 1}), (Shape{5, 3, 4}));
    EXPECT_EQ(kael::broadcast_shapes({}, {2, 2}), (Shape{2, 2}));
    EXPECT_EQ(kael::broadcast_shapes({2, 0}, {1}), (Shape{2, 0}));
    EXPECT_EQ(kael::broadcast_shapes({1}, {0}), (Shape{0}));
    const std::vector<Shape> three{{4, 1}, {1, 5}, {3, 1, 1}};
    EXPECT_EQ(kael::broadcast_shapes(three), (Shape{3, 4, 5}));
}

TEST(Broadcast, MismatchNamesBothShapes) {
    EXPECT_THROW((void)kael::broadcast_shapes({2, 3}, {4}), kael::ValueError);
    EXPECT_THROW((void)kael::broadcast_shapes({2, 0}, {2}), kael::ValueError);
    const std::string message = message_of([] { (void)kael::broadcast_shapes({2, 3}, {2}); });
    EXPECT_NE(message.find("shapes [2, 3] and [2] cannot be broadcast: sizes 3 and 2 differ at "
                           "dimension 1"),
              std::string::npos)
        << message;
}

TEST(Broadcast, IsBroadcastableTo) {
    EXPECT_TRUE(kael::is_broadcastable_to({3, 1}, {2, 3, 4}));
    EXPECT_FALSE(kael::is_broadcastable_to({2, 3, 4}, {3, 4}));
    EXPECT_FALSE(kael::is_broadcastable_to({2}, {3}));
}

}  // namespace

// The error macros: message format, lazy message construction, and the thrown type.
#include <gtest/gtest.h>

#include <string>

#include "kael/error.h"
#include "messages.h"

namespace {

using kael::testing::message_of;

TEST(Error, MessageNamesFileLineConditionAndText) {
    const std::string message = message_of([] {
        const int size = -3;
        KAEL_CHECK_VALUE(size >= 0, "size must be non-negative, got " << size);
    });
    // The file path is relative to the source root; the line is wherever the check sits.
    EXPECT_EQ(message.rfind("kael error at ", 0), 0u) << message;
    EXPECT_NE(message.find("test_error.cpp:"), std::string::npos) << message;
    EXPECT_NE(message.find(": check 'size >= 0' failed: size must be non-negative, got -3"),
              std::string::npos)
        << message;
}

TEST(Error, PassingCheckDoesNotBuildTheMessage) {
    int message_builds = 0;
    auto count_build = [&] {
        ++message_builds;
        return "built";
    };
    KAEL_CHECK(true, count_build());
    EXPECT_EQ(message_builds, 0);
    EXPECT_THROW(KAEL_CHECK(false, count_build()), kael::Error);
    EXPECT_EQ(message_builds, 1);
}

TEST(Error, ConditionIsEvaluatedOnce) {
    int evaluations = 0;
    KAEL_CHECK(++evaluations > 0, "unused");
    EXPECT_EQ(evaluations, 1);
    EXPECT_THROW(KAEL_CHECK(++evaluations < 0, "failed"), kael::Error);
    EXPECT_EQ(evaluations, 2);
}

TEST(Error, EveryCheckIsAKaelErrorAndAStdRuntimeError) {
    EXPECT_THROW(KAEL_CHECK(1 == 2, "x"), kael::Error);
    EXPECT_THROW(KAEL_CHECK_INDEX(1 == 2, "x"), kael::Error);
    EXPECT_THROW(KAEL_CHECK_VALUE(1 == 2, "x"), kael::Error);
    EXPECT_THROW(KAEL_CHECK_TYPE(1 == 2, "x"), kael::Error);
    EXPECT_THROW(KAEL_CHECK_TYPE(1 == 2, "x"), std::runtime_error);
}

TEST(Error, MacroIsOneStatementAfterAnUnbracedIf) {
    bool reached_else = false;
    if (false)
        KAEL_CHECK(false, "never evaluated");
    else
        reached_else = true;
    EXPECT_TRUE(reached_else);
}

TEST(Error, UnreachableThrowsAnInternalError) {
    try {
        kael::detail::unreachable();
        FAIL() << "unreachable() returned";
    } catch (const kael::Error& error) {
        EXPECT_STREQ(error.what(), "kael internal error: reached unreachable code");
    }
}

}  // namespace

// Tests of exercise 00.1. Every test fails until parse_version and satisfies are written.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <string_view>

#include "exercise.h"
#include "kael/error.h"
#include "kael/version.h"

namespace exercise {
// Lets GoogleTest print a Version in a failure message.
std::ostream& operator<<(std::ostream& out, const Version& v) {
    return out << v.major << '.' << v.minor << '.' << v.patch;
}
}  // namespace exercise

namespace {

using exercise::parse_version;
using exercise::satisfies;
using exercise::Version;

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

// The message of the kael::ValueError that parsing `text` throws, or a note that it threw
// nothing (or something else, which fails the test by escaping).
std::string value_error_of(std::string_view text) {
    try {
        parse_version(text);
    } catch (const kael::ValueError& e) {
        return e.what();
    }
    return "(no exception)";
}

TEST(ParseVersion, ReadsThreeNumbers) {
    EXPECT_EQ(parse_version("1.0.0"), (Version{1, 0, 0}));
    EXPECT_EQ(parse_version("12.345.6789"), (Version{12, 345, 6789}));
    EXPECT_EQ(parse_version("0.0.0"), (Version{0, 0, 0}));
}

TEST(ParseVersion, ReadsTheLibrarysOwnVersion) {
    const Version v = parse_version(kael::version());
    const std::string printed =
        std::to_string(v.major) + '.' + std::to_string(v.minor) + '.' + std::to_string(v.patch);
    EXPECT_EQ(printed, kael::version());
}

TEST(ParseVersion, NeedsExactlyThreeComponents) {
    for (const char* text : {"", "1", "1.0", "1.0.0.0", "1.0.0.", ".1.0.0", "..", "..."}) {
        EXPECT_THROW(parse_version(text), kael::ValueError) << "'" << text << "'";
    }
}

TEST(ParseVersion, ComponentsAreNonEmptyRunsOfDigits) {
    for (const char* text : {"1..0", ".1.0", "1.0.", "1.0.x", "+1.0.0", "-1.0.0", "1.-0.0",
                             " 1.0.0", "1.0.0 ", "1. 0.0", "1.0.0-rc1", "1,0,0", "0x1.0.0"}) {
        EXPECT_THROW(parse_version(text), kael::ValueError) << "'" << text << "'";
    }
}

TEST(ParseVersion, TheWholeTextCountsEvenPastANulCharacter) {
    // A parser built on C string functions would stop at the NUL and accept "1.0.0".
    EXPECT_THROW(parse_version(std::string_view("1.0.0\0junk", 10)), kael::ValueError);
    EXPECT_THROW(parse_version(std::string_view("1.0\0.0", 6)), kael::ValueError);
}

TEST(ParseVersion, LeadingZerosAreRejectedButZeroIsNot) {
    EXPECT_EQ(parse_version("0.10.0"), (Version{0, 10, 0}));
    for (const char* text : {"01.0.0", "1.00.0", "1.0.07", "00.0.0"}) {
        EXPECT_THROW(parse_version(text), kael::ValueError) << "'" << text << "'";
    }
}

TEST(ParseVersion, TheLargestInt64Fits) {
    EXPECT_EQ(parse_version("9223372036854775807.0.0"), (Version{kMax, 0, 0}));
    EXPECT_EQ(parse_version("0.0.9223372036854775807"), (Version{0, 0, kMax}));
    EXPECT_EQ(parse_version("9223372036854775799.1.2"), (Version{kMax - 8, 1, 2}));
}

TEST(ParseVersion, OneMoreOverflowsAndIsAnError) {
    // 2^63, then values whose last step would wrap, then one far beyond any 64-bit integer.
    for (const char* text : {"9223372036854775808.0.0", "0.9223372036854775810.0",
                             "0.0.9223372036854775817", "0.0.18446744073709551616",
                             "1.0.99999999999999999999999999"}) {
        EXPECT_THROW(parse_version(text), kael::ValueError) << "'" << text << "'";
    }
}

TEST(ParseVersion, ErrorsUseTheKaelFormatAndQuoteTheInput) {
    for (const char* text : {"1.0", "1.0.x", "01.0.0", "9223372036854775808.0.0"}) {
        const std::string message = value_error_of(text);
        EXPECT_EQ(message.rfind("kael error at ", 0), 0u) << message;
        EXPECT_NE(message.find("failed: "), std::string::npos) << message;
        std::string quoted = "'";
        quoted.append(text).push_back('\'');
        EXPECT_NE(message.find(quoted), std::string::npos) << message;
    }
}

TEST(Satisfies, SameMajorVersionAndAtLeastTheRequest) {
    EXPECT_TRUE(satisfies({1, 0, 0}, {1, 0, 0}));
    EXPECT_TRUE(satisfies({1, 4, 2}, {1, 0, 0}));
    EXPECT_TRUE(satisfies({1, 4, 2}, {1, 4, 1}));
    EXPECT_FALSE(satisfies({1, 0, 0}, {1, 2, 0}));
    EXPECT_FALSE(satisfies({1, 4, 1}, {1, 4, 2}));
}

TEST(Satisfies, AnotherMajorVersionNeverDoes) {
    EXPECT_FALSE(satisfies({2, 0, 0}, {1, 0, 0}));  // newer, but may break the caller
    EXPECT_FALSE(satisfies({0, 9, 9}, {1, 0, 0}));
    EXPECT_FALSE(satisfies({1, 9, 9}, {2, 0, 0}));
}

TEST(Satisfies, ComponentsCompareAsNumbersNotAsText) {
    // As strings, "1.10.0" < "1.9.0"; as versions, 1.10 is the newer one.
    EXPECT_TRUE(satisfies(parse_version("1.10.0"), parse_version("1.9.0")));
    EXPECT_FALSE(satisfies(parse_version("1.9.0"), parse_version("1.10.0")));
}

}  // namespace

// serve::StopStrings (chapter 13): a completion ends at a stop string that may arrive split
// over tokens, and no part of the stop string is ever sent.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kael/error.h"
#include "kael/serve/stop_strings.h"

namespace {

using kael::serve::StopStrings;

// Feeds `pieces` one by one and returns what was released, joined, and whether it stopped.
std::pair<std::string, bool> run(std::vector<std::string> stops, const std::vector<std::string>& pieces) {
    StopStrings stop(std::move(stops));
    std::string out;
    for (const std::string& piece : pieces) {
        out += stop.push(piece);
    }
    if (!stop.stopped()) {
        out += stop.flush();
    }
    return {out, stop.stopped()};
}

TEST(StopStrings, AStopSplitOverTokensIsFoundAndNeverSent) {
    EXPECT_EQ(run({"END"}, {"The e", "nd. E", "N", "D and more"}), (std::pair{std::string("The end. "), true}));
    EXPECT_EQ(run({"\n\n"}, {"one\n", "\ntwo"}), (std::pair{std::string("one"), true}));
}

TEST(StopStrings, ATailThatMightStartAStopIsHeldUntilTheNextTokenDecides) {
    StopStrings stop({"END"});
    EXPECT_EQ(stop.push("abcE"), "abc");  // "E" could begin "END"
    EXPECT_EQ(stop.push("N"), "");        // "EN" still could
    EXPECT_EQ(stop.push("d"), "ENd");     // "ENd" cannot: released
    EXPECT_FALSE(stop.stopped());
    EXPECT_EQ(stop.push("E"), "");
    EXPECT_EQ(stop.flush(), "E");  // the end of the completion: the held text is sent
}

TEST(StopStrings, TheEarliestOfSeveralStopsWins) {
    EXPECT_EQ(run({"zz", "b"}, {"azzb"}), (std::pair{std::string("a"), true}));
    // The one that starts first, whichever is listed first or completes first.
    EXPECT_EQ(run({"bc", "abcd"}, {"xab", "cd"}), (std::pair{std::string("x"), true}));
}

TEST(StopStrings, AfterAStopNothingMoreIsReleased) {
    StopStrings stop({"."});
    EXPECT_EQ(stop.push("end. after"), "end");
    EXPECT_TRUE(stop.stopped());
    EXPECT_EQ(stop.push("more"), "");
}

TEST(StopStrings, WithoutStopsEverythingIsReleasedAtOnce) {
    StopStrings stop({});
    EXPECT_EQ(stop.push("anything END"), "anything END");
    EXPECT_EQ(stop.flush(), "");
    EXPECT_FALSE(stop.stopped());
}

TEST(StopStrings, MultiByteCharactersAreNeverCut) {
    // "é" is two bytes; a stop string that starts with it is held back whole or not at all.
    EXPECT_EQ(run({"\xc3\xa9t\xc3\xa9"}, {"caf\xc3\xa9", "!"}), (std::pair{std::string("caf\xc3\xa9!"), false}));
    EXPECT_EQ(run({"\xc3\xa9t\xc3\xa9"}, {"l'\xc3\xa9", "t\xc3\xa9"}), (std::pair{std::string("l'"), true}));
}

TEST(StopStrings, AnEmptyStopIsRefused) {
    EXPECT_THROW(StopStrings({"ok", ""}), kael::ValueError);
}

}  // namespace

// Tests of exercise 13.2. Every test fails until held_back and release are implemented.
// The rules are checked on both sides of each boundary, and release() is checked against
// kael's own serve::StopStrings on random texts and stop strings.
#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "exercise.h"
#include "kael/error.h"
#include "kael/serve/stop_strings.h"

namespace {

using exercise::held_back;
using exercise::release;
using Stops = std::vector<std::string>;

// Two-, three-byte UTF-8 characters: é, è, the em dash and the en dash.
const std::string kEAcute = "\xC3\xA9";
const std::string kEGrave = "\xC3\xA8";
const std::string kEmDash = "\xE2\x80\x94";
const std::string kEnDash = "\xE2\x80\x93";

TEST(StopHoldback, ATailOneByteShortOfAStopIsHeldBack) {
    EXPECT_EQ(held_back("hello worl", {"world"}), 4U);
    EXPECT_EQ(release("hello worl", {"world"}), "hello ");
    EXPECT_EQ(held_back("hello wor", {"world"}), 3U);
    EXPECT_EQ(held_back("hello w", {"world"}), 1U);
    EXPECT_EQ(release("hello w", {"world"}), "hello ");
    // A paragraph break as the stop: one newline might be the first half of it.
    EXPECT_EQ(held_back("one\n", {"\n\n"}), 1U);
    EXPECT_EQ(release("one\n", {"\n\n"}), "one");
}

TEST(StopHoldback, ATailThatStopsMatchingIsReleased) {
    // One byte further, and the tail can no longer become "world".
    EXPECT_EQ(held_back("hello worle", {"world"}), 0U);
    EXPECT_EQ(release("hello worle", {"world"}), "hello worle");
    EXPECT_EQ(held_back("hello wo!", {"world"}), 0U);
    EXPECT_EQ(held_back("one\nt", {"\n\n"}), 0U);
    // Only a tail is held back: the start of a stop string in the middle of the text has
    // already been decided by what follows it.
    EXPECT_EQ(held_back("wor wor!", {"world"}), 0U);
    EXPECT_EQ(release("wor wor!", {"world"}), "wor wor!");
    EXPECT_EQ(held_back("wor wor", {"world"}), 3U);
    EXPECT_EQ(release("wor wor", {"world"}), "wor ");
}

TEST(StopHoldback, AStopThatEndsTheTextIsCutAndNeverSent) {
    EXPECT_EQ(release("hello world", {"world"}), "hello ");
    EXPECT_EQ(release("world", {"world"}), "");
    EXPECT_EQ(release("one\n\n", {"\n\n"}), "one");
    EXPECT_EQ(release("one\n\ntwo", {"\n\n"}), "one");
    // The whole stop string is not a proper prefix of itself: a complete stop is release's
    // business, and held_back looks at tails alone.
    EXPECT_EQ(held_back("hello world", {"world"}), 0U);
    // Here a shorter tail, the last newline, is a proper prefix; held_back says so, and
    // release cuts at the complete stop all the same.
    EXPECT_EQ(held_back("one\n\n", {"\n\n"}), 1U);
    // One byte short of the stop, all of "worl" is held back, and nothing is cut yet.
    EXPECT_EQ(held_back("worl", {"world"}), 4U);
    EXPECT_EQ(release("worl", {"world"}), "");
}

TEST(StopHoldback, TheLongestTailIsHeldNotTheFirstFound) {
    // A stop string that overlaps itself: "a" and "aba" both begin "abab"; "aba" is longer.
    EXPECT_EQ(held_back("xaba", {"abab"}), 3U);
    EXPECT_EQ(release("xaba", {"abab"}), "x");
    EXPECT_EQ(held_back("xab", {"abab"}), 2U);
    // "aaa" does not begin "aab", but its tail "aa" does.
    EXPECT_EQ(held_back("aaa", {"aab"}), 2U);
    EXPECT_EQ(held_back("aaaa", {"aaab"}), 3U);
    EXPECT_EQ(release("aaaa", {"aaab"}), "a");
    // The tails of two stop strings overlap: "EN" begins "END", "N" begins "NDX". The
    // longer decides, in whichever order the stops are listed.
    EXPECT_EQ(held_back("xEN", {"NDX", "END"}), 2U);
    EXPECT_EQ(held_back("xEN", {"END", "NDX"}), 2U);
    EXPECT_EQ(held_back("xND", {"END", "NDX"}), 2U);
    EXPECT_EQ(release("xEN", {"NDX", "END"}), "x");
    // A one-byte stop has no proper prefix to hold; a complete one still ends the text.
    EXPECT_EQ(held_back("ab", {"c"}), 0U);
    EXPECT_EQ(held_back("abc", {"c", "bcd"}), 2U);
    EXPECT_EQ(release("abc", {"c", "bcd"}), "ab");
}

TEST(StopHoldback, TheStopThatBeginsEarliestWins) {
    EXPECT_EQ(release("azzb", {"zz", "b"}), "a");
    EXPECT_EQ(release("azzb", {"b", "zz"}), "a");
    // "bc" is complete two bytes before "abcd" is, but "abcd" begins first.
    EXPECT_EQ(release("xabcd", {"bc", "abcd"}), "x");
    EXPECT_EQ(release("xabcd", {"abcd", "bc"}), "x");
    // Two stops that begin at the same place cut at the same place.
    EXPECT_EQ(release("xabc", {"abc", "ab"}), "x");
    EXPECT_EQ(release("a.b!c", {"!", "."}), "a");
    // The first occurrence of a stop, not a later one.
    EXPECT_EQ(release("a.b.c", {"."}), "a");
    // After a complete stop, a tail that might begin another does not matter.
    EXPECT_EQ(release("aXbE", {"END", "X"}), "a");
}

TEST(StopHoldback, MultiByteStopsAreHeldBackByteByByte) {
    // The first byte of "é" could begin the stop "é": held, though it is half a character.
    EXPECT_EQ(held_back("caf\xC3", {kEAcute}), 1U);
    EXPECT_EQ(release("caf\xC3", {kEAcute}), "caf");
    EXPECT_EQ(release("caf" + kEAcute + "!", {kEAcute}), "caf");
    // "è" shares that first byte with "é" and then differs: released whole.
    EXPECT_EQ(held_back("caf" + kEGrave, {kEAcute}), 0U);
    EXPECT_EQ(release("caf" + kEGrave, {kEAcute}), "caf" + kEGrave);
    // "été", five bytes: every tail that begins it is held, whole characters or not.
    const std::string ete = kEAcute + "t" + kEAcute;
    EXPECT_EQ(held_back("l'" + kEAcute + "t\xC3", {ete}), 4U);
    EXPECT_EQ(release("l'" + kEAcute + "t\xC3", {ete}), "l'");
    EXPECT_EQ(held_back("l'" + kEAcute + "t", {ete}), 3U);
    EXPECT_EQ(held_back("l'" + kEAcute + "t" + kEGrave, {ete}), 0U);
    EXPECT_EQ(release("l'" + ete, {ete}), "l'");
    // A three-byte stop: two of its bytes are held, and the en dash, which differs in the
    // last byte, is not.
    EXPECT_EQ(held_back("a\xE2\x80", {kEmDash}), 2U);
    EXPECT_EQ(held_back("a" + kEnDash, {kEmDash}), 0U);
    EXPECT_EQ(release("a" + kEmDash + "b", {kEmDash}), "a");
}

TEST(StopHoldback, AnEmptyTextReleasesAndHoldsNothing) {
    EXPECT_EQ(held_back("", {"END"}), 0U);
    EXPECT_EQ(release("", {"END"}), "");
    EXPECT_EQ(held_back("", {}), 0U);
    EXPECT_EQ(release("", {}), "");
    // One byte is already enough to hold.
    EXPECT_EQ(held_back("E", {"END"}), 1U);
    EXPECT_EQ(release("E", {"END"}), "");
}

TEST(StopHoldback, WithoutStopsEverythingIsReleased) {
    EXPECT_EQ(held_back("anything END", {}), 0U);
    EXPECT_EQ(release("anything END", {}), "anything END");
    EXPECT_EQ(release("one\n\n", {}), "one\n\n");
    EXPECT_EQ(release("caf\xC3", {}), "caf\xC3");
}

TEST(StopHoldback, TheReleasedTextIsAViewOfTheTextFromItsStart) {
    const std::string held = "hello wor";
    const std::string_view from_held = release(held, {"world"});
    EXPECT_EQ(from_held.data(), held.data());
    EXPECT_EQ(from_held.size(), 6U);
    const std::string stopped = "hello world!";
    const std::string_view from_stopped = release(stopped, {"world"});
    EXPECT_EQ(from_stopped.data(), stopped.data());
    EXPECT_EQ(from_stopped.size(), 6U);
    const std::string all = "hello";
    EXPECT_EQ(release(all, {"world"}).data(), all.data());
}

TEST(StopHoldback, AnEmptyStopIsAValueError) {
    // It would match before the first byte of every text.
    EXPECT_THROW((void)held_back("abc", {"ok", ""}), kael::ValueError);
    EXPECT_THROW((void)release("abc", {"ok", ""}), kael::ValueError);
    EXPECT_THROW((void)held_back("", {""}), kael::ValueError);
    EXPECT_THROW((void)release("", {""}), kael::ValueError);
    // One byte is the shortest stop string.
    EXPECT_EQ(release("ok!", {"ok!!", "!"}), "ok");
    EXPECT_EQ(held_back("ok!", {"ok!!", "!"}), 3U);
}

TEST(StopHoldback, AgreesWithTheLibrarysStopStrings) {
    // Random texts and stop strings made of a few short pieces, some of them multi-byte
    // characters, so that stops, partial stops and near misses are all common. The whole
    // text goes into StopStrings::push in one piece: what push returns must be what
    // release() keeps, and when no stop was met, flush() returns the held_back() tail.
    const std::vector<std::string> pieces{"a", "b", "\n", kEAcute, kEGrave, "\xC3"};
    std::mt19937 random(2024);
    auto pick = [&](std::size_t most) {
        std::string s;
        const std::size_t count = std::uniform_int_distribution<std::size_t>(0, most)(random);
        for (std::size_t i = 0; i < count; ++i) {
            s += pieces[std::uniform_int_distribution<std::size_t>(0, pieces.size() - 1)(random)];
        }
        return s;
    };
    int stopped = 0;
    int holding = 0;
    for (int trial = 0; trial < 3000; ++trial) {
        Stops stops(std::uniform_int_distribution<std::size_t>(0, 3)(random));
        for (std::string& stop : stops) {
            do {
                stop = pick(4);
            } while (stop.empty());
        }
        const std::string text = pick(16);
        kael::serve::StopStrings library(stops);
        const std::string sent = library.push(text);
        const std::string context =
            "text " + ::testing::PrintToString(text) + ", stops " + ::testing::PrintToString(stops);
        ASSERT_EQ(release(text, stops), sent) << context;
        if (library.stopped()) {
            ++stopped;
        } else {
            const std::size_t held = library.flush().size();
            ASSERT_EQ(held_back(text, stops), held) << context;
            ASSERT_EQ(sent.size() + held, text.size()) << context;
            holding += held > 0 ? 1 : 0;
        }
    }
    // The draw produced both kinds of case in numbers.
    EXPECT_GT(stopped, 200);
    EXPECT_GT(holding, 200);
}

}  // namespace

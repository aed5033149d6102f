// Tests of exercise 12.2. Every test fails until read_merges and merge are implemented.
// The merge is checked on the worked example of the chapter, on the two rules that make
// byte-pair merging GPT-2's (every occurrence in one pass; new pairs wait for the next
// round), and against kael's own merge (kael/src/text/bpe.h) on random words.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "exercise.h"
#include "kael/error.h"
#include "text/bpe.h"

namespace {

using exercise::merge;
using exercise::Ranks;
using exercise::read_merges;
using exercise::Symbols;

// The symbols of a word of one-byte symbols: "lower" -> {"l", "o", "w", "e", "r"}.
Symbols letters(const std::string& word) {
    Symbols symbols;
    for (const char c : word) {
        symbols.emplace_back(1, c);
    }
    return symbols;
}

TEST(BpeMerge, TheWorkedExampleMergesLowestRankFirst) {
    // "e r" has the lowest rank, so it goes first, though it is the last pair of the word.
    const Ranks ranks{{{"e", "r"}, 0}, {{"l", "o"}, 1}, {{"lo", "w"}, 2}, {{"low", "er"}, 3}};
    EXPECT_EQ(merge(letters("lower"), ranks), Symbols{"lower"});
    // Each step of the example, with one more merge known each time.
    EXPECT_EQ(merge(letters("lower"), Ranks{}), letters("lower"));
    EXPECT_EQ(merge(letters("lower"), Ranks{{{"e", "r"}, 0}}), (Symbols{"l", "o", "w", "er"}));
    EXPECT_EQ(merge(letters("lower"), Ranks{{{"e", "r"}, 0}, {{"l", "o"}, 1}}), (Symbols{"lo", "w", "er"}));
    EXPECT_EQ(merge(letters("lower"), Ranks{{{"e", "r"}, 0}, {{"l", "o"}, 1}, {{"lo", "w"}, 2}}),
              (Symbols{"low", "er"}));
    // A word the merges cannot finish keeps the pieces they reach.
    EXPECT_EQ(merge(letters("lowest"), ranks), (Symbols{"low", "e", "s", "t"}));
    // Only the ranks decide, not where a pair stands: with "l o" first, "lo" forms first.
    const Ranks other{{{"l", "o"}, 0}, {{"o", "w"}, 1}, {{"lo", "w"}, 2}};
    EXPECT_EQ(merge(letters("low"), other), Symbols{"low"});
    const Ranks reversed{{{"o", "w"}, 0}, {{"l", "o"}, 1}, {{"lo", "w"}, 2}};
    EXPECT_EQ(merge(letters("low"), reversed), (Symbols{"l", "ow"}));
}

TEST(BpeMerge, EveryOccurrenceMergesLeftToRightAndTheLeftOfTwoOverlappingWins) {
    const Ranks aa{{{"a", "a"}, 0}};
    EXPECT_EQ(merge(letters("aaaa"), aa), (Symbols{"aa", "aa"}));
    EXPECT_EQ(merge(letters("aaa"), aa), (Symbols{"aa", "a"}));
    EXPECT_EQ(merge(letters("aaaaa"), aa), (Symbols{"aa", "aa", "a"}));
    const Ranks twice{{{"a", "a"}, 0}, {{"aa", "aa"}, 1}};
    EXPECT_EQ(merge(letters("aaaaaaaaa"), twice), (Symbols{"aaaa", "aaaa", "a"}));
    EXPECT_EQ(merge(letters("abxab"), Ranks{{{"a", "b"}, 0}}), (Symbols{"ab", "x", "ab"}));
}

TEST(BpeMerge, PairsThatAMergeCreatesWaitForTheNextRound) {
    // "ab a" has a lower rank than "a b", which makes its left half. Every "a b" is merged
    // in one pass first, and after it no "ab a" is left: "abab" becomes "ab ab". Merging
    // "ab a" the moment it appeared would give "aba b".
    const Ranks ranks{{{"ab", "a"}, 0}, {{"a", "b"}, 1}};
    EXPECT_EQ(merge(letters("abab"), ranks), (Symbols{"ab", "ab"}));
    // Where a pair of lower rank does remain after the pass, the next round takes it.
    EXPECT_EQ(merge(letters("aba"), ranks), Symbols{"aba"});
}

TEST(BpeMerge, WordsThatNoMergeTouchesComeBackUnchanged) {
    const Ranks ranks{{{"a", "b"}, 0}};
    EXPECT_EQ(merge(Symbols{}, ranks), Symbols{});
    EXPECT_EQ(merge(Symbols{"a"}, ranks), Symbols{"a"});
    EXPECT_EQ(merge(letters("ba"), ranks), (Symbols{"b", "a"}));
    // Symbols are strings of bytes of any length, not characters.
    EXPECT_EQ(merge(Symbols{"\xC3", "\xA9", "t\xC3\xA9"}, Ranks{{{"\xC3", "\xA9"}, 0}}),
              (Symbols{"\xC3\xA9", "t\xC3\xA9"}));
}

TEST(BpeMerge, ReadMergesRanksTheLinesFromZero) {
    const Ranks expected{{{"e", "r"}, 0}, {{"l", "o"}, 1}, {{"lo", "w"}, 2}, {{"low", "er"}, 3}};
    EXPECT_EQ(read_merges("#version: 0.2\ne r\nl o\nlo w\nlow er\n"), expected);
    EXPECT_EQ(read_merges("e r\nl o\nlo w\nlow er"), expected);  // no version line, no last newline
    EXPECT_EQ(read_merges(""), Ranks{});
    EXPECT_EQ(read_merges("#version: 0.2\n"), Ranks{});
    EXPECT_EQ(merge(letters("lower"), read_merges("#version: 0.2\ne r\nl o\nlo w\nlow er\n")), Symbols{"lower"});
}

TEST(BpeMerge, ReadMergesRefusesMalformedLines) {
    EXPECT_THROW((void)read_merges("ab\n"), kael::ValueError);
    EXPECT_THROW((void)read_merges("a  b\n"), kael::ValueError);
    EXPECT_THROW((void)read_merges(" a\n"), kael::ValueError);
    EXPECT_THROW((void)read_merges("a \n"), kael::ValueError);
    EXPECT_THROW((void)read_merges("a b c\n"), kael::ValueError);
    EXPECT_THROW((void)read_merges("a b\n\nb c\n"), kael::ValueError);  // an empty line
    EXPECT_THROW((void)read_merges("a b\nb c\na b\n"), kael::ValueError);  // a repeat
}

TEST(BpeMerge, AgreesWithTheLibrarysMergeOnRandomWords) {
    // Random merge tables over the letters a, b and c, in random order (a merge may come
    // before the merges that make its halves), and random words of up to 24 letters. The
    // library merges ids: every symbol has one id, and a merge's result is the id of the
    // two symbols joined, as GPT-2's vocabulary gives it.
    std::mt19937 random(2019);
    for (int table = 0; table < 300; ++table) {
        std::vector<std::string> symbols{"a", "b", "c"};
        std::map<std::string, std::int64_t> id_of{{"a", 0}, {"b", 1}, {"c", 2}};
        Ranks ranks;
        kael::text::MergeTable merges;
        const int count = std::uniform_int_distribution<int>(1, 14)(random);
        for (int m = 0; m < count; ++m) {
            std::uniform_int_distribution<std::size_t> pick(0, symbols.size() - 1);
            const std::string left = symbols[pick(random)];
            const std::string right = symbols[pick(random)];
            if (!ranks.emplace(std::pair{left, right}, m).second) {
                continue;
            }
            const std::string joined = left + right;
            if (id_of.emplace(joined, static_cast<std::int64_t>(symbols.size())).second) {
                symbols.push_back(joined);
            }
            merges.emplace(kael::text::TokenPair{id_of.at(left), id_of.at(right)},
                           kael::text::Merge{std::int64_t{m}, id_of.at(joined)});
        }
        for (int w = 0; w < 20; ++w) {
            Symbols word(std::uniform_int_distribution<std::size_t>(0, 24)(random));
            std::vector<std::int64_t> ids;
            for (std::string& symbol : word) {
                symbol = symbols[std::uniform_int_distribution<std::size_t>(0, 2)(random)];
                ids.push_back(id_of.at(symbol));
            }
            Symbols expected;
            for (const std::int64_t id : kael::text::apply_merges(ids, merges)) {
                expected.push_back(symbols[static_cast<std::size_t>(id)]);
            }
            ASSERT_EQ(merge(word, ranks), expected) << "table " << table << ", word " << w;
        }
    }
}

}  // namespace

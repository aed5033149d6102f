// GPT-2's tokenizer. Three groups:
// - GPT2Tokenizer.*: the parts on hand-made vocabularies, starting with the worked merge of
//   "lower" that the chapter shows; the byte alphabet; pre-tokenisation; UTF-8 in and out;
//   special tokens; the cache, under several threads.
// - GPT2TokenizerFiles.*: the two file-name pairs, and malformed files, one flaw each,
//   checking the error's type and what its message names.
// - GPT2TokenizerReference.*: GPT-2's real vocabulary (scripts/fetch-gpt2-vocab fetches
//   it; the tests skip without it) against ids computed by two other implementations
//   (tests/data/gpt2_tokenizer_cases.json and the scripts that made it).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "helpers.h"
#include "kael/error.h"
#include "kael/text/gpt2_tokenizer.h"
#include "kael/text/streaming_decoder.h"
#include "text/bpe.h"
#include "text/byte_alphabet.h"
#include "text/pretokenizer.h"
#include "text/utf8.h"

namespace {

using namespace std::string_view_literals;
using kael::text::GPT2Tokenizer;
using kael::testing::message_of;
using kael::testing::TempDir;
using Ids = std::vector<std::int64_t>;

// ---- Helpers ------------------------------------------------------------------------

// The file spelling of a string of bytes: each byte as its character of the alphabet.
std::string spelled(std::string_view bytes) {
    std::string spelling;
    for (const char c : bytes) {
        spelling += kael::text::encode_utf8(kael::text::byte_to_char(static_cast<std::uint8_t>(c)));
    }
    return spelling;
}

// A vocabulary.json of the given tokens (as bytes), with ids in their order.
std::string vocabulary_json(const std::vector<std::string>& tokens) {
    nlohmann::json json = nlohmann::json::object();
    for (std::size_t id = 0; id < tokens.size(); ++id) {
        json[spelled(tokens[id])] = id;
    }
    return json.dump();
}

// The chapter's example: the bytes of "lower", " ", "s", "t", and the tokens that the four
// merges below make of them.
//   ids:  l=0 o=1 w=2 e=3 r=4 ' '=5 s=6 t=7 er=8 lo=9 low=10 lower=11
const std::vector<std::string> kLowerTokens{"l", "o", "w", "e", "r", " ", "s", "t", "er", "lo", "low", "lower"};
constexpr std::string_view kLowerMerges = "#version: 0.2\ne r\nl o\nlo w\nlow er\n";

GPT2Tokenizer lower_tokenizer(std::string_view merges = kLowerMerges) {
    return GPT2Tokenizer::from_strings(vocabulary_json(kLowerTokens), merges);
}

// A tokenizer with a token for every byte (the byte's id is its value) and the given
// merges, as "A B" lines of bytes; each merge's result is appended to the vocabulary.
GPT2Tokenizer byte_tokenizer(const std::vector<std::pair<std::string, std::string>>& merges = {}) {
    std::vector<std::string> tokens;
    for (int byte = 0; byte < 256; ++byte) {
        tokens.emplace_back(1, static_cast<char>(byte));
    }
    std::string lines = "#version: 0.2\n";
    for (const auto& [left, right] : merges) {
        if (std::find(tokens.begin(), tokens.end(), left + right) == tokens.end()) {
            tokens.push_back(left + right);
        }
        lines += spelled(left) + " " + spelled(right) + "\n";
    }
    return GPT2Tokenizer::from_strings(vocabulary_json(tokens), lines);
}

// Some English merges, enough for the cache to see words of several tokens.
GPT2Tokenizer small_english_tokenizer() {
    return byte_tokenizer({{"t", "h"}, {"th", "e"}, {" ", "the"}, {"i", "n"}, {"a", "n"}, {"an", "d"}, {" ", "and"},
                           {"e", "r"}, {"o", "n"}, {"r", "e"}, {" ", "o"}, {" o", "n"}, {"in", "g"}, {" ", "in"},
                           {"1", "2"}, {"12", "3"}});
}

std::string vocab_dir() { return KAEL_GPT2_VOCAB_DIR; }

bool have_real_vocabulary() {
    return std::filesystem::exists(std::filesystem::path(vocab_dir()) / "encoder.json") &&
           std::filesystem::exists(std::filesystem::path(vocab_dir()) / "vocab.bpe");
}

// GPT-2's tokenizer, loaded once for all the tests that need it.
const GPT2Tokenizer& gpt2() {
    static const GPT2Tokenizer tokenizer = GPT2Tokenizer::from_directory(vocab_dir());
    return tokenizer;
}

#define SKIP_WITHOUT_REAL_VOCABULARY()                                                                   \
    if (!have_real_vocabulary()) {                                                                       \
        GTEST_SKIP() << "GPT-2's vocabulary is not in " << vocab_dir() << "; run scripts/fetch-gpt2-vocab"; \
    }

void write_file(const std::filesystem::path& path, std::string_view contents) {
    std::ofstream file(path, std::ios::binary);
    file << contents;
}

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// ---- Merging ------------------------------------------------------------------------

TEST(GPT2Tokenizer, MergesApplyLowestRankFirst) {
    // The worked example, one merge at a time: each step keeps one more line of the file.
    // "e r" is the lowest rank, so it goes first though it is last in the word.
    const std::vector<std::pair<std::string_view, Ids>> steps{
        {"", {0, 1, 2, 3, 4}},                      // l o w e r
        {"e r\n", {0, 1, 2, 8}},                    // l o w er
        {"e r\nl o\n", {9, 2, 8}},                  // lo w er
        {"e r\nl o\nlo w\n", {10, 8}},              // low er
        {"e r\nl o\nlo w\nlow er\n", {11}},         // lower
    };
    for (const auto& [merges, ids] : steps) {
        SCOPED_TRACE(merges);
        EXPECT_EQ(lower_tokenizer(merges).encode("lower"), ids);
    }
}

TEST(GPT2Tokenizer, AWordThatNoMergeCompletesKeepsItsPieces) {
    const GPT2Tokenizer tokenizer = lower_tokenizer();
    EXPECT_EQ(tokenizer.encode("lowest"), (Ids{10, 3, 6, 7}));  // low e s t
    // The space belongs to the word after it; no merge joins it here.
    EXPECT_EQ(tokenizer.encode("lower lower"), (Ids{11, 5, 11}));
}

TEST(GPT2Tokenizer, AMergeAppliesToEveryOccurrenceLeftToRight) {
    const GPT2Tokenizer tokenizer = byte_tokenizer({{"a", "a"}});
    const std::int64_t aa = 256;
    EXPECT_EQ(tokenizer.encode("aaaa"), (Ids{aa, aa}));
    EXPECT_EQ(tokenizer.encode("aaa"), (Ids{aa, 'a'}));  // of overlapping pairs the left one wins
    EXPECT_EQ(tokenizer.encode("aaaaa"), (Ids{aa, aa, 'a'}));
    const GPT2Tokenizer twice = byte_tokenizer({{"a", "a"}, {"aa", "aa"}});
    EXPECT_EQ(twice.encode("aaaaaaaaa"), (Ids{257, 257, 'a'}));
}

TEST(GPT2Tokenizer, PairsAMergeCreatesWaitUntilItHasBeenAppliedEverywhere) {
    // "ab a" has a lower rank than "a b", which makes its left half. The original merges
    // every "a b" first and only then looks for the next pair: "abab" -> "ab ab", and
    // "ab a" never gets its chance. Merging "ab a" as soon as it appears would give
    // "aba b".
    const GPT2Tokenizer tokenizer = GPT2Tokenizer::from_strings(R"({"a": 0, "b": 1, "ab": 2, "aba": 3})", "ab a\na b\n");
    EXPECT_EQ(tokenizer.encode("abab"), (Ids{2, 2}));
}

// The original algorithm, as encoder.py writes it, on ids: find the pair of lowest rank,
// rebuild the word with every occurrence merged, repeat.
Ids original_merges(Ids word, const kael::text::MergeTable& merges) {
    while (word.size() > 1) {
        const kael::text::Merge* best = nullptr;
        kael::text::TokenPair best_pair;
        for (std::size_t i = 0; i + 1 < word.size(); ++i) {
            const auto found = merges.find({word[i], word[i + 1]});
            if (found != merges.end() && (best == nullptr || found->second.rank < best->rank)) {
                best = &found->second;
                best_pair = found->first;
            }
        }
        if (best == nullptr) {
            break;
        }
        Ids merged;
        for (std::size_t i = 0; i < word.size();) {
            if (i + 1 < word.size() && word[i] == best_pair.left && word[i + 1] == best_pair.right) {
                merged.push_back(best->result);
                i += 2;
            } else {
                merged.push_back(word[i++]);
            }
        }
        word = merged;
    }
    return word;
}

TEST(GPT2Tokenizer, MergesMatchTheOriginalAlgorithmOnRandomWords) {
    // Random merge tables over 3 letters, in random order (so a merge may come before
    // the merges that make its halves), and random words of up to 24 letters.
    std::mt19937 random(12345);
    for (int table = 0; table < 200; ++table) {
        std::vector<std::int64_t> tokens{0, 1, 2};
        kael::text::MergeTable merges;
        const int count = std::uniform_int_distribution<int>(1, 12)(random);
        for (int m = 0; m < count; ++m) {
            std::uniform_int_distribution<std::size_t> pick(0, tokens.size() - 1);
            const kael::text::TokenPair pair{tokens[pick(random)], tokens[pick(random)]};
            const auto result = static_cast<std::int64_t>(tokens.size());
            if (merges.try_emplace(pair, kael::text::Merge{std::int64_t{m}, result}).second) {
                tokens.push_back(result);
            }
        }
        for (int w = 0; w < 20; ++w) {
            Ids word(std::uniform_int_distribution<std::size_t>(0, 24)(random));
            for (std::int64_t& token : word) {
                token = std::uniform_int_distribution<std::int64_t>(0, 2)(random);
            }
            ASSERT_EQ(kael::text::apply_merges(word, merges), original_merges(word, merges))
                << "table " << table << ", word " << w;
        }
    }
}

TEST(GPT2Tokenizer, AMegabyteWordMergesQuickly) {
    // One piece of 2^20 letters: the original's O(n^2) would take hours.
    const GPT2Tokenizer tokenizer = byte_tokenizer({{"a", "a"}, {"aa", "aa"}});
    const Ids ids = tokenizer.encode(std::string(std::size_t{1} << 20U, 'a'));
    ASSERT_EQ(ids.size(), std::size_t{1} << 18U);
    EXPECT_TRUE(std::all_of(ids.begin(), ids.end(), [](std::int64_t id) { return id == 257; }));
}

TEST(GPT2Tokenizer, TextNeedingAByteTheVocabularyLacksIsRefused) {
    const GPT2Tokenizer tokenizer = lower_tokenizer();
    const std::string message = message_of([&] { (void)tokenizer.encode("low, lower"); });
    EXPECT_THROW((void)tokenizer.encode("low, lower"), kael::ValueError);
    EXPECT_TRUE(contains(message, "no token for the byte 0x2C at offset 3")) << message;
}

// ---- The byte alphabet ----------------------------------------------------------------

TEST(GPT2Tokenizer, ByteAlphabetWritesEveryByteAsOnePrintableCharacter) {
    std::vector<char32_t> seen;
    for (int value = 0; value < 256; ++value) {
        const auto byte = static_cast<std::uint8_t>(value);
        const char32_t c = kael::text::byte_to_char(byte);
        // No control character, no space of any kind, no soft hyphen: nothing that a
        // text file or a merge line could lose or split on.
        EXPECT_TRUE((c > 0x20 && c < 0x7F) || (c > 0xA0 && c != 0xAD)) << "byte " << value;
        EXPECT_EQ(kael::text::char_to_byte(c), byte);
        seen.push_back(c);
    }
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(std::unique(seen.begin(), seen.end()), seen.end()) << "two bytes share a character";
    EXPECT_EQ(kael::text::byte_to_char('!'), U'!');
    EXPECT_EQ(kael::text::byte_to_char(0x00), U'\u0100');  // 'Ā'
    EXPECT_EQ(kael::text::byte_to_char(' '), U'\u0120');   // 'Ġ'
    EXPECT_EQ(kael::text::byte_to_char('\n'), U'\u010A');  // 'Ċ'
    EXPECT_EQ(kael::text::byte_to_char(0xFF), U'\u00FF');
    EXPECT_FALSE(kael::text::char_to_byte(U' ').has_value());
    EXPECT_FALSE(kael::text::char_to_byte(U'\u0144').has_value());
}

// ---- Pre-tokenisation -----------------------------------------------------------------

using Pieces = std::vector<std::string_view>;

TEST(GPT2Tokenizer, PretokenisationSplitsLikeGPT2sPattern) {
    using kael::text::pretokenize;
    EXPECT_EQ(pretokenize("Hello world"), (Pieces{"Hello", " world"}));
    EXPECT_EQ(pretokenize("Hello, world!"), (Pieces{"Hello", ",", " world", "!"}));
    // A run of spaces gives its last one to the word after it.
    EXPECT_EQ(pretokenize("a   b"), (Pieces{"a", "  ", " b"}));
    EXPECT_EQ(pretokenize("a\n\n b"), (Pieces{"a", "\n\n", " b"}));
    EXPECT_EQ(pretokenize("end  "), (Pieces{"end", "  "}));
    EXPECT_EQ(pretokenize("abc123def"), (Pieces{"abc", "123", "def"}));
    EXPECT_EQ(pretokenize(" 1,000.5"), (Pieces{" 1", ",", "000", ".", "5"}));
    EXPECT_EQ(pretokenize("x\xC2\xA0y"), (Pieces{"x", "\xC2\xA0", "y"}));  // U+00A0 is whitespace
    EXPECT_EQ(pretokenize(""), Pieces{});
}

TEST(GPT2Tokenizer, ContractionsAreSplitOffOnlyInLowercase) {
    using kael::text::pretokenize;
    EXPECT_EQ(pretokenize("it's we've I'm you'll he'd they're don't"),
              (Pieces{"it", "'s", " we", "'ve", " I", "'m", " you", "'ll", " he", "'d", " they", "'re", " don", "'t"}));
    // The original has no IGNORECASE (its comment regrets it): uppercase contractions are
    // a quote, then letters.
    EXPECT_EQ(pretokenize("IT'S WE'VE I'M YOU'LL HE'D THEY'RE DON'T"),
              (Pieces{"IT", "'", "S", " WE", "'", "VE", " I", "'", "M", " YOU", "'", "LL", " HE", "'", "D", " THEY", "'",
                      "RE", " DON", "'", "T"}));
}

TEST(GPT2Tokenizer, WhitespaceIsUnicodesWhiteSpaceAsInPythonsRegex) {
    using kael::text::pretokenize;
    // U+0085 NEXT LINE is whitespace (PCRE2 agrees); U+180E MONGOLIAN VOWEL SEPARATOR is
    // not (PCRE2's own \s says it is, which is why the pattern spells its class out);
    // U+200B ZERO WIDTH SPACE is not either.
    EXPECT_EQ(pretokenize("x \xC2\x85y"), (Pieces{"x", " ", "\xC2\x85", "y"}));
    EXPECT_EQ(pretokenize("x \xE1\xA0\x8Ey"), (Pieces{"x", " \xE1\xA0\x8E", "y"}));
    EXPECT_EQ(pretokenize("x \xE2\x80\x8By"), (Pieces{"x", " \xE2\x80\x8B", "y"}));
    EXPECT_EQ(pretokenize("x\xE3\x80\x80\xE3\x80\x80y"), (Pieces{"x", "\xE3\x80\x80", "\xE3\x80\x80", "y"}));
}

// ---- UTF-8 in -------------------------------------------------------------------------

TEST(GPT2Tokenizer, EncodeRefusesTextThatIsNotUtf8NamingTheOffset) {
    const GPT2Tokenizer tokenizer = byte_tokenizer();
    const std::vector<std::pair<std::string_view, std::string_view>> cases{
        {"\x80" "abc"sv, "the byte 0x80 at offset 0 is a continuation byte"},
        {"ab\xC0\xAF" "c"sv, "the byte 0xC0 at offset 2 starts an overlong form"},
        {"abc\xE0\x80\xAF"sv, "the bytes 0xE0 0x80 at offset 3 start an overlong form"},
        {"\xF0\x80\x80\x80"sv, "the bytes 0xF0 0x80 at offset 0 start an overlong form"},
        {"a\xED\xA0\x80" "b"sv, "the bytes 0xED 0xA0 at offset 1 start a surrogate"},
        {"\xF4\x90\x80\x80"sv, "the bytes 0xF4 0x90 at offset 0 start a value above U+10FFFF"},
        {"ok \xF5\x80\x80\x80"sv, "the byte 0xF5 at offset 3 would start a value above U+10FFFF"},
        {"\xFF"sv, "the byte 0xFF at offset 0 occurs nowhere in UTF-8"},
        {"euro \xE2\x82"sv, "the text ends inside the 3-byte sequence that starts at offset 5"},
        {"\xC3" "A"sv, "the byte 0x41 at offset 1 is not a continuation byte"},
        {"\xE2\x82\xAC\xE2\x82\xAC\xF0\x9F\x98"sv, "the text ends inside the 4-byte sequence that starts at offset 6"},
    };
    for (const auto& [text, expected] : cases) {
        SCOPED_TRACE(std::string(expected));
        EXPECT_THROW((void)tokenizer.encode(text), kael::ValueError);
        const std::string message = message_of([&] { (void)tokenizer.encode(text); });
        EXPECT_TRUE(contains(message, "not UTF-8")) << message;
        EXPECT_TRUE(contains(message, expected)) << message;
    }
}

// ---- UTF-8 out ------------------------------------------------------------------------

TEST(GPT2Tokenizer, DecodeReplacesWhatIsNotUtf8AsPythonDoes) {
    // The right-hand sides are Python 3.11's bytes.decode("utf-8", errors="replace") of
    // the left-hand sides, printed as C++ literals: one U+FFFD (EF BF BD) for each
    // "maximal subpart" of an ill-formed sequence.
    const std::vector<std::pair<std::string_view, std::string_view>> cases{
        {"\x80"sv, "\xEF\xBF\xBD"sv},
        {"\xBF"sv, "\xEF\xBF\xBD"sv},
        {"\xC0\xAF"sv, "\xEF\xBF\xBD\xEF\xBF\xBD"sv},
        {"\xC1\xBF"sv, "\xEF\xBF\xBD\xEF\xBF\xBD"sv},
        {"\xC2"sv, "\xEF\xBF\xBD"sv},
        {"\xC2" "A"sv, "\xEF\xBF\xBD" "A"sv},
        {"\xC3\xA9"sv, "\xC3\xA9"sv},
        {"\xE0\x80\xAF"sv, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"sv},
        {"\xE0\xA0"sv, "\xEF\xBF\xBD"sv},
        {"\xE0\xA0\x80"sv, "\xE0\xA0\x80"sv},
        {"\xE2\x82"sv, "\xEF\xBF\xBD"sv},
        {"\xE2\x82\xAC"sv, "\xE2\x82\xAC"sv},
        {"\xE2\x82" "A"sv, "\xEF\xBF\xBD" "A"sv},
        {"\xED\xA0\x80"sv, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"sv},
        {"\xED\x9F\xBF"sv, "\xED\x9F\xBF"sv},
        {"\xED\xBF\xBF"sv, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"sv},
        {"\xEF\xBF\xBF"sv, "\xEF\xBF\xBF"sv},
        {"\xF0\x80\x80\x80"sv, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"sv},
        {"\xF0\x8F\xBF\xBF"sv, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"sv},
        {"\xF0\x90\x80\x80"sv, "\xF0\x90\x80\x80"sv},
        {"\xF0\x9F\x98"sv, "\xEF\xBF\xBD"sv},
        {"\xF0\x9F\x98\x80"sv, "\xF0\x9F\x98\x80"sv},
        {"\xF4\x8F\xBF\xBF"sv, "\xF4\x8F\xBF\xBF"sv},
        {"\xF4\x90\x80\x80"sv, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"sv},
        {"\xF5\x80\x80\x80"sv, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"sv},
        {"\xF8\x88\x80\x80\x80"sv, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"sv},
        {"\xFE"sv, "\xEF\xBF\xBD"sv},
        {"\xFF"sv, "\xEF\xBF\xBD"sv},
        {"\xFE\xFF"sv, "\xEF\xBF\xBD\xEF\xBF\xBD"sv},
        {"a\x80" "b"sv, "a\xEF\xBF\xBD" "b"sv},
        {"\xE2(\xA1"sv, "\xEF\xBF\xBD(\xEF\xBF\xBD"sv},
        {"\xF0\x9F" "AB"sv, "\xEF\xBF\xBD" "AB"sv},
        {"\xC3\xC3\xA9"sv, "\xEF\xBF\xBD\xC3\xA9"sv},
        {"\xED\xA0\x80\xED\xB0\x80"sv, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"sv},
        {"\xE0\xA0\xC0"sv, "\xEF\xBF\xBD\xEF\xBF\xBD"sv},
        {"\xF1\x80\x80"sv, "\xEF\xBF\xBD"sv},
        {"\xF1\x80\x80\xC0"sv, "\xEF\xBF\xBD\xEF\xBF\xBD"sv},
        {"\x00"sv, "\x00"sv},
        {"\xF0\x9F\x98\x80\x80"sv, "\xF0\x9F\x98\x80\xEF\xBF\xBD"sv},
    };
    const GPT2Tokenizer tokenizer = byte_tokenizer();  // the id of each byte is its value
    for (const auto& [bytes, text] : cases) {
        Ids ids;
        for (const char c : bytes) {
            ids.push_back(static_cast<unsigned char>(c));
        }
        EXPECT_EQ(tokenizer.decode_bytes(ids), bytes);
        EXPECT_EQ(tokenizer.decode(ids), text) << "bytes " << ::testing::PrintToString(std::string(bytes));
    }
}

TEST(GPT2Tokenizer, DecodeOfAnIdOutsideTheVocabularyIsAnIndexError) {
    const GPT2Tokenizer tokenizer = lower_tokenizer();
    ASSERT_EQ(tokenizer.vocab_size(), 12);
    for (const std::int64_t id : {std::int64_t{-1}, std::int64_t{12}, std::numeric_limits<std::int64_t>::max()}) {
        const Ids ids{0, id};
        EXPECT_THROW((void)tokenizer.decode(ids), kael::IndexError);
        EXPECT_THROW((void)tokenizer.token_bytes(id), kael::IndexError);
        const std::string message = message_of([&] { (void)tokenizer.decode(ids); });
        EXPECT_TRUE(contains(message, "id " + std::to_string(id) + " is outside the vocabulary of 12 tokens")) << message;
    }
    EXPECT_EQ(tokenizer.token_bytes(11), "lower");
    EXPECT_EQ(tokenizer.token_bytes(5), " ");
}

// ---- Special tokens -------------------------------------------------------------------

TEST(GPT2Tokenizer, EndOfTextIsPlainTextUnlessSpecialTokensAreAllowed) {
    const GPT2Tokenizer tokenizer =
        GPT2Tokenizer::from_strings(vocabulary_json({"<", "|", ">", "a", "b", "e", "n", "d", "o", "f", "t", "x",
                                                     "<|endoftext|>"}),
                                    "");
    ASSERT_EQ(tokenizer.end_of_text(), 12);
    const Ids plain = tokenizer.encode("a<|endoftext|>");
    EXPECT_EQ(plain.size(), 14U);  // no merges: one token a byte
    EXPECT_EQ(tokenizer.encode("a<|endoftext|>b", true), (Ids{3, 12, 4}));
    EXPECT_EQ(tokenizer.encode("<|endoftext|><|endoftext|>", true), (Ids{12, 12}));
    EXPECT_EQ(tokenizer.encode("<|endoftext|", true).size(), 12U);  // not quite the token
    EXPECT_EQ(tokenizer.decode(Ids{3, 12, 4}), "a<|endoftext|>b");
    // A vocabulary without the token has no special tokens at all.
    EXPECT_FALSE(lower_tokenizer().end_of_text().has_value());
    EXPECT_THROW((void)lower_tokenizer().encode("<|endoftext|>", true), kael::ValueError);  // no '<' token
}

// ---- The cache, and threads -----------------------------------------------------------

std::string sample_text(int words, unsigned seed) {
    const std::vector<std::string_view> vocabulary{"the", "and", "on", "in", "there", "thing", "123", "another",
                                                   "ring", "!", "The", "\n", "  ", "ore", "reon", "inning"};
    std::mt19937 random(seed);
    std::uniform_int_distribution<std::size_t> pick(0, vocabulary.size() - 1);
    std::string text;
    for (int i = 0; i < words; ++i) {
        text += (i % 3 == 0 ? "" : " ");
        text += vocabulary[pick(random)];
    }
    return text;
}

TEST(GPT2Tokenizer, ThreadsEncodingAtOnceGetTheIdsOfOneThread) {
    const std::vector<std::string> texts{sample_text(3000, 1), sample_text(3000, 2), sample_text(3000, 3),
                                         sample_text(3000, 4)};
    std::vector<Ids> expected;
    {
        const GPT2Tokenizer alone = small_english_tokenizer();
        for (const std::string& text : texts) {
            expected.push_back(alone.encode(text));
        }
    }
    // A fresh tokenizer, so that the threads race to fill its cache.
    const GPT2Tokenizer shared = small_english_tokenizer();
    std::vector<std::vector<Ids>> results(texts.size());
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < texts.size(); ++t) {
        threads.emplace_back([&, t] {
            for (int round = 0; round < 3; ++round) {
                results[t].push_back(shared.encode(texts[(t + static_cast<std::size_t>(round)) % texts.size()]));
            }
        });
    }
    for (std::thread& thread : threads) {
        thread.join();
    }
    for (std::size_t t = 0; t < texts.size(); ++t) {
        for (std::size_t round = 0; round < 3; ++round) {
            EXPECT_EQ(results[t][round], expected[(t + round) % texts.size()]) << "thread " << t << ", round " << round;
        }
    }
}

TEST(GPT2Tokenizer, ACacheThatFillsUpGivesTheSameIds) {
    // 70,000 different pieces, more than the cache holds, so it is emptied on the way.
    std::string text;
    for (int i = 0; i < 70'000; ++i) {
        text += ' ';  // two appends: GCC 12 misreads " " + string under -O3 (-Wrestrict)
        text += std::to_string(1'000'000 + i);
    }
    const GPT2Tokenizer tokenizer = small_english_tokenizer();
    const Ids first = tokenizer.encode(text);
    EXPECT_EQ(tokenizer.encode(text), first);
    EXPECT_EQ(tokenizer.decode(first), text);
    // Merging is per piece, so the ids are those of the pieces one by one. Every piece is
    // different, so a second tokenizer merges each of them afresh, none from its cache.
    const GPT2Tokenizer piece_by_piece = small_english_tokenizer();
    Ids by_piece;
    for (const std::string_view piece : kael::text::pretokenize(text)) {
        const Ids ids = piece_by_piece.encode(piece);
        by_piece.insert(by_piece.end(), ids.begin(), ids.end());
    }
    EXPECT_EQ(first, by_piece);
}

// ---- Files ----------------------------------------------------------------------------

TEST(GPT2TokenizerFiles, FromDirectoryReadsHuggingFacesNamesOrOpenAIs) {
    const TempDir hf;
    write_file(hf.path() / "vocab.json", vocabulary_json(kLowerTokens));
    write_file(hf.path() / "merges.txt", kLowerMerges);
    EXPECT_EQ(GPT2Tokenizer::from_directory(hf.path()).encode("lower"), Ids{11});

    const TempDir openai;
    write_file(openai.path() / "encoder.json", vocabulary_json(kLowerTokens));
    write_file(openai.path() / "vocab.bpe", kLowerMerges);
    EXPECT_EQ(GPT2Tokenizer::from_directory(openai.path()).encode("lower"), Ids{11});

    // Both pairs: Hugging Face's wins (here it has no merges).
    write_file(openai.path() / "vocab.json", vocabulary_json(kLowerTokens));
    write_file(openai.path() / "merges.txt", "#version: 0.2\n");
    EXPECT_EQ(GPT2Tokenizer::from_directory(openai.path()).encode("lower"), (Ids{0, 1, 2, 3, 4}));
}

TEST(GPT2TokenizerFiles, ADirectoryWithNeitherPairIsAnErrorNamingBoth) {
    const TempDir dir;
    write_file(dir.path() / "vocab.json", vocabulary_json(kLowerTokens));  // without merges.txt
    write_file(dir.path() / "vocab.bpe", kLowerMerges);                    // without encoder.json
    const std::string message = message_of([&] { (void)GPT2Tokenizer::from_directory(dir.path()); });
    EXPECT_THROW((void)GPT2Tokenizer::from_directory(dir.path()), kael::Error);
    for (const std::string_view name : {"vocab.json", "merges.txt", "encoder.json", "vocab.bpe", "fetch-gpt2-vocab"}) {
        EXPECT_TRUE(contains(message, name)) << message;
    }
    EXPECT_TRUE(contains(message, dir.path().string())) << message;
}

TEST(GPT2TokenizerFiles, AFileThatCannotBeReadIsAnErrorNamingIt) {
    const TempDir dir;
    write_file(dir.path() / "merges.txt", kLowerMerges);
    const std::filesystem::path missing = dir.path() / "missing.json";
    const std::string message = message_of([&] { (void)GPT2Tokenizer::from_files(missing, dir.path() / "merges.txt"); });
    EXPECT_TRUE(contains(message, missing.string())) << message;
    EXPECT_THROW((void)GPT2Tokenizer::from_files(missing, dir.path() / "merges.txt"), kael::Error);
    // A directory is no file either.
    EXPECT_THROW((void)GPT2Tokenizer::from_files(dir.path(), dir.path() / "merges.txt"), kael::Error);
}

TEST(GPT2TokenizerFiles, MessagesNameTheFileTheyComeFrom) {
    const TempDir dir;
    write_file(dir.path() / "vocab.json", R"({"a": -1})");
    write_file(dir.path() / "merges.txt", "");
    const std::string message =
        message_of([&] { (void)GPT2Tokenizer::from_files(dir.path() / "vocab.json", dir.path() / "merges.txt"); });
    EXPECT_TRUE(contains(message, (dir.path() / "vocab.json").string())) << message;
    EXPECT_TRUE(contains(message_of([] { (void)GPT2Tokenizer::from_strings("[]", "", "test-origin"); }),
                         "test-origin (vocabulary)"));
    EXPECT_TRUE(contains(message_of([] { (void)GPT2Tokenizer::from_strings(R"({"a": 0})", "x y", "test-origin"); }),
                         "test-origin (merges): line 1"));
}

// Each malformed vocabulary: what the message must say. All are ValueErrors.
TEST(GPT2TokenizerFiles, MalformedVocabulariesAreRefusedNamingTheEntry) {
    const std::string long_token(300, 'x');
    const std::vector<std::pair<std::string, std::string>> cases{
        {R"({"a": 0, "b": )", "the text ends in the middle of a value"},
        {R"({"a": 0,, "b": 1})", "syntax error at byte 9"},
        {"{\"a\xFF\": 0}", "not valid JSON (or not UTF-8)"},
        {R"([0, 1])", "the vocabulary is an array, not a JSON object"},
        {R"(17)", "the vocabulary is an integer"},
        {R"({})", "the vocabulary has no tokens"},
        {R"( { } )", "the vocabulary has no tokens"},
        {R"({"a": "0"})", "the id of the token 'a' is a string"},
        {R"({"a": -1})", "the id of the token 'a' is an integer with a minus sign"},
        {R"({"a": 0.5})", "the id of the token 'a' is a floating-point number"},
        {R"({"a": 1e400})", "beyond the range of a double"},
        {R"({"a": 9223372036854775808})", "the id of the token 'a' is an integer larger than int64 holds"},
        {R"({"a": null})", "the id of the token 'a' is null"},
        {R"({"a": [0]})", "the id of the token 'a' is an array"},
        {R"({"a": {"b": 0}})", "the id of the token 'a' is an object"},
        {R"({"a": 0, "a": 1})", "the token 'a' appears twice"},
        {R"({"a": 0, "b": 0})", "the tokens 'a' and 'b' both have id 0"},
        {R"({"a": 0, "b": 2})", "the token 'b' has id 2, but a vocabulary of 2 tokens has the ids 0..1"},
        {R"({"": 0})", "the token of id 0 is empty"},
        {R"({"a b": 0})", "the token 'a b' (id 0) holds the character U+20 at byte 1"},
        {"{\"x\xE2\x82\xAC\": 0}", "the token 'x\\xE2\\x82\\xAC' (id 0) holds the character U+20AC at byte 1"},
        {"{\"\\u001b[2J\": 0}", "the token '\\x1B[2J' (id 0) holds the character U+1B"},
        {"{\"" + long_token + " \": 0}", "(the first 100 of its 301 bytes)"},
    };
    for (const auto& [json, expected] : cases) {
        SCOPED_TRACE(expected);
        EXPECT_THROW((void)GPT2Tokenizer::from_strings(json, ""), kael::ValueError);
        const std::string message = message_of([&] { (void)GPT2Tokenizer::from_strings(json, ""); });
        EXPECT_TRUE(contains(message, "<memory> (vocabulary): ")) << message;
        EXPECT_TRUE(contains(message, expected)) << message;
        EXPECT_LT(message.size(), 600U) << "a message must not quote the file at length";
    }
}

TEST(GPT2TokenizerFiles, MalformedMergesAreRefusedNamingTheLine) {
    const std::string vocabulary = vocabulary_json(kLowerTokens);
    const std::string long_line = "#version: 0.2\n" + std::string(500, 'q') + "\n";
    const std::vector<std::pair<std::string, std::string>> cases{
        {"#version: 0.2\nlo\n", "line 2 is 'lo'; a merge is two tokens separated by one space"},
        {"e r\nl o w\n", "line 2 is 'l o w'; a merge is two tokens"},
        {"e  r\n", "line 1 is 'e  r'"},
        {" e r\n", "line 1 is ' e r'"},
        {"e r \n", "line 1 is 'e r '"},
        {"e r\n\nl o\n", "line 2 is ''"},
        {"e\tr\n", "line 1 is 'e\\x09r'"},
        {"#version: 0.2\ne r\nx o\n", "line 3 merges 'x', which is not a token of the vocabulary"},
        {"e x\n", "line 1 merges 'x', which is not a token"},
        {"l w\n", "line 1 merges 'l' and 'w' into 'lw', which is not a token of the vocabulary"},
        {"#version: 0.2\ne r\nl o\ne r\n", "line 4 repeats the merge of line 2"},
        {"e r\nl o\ne r\n", "line 3 repeats the merge of line 1"},
        {"#version: 0.2\n#version: 0.2\n", "line 2 merges '#version:', which is not a token"},
        {long_line, "(the first 100 of its 500 bytes)"},
    };
    for (const auto& [merges, expected] : cases) {
        SCOPED_TRACE(expected);
        EXPECT_THROW((void)GPT2Tokenizer::from_strings(vocabulary, merges), kael::ValueError);
        const std::string message = message_of([&] { (void)GPT2Tokenizer::from_strings(vocabulary, merges); });
        EXPECT_TRUE(contains(message, "<memory> (merges): ")) << message;
        EXPECT_TRUE(contains(message, expected)) << message;
    }
}

TEST(GPT2TokenizerFiles, MergesFilesMayOmitTheVersionLineTheLastNewlineAndUseCRLF) {
    for (const std::string_view merges : {"e r\nl o\nlo w\nlow er\n"sv, "#version: 0.2\ne r\nl o\nlo w\nlow er"sv,
                                          "#version: 0.2\r\ne r\r\nl o\r\nlo w\r\nlow er\r\n"sv}) {
        SCOPED_TRACE(std::string(merges));
        EXPECT_EQ(lower_tokenizer(merges).encode("lower"), Ids{11});
    }
    EXPECT_EQ(lower_tokenizer("").encode("lower"), (Ids{0, 1, 2, 3, 4}));
    // A vocabulary without tokens is refused (MalformedVocabulariesAreRefusedNamingTheEntry),
    // the smallest one taken: one token, no merges.
    const GPT2Tokenizer single = GPT2Tokenizer::from_strings(R"({"a": 0})", "");
    EXPECT_EQ(single.vocab_size(), 1);
    EXPECT_EQ(single.encode(""), Ids{});
    EXPECT_EQ(single.encode("aaa"), (Ids{0, 0, 0}));
}

// ---- GPT-2's own vocabulary -----------------------------------------------------------

TEST(GPT2TokenizerReference, TheVocabularyIsGPT2s) {
    SKIP_WITHOUT_REAL_VOCABULARY();
    EXPECT_EQ(gpt2().vocab_size(), 50257);
    EXPECT_EQ(gpt2().end_of_text(), 50256);
    EXPECT_EQ(gpt2().token_bytes(50256), "<|endoftext|>");
    EXPECT_EQ(gpt2().token_bytes(220), " ");
    EXPECT_EQ(gpt2().token_bytes(198), "\n");
    EXPECT_EQ(gpt2().token_bytes(0), "!");
    EXPECT_EQ(gpt2().encode("Hello world"), (Ids{15496, 995}));
    EXPECT_EQ(gpt2().encode("<|endoftext|>"), (Ids{27, 91, 437, 1659, 5239, 91, 29}));
    EXPECT_EQ(gpt2().encode("<|endoftext|>", true), Ids{50256});
    EXPECT_EQ(gpt2().encode("Hi<|endoftext|>Bye", true), (Ids{17250, 50256, 3886, 68}));
}

nlohmann::json reference_cases() {
    std::ifstream file(std::filesystem::path(KAEL_TEST_DATA_DIR) / "gpt2_tokenizer_cases.json");
    return nlohmann::json::parse(file);
}

Ids ids_of(const nlohmann::json& value) { return value.get<Ids>(); }

TEST(GPT2TokenizerReference, EveryCaseEncodesToTheReferenceIds) {
    SKIP_WITHOUT_REAL_VOCABULARY();
    const nlohmann::json cases = reference_cases();
    ASSERT_GE(cases["cases"].size(), 250U);
    for (const nlohmann::json& c : cases["cases"]) {
        const std::string text = c["text"].get<std::string>();
        SCOPED_TRACE(c["category"].get<std::string>() + ": " + ::testing::PrintToString(text));
        EXPECT_EQ(gpt2().encode(text), ids_of(c["ids"]));
    }
}

TEST(GPT2TokenizerReference, WhereGpt3EncoderDiffersTheOriginalsIdsHold) {
    SKIP_WITHOUT_REAL_VOCABULARY();
    const nlohmann::json cases = reference_cases();
    ASSERT_FALSE(cases["differences"].empty());
    for (const nlohmann::json& c : cases["differences"]) {
        const std::string text = c["text"].get<std::string>();
        SCOPED_TRACE(::testing::PrintToString(text));
        const Ids ids = gpt2().encode(text);
        EXPECT_EQ(ids, ids_of(c["original_ids"]));
        EXPECT_NE(ids, ids_of(c["gpt3_encoder_ids"]));
    }
}

TEST(GPT2TokenizerReference, DecodeGivesEveryCaseBack) {
    SKIP_WITHOUT_REAL_VOCABULARY();
    const nlohmann::json cases = reference_cases();
    for (const std::string_view group : {"cases", "differences"}) {
        for (const nlohmann::json& c : cases[std::string(group)]) {
            const std::string text = c["text"].get<std::string>();
            EXPECT_EQ(gpt2().decode(gpt2().encode(text)), text) << ::testing::PrintToString(text);
        }
    }
}

TEST(GPT2TokenizerReference, RoundTripsKeepEveryByte) {
    SKIP_WITHOUT_REAL_VOCABULARY();
    const std::vector<std::string_view> texts{
        "\xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x91\xA7 family",  // ZWJ sequence
        "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E \xE4\xB8\xAD\xE6\x96\x87 \xED\x95\x9C\xEA\xB5\xAD\xEC\x96\xB4",  // CJK
        "e\xCC\x81 a\xCC\x88\xCC\x81",                                                    // combining marks
        "  \t\t \n\n\n   \r\n\r\n\t x  ", "it's IT'S we'LL They'RE", "0123456789 3.14 1,000,000",
        "\xD7\xA9\xD7\x9C\xD7\x95\xD7\x9D \xD9\x85\xD8\xB1\xD8\xAD\xD8\xA8\xD8\xA7 abc",  // RTL
        "a\0b\x01\x7F"sv,
    };
    for (const std::string_view text : texts) {
        const Ids ids = gpt2().encode(text);
        EXPECT_EQ(gpt2().decode(ids), text);
        // Token by token, the bytes add up even where a token ends inside a character.
        std::string streamed;
        for (const std::int64_t id : ids) {
            streamed += gpt2().token_bytes(id);
        }
        EXPECT_EQ(streamed, text);
        EXPECT_EQ(gpt2().encode(gpt2().decode(ids)), ids);
    }
}

TEST(GPT2TokenizerReference, EveryTokenThatIsTextEncodesToItself) {
    SKIP_WITHOUT_REAL_VOCABULARY();
    // 49,913 of the 50,257 tokens are UTF-8 on their own (the others are parts of
    // characters). Each of them, encoded, is itself, except "<|endoftext|>", which as plain
    // text is seven tokens. (Counted with tests/data/gpt2_reference_encoder.py too.)
    std::int64_t text_tokens = 0;
    std::int64_t themselves = 0;
    for (std::int64_t id = 0; id < gpt2().vocab_size(); ++id) {
        const std::string_view bytes = gpt2().token_bytes(id);
        if (kael::text::first_invalid_utf8(bytes).has_value()) {
            continue;
        }
        ++text_tokens;
        const Ids ids = gpt2().encode(bytes);
        if (ids == Ids{id}) {
            ++themselves;
        } else {
            EXPECT_EQ(id, 50256) << ::testing::PrintToString(std::string(bytes));
        }
    }
    EXPECT_EQ(text_tokens, 49'913);
    EXPECT_EQ(themselves, 49'912);
}

TEST(GPT2TokenizerReference, ThreadsEncodingAtOnceGetTheIdsOfOneThread) {
    SKIP_WITHOUT_REAL_VOCABULARY();
    // A tokenizer of its own, so that its cache starts empty and the threads fill it.
    const GPT2Tokenizer tokenizer = GPT2Tokenizer::from_directory(vocab_dir());
    const std::string text = sample_text(2000, 7) + " naïve café 東京 😀 " + sample_text(2000, 8);
    const Ids expected = gpt2().encode(text);
    std::vector<Ids> results(4);
    std::vector<std::thread> threads;
    for (Ids& result : results) {
        threads.emplace_back([&] { result = tokenizer.encode(text); });
    }
    for (std::thread& thread : threads) {
        thread.join();
    }
    for (const Ids& result : results) {
        EXPECT_EQ(result, expected);
    }
}


// ---- StreamingDecoder: the text of tokens as they arrive --------------------------------

// Pushing ids one at a time and finishing gives decode() of them all, piece by piece.
std::string streamed(const GPT2Tokenizer& tokenizer, const Ids& ids, std::vector<std::string>* pieces = nullptr) {
    kael::text::StreamingDecoder decoder(tokenizer);
    std::string text;
    for (const std::int64_t id : ids) {
        std::string piece = decoder.push(id);
        text += piece;
        if (pieces != nullptr) {
            pieces->push_back(std::move(piece));
        }
    }
    return text + decoder.finish();
}

TEST(StreamingDecoder, ACharacterCutBetweenTokensWaitsForItsLastByte) {
    const GPT2Tokenizer tokenizer = byte_tokenizer();
    // "é€" is C3 A9 E2 82 AC: each byte its own token.
    std::vector<std::string> pieces;
    const std::string text = streamed(tokenizer, {0xC3, 0xA9, 0xE2, 0x82, 0xAC, 'a'}, &pieces);
    EXPECT_EQ(pieces, (std::vector<std::string>{"", "\xC3\xA9", "", "", "\xE2\x82\xAC", "a"}));
    EXPECT_EQ(text, "\xC3\xA9\xE2\x82\xAC" "a");
}

TEST(StreamingDecoder, BytesThatCanNeverBeUtf8BecomeTheReplacementCharacterAsDecodeDoes) {
    const GPT2Tokenizer tokenizer = byte_tokenizer();
    const Ids cases[] = {{0xFF, 'a'}, {0xC3, 'a'}, {0xE2, 0x82}, {0xED, 0xA0, 0x80}, {0xC0, 0xAF, 'x'}, {'a', 0xF4}};
    for (const Ids& ids : cases) {
        EXPECT_EQ(streamed(tokenizer, ids), tokenizer.decode(ids)) << ::testing::PrintToString(ids);
    }
}

TEST(StreamingDecoder, RandomBytesStreamToWhatDecodeGives) {
    const GPT2Tokenizer tokenizer = small_english_tokenizer();
    std::mt19937 random(7);
    std::uniform_int_distribution<std::int64_t> id(0, tokenizer.vocab_size() - 1);
    for (int trial = 0; trial < 200; ++trial) {
        Ids ids(static_cast<std::size_t>(trial % 17));
        for (std::int64_t& value : ids) {
            value = id(random);
        }
        EXPECT_EQ(streamed(tokenizer, ids), tokenizer.decode(ids));
    }
}

TEST(StreamingDecoder, AnIdOutsideTheVocabularyIsAnIndexError) {
    const GPT2Tokenizer tokenizer = byte_tokenizer();
    kael::text::StreamingDecoder decoder(tokenizer);
    EXPECT_EQ(decoder.push(255), "\xEF\xBF\xBD");  // 0xFF alone is never UTF-8
    EXPECT_THROW((void)decoder.push(256), kael::IndexError);
    EXPECT_THROW((void)decoder.push(-1), kael::IndexError);
}

TEST(StreamingDecoder, RealTextStreamsToItself) {
    SKIP_WITHOUT_REAL_VOCABULARY();
    const std::string text = "Grüße aus Köln 🤖, 東京へ ようこそ\r\n\tnaïve café";
    EXPECT_EQ(streamed(gpt2(), gpt2().encode(text)), text);
}

}  // namespace

// Tests of exercise 12.1. Every test fails until byte_to_char, char_to_byte and spell are
// implemented. The table is checked byte by byte against the rule, against kael's own
// table (kael/src/text/byte_alphabet.h) and, spelled in UTF-8, against kael's encoder.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "exercise.h"
#include "text/byte_alphabet.h"
#include "text/utf8.h"

namespace {

using exercise::byte_to_char;
using exercise::char_to_byte;
using exercise::spell;

bool printable_in_latin1(unsigned byte) {
    return (byte >= 0x21 && byte <= 0x7E) || (byte >= 0xA1 && byte <= 0xAC) || (byte >= 0xAE && byte <= 0xFF);
}

TEST(ByteAlphabet, PrintableBytesAreWrittenAsThemselves) {
    int count = 0;
    for (unsigned byte = 0; byte < 256; ++byte) {
        if (printable_in_latin1(byte)) {
            EXPECT_EQ(byte_to_char(static_cast<std::uint8_t>(byte)), static_cast<char32_t>(byte)) << "byte " << byte;
            ++count;
        }
    }
    EXPECT_EQ(count, 188);
    EXPECT_EQ(byte_to_char('!'), U'!');
    EXPECT_EQ(byte_to_char('~'), U'~');
    EXPECT_EQ(byte_to_char(0xE9), U'\u00E9');  // 'é'
}

TEST(ByteAlphabet, TheOtherBytesTakeU0100OnwardsInByteOrder) {
    // 0x00..0x20 (33 bytes), then 0x7F..0xA0 (34), then 0xAD: 68 stand-ins.
    EXPECT_EQ(byte_to_char(0x00), U'\u0100');  // 'Ā'
    EXPECT_EQ(byte_to_char('\t'), U'\u0109');  // 'ĉ'
    EXPECT_EQ(byte_to_char('\n'), U'\u010A');  // 'Ċ'
    EXPECT_EQ(byte_to_char(' '), U'\u0120');   // 'Ġ', the 33rd
    EXPECT_EQ(byte_to_char(0x7F), U'\u0121');  // DEL comes straight after the space
    EXPECT_EQ(byte_to_char(0xA0), U'\u0142');  // the no-break space
    EXPECT_EQ(byte_to_char(0xAD), U'\u0143');  // the soft hyphen, the last
    std::vector<char32_t> stand_ins;
    for (unsigned byte = 0; byte < 256; ++byte) {
        if (!printable_in_latin1(byte)) {
            stand_ins.push_back(byte_to_char(static_cast<std::uint8_t>(byte)));
        }
    }
    ASSERT_EQ(stand_ins.size(), 68U);
    for (std::size_t i = 0; i < stand_ins.size(); ++i) {
        EXPECT_EQ(stand_ins[i], 0x100 + static_cast<char32_t>(i)) << "stand-in " << i;
    }
}

TEST(ByteAlphabet, EveryByteMatchesTheLibrarysTable) {
    for (unsigned byte = 0; byte < 256; ++byte) {
        const auto b = static_cast<std::uint8_t>(byte);
        EXPECT_EQ(byte_to_char(b), kael::text::byte_to_char(b)) << "byte " << byte;
    }
}

TEST(ByteAlphabet, TheTableIsABijectionAndCharToByteIsItsInverse) {
    std::vector<char32_t> seen;
    for (unsigned byte = 0; byte < 256; ++byte) {
        const auto b = static_cast<std::uint8_t>(byte);
        const char32_t c = byte_to_char(b);
        EXPECT_EQ(char_to_byte(c), std::optional<std::uint8_t>(b)) << "byte " << byte;
        seen.push_back(c);
    }
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(std::adjacent_find(seen.begin(), seen.end()), seen.end()) << "two bytes share a character";
    // Every other character is no byte at all, as kael's inverse says too.
    for (char32_t c = 0; c < 0x800; ++c) {
        EXPECT_EQ(char_to_byte(c), kael::text::char_to_byte(c)) << "U+" << std::hex << static_cast<unsigned>(c);
    }
    EXPECT_FALSE(char_to_byte(U' ').has_value());
    EXPECT_FALSE(char_to_byte(U'\u0144').has_value());
    EXPECT_FALSE(char_to_byte(U'\U0001F600').has_value());
}

TEST(ByteAlphabet, NoCharacterIsASpaceOrAControlCharacter) {
    // What a text file could lose, a terminal not show, or a merge line split on.
    for (unsigned byte = 0; byte < 256; ++byte) {
        const char32_t c = byte_to_char(static_cast<std::uint8_t>(byte));
        EXPECT_GT(c, U' ') << "byte " << byte;
        EXPECT_FALSE(c >= 0x7F && c <= 0xA0) << "byte " << byte;
        EXPECT_NE(c, U'\u00AD') << "byte " << byte;
    }
}

TEST(ByteAlphabet, SpellWritesTheFilesSpellingInUtf8) {
    EXPECT_EQ(spell("hello"), "hello");
    EXPECT_EQ(spell(" world"), "\xC4\xA0world");  // "Ġworld", GPT-2's token 995
    EXPECT_EQ(spell("\n\n"), "\xC4\x8A\xC4\x8A");  // "ĊĊ"
    // 'é' is the two bytes C3 A9, and each is spelled on its own: "Ã©".
    EXPECT_EQ(spell("\xC3\xA9"), "\xC3\x83\xC2\xA9");
    EXPECT_EQ(spell(""), "");
    std::string all;
    std::string expected;
    for (unsigned byte = 0; byte < 256; ++byte) {
        all.push_back(static_cast<char>(byte));
        expected += kael::text::encode_utf8(kael::text::byte_to_char(static_cast<std::uint8_t>(byte)));
    }
    EXPECT_EQ(spell(all), expected);
}

}  // namespace

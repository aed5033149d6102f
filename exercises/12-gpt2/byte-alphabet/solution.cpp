// Reference solution of exercise 12.1.
#include <array>
#include <cstddef>

#include "exercise.h"

namespace exercise {
namespace {

constexpr char32_t kFirstStandIn = 0x100;

// The bytes whose character is their own number: printable in Latin-1, and not a space of
// any kind (0x20, the no-break space 0xA0) nor the soft hyphen 0xAD, which many programs
// do not show.
constexpr bool stands_for_itself(unsigned byte) {
    return (byte >= 0x21 && byte <= 0x7E) || (byte >= 0xA1 && byte <= 0xAC) || (byte >= 0xAE && byte <= 0xFF);
}

// One pass in byte order: a byte that stands for itself keeps its number, every other
// byte takes the next stand-in. Byte order is what makes the table GPT-2's: the space,
// the 33rd byte that does not stand for itself, gets U+0100 + 32 = U+0120, 'Ġ'.
constexpr std::array<char32_t, 256> make_table() {
    std::array<char32_t, 256> table{};
    char32_t next = kFirstStandIn;
    for (unsigned byte = 0; byte < 256; ++byte) {
        table[byte] = stands_for_itself(byte) ? static_cast<char32_t>(byte) : next++;
    }
    return table;
}

constexpr std::array<char32_t, 256> kTable = make_table();

// UTF-8 of a code point below U+0800, which every character of the table is: one byte
// up to U+007F, two from U+0080 on (110xxxxx 10xxxxxx).
void append_utf8(char32_t c, std::string& out) {
    if (c < 0x80) {
        out.push_back(static_cast<char>(c));
        return;
    }
    out.push_back(static_cast<char>(0xC0U | (c >> 6U)));
    out.push_back(static_cast<char>(0x80U | (c & 0x3FU)));
}

}  // namespace

char32_t byte_to_char(std::uint8_t byte) { return kTable[byte]; }

std::optional<std::uint8_t> char_to_byte(char32_t c) {
    // 256 entries: a search is as fast as a map would be, and obviously the inverse.
    for (std::size_t byte = 0; byte < kTable.size(); ++byte) {
        if (kTable[byte] == c) {
            return static_cast<std::uint8_t>(byte);
        }
    }
    return std::nullopt;
}

std::string spell(std::string_view bytes) {
    std::string spelling;
    for (const char b : bytes) {
        append_utf8(byte_to_char(static_cast<std::uint8_t>(b)), spelling);
    }
    return spelling;
}

}  // namespace exercise

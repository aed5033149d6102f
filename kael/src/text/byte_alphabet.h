#pragma once
// GPT-2's byte alphabet (chapter 12): the 256 characters its vocabulary files write bytes
// with. A token of GPT-2 is a string of bytes, not of characters, yet encoder.json and
// vocab.bpe are text, and vocab.bpe separates the two halves of a merge with a space. So
// each byte is written as one printable character that is not a space: the 188 bytes
// that are printable in Latin-1 ('!'..'~', '¡'..'¬', '®'..'ÿ') as themselves, and the 68
// others (the controls, the space, DEL, the no-break and the soft hyphen) as U+0100,
// U+0101, ... U+0143, in byte order. The space 0x20 is the 33rd of those, U+0120 'Ġ',
// which is why GPT-2's tokens for words that follow a space start with 'Ġ'.
// (OpenAI's encoder.py calls this table bytes_to_unicode.)
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace kael::text {
namespace detail {

constexpr char32_t kFirstStandIn = 0x100;
constexpr std::size_t kStandIns = 68;

/// True for the bytes that are written as the Latin-1 character of the same number.
constexpr bool stands_for_itself(char32_t byte) {
    return (byte >= 0x21 && byte <= 0x7E) || (byte >= 0xA1 && byte <= 0xAC) || (byte >= 0xAE && byte <= 0xFF);
}

// The bytes written as U+0100 + i, for each i.
constexpr std::array<std::uint8_t, kStandIns> make_stood_in_for() {
    std::array<std::uint8_t, kStandIns> bytes{};
    std::size_t next = 0;
    for (unsigned byte = 0; byte < 256; ++byte) {
        if (!stands_for_itself(byte)) {
            bytes[next++] = static_cast<std::uint8_t>(byte);
        }
    }
    return bytes;
}

constexpr std::array<std::uint8_t, kStandIns> kStoodInFor = make_stood_in_for();

constexpr std::array<char32_t, 256> make_byte_chars() {
    std::array<char32_t, 256> chars{};
    for (unsigned byte = 0; byte < 256; ++byte) {
        chars[byte] = byte;
    }
    for (std::size_t i = 0; i < kStandIns; ++i) {
        chars[kStoodInFor[i]] = kFirstStandIn + static_cast<char32_t>(i);
    }
    return chars;
}

constexpr std::array<char32_t, 256> kByteChars = make_byte_chars();

}  // namespace detail

/// The character GPT-2's files write `byte` as.
constexpr char32_t byte_to_char(std::uint8_t byte) { return detail::kByteChars[byte]; }

/// The byte that `c` writes, or nothing when `c` is none of the 256 characters.
constexpr std::optional<std::uint8_t> char_to_byte(char32_t c) {
    if (detail::stands_for_itself(c)) {
        return static_cast<std::uint8_t>(c);
    }
    if (c >= detail::kFirstStandIn && c < detail::kFirstStandIn + detail::kStandIns) {
        return detail::kStoodInFor[c - detail::kFirstStandIn];
    }
    return std::nullopt;
}

static_assert(byte_to_char(' ') == U'\u0120', "the space is written 'Ġ'");
static_assert(byte_to_char('\n') == U'\u010A', "the newline is written 'Ċ'");
static_assert(byte_to_char(0xAD) == U'\u0143', "the soft hyphen is the last stand-in");
static_assert(char_to_byte(U'\u0120') == std::uint8_t{' '});

}  // namespace kael::text

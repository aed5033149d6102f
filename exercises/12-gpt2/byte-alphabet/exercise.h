#pragma once
// Exercise 12.1: GPT-2's byte alphabet, the 256 characters its vocabulary files write bytes
// with (OpenAI's encoder.py calls the table bytes_to_unicode).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace exercise {

/// The character (a Unicode code point) that vocab.json and merges.txt write `byte` as. The
/// 188 bytes that are printable in Latin-1 and not a space ('!'..'~', 0xA1..0xAC and
/// 0xAE..0xFF) are written as the character of the same number; the other 68, in byte
/// order, as U+0100, U+0101, ... U+0143.
[[nodiscard]] char32_t byte_to_char(std::uint8_t byte);

/// The byte that `c` writes, or nothing when `c` is none of the 256 characters of the
/// alphabet.
[[nodiscard]] std::optional<std::uint8_t> char_to_byte(char32_t c);

/// How the files spell a token whose bytes are `bytes`: each byte's character, one after
/// the other, encoded in UTF-8. " world" is spelled "Ġworld" ("\xC4\xA0world").
[[nodiscard]] std::string spell(std::string_view bytes);

}  // namespace exercise

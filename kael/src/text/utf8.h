#pragma once
// UTF-8, byte by byte (chapter 12). The tokenizer needs three things from it: to refuse
// text that is not UTF-8 (GPT-2's encoder works on Python strings, which cannot hold such
// text), to read the characters of a vocabulary entry, and to turn the bytes of decoded
// tokens back into text, replacing what is not UTF-8 exactly as Python's
// bytes.decode("utf-8", errors="replace") does.
//
// What counts as UTF-8 is Table 3-7 of the Unicode Standard ("Well-Formed UTF-8 Byte
// Sequences"). It rules out, besides stray continuation bytes and cut-off sequences, the
// three ways of writing something that is not a character of one canonical form:
// overlong forms (C0 AF for '/'), the surrogates U+D800..U+DFFF (ED A0 80), and values
// above U+10FFFF (F4 90 80 80, and every lead byte from F5 on).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kael::text {

/// What starts at one position of a byte string: a character, or a flaw.
struct Utf8Sequence {
    /// The bytes it takes. For a character, its whole encoding (1 to 4). For a flaw, the
    /// "maximal subpart": the longest start of a well-formed sequence found there, or the
    /// single offending byte. Each flaw is one U+FFFD in Python's replacement (Unicode's
    /// recommended practice, which WHATWG's decoder follows too).
    std::size_t length = 0;
    /// The character, when `valid`.
    char32_t code_point = 0;
    bool valid = false;
};

/// The sequence that starts at `bytes[position]`; `position` must be inside `bytes`.
[[nodiscard]] Utf8Sequence next_utf8_sequence(std::string_view bytes, std::size_t position);

/// The offset of the first byte of `bytes` where well-formed UTF-8 stops, or nothing when
/// all of it is well-formed.
[[nodiscard]] std::optional<std::size_t> first_invalid_utf8(std::string_view bytes);

/// Why the sequence at `bytes[position]` is not UTF-8, for an error message: "the byte
/// 0xC0 at offset 3 starts an overlong form", say. `position` must be a flaw.
[[nodiscard]] std::string describe_invalid_utf8(std::string_view bytes, std::size_t position);

/// `bytes` as UTF-8 text: each flaw (see Utf8Sequence::length) replaced by U+FFFD, the
/// rest kept as it is.
[[nodiscard]] std::string replace_invalid_utf8(std::string_view bytes);

/// The UTF-8 encoding of `code_point`, which must be a character (not a surrogate, at
/// most U+10FFFF).
[[nodiscard]] std::string encode_utf8(char32_t code_point);

}  // namespace kael::text

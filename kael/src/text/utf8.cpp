// UTF-8 validation, description of flaws, and Python's replacement of them.
#include "text/utf8.h"

#include <cstdint>
#include <optional>
#include <string>

#include "kael/error.h"

namespace kael::text {
namespace {

// What a lead byte promises: how many bytes its sequence has, and the range of the byte
// after it. Only the second byte has a narrower range than 80..BF; the narrowing is what
// rules out overlong forms (E0, F0), surrogates (ED) and values above U+10FFFF (F4).
// Table 3-7 of the Unicode Standard, row by row.
struct Lead {
    std::size_t length;
    unsigned char second_low;
    unsigned char second_high;
};

std::optional<Lead> lead_of(unsigned char byte) {
    if (byte <= 0x7F) {
        return Lead{1, 0, 0};
    }
    if (byte >= 0xC2 && byte <= 0xDF) {
        return Lead{2, 0x80, 0xBF};
    }
    if (byte == 0xE0) {
        return Lead{3, 0xA0, 0xBF};  // E0 80..9F would be overlong
    }
    if (byte == 0xED) {
        return Lead{3, 0x80, 0x9F};  // ED A0..BF would be a surrogate
    }
    if (byte >= 0xE1 && byte <= 0xEF) {
        return Lead{3, 0x80, 0xBF};
    }
    if (byte == 0xF0) {
        return Lead{4, 0x90, 0xBF};  // F0 80..8F would be overlong
    }
    if (byte >= 0xF1 && byte <= 0xF3) {
        return Lead{4, 0x80, 0xBF};
    }
    if (byte == 0xF4) {
        return Lead{4, 0x80, 0x8F};  // F4 90..BF would be above U+10FFFF
    }
    return std::nullopt;  // 80..BF continue a sequence, C0 C1 F5..FF occur nowhere
}

unsigned char byte_at(std::string_view bytes, std::size_t position) {
    return static_cast<unsigned char>(bytes[position]);
}

std::string hex(unsigned char byte) {
    constexpr std::string_view digits = "0123456789ABCDEF";
    return {'0', 'x', digits[byte >> 4U], digits[byte & 0x0FU]};
}

}  // namespace

Utf8Sequence next_utf8_sequence(std::string_view bytes, std::size_t position) {
    const unsigned char first = byte_at(bytes, position);
    const std::optional<Lead> lead = lead_of(first);
    if (!lead) {
        return {1, 0, false};
    }
    if (lead->length == 1) {
        return {1, first, true};
    }
    // The lead byte of an n-byte sequence carries 7 - n bits of the character, each
    // continuation byte 6 more.
    char32_t code_point = first & (0x7FU >> lead->length);
    for (std::size_t i = 1; i < lead->length; ++i) {
        if (position + i >= bytes.size()) {
            return {i, 0, false};  // cut short by the end: the i bytes so far are one flaw
        }
        const unsigned char byte = byte_at(bytes, position + i);
        const unsigned char low = i == 1 ? lead->second_low : 0x80;
        const unsigned char high = i == 1 ? lead->second_high : 0xBF;
        if (byte < low || byte > high) {
            return {i, 0, false};  // the offending byte is not part of the flaw: it may start the next character
        }
        code_point = (code_point << 6U) | (byte & 0x3FU);
    }
    return {lead->length, code_point, true};
}

std::optional<std::size_t> first_invalid_utf8(std::string_view bytes) {
    std::size_t position = 0;
    while (position < bytes.size()) {
        // Most text is mostly ASCII, which needs no decoding.
        if (byte_at(bytes, position) < 0x80) {
            ++position;
            continue;
        }
        const Utf8Sequence sequence = next_utf8_sequence(bytes, position);
        if (!sequence.valid) {
            return position;
        }
        position += sequence.length;
    }
    return std::nullopt;
}

std::string describe_invalid_utf8(std::string_view bytes, std::size_t position) {
    const unsigned char first = byte_at(bytes, position);
    const std::string at = " at offset " + std::to_string(position);
    const std::optional<Lead> lead = lead_of(first);
    if (!lead) {
        if (first >= 0x80 && first <= 0xBF) {
            return "the byte " + hex(first) + at + " is a continuation byte with no lead byte before it";
        }
        if (first == 0xC0 || first == 0xC1) {
            return "the byte " + hex(first) + at + " starts an overlong form (a character written with more bytes "
                                                   "than it needs), which UTF-8 forbids";
        }
        if (first <= 0xF7) {
            return "the byte " + hex(first) + at + " would start a value above U+10FFFF, the last character";
        }
        return "the byte " + hex(first) + at + " occurs nowhere in UTF-8";
    }
    const Utf8Sequence sequence = next_utf8_sequence(bytes, position);
    KAEL_CHECK(!sequence.valid, "describe_invalid_utf8: the sequence" << at << " is valid UTF-8");
    const std::size_t stop = position + sequence.length;  // the byte that does not fit
    if (stop >= bytes.size()) {
        return "the text ends inside the " + std::to_string(lead->length) + "-byte sequence that starts" + at;
    }
    const unsigned char byte = byte_at(bytes, stop);
    if (sequence.length == 1 && byte >= 0x80 && byte <= 0xBF) {
        // A continuation byte outside the lead's narrower range for the second byte.
        const std::string pair = "the bytes " + hex(first) + " " + hex(byte) + at;
        if (first == 0xED) {
            return pair + " start a surrogate (U+D800..U+DFFF), which UTF-8 may not encode";
        }
        if (first == 0xF4) {
            return pair + " start a value above U+10FFFF, the last character";
        }
        return pair + " start an overlong form (a character written with more bytes than it needs), which UTF-8 "
                      "forbids";
    }
    return "the byte " + hex(byte) + " at offset " + std::to_string(stop) +
           " is not a continuation byte, so it cannot continue the sequence that starts" + at;
}

std::string replace_invalid_utf8(std::string_view bytes) {
    constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
    std::string text;
    text.reserve(bytes.size());
    std::size_t position = 0;
    while (position < bytes.size()) {
        const Utf8Sequence sequence = next_utf8_sequence(bytes, position);
        if (sequence.valid) {
            text.append(bytes.substr(position, sequence.length));
        } else {
            text.append(kReplacement);
        }
        position += sequence.length;
    }
    return text;
}

std::string encode_utf8(char32_t code_point) {
    KAEL_CHECK(code_point <= 0x10FFFF && (code_point < 0xD800 || code_point > 0xDFFF),
               "encode_utf8: U+" << std::hex << static_cast<std::uint32_t>(code_point) << " is not a character");
    std::string bytes;
    if (code_point < 0x80) {
        bytes += static_cast<char>(code_point);
    } else if (code_point < 0x800) {
        bytes += static_cast<char>(0xC0U | (code_point >> 6U));
        bytes += static_cast<char>(0x80U | (code_point & 0x3FU));
    } else if (code_point < 0x10000) {
        bytes += static_cast<char>(0xE0U | (code_point >> 12U));
        bytes += static_cast<char>(0x80U | ((code_point >> 6U) & 0x3FU));
        bytes += static_cast<char>(0x80U | (code_point & 0x3FU));
    } else {
        bytes += static_cast<char>(0xF0U | (code_point >> 18U));
        bytes += static_cast<char>(0x80U | ((code_point >> 12U) & 0x3FU));
        bytes += static_cast<char>(0x80U | ((code_point >> 6U) & 0x3FU));
        bytes += static_cast<char>(0x80U | (code_point & 0x3FU));
    }
    return bytes;
}

}  // namespace kael::text

#pragma once
// Text from a file, shown in an error message. A file is a stranger's: a tensor's name or a
// token may be a megabyte long or hold control characters, so what a message shows is cut
// to a length that fits it, with every byte outside printable ASCII written as \xNN, so
// that nothing in a message can rewrite the reader's terminal. The safetensors reader
// (chapter 07) and GPT-2's tokenizer (chapter 12) show names and tokens this way.

#include <cstddef>
#include <string>
#include <string_view>

namespace kael::io {

// In single quotes, the first `limit` bytes of `text` at most, and how long it was if cut.
// (Not named `quoted`: for a std::string argument, argument-dependent lookup would find
// std::quoted, an exact match, which quotes with double quotes and escapes nothing.)
inline std::string quote_for_message(std::string_view text, std::size_t limit = 100) {
    constexpr std::string_view digits = "0123456789ABCDEF";
    std::string shown = "'";
    for (const char c : text.substr(0, limit)) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte >= 0x20 && byte < 0x7F) {
            shown += c;
        } else {
            shown += {'\\', 'x', digits[byte >> 4U], digits[byte & 0x0FU]};
        }
    }
    shown += "'";
    if (text.size() > limit) {
        shown += " (the first " + std::to_string(limit) + " of its " + std::to_string(text.size()) + " bytes)";
    }
    return shown;
}

}  // namespace kael::io

// libFuzzer target: GPT-2's tokenizer (chapter 12) on a vocabulary, merges and text that
// are all the fuzzer's. The input is three parts separated by the byte 0xFF, which no
// UTF-8 text holds: vocab.json, merges.txt, then the text to encode (any bytes at all).
// Loading may refuse, encoding may refuse text that is not UTF-8, and decoding may refuse
// an id outside the vocabulary, each only with a kael::Error. What is accepted must round
// trip: every id is inside the vocabulary, the ids' bytes are the text's bytes exactly,
// with and without special tokens, and the decoded text is the text; decoding any ids
// gives UTF-8.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "kael/text/gpt2_tokenizer.h"

using kael::fuzz::require;
using kael::fuzz::succeeds;

namespace {

// The part of `rest` before the next 0xFF (all of it when there is none), removed from it.
std::string_view next_part(std::string_view& rest) {
    const std::size_t end = rest.find('\xff');
    const std::string_view part = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
    return part;
}

// Whether `text` is UTF-8 (RFC 3629: shortest forms only, no surrogates, at most U+10FFFF),
// written out here so that the target does not trust the tokenizer's own check.
bool is_utf8(std::string_view text) {
    std::size_t i = 0;
    while (i < text.size()) {
        const auto lead = static_cast<unsigned char>(text[i]);
        const std::size_t length = lead < 0x80 ? 1 : lead >= 0xC2 && lead <= 0xDF ? 2 : lead >= 0xE0 && lead <= 0xEF ? 3
                                                 : lead >= 0xF0 && lead <= 0xF4 ? 4 : 0;
        if (length == 0 || i + length > text.size()) {
            return false;
        }
        std::uint32_t code = length == 1 ? lead : lead & (0xFFU >> (length + 1));
        for (std::size_t k = 1; k < length; ++k) {
            const auto next = static_cast<unsigned char>(text[i + k]);
            if ((next & 0xC0U) != 0x80U) {
                return false;
            }
            code = (code << 6U) | (next & 0x3FU);
        }
        const std::uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
        if (code < smallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) {
            return false;
        }
        i += length;
    }
    return true;
}

void check_encoding(const kael::text::GPT2Tokenizer& tokenizer, std::string_view text, bool allow_special) {
    std::optional<std::vector<std::int64_t>> ids;
    if (!succeeds([&] { ids = tokenizer.encode(text, allow_special); })) {
        return;
    }
    for (const std::int64_t id : *ids) {
        require(id >= 0 && id < tokenizer.vocab_size(), "encode gave an id outside the vocabulary");
    }
    require(tokenizer.decode_bytes(*ids) == text, "the ids' bytes are not the text's");
    require(tokenizer.decode(*ids) == text, "text that encoded (so it is UTF-8) did not decode to itself");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view rest(reinterpret_cast<const char*>(data), size);
    const std::string_view vocab = next_part(rest);
    const std::string_view merges = next_part(rest);
    const std::string_view text = rest;
    std::optional<kael::text::GPT2Tokenizer> tokenizer;
    if (!succeeds([&] { tokenizer = kael::text::GPT2Tokenizer::from_strings(vocab, merges, "fuzz"); })) {
        return 0;
    }
    require(tokenizer->vocab_size() > 0, "an accepted vocabulary is empty");
    check_encoding(*tokenizer, text, false);
    check_encoding(*tokenizer, text, true);
    // The text's bytes as ids, some of them past the vocabulary: decode refuses those.
    std::vector<std::int64_t> ids;
    for (const char c : text.substr(0, 64)) {
        ids.push_back(static_cast<std::int64_t>(static_cast<unsigned char>(c)) % (tokenizer->vocab_size() + 1));
    }
    // decode's text is always UTF-8 (bytes that are not become U+FFFD), which encode checks;
    // bytes that already are UTF-8 come back unchanged.
    std::string decoded;
    if (succeeds([&] { decoded = tokenizer->decode(ids); })) {
        require(is_utf8(decoded), "decode gave text that is not UTF-8");
        const std::string raw = tokenizer->decode_bytes(ids);
        if (is_utf8(raw)) {
            require(decoded == raw, "decode changed bytes that were UTF-8 already");
        }
    }
    return 0;
}

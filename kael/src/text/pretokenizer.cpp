// GPT-2's pre-tokenisation pattern, run by PCRE2.
#include "text/pretokenizer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <array>
#include <string>

#include "kael/error.h"

namespace kael::text {
namespace {

// Unicode's White_Space characters, as the inside of a character class: what Python's
// `regex` means by \s. PCRE2's own \s adds U+180E; see the header. (\v is avoided on
// purpose: in PCRE2 it is a class of its own, "vertical space", not the tab 0B.)
constexpr std::string_view kSpace =
    R"(\x{09}-\x{0D}\x{20}\x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000})";

// OpenAI's pattern with \s and \S written out: [^\s\p{L}\p{N}] becomes [^<space>\p{L}\p{N}],
// \s becomes [<space>] and \S becomes [^<space>].
std::string gpt2_pattern() {
    const std::string space(kSpace);
    return R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^)" + space + R"(\p{L}\p{N}]+)" +  //
           "|[" + space + "]+(?![^" + space + "])" +                                         //
           "|[" + space + "]+";
}

std::string pcre2_message(int code) {
    std::array<PCRE2_UCHAR, 256> buffer{};
    const int length = pcre2_get_error_message(code, buffer.data(), buffer.size());
    return length < 0 ? "PCRE2 error " + std::to_string(code)
                      : std::string(reinterpret_cast<const char*>(buffer.data()), static_cast<std::size_t>(length));
}

}  // namespace

Pretokenizer::Pretokenizer() {
    const std::string pattern = gpt2_pattern();
    int error = 0;
    PCRE2_SIZE error_offset = 0;
    // PCRE2_UTF: the subject and the pattern are UTF-8, and a match moves by characters.
    // PCRE2_UCP would make \d, \w, \s and [:alpha:] Unicode's; the pattern has none of
    // them left, but with the flag any added later would not silently mean ASCII.
    code_ = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), PCRE2_UTF | PCRE2_UCP,
                          &error, &error_offset, nullptr);
    KAEL_CHECK(code_ != nullptr, "GPT-2 tokenizer: PCRE2 cannot compile the pre-tokenisation pattern at offset "
                                     << error_offset << ": " << pcre2_message(error));
    // The JIT makes matching several times faster. Where it is unavailable, pcre2_match
    // interprets the same pattern with the same results, so a failure here is no error.
    jit_ = pcre2_jit_compile(code_, PCRE2_JIT_COMPLETE) == 0;
}

Pretokenizer::~Pretokenizer() { pcre2_code_free(code_); }

const Pretokenizer& Pretokenizer::gpt2() {
    // Initialised once, by the first caller; C++ makes the other threads wait for it.
    static const Pretokenizer pretokenizer;
    return pretokenizer;
}

Pieces::Pieces(std::string_view text, const Pretokenizer& pretokenizer)
    : text_(text), pretokenizer_(pretokenizer),
      match_(pcre2_match_data_create_from_pattern(pretokenizer.code_, nullptr)) {
    KAEL_CHECK(match_ != nullptr, "GPT-2 tokenizer: PCRE2 cannot allocate its match data");
}

Pieces::~Pieces() { pcre2_match_data_free(match_); }

std::optional<std::string_view> Pieces::next() {
    if (offset_ == text_.size()) {
        return std::nullopt;
    }
    const int result =
        pcre2_match(pretokenizer_.code_, reinterpret_cast<PCRE2_SPTR>(text_.data()), text_.size(), offset_,
                    PCRE2_NO_UTF_CHECK, match_, nullptr);
    if (result == PCRE2_ERROR_NOMATCH) {
        return std::nullopt;  // never happens (every character has a branch), and would end findall too
    }
    KAEL_CHECK(result > 0, "GPT-2 tokenizer: PCRE2 failed to match at byte " << offset_ << ": "
                                                                              << pcre2_message(result));
    const PCRE2_SIZE* bounds = pcre2_get_ovector_pointer(match_);
    const std::size_t begin = bounds[0];
    const std::size_t end = bounds[1];
    // Every branch takes at least one character; an empty match would never move on.
    KAEL_CHECK(end > begin, "GPT-2 tokenizer: the pattern matched nothing at byte " << begin);
    // Like Python's findall, a match may start after offset_, skipping what no branch
    // takes; with this pattern it starts at offset_ every time.
    offset_ = end;
    return text_.substr(begin, end - begin);
}

std::vector<std::string_view> pretokenize(std::string_view text) {
    std::vector<std::string_view> pieces;
    Pieces reader(text);
    while (const std::optional<std::string_view> piece = reader.next()) {
        pieces.push_back(*piece);
    }
    return pieces;
}

}  // namespace kael::text

#pragma once
// GPT-2's pre-tokenisation (chapter 12): before any merge, text is cut into pieces with
// one regular expression, and BPE then runs on each piece alone, so that no token ever
// spans two words, or a word and the punctuation after it. OpenAI's pattern is
//
//     's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//
// tried branch by branch at each position: seven English contractions (lowercase only),
// then a run of letters, of digits, or of other symbols, each with at most one space in
// front; then whitespace. `\s+(?!\S)` takes a run of whitespace but, when a word follows,
// leaves its last character, so that " world" keeps its space: "a   b" is "a", "  ", " b".
// Every character is a letter, a number, whitespace or none of those, so the pieces tile
// the text: joined, they give it back.
//
// The original runs the pattern with Python's `regex` module; kael runs it with PCRE2. The
// two agree on \p{L} and \p{N} (Unicode's general categories L and N) up to the Unicode
// version each was built with (PCRE2 10.42 has Unicode 14, regex 2023 has 15: characters
// assigned since, such as CJK Extension H, are "other" to PCRE2). They disagree on \s:
// PCRE2 counts U+180E MONGOLIAN VOWEL SEPARATOR, which Unicode stopped calling a space in
// 6.3, and `regex` does not. So kael writes the class out as Unicode's White_Space
// property, which is what `regex` uses; the comparison of all 1,112,064 characters, one
// by one and in pairs, is in the chapter.
#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

// PCRE2's types, declared the way pcre2.h declares them, so that this header needs no
// PCRE2 headers.
struct pcre2_real_code_8;
struct pcre2_real_match_data_8;

namespace kael::text {

/// GPT-2's pattern, compiled once for the process (and JIT-compiled where PCRE2 can).
/// Compiled code is read-only and shared by every thread; each Pieces has its own match
/// data, which is the part of a match that PCRE2 writes.
class Pretokenizer {
public:
    /// The one Pretokenizer, compiled on first use.
    [[nodiscard]] static const Pretokenizer& gpt2();

    Pretokenizer(const Pretokenizer&) = delete;
    Pretokenizer& operator=(const Pretokenizer&) = delete;
    ~Pretokenizer();

    /// True when PCRE2 compiled the pattern to machine code, false when it interprets it
    /// (a PCRE2 built without JIT, or a system that forbids writable executable memory).
    [[nodiscard]] bool jit() const noexcept { return jit_; }

private:
    friend class Pieces;
    Pretokenizer();

    pcre2_real_code_8* code_ = nullptr;
    bool jit_ = false;
};

/// The pieces of one text, read one at a time:
///
///     Pieces pieces(text);
///     while (const std::optional<std::string_view> piece = pieces.next()) { ... }
///
/// `text` must be valid UTF-8, which the caller checks (first_invalid_utf8): PCRE2 is
/// told not to check it again, which it would otherwise do at every call of next(). The
/// views point into `text`, which must outlive them.
class Pieces {
public:
    explicit Pieces(std::string_view text, const Pretokenizer& pretokenizer = Pretokenizer::gpt2());
    Pieces(const Pieces&) = delete;
    Pieces& operator=(const Pieces&) = delete;
    ~Pieces();

    /// The next piece, or nothing at the end of the text.
    [[nodiscard]] std::optional<std::string_view> next();

private:
    std::string_view text_;
    std::size_t offset_ = 0;
    const Pretokenizer& pretokenizer_;
    pcre2_real_match_data_8* match_ = nullptr;
};

/// All the pieces of `text` (valid UTF-8), in order.
[[nodiscard]] std::vector<std::string_view> pretokenize(std::string_view text);

}  // namespace kael::text

#pragma once
/// \file
/// \brief GPT-2's byte-level BPE tokenizer (chapter 12).
///
/// A GPT-2 token is a string of bytes, and its vocabulary of 50,257 starts with one token
/// for each of the 256 bytes, so any text at all can be encoded, with no "unknown" token.
/// Encoding does what OpenAI's encoder.py does, in three steps:
///
/// 1. Pre-tokenisation cuts the text into pieces with one regular expression (words with
///    the space before them, runs of digits, of punctuation, of whitespace; see
///    src/text/pretokenizer.h).
/// 2. Each piece starts as the tokens of its bytes.
/// 3. Merges, the ordered list of merges.txt, join adjacent tokens: the pair of lowest
///    rank first, everywhere in the piece, until no pair is a merge (src/text/bpe.h).
///
/// Decoding concatenates the tokens' bytes. The files write each byte as a printable
/// character (src/text/byte_alphabet.h), so that a merge line "Ġ t" can separate its two
/// tokens with a space: 'Ġ' is the byte 0x20.
///
/// Loading checks the files as closely as the safetensors reader checks a checkpoint;
/// every refusal is a typed kael error whose message names the file and the entry or
/// line, and shows names from the file cut to 100 bytes with anything unprintable
/// escaped. A tokenizer is immutable once loaded, and every member function may be called
/// from several threads at once.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kael::text {

/// GPT-2's tokenizer: a vocabulary (token string -> id) and a list of merges. Copies are
/// cheap and share one vocabulary and one cache.
class GPT2Tokenizer {
public:
    /// Loads a vocabulary (`vocab.json`, which OpenAI calls `encoder.json`: a JSON object
    /// from token to id) and its merges (`merges.txt`, OpenAI's `vocab.bpe`: an optional
    /// first line "#version ...", then one merge "A B" per line, in rank order).
    ///
    /// Throws kael::Error when a file cannot be read, and ValueError, naming the file and
    /// the entry or line, for a vocabulary that is not valid JSON, not an object of
    /// integers, has no tokens, repeats a token, has an id that is negative, not an
    /// integer, repeated or leaves a gap in 0..N-1, or a token that is empty or holds a
    /// character outside the byte alphabet; and for a merge line that is not two tokens separated by one space,
    /// repeats an earlier line, or names a token, or makes one, that the vocabulary lacks.
    /// A line "\r"-terminated is read as "\n"-terminated, as Python's text mode reads it.
    [[nodiscard]] static GPT2Tokenizer from_files(const std::filesystem::path& vocab_json,
                                                  const std::filesystem::path& merges);

    /// Loads `dir`/vocab.json and `dir`/merges.txt (Hugging Face's names) or, when those
    /// are not both there, `dir`/encoder.json and `dir`/vocab.bpe (OpenAI's). Throws
    /// kael::Error naming both pairs when neither is complete.
    [[nodiscard]] static GPT2Tokenizer from_directory(const std::filesystem::path& dir);

    /// Loads the two files' contents from memory; `origin` names them in messages (as
    /// "<origin> (vocabulary)" and "<origin> (merges)").
    [[nodiscard]] static GPT2Tokenizer from_strings(std::string_view vocab_json, std::string_view merges,
                                                    std::string_view origin = "<memory>");

    /// The ids of `text`, which must be UTF-8. With `allow_special`, every occurrence of a
    /// special token ("<|endoftext|>", when the vocabulary has it) becomes that token's id
    /// and the text around it is encoded as usual; without, the special token's spelling
    /// is plain text like any other, as in OpenAI's encoder. Throws ValueError, naming the
    /// byte offset, for text that is not UTF-8 (a stray or missing continuation byte, an
    /// overlong form, an encoded surrogate, a value above U+10FFFF), and for text that
    /// needs a byte token the vocabulary lacks (possible only with a vocabulary of fewer
    /// than GPT-2's 256 byte tokens).
    [[nodiscard]] std::vector<std::int64_t> encode(std::string_view text, bool allow_special = false) const;

    /// The text of `ids`. Bytes that are not UTF-8 (a multi-byte character cut between
    /// two calls, say) are replaced by U+FFFD exactly as Python's
    /// bytes.decode("utf-8", errors="replace") replaces them, which is what OpenAI's
    /// decoder does. Throws IndexError naming the id for an id outside [0, vocab_size()).
    [[nodiscard]] std::string decode(std::span<const std::int64_t> ids) const;

    /// The bytes of `ids`, unchanged. A streaming decoder collects these and turns the
    /// longest complete UTF-8 prefix into text. Throws as decode does.
    [[nodiscard]] std::string decode_bytes(std::span<const std::int64_t> ids) const;

    /// The bytes of one token (empty never: the vocabulary has no empty token). Throws
    /// IndexError for an id outside [0, vocab_size()).
    [[nodiscard]] std::string_view token_bytes(std::int64_t id) const;

    /// The number of tokens; ids are 0 .. vocab_size() - 1. 50,257 for GPT-2.
    [[nodiscard]] std::int64_t vocab_size() const;

    /// The id of "<|endoftext|>", which GPT-2 puts between documents (50,256), or nothing
    /// when the vocabulary has no such token.
    [[nodiscard]] std::optional<std::int64_t> end_of_text() const;

    struct State;  // the vocabulary, the merges and the cache; defined in gpt2_tokenizer.cpp

private:
    explicit GPT2Tokenizer(std::shared_ptr<const State> state);

    std::shared_ptr<const State> state_;
};

}  // namespace kael::text

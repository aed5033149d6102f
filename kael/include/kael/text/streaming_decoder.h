#pragma once
/// \file
/// \brief text::StreamingDecoder: the text of tokens as they are generated (chapter 12).
///
/// A GPT-2 token is bytes, not characters: "é" may arrive as one token for its first byte
/// and one for its second, and printing each token's bytes as they come would print half a
/// character. The decoder keeps back the bytes of a character that is not complete yet and
/// gives out everything before them, so that the pieces it returns, joined, are exactly
/// GPT2Tokenizer::decode of all the tokens.

#include <cstdint>
#include <string>

#include "kael/text/gpt2_tokenizer.h"

namespace kael::text {

/// Decodes one token at a time.
class StreamingDecoder {
public:
    /// A decoder of `tokenizer`'s tokens (the tokenizer is shared, not copied).
    explicit StreamingDecoder(GPT2Tokenizer tokenizer) : tokenizer_(std::move(tokenizer)) {}

    /// The text that `id` completes: possibly empty (the token ends inside a character),
    /// possibly more than the token's own bytes (it finishes a character held back).
    /// Bytes that can never become UTF-8 are replaced by U+FFFD as decode() replaces them.
    /// IndexError for an id outside the vocabulary.
    [[nodiscard]] std::string push(std::int64_t id);

    /// What is still held back, each flaw replaced by U+FFFD; the decoder is empty after.
    [[nodiscard]] std::string finish();

private:
    GPT2Tokenizer tokenizer_;
    std::string pending_;  // bytes of a character still incomplete
};

}  // namespace kael::text

// text::StreamingDecoder (chapter 12).
#include "kael/text/streaming_decoder.h"

#include <utility>

#include "text/utf8.h"

namespace kael::text {

std::string StreamingDecoder::push(std::int64_t id) {
    pending_ += tokenizer_.token_bytes(id);
    // Walk the pending bytes sequence by sequence. A flaw in the middle stays a flaw
    // whatever follows, so it is replaced now; only a flaw that runs into the end of the
    // bytes and starts with a lead byte may become a character with the bytes to come.
    std::size_t position = 0;
    std::size_t complete = 0;
    while (position < pending_.size()) {
        const Utf8Sequence sequence = next_utf8_sequence(pending_, position);
        const bool reaches_end = position + sequence.length == pending_.size();
        const auto lead = static_cast<unsigned char>(pending_[position]);
        const bool may_continue = lead >= 0xC2 && lead <= 0xF4;  // the lead bytes of 2 to 4 byte forms
        if (!sequence.valid && reaches_end && may_continue) {
            break;  // the start of a character whose last bytes are still to come
        }
        position += sequence.length;
        complete = position;
    }
    std::string text = replace_invalid_utf8(std::string_view(pending_).substr(0, complete));
    pending_.erase(0, complete);
    return text;
}

std::string StreamingDecoder::finish() {
    std::string text = replace_invalid_utf8(pending_);
    pending_.clear();
    return text;
}

}  // namespace kael::text

// GPT-2's tokenizer: loading and checking the two files, encoding with a shared cache of
// pieces, decoding. Pre-tokenisation, merging, the byte alphabet and UTF-8 each have a
// file of their own in this directory.
#include "kael/text/gpt2_tokenizer.h"

#include <array>
#include <cstddef>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <system_error>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <nlohmann/json.hpp>

#include "kael/error.h"
#include "io/quoted.h"
#include "text/bpe.h"
#include "text/byte_alphabet.h"
#include "text/pretokenizer.h"
#include "text/utf8.h"

namespace kael::text {
namespace {

using Json = nlohmann::json;

constexpr std::int64_t kMissing = -1;  // a byte with no token of its own
// The special tokens kael knows. Only "<|endoftext|>" is GPT-2's; a vocabulary without it
// has none.
constexpr std::array<std::string_view, 1> kSpecialTokens{"<|endoftext|>"};

// ---------------------------------------------------------------------------------------
// Error messages. A vocabulary is a stranger's file too: tokens and lines are shown as
// safetensors.cpp shows tensor names, cut to 100 bytes and escaped (io/quoted.h).

using io::quote_for_message;

// A path is the caller's, not the file's, and may well be longer than 100 bytes.
std::string quote_path(const std::filesystem::path& path) { return quote_for_message(path.string(), 4096); }

// What a JSON value is, without its contents.
std::string describe(const Json& value) {
    switch (value.type()) {
    case Json::value_t::null:
        return "null";
    case Json::value_t::boolean:
        return "a boolean";
    case Json::value_t::number_integer:
        return "an integer with a minus sign";
    case Json::value_t::number_unsigned:
        return "an integer larger than int64 holds";  // the only unsigned integer refused
    case Json::value_t::number_float:
        return "a floating-point number";
    case Json::value_t::string:
        return "a string";
    case Json::value_t::array:
        return "an array";
    case Json::value_t::object:
        return "an object";
    case Json::value_t::binary:
    case Json::value_t::discarded:
        return "not a JSON value";
    }
    kael::detail::unreachable();
}

// ---------------------------------------------------------------------------------------
// Files.

std::string read_file(const std::filesystem::path& path) {
    std::error_code error;
    const bool regular = std::filesystem::is_regular_file(path, error);
    KAEL_CHECK(regular, "GPT-2 tokenizer: cannot read " << quote_path(path) << ": "
                                                        << (error ? error.message() : "not a regular file"));
    std::ifstream file(path, std::ios::binary);
    KAEL_CHECK(file.is_open(), "GPT-2 tokenizer: cannot open " << quote_path(path));
    std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    KAEL_CHECK(!file.bad(), "GPT-2 tokenizer: cannot read " << quote_path(path));
    return bytes;
}

bool is_file(const std::filesystem::path& path) {
    std::error_code ignored;  // a path we cannot even look at is, for choosing, absent
    return std::filesystem::is_regular_file(path, ignored);
}

// ---------------------------------------------------------------------------------------
// The vocabulary: a JSON object from token to id.

struct Vocabulary {
    std::vector<std::string> bytes_of;                    // by id: the token's bytes
    std::unordered_map<std::string, std::int64_t> id_of;  // by the token as the file spells it
};

// nlohmann keeps the last of two equal keys and reads nested values of any depth; the
// callback refuses both while parsing, as safetensors.cpp does. A vocabulary is an object
// of integers, so nothing may nest inside it.
Json parse_vocabulary_json(std::string_view text, const std::string& origin) {
    std::unordered_set<std::string> keys;
    const std::string* last_key = nullptr;
    const auto check_while_parsing = [&](int depth, Json::parse_event_t event, Json& parsed) {
        const bool starts = event == Json::parse_event_t::object_start || event == Json::parse_event_t::array_start;
        KAEL_CHECK_VALUE(!starts || depth == 0,
                         "GPT-2 tokenizer: " << origin << ": the id of the token " << quote_for_message(last_key ? *last_key : "")
                                             << " is " << (event == Json::parse_event_t::object_start ? "an object" : "an array")
                                             << "; ids are non-negative integers");
        if (event == Json::parse_event_t::key) {
            const auto inserted = keys.insert(parsed.get<std::string>());
            KAEL_CHECK_VALUE(inserted.second, "GPT-2 tokenizer: " << origin << ": the token " << quote_for_message(*inserted.first)
                                                                  << " appears twice");
            last_key = &*inserted.first;
        }
        return true;
    };
    // nlohmann's own messages quote the text near the error, which may be anything; only
    // the position is kept. `byte` counts from 1.
    std::optional<std::size_t> error_at;
    bool number_overflows = false;
    Json json;
    try {
        json = Json::parse(text.begin(), text.end(), check_while_parsing);
    } catch (const Json::parse_error& error) {
        error_at = error.byte == 0 ? 0 : error.byte - 1;
    } catch (const Json::out_of_range&) {  // valid JSON such as 1e400, which no double holds
        number_overflows = true;
    }
    KAEL_CHECK_VALUE(!number_overflows, "GPT-2 tokenizer: " << origin << ": an id is a number beyond the range of a double");
    KAEL_CHECK_VALUE(!error_at || *error_at < text.size(),
                     "GPT-2 tokenizer: " << origin << ": not valid JSON: the text ends in the middle of a value");
    KAEL_CHECK_VALUE(!error_at, "GPT-2 tokenizer: " << origin << ": not valid JSON (or not UTF-8): syntax error at byte "
                                                    << *error_at + 1);
    KAEL_CHECK_VALUE(json.is_object(), "GPT-2 tokenizer: " << origin << ": the vocabulary is " << describe(json)
                                                           << ", not a JSON object from token to id");
    // A vocabulary without tokens could encode nothing, not even one byte (found by
    // fuzz_gpt2_tokenizer).
    KAEL_CHECK_VALUE(!json.empty(), "GPT-2 tokenizer: " << origin << ": the vocabulary has no tokens");
    return json;
}

// The bytes a token of the file stands for: each of its characters is one byte of the
// alphabet. nlohmann has checked that the key is UTF-8.
std::string token_bytes_of(const std::string& token, std::int64_t id, const std::string& origin) {
    KAEL_CHECK_VALUE(!token.empty(), "GPT-2 tokenizer: " << origin << ": the token of id " << id
                                                         << " is empty; a token is at least one byte");
    std::string bytes;
    for (std::size_t position = 0; position < token.size();) {
        const Utf8Sequence character = next_utf8_sequence(token, position);
        const std::optional<std::uint8_t> byte = character.valid ? char_to_byte(character.code_point) : std::nullopt;
        KAEL_CHECK_VALUE(byte.has_value(),
                         "GPT-2 tokenizer: " << origin << ": the token " << quote_for_message(token) << " (id " << id
                                             << ") holds the character U+" << std::hex << std::uppercase
                                             << static_cast<std::uint32_t>(character.code_point) << std::dec
                                             << " at byte " << position
                                             << ", which is none of the 256 characters that GPT-2's files write bytes with");
        bytes += static_cast<char>(*byte);
        position += character.length;
    }
    return bytes;
}

// Ids must be 0..N-1, each once, as GPT-2's are. Holes are refused rather than allowed:
// the model's embedding has one row per id, and a row that no token names is the sign of
// a damaged or mismatched file; and the table of tokens by id would let a 20-byte file
// claim 2^63 rows.
Vocabulary read_vocabulary(std::string_view text, const std::string& origin) {
    Json json = parse_vocabulary_json(text, origin);
    const std::size_t count = json.size();
    Vocabulary vocabulary;
    vocabulary.bytes_of.resize(count);
    std::vector<const std::string*> token_of(count, nullptr);  // for the message about a repeated id
    vocabulary.id_of.reserve(count);
    for (auto& [token, value] : json.items()) {
        const bool fits = value.is_number_unsigned() &&
                          value.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
        KAEL_CHECK_VALUE(fits, "GPT-2 tokenizer: " << origin << ": the id of the token " << quote_for_message(token) << " is "
                                                   << describe(value)
                                                   << "; ids are non-negative integers that fit in int64");
        const auto id = value.get<std::int64_t>();
        KAEL_CHECK_VALUE(static_cast<std::uint64_t>(id) < count,
                         "GPT-2 tokenizer: " << origin << ": the token " << quote_for_message(token) << " has id " << id
                                             << ", but a vocabulary of " << count << " tokens has the ids 0.."
                                             << static_cast<std::int64_t>(count) - 1
                                             << ", each once (kael refuses gaps)");
        const auto slot = static_cast<std::size_t>(id);
        KAEL_CHECK_VALUE(token_of[slot] == nullptr, "GPT-2 tokenizer: " << origin << ": the tokens " << quote_for_message(*token_of[slot])
                                                                        << " and " << quote_for_message(token) << " both have id " << id);
        token_of[slot] = &token;
        vocabulary.bytes_of[slot] = token_bytes_of(token, id, origin);
    }
    // Only now, once nothing refers into `json`, are the keys moved out of it.
    for (std::size_t id = 0; id < count; ++id) {
        vocabulary.id_of.emplace(*token_of[id], static_cast<std::int64_t>(id));
    }
    return vocabulary;
}

// ---------------------------------------------------------------------------------------
// The merges: "#version ..." (optional), then one "A B" per line, in rank order.

MergeTable read_merges(std::string_view text, const Vocabulary& vocabulary, const std::string& origin) {
    MergeTable merges;
    std::size_t line_number = 0;
    std::size_t first_merge_line = 1;  // the line of rank 0, for the message about a repeat
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        std::string_view line = text.substr(start, end - start);
        start = end + 1;
        ++line_number;
        // Python's text mode, which the original reads the file in, turns "\r\n" into "\n".
        if (line.ends_with('\r')) {
            line.remove_suffix(1);
        }
        if (line_number == 1 && line.starts_with("#version")) {
            first_merge_line = 2;
            continue;
        }
        const std::string where = "GPT-2 tokenizer: " + origin + ": line " + std::to_string(line_number);
        // No token holds a space (the byte 0x20 is written 'Ġ'), so one space splits a
        // line unambiguously.
        const std::size_t space = line.find(' ');
        const bool two_tokens = space != std::string_view::npos && space > 0 && space + 1 < line.size() &&
                                line.find(' ', space + 1) == std::string_view::npos;
        KAEL_CHECK_VALUE(two_tokens, where << " is " << quote_for_message(line)
                                           << "; a merge is two tokens separated by one space");
        const std::string left(line.substr(0, space));
        const std::string right(line.substr(space + 1));
        const auto left_id = vocabulary.id_of.find(left);
        const auto right_id = vocabulary.id_of.find(right);
        const auto result_id = vocabulary.id_of.find(left + right);
        KAEL_CHECK_VALUE(left_id != vocabulary.id_of.end(),
                         where << " merges " << quote_for_message(left) << ", which is not a token of the vocabulary");
        KAEL_CHECK_VALUE(right_id != vocabulary.id_of.end(),
                         where << " merges " << quote_for_message(right) << ", which is not a token of the vocabulary");
        KAEL_CHECK_VALUE(result_id != vocabulary.id_of.end(),
                         where << " merges " << quote_for_message(left) << " and " << quote_for_message(right) << " into "
                               << quote_for_message(left + right) << ", which is not a token of the vocabulary");
        const auto rank = static_cast<std::int64_t>(merges.size());
        const auto [found, inserted] =
            merges.try_emplace(TokenPair{left_id->second, right_id->second}, Merge{rank, result_id->second});
        KAEL_CHECK_VALUE(inserted, where << " repeats the merge of line "
                                         << first_merge_line + static_cast<std::size_t>(found->second.rank));
    }
    return merges;
}

// ---------------------------------------------------------------------------------------
// The cache: each piece's ids, once merged. Text repeats its words, so most pieces are
// found here and skip merging, which is most of the cost of encoding.
//
// Several threads may encode with one tokenizer at once, so the map is guarded by a
// shared_mutex: lookups, nearly all the calls, share it, and only an insertion takes it
// alone. Merging happens outside the lock; two threads that merge the same new piece at
// once both insert the same ids, and the second insertion changes nothing.
//
// The cache is bounded, since a server runs for months on text of every kind: it holds
// pieces of at most kMaxWordBytes bytes, at most kCapacity of them (some ten megabytes at
// most), and is emptied when full, after which it fills again with what the text uses now.
class WordCache {
public:
    static constexpr std::size_t kCapacity = 1U << 16U;
    static constexpr std::size_t kMaxWordBytes = 64;

    // Appends the cached ids of `word` to `ids`; false when `word` is not cached.
    bool append(std::string_view word, std::vector<std::int64_t>& ids) const {
        const std::shared_lock lock(mutex_);
        const auto found = words_.find(word);
        if (found == words_.end()) {
            return false;
        }
        ids.insert(ids.end(), found->second.begin(), found->second.end());
        return true;
    }

    void insert(std::string_view word, const std::vector<std::int64_t>& ids) {
        if (word.size() > kMaxWordBytes) {
            return;
        }
        const std::unique_lock lock(mutex_);
        if (words_.size() >= kCapacity) {
            words_.clear();
        }
        words_.try_emplace(std::string(word), ids);
    }

private:
    // Lookups by string_view without building a std::string (C++20's heterogeneous lookup).
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view text) const noexcept { return std::hash<std::string_view>{}(text); }
    };

    mutable std::shared_mutex mutex_;
    std::unordered_map<std::string, std::vector<std::int64_t>, Hash, std::equal_to<>> words_;
};

struct Special {
    std::string bytes;
    std::int64_t id;
};

}  // namespace

// ---------------------------------------------------------------------------------------

struct GPT2Tokenizer::State {
    std::vector<std::string> bytes_of;           // by id
    std::array<std::int64_t, 256> byte_tokens{};  // the token of each byte alone, or kMissing
    MergeTable merges;
    std::vector<Special> specials;
    std::optional<std::int64_t> end_of_text;
    mutable WordCache cache;  // not part of the tokenizer's value: it only saves work

    // Appends the ids of `text`, which has no special tokens in it or is to be read
    // without them; `offset` is where it starts in the text given to encode.
    void encode_ordinary(std::string_view text, std::size_t offset, std::vector<std::int64_t>& ids) const;
    // The ids of one piece, merged.
    [[nodiscard]] std::vector<std::int64_t> merge_piece(std::string_view piece, std::size_t offset) const;
};

std::vector<std::int64_t> GPT2Tokenizer::State::merge_piece(std::string_view piece, std::size_t offset) const {
    std::vector<std::int64_t> tokens(piece.size());
    for (std::size_t i = 0; i < piece.size(); ++i) {
        const auto byte = static_cast<unsigned char>(piece[i]);
        tokens[i] = byte_tokens[byte];
        // Only a vocabulary with fewer than GPT-2's 256 byte tokens can lack one. A merge
        // never involves a missing token (every merge names tokens of the vocabulary),
        // so the original would fail on it as well, looking its id up at the end.
        KAEL_CHECK_VALUE(tokens[i] != kMissing, "GPT-2 tokenizer: the vocabulary has no token for the byte 0x"
                                                    << std::hex << std::uppercase << static_cast<unsigned>(byte)
                                                    << std::dec << " at offset " << offset + i << " of the text");
    }
    return apply_merges(tokens, merges);
}

void GPT2Tokenizer::State::encode_ordinary(std::string_view text, std::size_t offset,
                                           std::vector<std::int64_t>& ids) const {
    Pieces pieces(text);
    while (const std::optional<std::string_view> piece = pieces.next()) {
        if (cache.append(*piece, ids)) {
            continue;
        }
        const auto piece_offset = offset + static_cast<std::size_t>(piece->data() - text.data());
        const std::vector<std::int64_t> merged = merge_piece(*piece, piece_offset);
        cache.insert(*piece, merged);
        ids.insert(ids.end(), merged.begin(), merged.end());
    }
}

namespace {

std::shared_ptr<const GPT2Tokenizer::State> load(std::string_view vocab_json, const std::string& vocab_origin,
                                                 std::string_view merges, const std::string& merges_origin) {
    Vocabulary vocabulary = read_vocabulary(vocab_json, vocab_origin);
    auto state = std::make_shared<GPT2Tokenizer::State>();
    state->merges = read_merges(merges, vocabulary, merges_origin);
    state->byte_tokens.fill(kMissing);
    for (std::size_t id = 0; id < vocabulary.bytes_of.size(); ++id) {
        if (vocabulary.bytes_of[id].size() == 1) {
            state->byte_tokens[static_cast<unsigned char>(vocabulary.bytes_of[id][0])] = static_cast<std::int64_t>(id);
        }
    }
    for (const std::string_view special : kSpecialTokens) {
        const auto found = vocabulary.id_of.find(std::string(special));
        if (found != vocabulary.id_of.end()) {
            state->specials.push_back({std::string(special), found->second});
        }
    }
    const auto end_of_text = vocabulary.id_of.find("<|endoftext|>");
    if (end_of_text != vocabulary.id_of.end()) {
        state->end_of_text = end_of_text->second;
    }
    state->bytes_of = std::move(vocabulary.bytes_of);
    return state;
}

}  // namespace

GPT2Tokenizer::GPT2Tokenizer(std::shared_ptr<const State> state) : state_(std::move(state)) {}

GPT2Tokenizer GPT2Tokenizer::from_strings(std::string_view vocab_json, std::string_view merges,
                                          std::string_view origin) {
    return GPT2Tokenizer(load(vocab_json, std::string(origin) + " (vocabulary)", merges,
                              std::string(origin) + " (merges)"));
}

GPT2Tokenizer GPT2Tokenizer::from_files(const std::filesystem::path& vocab_json,
                                        const std::filesystem::path& merges) {
    return GPT2Tokenizer(load(read_file(vocab_json), quote_path(vocab_json), read_file(merges), quote_path(merges)));
}

GPT2Tokenizer GPT2Tokenizer::from_directory(const std::filesystem::path& dir) {
    if (is_file(dir / "vocab.json") && is_file(dir / "merges.txt")) {
        return from_files(dir / "vocab.json", dir / "merges.txt");
    }
    const bool openai_names = is_file(dir / "encoder.json") && is_file(dir / "vocab.bpe");
    KAEL_CHECK(openai_names, "GPT-2 tokenizer: the directory " << quote_path(dir)
                                 << " holds neither vocab.json and merges.txt (Hugging Face's names) nor encoder.json"
                                    " and vocab.bpe (OpenAI's); scripts/fetch-gpt2-vocab fetches GPT-2's");
    return from_files(dir / "encoder.json", dir / "vocab.bpe");
}

std::vector<std::int64_t> GPT2Tokenizer::encode(std::string_view text, bool allow_special) const {
    // The original works on Python strings, which cannot hold what is not UTF-8; kael's
    // text is bytes, so it checks them first, once, for the whole text.
    const std::optional<std::size_t> invalid = first_invalid_utf8(text);
    KAEL_CHECK_VALUE(!invalid, "GPT-2 tokenizer: the text to encode is not UTF-8: "
                                   << describe_invalid_utf8(text, *invalid));
    std::vector<std::int64_t> ids;
    ids.reserve(text.size() / 4);  // English averages some four bytes a token
    const std::span<const Special> specials =
        allow_special ? std::span<const Special>(state_->specials) : std::span<const Special>();
    std::size_t done = 0;  // text[0, done) is encoded
    while (done < text.size()) {
        // The earliest special token from `done` on, the longest of those that start there.
        std::size_t at = text.size();
        const Special* found = nullptr;
        for (const Special& special : specials) {
            const std::size_t position = text.find(special.bytes, done);
            if (position < at || (position == at && found != nullptr && special.bytes.size() > found->bytes.size())) {
                at = position;
                found = &special;
            }
        }
        state_->encode_ordinary(text.substr(done, at - done), done, ids);
        if (found == nullptr) {
            break;
        }
        ids.push_back(found->id);
        done = at + found->bytes.size();
    }
    return ids;
}

std::string_view GPT2Tokenizer::token_bytes(std::int64_t id) const {
    const std::int64_t size = vocab_size();
    KAEL_CHECK_INDEX(id >= 0 && id < size, "GPT-2 tokenizer: the id " << id << " is outside the vocabulary of "
                                                                      << size << " tokens, whose ids are [0, "
                                                                      << size << ")");
    return state_->bytes_of[static_cast<std::size_t>(id)];
}

std::string GPT2Tokenizer::decode_bytes(std::span<const std::int64_t> ids) const {
    std::string bytes;
    for (const std::int64_t id : ids) {
        bytes += token_bytes(id);
    }
    return bytes;
}

std::string GPT2Tokenizer::decode(std::span<const std::int64_t> ids) const {
    return replace_invalid_utf8(decode_bytes(ids));
}

std::int64_t GPT2Tokenizer::vocab_size() const { return static_cast<std::int64_t>(state_->bytes_of.size()); }

std::optional<std::int64_t> GPT2Tokenizer::end_of_text() const { return state_->end_of_text; }

}  // namespace kael::text

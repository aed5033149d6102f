#pragma once
// Exercise 12.2: byte-pair merging, the step of GPT-2's tokenizer that turns one piece of
// text into tokens, written as OpenAI's encoder.py writes it.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace exercise {

/// A word as a list of symbols (tokens): strings of bytes, such as {"l", "o", "w"}.
using Symbols = std::vector<std::string>;
/// The rank of each merge, by the pair it merges: 0 for the first line of merges.txt.
using Ranks = std::map<std::pair<std::string, std::string>, std::int64_t>;

/// The ranks of a merges file held in `text`: an optional first line that starts with
/// "#version", then one merge per line, two symbols separated by one space; the merges are
/// ranked 0, 1, 2, ... in the order of their lines. The last line may or may not end with
/// "\n". Throws kael::ValueError for a line that is not two non-empty symbols separated by
/// exactly one space (an empty line included), and for a merge that repeats an earlier one.
[[nodiscard]] Ranks read_merges(std::string_view text);

/// `word` after byte-pair merging with `ranks`: while some pair of adjacent symbols has a
/// rank, take the pair of lowest rank and join every occurrence of it, left to right, into
/// one symbol (of two overlapping occurrences the left one), then look again. A word of
/// no symbol or one symbol is returned as it is.
[[nodiscard]] Symbols merge(Symbols word, const Ranks& ranks);

}  // namespace exercise

// Reference solution of exercise 12.2: the algorithm of OpenAI's encoder.py, in C++.
#include <algorithm>
#include <cstddef>
#include <optional>
#include <utility>

#include "exercise.h"
#include "kael/error.h"

namespace exercise {

Ranks read_merges(std::string_view text) {
    Ranks ranks;
    std::size_t line_number = 0;
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        const std::string_view line = text.substr(start, end - start);
        start = end + 1;
        ++line_number;
        if (line_number == 1 && line.starts_with("#version")) {
            continue;
        }
        const std::size_t space = line.find(' ');
        const bool two_symbols = space != std::string_view::npos && space > 0 && space + 1 < line.size() &&
                                 line.find(' ', space + 1) == std::string_view::npos;
        KAEL_CHECK_VALUE(two_symbols, "merges: line " << line_number << " is not two symbols separated by one space");
        const auto rank = static_cast<std::int64_t>(ranks.size());
        const bool fresh =
            ranks.emplace(std::pair{std::string(line.substr(0, space)), std::string(line.substr(space + 1))}, rank)
                .second;
        KAEL_CHECK_VALUE(fresh, "merges: line " << line_number << " repeats an earlier merge");
    }
    return ranks;
}

Symbols merge(Symbols word, const Ranks& ranks) {
    while (word.size() > 1) {
        // The adjacent pair of lowest rank; nothing when no pair is a merge.
        std::optional<Ranks::const_iterator> best;
        for (std::size_t i = 0; i + 1 < word.size(); ++i) {
            const auto found = ranks.find({word[i], word[i + 1]});
            if (found != ranks.end() && (!best || found->second < (*best)->second)) {
                best = found;
            }
        }
        if (!best) {
            break;
        }
        const auto& [left, right] = (*best)->first;
        // One pass over the word joins every occurrence, left to right. Pairs that the
        // joins create are looked at only by the next round's search.
        Symbols merged;
        for (std::size_t i = 0; i < word.size();) {
            if (i + 1 < word.size() && word[i] == left && word[i + 1] == right) {
                merged.push_back(left + right);
                i += 2;
            } else {
                merged.push_back(word[i]);
                ++i;
            }
        }
        word = std::move(merged);
    }
    return word;
}

}  // namespace exercise

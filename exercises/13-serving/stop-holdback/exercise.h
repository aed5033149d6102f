#pragma once
// Exercise 13.2: the held-back text of a stop string. What a streaming server may send of
// the text generated so far, when the completion must end before any of some strings.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace exercise {

/// The length in bytes of the longest suffix of `text` that is a proper prefix of one of
/// `stops` (a prefix shorter than the whole stop string): the tail that the next token
/// could still complete to a stop string. 0 when no tail is. Bytes are compared, so a
/// tail may end inside a multi-byte UTF-8 character. Throws kael::ValueError for an empty
/// stop string.
[[nodiscard]] std::size_t held_back(std::string_view text, const std::vector<std::string>& stops);

/// What may be sent of `text`: when one of `stops` occurs in it, the text before the
/// stop string that begins earliest (the stop string itself is never sent); otherwise
/// everything but the held_back() tail. A view into `text`, which always starts where
/// `text` starts. Throws kael::ValueError for an empty stop string.
[[nodiscard]] std::string_view release(std::string_view text, const std::vector<std::string>& stops);

}  // namespace exercise

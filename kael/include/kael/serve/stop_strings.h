#pragma once
/// \file
/// \brief serve::StopStrings: ends a completion at the first of some strings, without
/// sending any part of it (chapter 13).
///
/// A client may ask for the text to stop at, say, "\n\n". Tokens and stop strings do not
/// line up: the string may arrive split over several tokens, and a token may carry text
/// past it. So the text is checked as it grows, and the text that could still be the start
/// of a stop string is held back until the next token decides: released when it does not
/// continue a match, dropped when it completes one.

#include <string>
#include <string_view>
#include <vector>

namespace kael::serve {

/// Text in, text safe to send out, and whether a stop string was met.
class StopStrings {
public:
    /// Stops at any of `stops`; none makes push() release everything at once. ValueError
    /// for an empty stop string (it would match before the first character).
    explicit StopStrings(std::vector<std::string> stops);

    /// Adds `text` (the decoded text of new tokens) and returns what can be sent now: up to
    /// the first stop string once one is met, else everything but the longest tail that
    /// begins a stop string. After a stop, push() returns nothing.
    [[nodiscard]] std::string push(std::string_view text);

    /// The text still held back: at the end of a completion that met no stop string, it is
    /// the end of the completion and is sent as well.
    [[nodiscard]] std::string flush();

    /// Whether a stop string was met.
    [[nodiscard]] bool stopped() const noexcept { return stopped_; }

private:
    std::vector<std::string> stops_;
    std::string pending_;  // text received but not yet released
    bool stopped_ = false;
};

}  // namespace kael::serve

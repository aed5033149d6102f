// Reference solution of exercise 13.2.
#include <algorithm>

#include "exercise.h"
#include "kael/error.h"

namespace exercise {

namespace {

// An empty stop string would match before the first byte of every text.
void check_stops(const std::vector<std::string>& stops) {
    for (const std::string& stop : stops) {
        KAEL_CHECK_VALUE(!stop.empty(), "a stop string must not be empty");
    }
}

}  // namespace

std::size_t held_back(std::string_view text, const std::vector<std::string>& stops) {
    check_stops(stops);
    std::size_t held = 0;
    for (const std::string_view stop : stops) {
        // Try the tails from the longest that could matter down, and stop at the first that
        // begins `stop`: a proper prefix is one byte shorter than the stop at most, and no
        // tail is longer than the text. Tails no longer than `held` cannot improve on it.
        for (std::size_t length = std::min(stop.size() - 1, text.size()); length > held; --length) {
            if (text.ends_with(stop.substr(0, length))) {
                held = length;
                break;
            }
        }
    }
    return held;
}

std::string_view release(std::string_view text, const std::vector<std::string>& stops) {
    check_stops(stops);
    // The stop string that begins first ends the text, whichever of them it is and however
    // long; npos (no occurrence) is larger than any position.
    std::size_t cut = std::string_view::npos;
    for (const std::string& stop : stops) {
        cut = std::min(cut, text.find(stop));
    }
    if (cut != std::string_view::npos) {
        return text.substr(0, cut);
    }
    return text.substr(0, text.size() - held_back(text, stops));
}

}  // namespace exercise

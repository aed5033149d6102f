// serve::StopStrings (chapter 13): stop strings found across token boundaries.
#include "kael/serve/stop_strings.h"

#include <algorithm>
#include <utility>

#include "kael/error.h"

namespace kael::serve {

StopStrings::StopStrings(std::vector<std::string> stops) : stops_(std::move(stops)) {
    for (const std::string& stop : stops_) {
        KAEL_CHECK_VALUE(!stop.empty(), "a stop string must not be empty");
    }
}

std::string StopStrings::push(std::string_view text) {
    if (stopped_) {
        return {};
    }
    pending_ += text;
    // The earliest complete stop string ends the text where it begins.
    std::size_t cut = std::string::npos;
    for (const std::string& stop : stops_) {
        cut = std::min(cut, pending_.find(stop));
    }
    if (cut != std::string::npos) {
        stopped_ = true;
        std::string released = pending_.substr(0, cut);
        pending_.clear();
        return released;
    }
    // Hold back the longest tail that a later token could complete to a stop string.
    std::size_t held = 0;
    for (const std::string& stop : stops_) {
        for (std::size_t length = std::min(stop.size() - 1, pending_.size()); length > held; --length) {
            if (std::string_view(pending_).substr(pending_.size() - length) == std::string_view(stop).substr(0, length)) {
                held = length;
                break;
            }
        }
    }
    std::string released = pending_.substr(0, pending_.size() - held);
    pending_.erase(0, pending_.size() - held);
    return released;
}

std::string StopStrings::flush() { return std::exchange(pending_, {}); }

}  // namespace kael::serve

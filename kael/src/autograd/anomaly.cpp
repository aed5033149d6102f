// Anomaly detection (chapter 13). The engine calls check_gradients after every node's
// formula while the switch is on; off, the cost is one relaxed atomic load per node.
#include "kael/autograd/anomaly.h"

#include <atomic>
#include <cctype>
#include <sstream>
#include <string_view>

#include "autograd/anomaly_check.h"
#include "kael/autograd/grad_mode.h"
#include "kael/autograd/node.h"
#include "kael/error.h"
#include "kael/ops/compare.h"
#include "kael/ops/reduce.h"

namespace kael::autograd {
namespace {

std::atomic<bool> anomaly_enabled{false};

// "nan" or "inf" when `t` holds such an element, empty otherwise. Integer and bool
// gradients cannot hold either.
std::string_view non_finite_kind(const Tensor& t) {
    if (!is_floating_point(t.dtype()) || t.numel() == 0) {
        return {};
    }
    if (any(isnan(t)).item() != 0.0) {
        return "nan";
    }
    if (any(isinf(t)).item() != 0.0) {
        return "inf";
    }
    return {};
}

std::string ordinal(std::size_t n) {
    const std::size_t tens = n % 100;
    const std::size_t ones = n % 10;
    const char* suffix = (tens >= 11 && tens <= 13) ? "th" : ones == 1 ? "st" : ones == 2 ? "nd" : ones == 3 ? "rd" : "th";
    return std::to_string(n) + suffix;
}

}  // namespace

bool is_anomaly_enabled() noexcept { return anomaly_enabled.load(std::memory_order_relaxed); }

void set_anomaly_enabled(bool enabled) noexcept { anomaly_enabled.store(enabled, std::memory_order_relaxed); }

std::string forward_name(const Node& node) {
    constexpr std::string_view suffix = "Backward";
    std::string_view name = node.name();
    if (name.size() <= suffix.size() || !name.ends_with(suffix)) {
        return std::string(name);
    }
    name.remove_suffix(suffix.size());
    std::string snake;
    for (std::size_t i = 0; i < name.size(); ++i) {
        const auto c = static_cast<unsigned char>(name[i]);
        if (std::isupper(c) != 0 && i > 0) {
            snake += '_';
        }
        snake += static_cast<char>(std::tolower(c));
    }
    return snake;
}

std::string describe_inputs(const Node& node) {
    std::ostringstream text;
    const auto& inputs = node.input_meta();
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        text << (i == 0 ? "" : ", ") << to_string(inputs[i].shape) << ' ' << to_string(inputs[i].dtype);
    }
    return inputs.empty() ? std::string("no tensor inputs") : text.str();
}

void check_gradients(const Node& node, const Grads& grads) {
    const NoGradGuard no_grad;  // the checks are not part of any graph
    for (std::size_t i = 0; i < grads.size(); ++i) {
        if (!grads[i]) {
            continue;
        }
        const std::string_view kind = non_finite_kind(*grads[i]);
        KAEL_CHECK(kind.empty(), "Function '" << node.name() << "' returned " << kind << " values in its "
                                              << ordinal(i) << " output (the gradient of its input " << i
                                              << ", shape " << to_string(grads[i]->shape())
                                              << "); the forward operation was " << forward_name(node)
                                              << " on " << describe_inputs(node));
    }
}

}  // namespace kael::autograd

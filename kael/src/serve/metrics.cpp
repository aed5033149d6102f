// serve::ServerMetrics (chapter 13): counters and latency windows behind one lock.
#include "kael/serve/metrics.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

#include "kael/error.h"

namespace kael::serve {

LatencyWindow::LatencyWindow(std::size_t capacity) : capacity_(capacity) {
    KAEL_CHECK_VALUE(capacity >= 1, "LatencyWindow needs room for at least one sample");
    samples_.reserve(capacity);
}

void LatencyWindow::add(double seconds) {
    if (samples_.size() < capacity_) {
        samples_.push_back(seconds);
        return;
    }
    samples_[next_] = seconds;
    next_ = (next_ + 1) % capacity_;
}

std::optional<double> LatencyWindow::percentile(double p) const {
    KAEL_CHECK_VALUE(p > 0 && p <= 100, "a percentile must be in (0, 100], got " << p);
    if (samples_.empty()) {
        return std::nullopt;
    }
    std::vector<double> sorted = samples_;
    // Nearest rank: the ceil(p/100 * n)-th smallest sample, counting from 1.
    const auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
    const std::size_t index = std::max<std::size_t>(rank, 1) - 1;
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(index), sorted.end());
    return sorted[index];
}

void ServerMetrics::record_finished(const Finished& finished) {
    const std::lock_guard lock(mutex_);
    switch (finished.reason) {
        case FinishReason::Length:
        case FinishReason::StopToken:
        case FinishReason::ContextFull:
        case FinishReason::Callback:
            ++completed_;
            latency_.add(finished.total_seconds);
            if (finished.completion_tokens > 0) {
                first_token_.add(finished.first_token_seconds);
            }
            break;
        case FinishReason::Cancelled:
        case FinishReason::Shutdown:
            ++cancelled_;
            break;
        case FinishReason::Error:
            ++failed_;
            break;
    }
    completion_tokens_ += finished.completion_tokens;
}

void ServerMetrics::record_refused(int status) {
    const std::lock_guard lock(mutex_);
    ++(status >= 500 ? refused_5xx_ : refused_4xx_);
}

std::string ServerMetrics::to_json(const SchedulerStats& stats) const {
    using nlohmann::json;
    const std::lock_guard lock(mutex_);
    auto percentiles = [](const LatencyWindow& window) {
        json out = json::object();
        for (const auto& [name, p] : {std::pair{"p50", 50.0}, std::pair{"p90", 90.0}, std::pair{"p99", 99.0}}) {
            const std::optional<double> value = window.percentile(p);
            out[name] = value ? json(*value) : json(nullptr);
        }
        out["samples"] = window.size();
        return out;
    };
    const json body = {
        {"requests",
         {{"completed", completed_},
          {"cancelled", cancelled_},
          {"failed", failed_},
          {"refused_4xx", refused_4xx_},
          {"refused_5xx", refused_5xx_}}},
        {"completion_tokens", completion_tokens_},
        {"latency_seconds", percentiles(latency_)},
        {"first_token_seconds", percentiles(first_token_)},
        {"queue_length", stats.queued},
        {"active_requests", stats.active},
        {"decode_steps", stats.decode_steps},
        {"mean_decode_batch", stats.decode_steps == 0 ? 0.0
                                                      : static_cast<double>(stats.decoded_rows) /
                                                            static_cast<double>(stats.decode_steps)},
        {"largest_decode_batch", stats.largest_batch},
        {"kv_blocks", stats.kv.blocks},
        {"kv_blocks_used", stats.kv.used},
        {"kv_blocks_cached", stats.kv.cached},
        {"prefix_hit_tokens", stats.kv.hit_tokens},
        {"prefix_hit_requests", stats.kv.hit_requests},
    };
    return body.dump();
}

std::string ServerMetrics::to_prometheus(const SchedulerStats& stats) const {
    const std::lock_guard lock(mutex_);
    std::ostringstream out;
    out.precision(9);
    const auto family = [&](const char* name, const char* type, const char* help) {
        out << "# HELP " << name << ' ' << help << "\n# TYPE " << name << ' ' << type << '\n';
    };
    family("kael_requests_total", "counter", "Requests by how they ended.");
    for (const auto& [outcome, count] : {std::pair{"completed", completed_}, std::pair{"cancelled", cancelled_},
                                         std::pair{"failed", failed_}, std::pair{"refused_4xx", refused_4xx_},
                                         std::pair{"refused_5xx", refused_5xx_}}) {
        out << "kael_requests_total{outcome=\"" << outcome << "\"} " << count << '\n';
    }
    family("kael_completion_tokens_total", "counter", "Tokens generated for clients.");
    out << "kael_completion_tokens_total " << completion_tokens_ << '\n';
    const auto quantiles = [&](const char* name, const char* help, const LatencyWindow& window) {
        family(name, "gauge", help);
        for (const auto& [label, p] : {std::pair{"0.5", 50.0}, std::pair{"0.9", 90.0}, std::pair{"0.99", 99.0}}) {
            const std::optional<double> value = window.percentile(p);
            out << name << "{quantile=\"" << label << "\"} ";
            if (value) {
                out << *value;
            } else {
                out << "NaN";
            }
            out << '\n';
        }
    };
    quantiles("kael_request_latency_seconds", "Request latency over the latest requests.", latency_);
    quantiles("kael_first_token_seconds", "Time to the first token over the latest requests.", first_token_);
    family("kael_queue_length", "gauge", "Requests waiting for a place.");
    out << "kael_queue_length " << stats.queued << '\n';
    family("kael_active_requests", "gauge", "Requests being decoded.");
    out << "kael_active_requests " << stats.active << '\n';
    family("kael_decode_steps_total", "counter", "Decode steps run.");
    out << "kael_decode_steps_total " << stats.decode_steps << '\n';
    family("kael_decoded_rows_total", "counter", "Sequences decoded, summed over the steps.");
    out << "kael_decoded_rows_total " << stats.decoded_rows << '\n';
    family("kael_largest_decode_batch", "gauge", "The most sequences one decode step has held.");
    out << "kael_largest_decode_batch " << stats.largest_batch << '\n';
    family("kael_kv_blocks", "gauge", "Blocks of the KV cache, by state: used by a request, cached, or free.");
    out << "kael_kv_blocks{state=\"used\"} " << stats.kv.used << '\n';
    out << "kael_kv_blocks{state=\"cached\"} " << stats.kv.cached << '\n';
    out << "kael_kv_blocks{state=\"free\"} " << stats.kv.blocks - stats.kv.used - stats.kv.cached << '\n';
    family("kael_prefix_cache_hit_tokens_total", "counter", "Prompt positions taken from cached blocks.");
    out << "kael_prefix_cache_hit_tokens_total " << stats.kv.hit_tokens << '\n';
    return out.str();
}

}  // namespace kael::serve

#pragma once
/// \file
/// \brief serve::ServerMetrics: what a metrics endpoint reports, counted as requests end
/// (chapter 13).

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "kael/serve/scheduler.h"

namespace kael::serve {

/// The latest `capacity` samples of a latency, and their percentiles: a window, so that
/// a server running for days reports how it runs now, in bounded memory.
class LatencyWindow {
public:
    /// A window of `capacity` samples (ValueError for 0).
    explicit LatencyWindow(std::size_t capacity = 4096);
    /// Adds a sample; the oldest leaves once the window is full.
    void add(double seconds);
    /// The p-th percentile (0 < p <= 100) of the samples in the window by the nearest-rank
    /// rule: the smallest sample with at least p% of the samples at or below it. Nothing
    /// when the window is empty; ValueError for p outside (0, 100].
    [[nodiscard]] std::optional<double> percentile(double p) const;
    /// The samples in the window.
    [[nodiscard]] std::size_t size() const noexcept { return samples_.size(); }

private:
    std::vector<double> samples_;
    std::size_t capacity_;
    std::size_t next_ = 0;  // where the next sample goes once the window is full
};

/// The counters and latencies of a server; every member may be called from any thread.
class ServerMetrics {
public:
    /// A request that ended in the scheduler (any reason).
    void record_finished(const Finished& finished);
    /// A request answered with an error status before it reached the scheduler (bad JSON, a
    /// full queue, ...).
    void record_refused(int status);
    /// The metrics as a JSON object, with `stats` (the scheduler's counters, read by the
    /// caller) inside: requests by outcome, tokens, latency and time-to-first-token
    /// percentiles in seconds (null before the first sample), queue length, active
    /// requests, mean decode batch.
    [[nodiscard]] std::string to_json(const SchedulerStats& stats) const;
    /// The same in Prometheus's text format (version 0.0.4), as servers such as vLLM and
    /// llama.cpp expose it: counters named kael_*_total, gauges for the queue, the active
    /// requests and the decode batch, and the latency percentiles as gauges labelled
    /// with their quantile (NaN before the first sample).
    [[nodiscard]] std::string to_prometheus(const SchedulerStats& stats) const;

private:
    mutable std::mutex mutex_;
    std::int64_t completed_ = 0;  // ended by length, stop token or stop string
    std::int64_t cancelled_ = 0;  // client gone or server stopping
    std::int64_t failed_ = 0;     // the model threw
    std::int64_t refused_4xx_ = 0;
    std::int64_t refused_5xx_ = 0;
    std::int64_t completion_tokens_ = 0;
    LatencyWindow latency_;
    LatencyWindow first_token_;
};

}  // namespace kael::serve

// serve::LatencyWindow and ServerMetrics (chapter 13): percentiles by the nearest-rank rule
// over the latest samples, and the counters a metrics endpoint shows.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>
#include <sstream>
#include <string>

#include "kael/error.h"
#include "kael/serve/metrics.h"

namespace {

using kael::serve::LatencyWindow;

TEST(LatencyWindow, PercentilesFollowTheNearestRankRule) {
    LatencyWindow window(1000);
    EXPECT_FALSE(window.percentile(50).has_value());
    for (int i = 100; i >= 1; --i) {
        window.add(i);  // 1 .. 100, in any order
    }
    EXPECT_EQ(window.percentile(50), 50.0);
    EXPECT_EQ(window.percentile(99), 99.0);
    EXPECT_EQ(window.percentile(99.5), 100.0);  // the 99.5th rank rounds up to the 100th
    EXPECT_EQ(window.percentile(100), 100.0);
    EXPECT_EQ(window.percentile(0.5), 1.0);
    EXPECT_THROW((void)window.percentile(0), kael::ValueError);
    EXPECT_THROW((void)window.percentile(100.001), kael::ValueError);
    LatencyWindow one(4);
    one.add(0.25);
    EXPECT_EQ(one.percentile(1), 0.25);
    EXPECT_EQ(one.percentile(100), 0.25);
}

TEST(LatencyWindow, OnlyTheLatestSamplesCount) {
    LatencyWindow window(3);
    for (const double s : {10.0, 20.0, 30.0}) {
        window.add(s);
    }
    EXPECT_EQ(window.percentile(100), 30.0);
    window.add(1.0);  // replaces 10
    window.add(2.0);  // replaces 20
    EXPECT_EQ(window.size(), 3U);
    EXPECT_EQ(window.percentile(100), 30.0);
    EXPECT_EQ(window.percentile(1), 1.0);
    window.add(3.0);  // replaces 30
    EXPECT_EQ(window.percentile(100), 3.0);
    EXPECT_THROW(LatencyWindow(0), kael::ValueError);
}

TEST(ServerMetrics, CountsRequestsByOutcomeAndReportsJson) {
    kael::serve::ServerMetrics metrics;
    kael::serve::Finished done;
    done.reason = kael::serve::FinishReason::Length;
    done.completion_tokens = 4;
    done.total_seconds = 0.5;
    done.first_token_seconds = 0.1;
    metrics.record_finished(done);
    done.reason = kael::serve::FinishReason::Cancelled;
    done.completion_tokens = 1;
    metrics.record_finished(done);
    metrics.record_refused(400);
    metrics.record_refused(429);
    metrics.record_refused(503);
    kael::serve::SchedulerStats stats;
    stats.queued = 3;
    stats.active = 2;
    stats.decode_steps = 4;
    stats.decoded_rows = 10;
    stats.kv = {64, 5, 7, 32, 1};
    const nlohmann::json json = nlohmann::json::parse(metrics.to_json(stats));
    EXPECT_EQ(json["kv_blocks"], 64);
    EXPECT_EQ(json["kv_blocks_used"], 5);
    EXPECT_EQ(json["kv_blocks_cached"], 7);
    EXPECT_EQ(json["prefix_hit_tokens"], 32);
    EXPECT_EQ(json["prefix_hit_requests"], 1);
    EXPECT_EQ(json["requests"]["completed"], 1);
    EXPECT_EQ(json["requests"]["cancelled"], 1);
    EXPECT_EQ(json["requests"]["refused_4xx"], 2);
    EXPECT_EQ(json["requests"]["refused_5xx"], 1);
    EXPECT_EQ(json["completion_tokens"], 5);
    EXPECT_EQ(json["latency_seconds"]["p50"], 0.5);
    EXPECT_EQ(json["first_token_seconds"]["p99"], 0.1);
    EXPECT_EQ(json["queue_length"], 3);
    EXPECT_EQ(json["active_requests"], 2);
    EXPECT_EQ(json["mean_decode_batch"], 2.5);
    EXPECT_TRUE(nlohmann::json::parse(kael::serve::ServerMetrics().to_json({}))["latency_seconds"]["p50"].is_null());
}

}  // namespace

namespace {

// The value of the sample line `name` (with its labels) of a Prometheus text, or nothing.
std::optional<std::string> sample(const std::string& text, const std::string& name) {
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind(name + " ", 0) == 0) {
            return line.substr(name.size() + 1);
        }
    }
    return std::nullopt;
}

TEST(ServerMetrics, ThePrometheusTextHasEveryFamilyWithItsTypeAndValues) {
    kael::serve::ServerMetrics metrics;
    kael::serve::Finished done;
    done.reason = kael::serve::FinishReason::StopToken;
    done.completion_tokens = 6;
    done.total_seconds = 0.25;
    done.first_token_seconds = 0.125;
    metrics.record_finished(done);
    metrics.record_refused(404);
    kael::serve::SchedulerStats stats;
    stats.queued = 1;
    stats.decode_steps = 7;
    stats.decoded_rows = 9;
    stats.kv = {10, 3, 2, 48, 2};
    const std::string text = metrics.to_prometheus(stats);
    EXPECT_EQ(sample(text, "kael_kv_blocks{state=\"used\"}"), "3");
    EXPECT_EQ(sample(text, "kael_kv_blocks{state=\"cached\"}"), "2");
    EXPECT_EQ(sample(text, "kael_kv_blocks{state=\"free\"}"), "5");
    EXPECT_EQ(sample(text, "kael_prefix_cache_hit_tokens_total"), "48");
    EXPECT_EQ(sample(text, "kael_requests_total{outcome=\"completed\"}"), "1");
    EXPECT_EQ(sample(text, "kael_requests_total{outcome=\"refused_4xx\"}"), "1");
    EXPECT_EQ(sample(text, "kael_completion_tokens_total"), "6");
    EXPECT_EQ(sample(text, "kael_request_latency_seconds{quantile=\"0.5\"}"), "0.25");
    EXPECT_EQ(sample(text, "kael_first_token_seconds{quantile=\"0.99\"}"), "0.125");
    EXPECT_EQ(sample(text, "kael_queue_length"), "1");
    EXPECT_EQ(sample(text, "kael_decoded_rows_total"), "9");
    EXPECT_NE(text.find("# TYPE kael_requests_total counter\n"), std::string::npos);
    EXPECT_NE(text.find("# TYPE kael_queue_length gauge\n"), std::string::npos);
    // Every line is a comment or "name[{labels}] value", as the format requires.
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("# ", 0) != 0) {
            EXPECT_EQ(std::count(line.begin(), line.end(), ' '), 1) << line;
        }
    }
    EXPECT_EQ(sample(kael::serve::ServerMetrics().to_prometheus({}), "kael_request_latency_seconds{quantile=\"0.9\"}"),
              "NaN");
}

}  // namespace

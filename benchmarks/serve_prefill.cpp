// What chunked prefill buys the running streams (chapter 13): --streams requests decode
// side by side in serve::Scheduler when a request with a --long-prompt-token prompt arrives.
// Without chunks its whole prompt runs inside one step, and every stream waits for it; with
// chunks, each step runs one chunk beside the streams' decode rows. The run is made with
// chunks of 64, 128 and 256 tokens and with a chunk as long as the context (the prompt
// whole), and the time between consecutive tokens of the streams is measured.
//
//   kael_bench_serve_prefill --model DIR --threads N [--streams 8] [--long-prompt-tokens 900]
//                            [--stream-tokens 48]
//
// Prints one JSON object: per run, the chunk, the long request's time to first token, and
// the streams' inter-token latency (median over the whole run; p99 and the largest while
// the long prompt was being prefilled, from its submission to its first token). Then
// prefix caching: the time to first token of a request whose prompt is a 512-token
// prefix and 16 tokens of its own, alone on the server, first with a fresh prefix, then
// with the prefix another request used before, with prefix caching on and off.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "kael/kael.h"
#include "kael/serve/scheduler.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
    std::string model;
    int threads = 0;
    std::int64_t streams = 8;
    std::int64_t long_prompt_tokens = 900;
    std::int64_t stream_tokens = 48;
};

[[noreturn]] void usage(const std::string& problem) {
    std::cerr << "kael_bench_serve_prefill: " << problem << "\n"
              << "usage: kael_bench_serve_prefill --model DIR --threads N [--streams 8] [--long-prompt-tokens 900]\n"
              << "                                [--stream-tokens 48]\n";
    std::exit(2);
}

Options parse(int argc, char** argv) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string_view flag = argv[i];
        if (i + 1 >= argc) {
            usage("missing the value of " + std::string(flag));
        }
        const std::string value = argv[++i];
        try {
            if (flag == "--model") {
                options.model = value;
            } else if (flag == "--threads") {
                options.threads = std::stoi(value);
            } else if (flag == "--streams") {
                options.streams = std::stoll(value);
            } else if (flag == "--long-prompt-tokens") {
                options.long_prompt_tokens = std::stoll(value);
            } else if (flag == "--stream-tokens") {
                options.stream_tokens = std::stoll(value);
            } else {
                usage("unknown flag " + std::string(flag));
            }
        } catch (const std::logic_error&) {
            usage("not a number: " + std::string(flag) + " " + value);
        }
    }
    if (options.model.empty() || options.threads < 1 || options.streams < 1 || options.long_prompt_tokens < 1 ||
        options.stream_tokens < 4) {
        usage("--model and a positive --threads are required; counts must be positive");
    }
    return options;
}

double seconds_between(Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration<double>(to - from).count();
}

// The q-th quantile of `values` by the nearest-rank rule (0 for none).
double quantile(std::vector<double> values, double q) {
    if (values.empty()) {
        return 0;
    }
    std::sort(values.begin(), values.end());
    const auto rank = static_cast<std::size_t>(std::max(1.0, std::ceil(q * static_cast<double>(values.size()))));
    return values[rank - 1];
}

// Every token's arrival time, per request; written on the scheduler's thread.
struct Arrivals {
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<std::vector<Clock::time_point>> times;
    std::int64_t finished = 0;
};

struct Run {
    std::int64_t chunk;
    double long_ttft_s;
    double itl_median_ms;
    double itl_p99_during_prefill_ms;
    double itl_max_during_prefill_ms;
};

Run run_once(kael::nn::GPT& model, const Options& options, std::int64_t chunk) {
    kael::serve::Scheduler scheduler(
        model, {.max_batch = options.streams + 1, .max_queue = 4, .prefill_chunk = chunk});
    Arrivals arrivals;
    arrivals.times.resize(static_cast<std::size_t>(options.streams + 1));
    const auto callbacks = [&arrivals](std::size_t index) {
        kael::serve::RequestCallbacks c;
        c.on_token = [&arrivals, index](std::int64_t) {
            const std::lock_guard lock(arrivals.mutex);
            arrivals.times[index].push_back(Clock::now());
            arrivals.changed.notify_all();
            return true;
        };
        c.on_finish = [&arrivals](const kael::serve::Finished&) {
            const std::lock_guard lock(arrivals.mutex);
            ++arrivals.finished;
            arrivals.changed.notify_all();
        };
        return c;
    };
    const std::int64_t vocabulary = model.config().vocab_size;
    for (std::int64_t s = 0; s < options.streams; ++s) {
        kael::serve::GenerationRequest stream;
        stream.prompt = {(s * 977 + 13) % vocabulary, (s * 31 + 7) % vocabulary};
        stream.max_new_tokens = options.stream_tokens;
        stream.seed = static_cast<std::uint64_t>(s);
        if (!scheduler.submit(stream, callbacks(static_cast<std::size_t>(s))).ticket) {
            throw kael::Error("a stream was refused");
        }
    }
    {  // the streams run for a few tokens first
        std::unique_lock lock(arrivals.mutex);
        arrivals.changed.wait(lock, [&] {
            return std::all_of(arrivals.times.begin(), arrivals.times.end() - 1,
                               [](const auto& times) { return times.size() >= 4; });
        });
    }
    kael::serve::GenerationRequest long_request;
    for (std::int64_t t = 0; t < options.long_prompt_tokens; ++t) {
        long_request.prompt.push_back((t * 7919 + 3) % vocabulary);
    }
    long_request.max_new_tokens = 1;
    const Clock::time_point submitted = Clock::now();
    if (!scheduler.submit(long_request, callbacks(static_cast<std::size_t>(options.streams))).ticket) {
        throw kael::Error("the long request was refused");
    }
    {
        std::unique_lock lock(arrivals.mutex);
        arrivals.changed.wait(lock, [&] { return arrivals.finished == options.streams + 1; });
    }
    const auto& long_times = arrivals.times[static_cast<std::size_t>(options.streams)];
    if (long_times.empty()) {
        throw kael::Error("the long request drew no token");
    }
    const Clock::time_point first_token = long_times.front();
    std::vector<double> all;
    std::vector<double> during;
    for (std::int64_t s = 0; s < options.streams; ++s) {
        const auto& times = arrivals.times[static_cast<std::size_t>(s)];
        for (std::size_t i = 1; i < times.size(); ++i) {
            const double gap = 1e3 * seconds_between(times[i - 1], times[i]);
            all.push_back(gap);
            if (times[i] > submitted && times[i - 1] < first_token) {  // a gap that overlaps the prefill
                during.push_back(gap);
            }
        }
    }
    return {chunk, seconds_between(submitted, first_token), quantile(all, 0.5), quantile(during, 0.99),
            during.empty() ? 0.0 : *std::max_element(during.begin(), during.end())};
}

// The time to the first token of one request with `prompt`, alone on `scheduler`.
double time_to_first_token(kael::serve::Scheduler& scheduler, const std::vector<std::int64_t>& prompt) {
    std::mutex mutex;
    std::condition_variable changed;
    std::optional<kael::serve::Finished> finished;
    kael::serve::GenerationRequest request;
    request.prompt = prompt;
    request.max_new_tokens = 1;
    kael::serve::RequestCallbacks callbacks;
    callbacks.on_finish = [&](const kael::serve::Finished& end) {
        const std::lock_guard lock(mutex);
        finished = end;
        changed.notify_all();
    };
    if (!scheduler.submit(request, callbacks).ticket) {
        throw kael::Error("a prefix request was refused");
    }
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return finished.has_value(); });
    return finished->first_token_seconds;
}

struct PrefixRun {
    double fresh_s;       // a prefix no request has used
    double cached_s;      // the prefix of the request before, prefix caching on
    double uncached_s;    // the same, prefix caching off
    std::int64_t reused;  // positions the cached run took from the pool
};

PrefixRun prefix_run(kael::nn::GPT& model, std::int64_t prefix_tokens, std::int64_t own_tokens) {
    const std::int64_t vocabulary = model.config().vocab_size;
    const auto prompt = [&](std::int64_t prefix_seed, std::int64_t own_seed) {
        std::vector<std::int64_t> tokens;
        for (std::int64_t t = 0; t < prefix_tokens; ++t) {
            tokens.push_back((t * 104729 + prefix_seed * 7919) % vocabulary);
        }
        for (std::int64_t t = 0; t < own_tokens; ++t) {
            tokens.push_back((t * 31 + own_seed * 977 + 5) % vocabulary);
        }
        return tokens;
    };
    PrefixRun run{};
    for (const bool caching : {true, false}) {
        kael::serve::Scheduler scheduler(model, {.max_batch = 2, .max_queue = 2, .prefix_caching = caching});
        const double first = time_to_first_token(scheduler, prompt(1, 1));  // fills the cache
        const double second = time_to_first_token(scheduler, prompt(1, 2));
        if (caching) {
            run.fresh_s = first;
            run.cached_s = second;
            run.reused = scheduler.stats().kv.hit_tokens;
        } else {
            run.uncached_s = second;
        }
    }
    return run;
}

}  // namespace

int main(int argc, char** argv) {
    const Options options = parse(argc, argv);
    try {
        kael::set_num_threads(options.threads);
        const auto model = kael::nn::load_gpt2(options.model);
        model->eval();
        const std::int64_t context = model->config().block_size;
        if (options.long_prompt_tokens + 1 > context || options.stream_tokens + 2 > context) {
            usage("the prompts do not fit the model's context");
        }
        std::ostringstream runs;
        for (const std::int64_t chunk : {std::int64_t{64}, std::int64_t{128}, std::int64_t{256}, context}) {
            const Run run = run_once(*model, options, chunk);
            char line[320];
            std::snprintf(line, sizeof line,
                          "%s{\"chunk\": %lld, \"long_ttft_s\": %.3f, \"itl_median_ms\": %.1f, "
                          "\"itl_p99_during_prefill_ms\": %.1f, \"itl_max_during_prefill_ms\": %.1f}",
                          chunk == 64 ? "" : ", ", static_cast<long long>(run.chunk), run.long_ttft_s,
                          run.itl_median_ms, run.itl_p99_during_prefill_ms, run.itl_max_during_prefill_ms);
            runs << line;
        }
        constexpr std::int64_t kPrefix = 512;
        constexpr std::int64_t kOwn = 16;
        const PrefixRun prefix = prefix_run(*model, kPrefix, kOwn);
        std::printf("{\"threads\": %d, \"streams\": %lld, \"long_prompt_tokens\": %lld, \"stream_tokens\": %lld, "
                    "\"runs\": [%s], \"prefix\": {\"prefix_tokens\": %lld, \"own_tokens\": %lld, "
                    "\"fresh_ttft_s\": %.4f, \"cached_ttft_s\": %.4f, \"uncached_ttft_s\": %.4f, "
                    "\"reused_tokens\": %lld}}\n",
                    kael::get_num_threads(), static_cast<long long>(options.streams),
                    static_cast<long long>(options.long_prompt_tokens), static_cast<long long>(options.stream_tokens),
                    runs.str().c_str(), static_cast<long long>(kPrefix), static_cast<long long>(kOwn), prefix.fresh_s,
                    prefix.cached_s, prefix.uncached_s, static_cast<long long>(prefix.reused));
    } catch (const std::exception& error) {
        std::cerr << "kael_bench_serve_prefill: " << error.what() << "\n";
        return 1;
    }
    return 0;
}

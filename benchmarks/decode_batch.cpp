// What batching buys a server (chapter 13): one decode step of R sequences at once
// (nn::decode_step, then one draw per row with nn::sample_next), timed for R = 1, 2, 4, 8
// against R = 1. Each weight is read once per step whatever R is, so a step of 8 rows should
// cost little more than a step of 1; what it costs beyond that is what this measures, with
// kael's profiler splitting the 8-row step by operation.
//
//   kael_bench_decode_batch --model DIR --threads N [--prompt-tokens 64] [--steps 24]
//                           [--temperature 0.8] [--top-k 40] [--top-p 1] [--profile-rows 8]
//
// Prints one JSON object: per R, the median milliseconds of the model's step, of the
// sampling and of both, and both's ratio to R = 1; then the profiler's table of the
// --profile-rows step (its twelve largest rows by total time, per step). Beside them, the
// floor the arithmetic sets: R rows make R multiply-adds per parameter, at best at the rate
// of kael's blocked product on a problem that fits the caches, measured here on the same
// threads (gemm_gflops, a multiply-add counted as two operations). Where that floor for 8
// rows is above the one-row step, which the memory bounds, no kernel reaches a ratio of 1.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "kael/kael.h"
#include "kael/nn/batched_decode.h"
#include "kael/profiler.h"

namespace {

struct Options {
    std::string model;
    int threads = 0;
    std::int64_t prompt_tokens = 64;
    int steps = 24;
    kael::nn::SamplingOptions sampling{0.8, 40, 1.0};
    std::int64_t profile_rows = 8;
};

[[noreturn]] void usage(const std::string& problem) {
    std::cerr << "kael_bench_decode_batch: " << problem << "\n"
              << "usage: kael_bench_decode_batch --model DIR --threads N [--prompt-tokens 64] [--steps 24]\n"
              << "                               [--temperature 0.8] [--top-k 40] [--top-p 1] [--profile-rows 8]\n";
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
            } else if (flag == "--prompt-tokens") {
                options.prompt_tokens = std::stoll(value);
            } else if (flag == "--steps") {
                options.steps = std::stoi(value);
            } else if (flag == "--temperature") {
                options.sampling.temperature = std::stod(value);
            } else if (flag == "--top-k") {
                const std::int64_t k = std::stoll(value);
                options.sampling.top_k = k > 0 ? std::optional<std::int64_t>(k) : std::nullopt;
            } else if (flag == "--top-p") {
                options.sampling.top_p = std::stod(value);
            } else if (flag == "--profile-rows") {
                options.profile_rows = std::stoll(value);
            } else {
                usage("unknown flag " + std::string(flag));
            }
        } catch (const std::logic_error&) {
            usage("not a number: " + std::string(flag) + " " + value);
        }
    }
    if (options.model.empty() || options.threads < 1 || options.steps < 1 || options.prompt_tokens < 1) {
        usage("--model and a positive --threads are required; counts must be positive");
    }
    return options;
}

using Clock = std::chrono::steady_clock;

// The arithmetic rate of kael's blocked matrix product on this machine, in multiply-adds a
// second: 128 rows times a 768 x 3072 matrix (GPT-2 small's first MLP weight), small enough
// to stay in the caches, so that the arithmetic and not the memory sets its time. The best
// of 20 products.
double gemm_multiply_adds_per_second() {
    const kael::Tensor a = kael::randn({128, 768});
    const kael::Tensor b = kael::randn({768, 3072});
    double best = 1e300;
    for (int i = 0; i < 21; ++i) {
        const auto start = Clock::now();
        (void)kael::matmul(a, b);
        const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
        best = i == 0 ? best : std::min(best, seconds);  // the first is a warm-up
    }
    return 128.0 * 768.0 * 3072.0 / best;
}

double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t middle = values.size() / 2;
    return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

// R sequences, each with its own random prompt prefilled into its own cache, as the
// scheduler admits them; the first token of each comes from its prefill.
struct Batch {
    std::vector<std::unique_ptr<kael::nn::KVCache>> caches;
    std::vector<kael::nn::AttentionCache*> pointers;
    std::vector<std::int64_t> tokens;
};

Batch prefilled(kael::nn::GPT& model, std::int64_t rows, const Options& options) {
    const kael::nn::GPTConfig& config = model.config();
    Batch batch;
    for (std::int64_t r = 0; r < rows; ++r) {
        batch.caches.push_back(std::make_unique<kael::nn::KVCache>(config, 1, options.prompt_tokens + options.steps + 1));
        batch.pointers.push_back(batch.caches.back().get());
        const kael::Tensor prompt = kael::randint(0, config.vocab_size, {1, options.prompt_tokens});
        const kael::Tensor logits = model.forward(prompt, *batch.caches.back(), kael::nn::Logits::Last);
        batch.tokens.push_back(kael::nn::sample_next(logits.select(1, 0), options.sampling).item<std::int64_t>());
    }
    return batch;
}

// One step: the model over every row, then one draw per row, as the scheduler samples
// each row with its own options.
void step(kael::nn::GPT& model, Batch& batch, const Options& options, double* model_ms, double* sample_ms) {
    const auto start = Clock::now();
    const kael::Tensor logits = kael::nn::decode_step(model, batch.tokens, batch.pointers);
    const auto modelled = Clock::now();
    for (std::size_t r = 0; r < batch.tokens.size(); ++r) {
        const kael::Tensor row = logits.narrow(0, static_cast<std::int64_t>(r), 1);
        batch.tokens[r] = kael::nn::sample_next(row, options.sampling).item<std::int64_t>();
    }
    *model_ms = std::chrono::duration<double, std::milli>(modelled - start).count();
    *sample_ms = ms_since(modelled);
}

}  // namespace

int main(int argc, char** argv) {
    const Options options = parse(argc, argv);
    try {
        kael::set_num_threads(options.threads);
        kael::nn::check_sampling_options(options.sampling);
        const auto model = kael::nn::load_gpt2(options.model);
        model->eval();
        if (options.prompt_tokens + options.steps + 1 > model->config().block_size) {
            usage("the prompt and the steps do not fit the model's context");
        }
        const kael::autograd::NoGradGuard no_grad;
        kael::manual_seed(0);
        std::int64_t parameters = 0;
        for (const kael::Tensor& parameter : model->parameters()) {
            parameters += parameter.numel();
        }
        const double fma_rate = gemm_multiply_adds_per_second();
        // The row counts take their steps in turn, one step each, so that a machine whose
        // speed drifts (a neighbour on a shared host taking the memory's bandwidth for a few
        // seconds) slows all of them alike instead of the one that was running.
        constexpr std::int64_t kRowCounts[] = {1, 2, 4, 8};
        std::vector<Batch> batches;
        for (const std::int64_t rows : kRowCounts) {
            batches.push_back(prefilled(*model, rows, options));
        }
        std::vector<std::vector<double>> models(batches.size());
        std::vector<std::vector<double>> samples(batches.size());
        std::vector<std::vector<double>> totals(batches.size());
        for (int s = 0; s < options.steps; ++s) {
            for (std::size_t b = 0; b < batches.size(); ++b) {
                double model_ms = 0;
                double sample_ms = 0;
                step(*model, batches[b], options, &model_ms, &sample_ms);
                if (s > 0) {  // the first step of each is a warm-up
                    models[b].push_back(model_ms);
                    samples[b].push_back(sample_ms);
                    totals[b].push_back(model_ms + sample_ms);
                }
            }
        }
        std::ostringstream rows_json;
        const double one_row_ms = median(totals[0]);
        for (std::size_t b = 0; b < batches.size(); ++b) {
            const std::int64_t rows = kRowCounts[b];
            const double total = median(totals[b]);
            char line[256];
            std::snprintf(line, sizeof line,
                          "%s{\"rows\": %lld, \"model_ms\": %.3f, \"sample_ms\": %.3f, \"step_ms\": %.3f, "
                          "\"ratio_to_one_row\": %.3f, \"compute_floor_ms\": %.3f}",
                          rows == 1 ? "" : ", ", static_cast<long long>(rows), median(models[b]), median(samples[b]),
                          total, total / one_row_ms, 1e3 * static_cast<double>(rows * parameters) / fma_rate);
            rows_json << line;
        }

        // The profiler's view of a few steps of --profile-rows rows.
        Batch batch = prefilled(*model, options.profile_rows, options);
        double model_ms = 0;
        double sample_ms = 0;
        step(*model, batch, options, &model_ms, &sample_ms);
        constexpr int kProfiledSteps = 4;
        std::ostringstream profile_json;
        {
            kael::Profiler profiler;
            for (int s = 0; s < kProfiledSteps; ++s) {
                step(*model, batch, options, &model_ms, &sample_ms);
            }
            profiler.stop();
            std::vector<kael::ProfileRow> rows = profiler.rows();
            rows.resize(std::min<std::size_t>(rows.size(), 12));
            for (const kael::ProfileRow& row : rows) {  // operation names hold no quotes
                char line[256];
                std::snprintf(line, sizeof line, "%s{\"name\": \"%s\", \"calls_per_step\": %.1f, "
                              "\"total_ms_per_step\": %.3f, \"self_ms_per_step\": %.3f}",
                              &row == rows.data() ? "" : ", ", row.name.c_str(),
                              static_cast<double>(row.calls) / kProfiledSteps, row.total_us / 1e3 / kProfiledSteps,
                              row.self_us / 1e3 / kProfiledSteps);
                profile_json << line;
            }
        }
        std::printf("{\"threads\": %d, \"parameters\": %lld, \"gemm_gflops\": %.2f, \"prompt_tokens\": %lld, \"steps\": %d, \"temperature\": %g, "
                    "\"top_k\": %lld, \"top_p\": %g, \"rows\": [%s], \"profile_rows\": %lld, \"profile\": [%s]}\n",
                    kael::get_num_threads(), static_cast<long long>(parameters), 2e-9 * fma_rate,
                    static_cast<long long>(options.prompt_tokens), options.steps,
                    options.sampling.temperature,
                    static_cast<long long>(options.sampling.top_k.value_or(0)), options.sampling.top_p,
                    rows_json.str().c_str(), static_cast<long long>(options.profile_rows),
                    profile_json.str().c_str());
    } catch (const std::exception& error) {
        std::cerr << "kael_bench_decode_batch: " << error.what() << "\n";
        return 1;
    }
    return 0;
}

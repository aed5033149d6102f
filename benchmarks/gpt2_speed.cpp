// kael's speed on GPT-2 (chapter 12), the twin of benchmarks/gpt2_torch.py: the same model
// directory, the same random prompt length, the same measurements, one JSON line with the
// same keys, so that benchmarks/record_gpt2.sh can put the two side by side.
//
//   kael_bench_gpt2 --model DIR --threads N [--prompt-tokens 64] [--new-tokens 128]
//                   [--no-cache-tokens 8] [--repeats 5] [--seed 0]
//
//   forward_ms_best, forward_ms_median  one forward pass over the prompt, logits for every
//                                       position, no cache
//   prefill_ms            generate()'s first phase: the prompt's forward that fills the
//                         cache (logits for the last position only) and the first draw
//   decode_tokens_per_s   generate()'s later steps, greedy, one token at a time with the cache
//   nocache_tokens_per_s  generate() with use_cache = false: every step reruns the sequence
//   weight_bytes          the bytes of the parameters, which every decode step reads once
//   read_gb_per_s         this machine's memory read bandwidth on --threads threads (a
//                         512 MiB buffer summed in parallel, four streams per thread,
//                         best of --repeats): decode
//                         cannot be faster than read_gb_per_s / weight_bytes tokens a second
//
// Each figure but the forward median is the best of --repeats runs, after one warm-up run.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "kael/kael.h"

namespace {

struct Options {
    std::string model;
    int threads = 0;
    std::int64_t prompt_tokens = 64;
    std::int64_t new_tokens = 128;
    std::int64_t no_cache_tokens = 8;
    int repeats = 5;
    std::uint64_t seed = 0;
};

[[noreturn]] void usage(const std::string& problem) {
    std::cerr << "kael_bench_gpt2: " << problem << "\n"
              << "usage: kael_bench_gpt2 --model DIR --threads N [--prompt-tokens 64] [--new-tokens 128]\n"
              << "                       [--no-cache-tokens 8] [--repeats 5] [--seed 0]\n";
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
            } else if (flag == "--new-tokens") {
                options.new_tokens = std::stoll(value);
            } else if (flag == "--no-cache-tokens") {
                options.no_cache_tokens = std::stoll(value);
            } else if (flag == "--repeats") {
                options.repeats = std::stoi(value);
            } else if (flag == "--seed") {
                options.seed = std::stoull(value);
            } else {
                usage("unknown flag " + std::string(flag));
            }
        } catch (const std::logic_error&) {
            usage("not a number: " + std::string(flag) + " " + value);
        }
    }
    if (options.model.empty() || options.threads < 1 || options.repeats < 1 || options.prompt_tokens < 1 ||
        options.new_tokens < 1 || options.no_cache_tokens < 0) {
        usage("--model and a positive --threads are required; counts must be positive");
    }
    return options;
}

template <typename Function> double seconds(Function&& function) {
    const auto start = std::chrono::steady_clock::now();
    function();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t middle = values.size() / 2;
    return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

// The best read bandwidth of `repeats` passes over a buffer far larger than the caches,
// summed as 64-bit integers (a loop the compiler vectorizes without reordering floats).
double read_bandwidth(int repeats) {
    constexpr std::int64_t kWords = std::int64_t{1} << 26;  // 512 MiB
    const std::vector<std::uint64_t> buffer(static_cast<std::size_t>(kWords), 1);
    const std::int64_t piece = kWords / kael::get_num_threads();
    std::vector<std::uint64_t> totals(static_cast<std::size_t>(kael::get_num_threads()) + 1, 0);
    double best = 0.0;
    for (int r = 0; r <= repeats; ++r) {  // pass 0 is a warm-up
        std::fill(totals.begin(), totals.end(), 0);
        const double elapsed = seconds([&] {
            kael::parallel_for(0, kWords, piece, [&](std::int64_t begin, std::int64_t end) {
                // Four streams at once, a quarter of the piece each, as the decode's matrix
                // loop reads four rows of a weight at once: one stream alone leaves the
                // memory system idle between the misses one core's prefetcher can cover.
                const std::int64_t quarter = (end - begin) / 4;
                const std::uint64_t* stream = buffer.data() + begin;
                std::uint64_t total = 0;
                for (std::int64_t i = 0; i < quarter; ++i) {
                    total += stream[i] + stream[quarter + i] + stream[2 * quarter + i] + stream[3 * quarter + i];
                }
                for (std::int64_t i = begin + 4 * quarter; i < end; ++i) {
                    total += buffer[static_cast<std::size_t>(i)];
                }
                totals[static_cast<std::size_t>(begin / piece)] += total;
            });
        });
        std::uint64_t check = 0;
        for (const std::uint64_t total : totals) {
            check += total;
        }
        if (check != static_cast<std::uint64_t>(kWords)) {
            std::cerr << "kael_bench_gpt2: the bandwidth pass summed " << check << ", not " << kWords << "\n";
            std::exit(1);
        }
        if (r > 0) {
            best = std::max(best, static_cast<double>(kWords) * 8.0 / elapsed / 1e9);
        }
    }
    return best;
}

double rounded(double value) { return static_cast<double>(std::llround(value * 1000.0)) / 1000.0; }

}  // namespace

int main(int argc, char** argv) {
    const Options options = parse(argc, argv);
    try {
        kael::set_num_threads(options.threads);
        const auto model = kael::nn::load_gpt2(options.model);
        model->eval();
        const kael::nn::GPTConfig& config = model->config();
        const std::int64_t longest = options.prompt_tokens + std::max(options.new_tokens, options.no_cache_tokens);
        if (longest > config.block_size) {
            usage(std::to_string(longest) + " tokens is more than the model's " + std::to_string(config.block_size) +
                  " positions");
        }
        kael::manual_seed(options.seed);
        const kael::Tensor prompt = kael::randint(0, config.vocab_size, {1, options.prompt_tokens});
        const std::int64_t* first = prompt.data_ptr<std::int64_t>();
        const std::vector<std::int64_t> prompt_ids(first, first + options.prompt_tokens);

        const kael::autograd::NoGradGuard no_grad;
        const auto forward = [&] { (void)(*model)(prompt); };
        forward();
        std::vector<double> forward_times;
        for (int i = 0; i < options.repeats; ++i) {
            forward_times.push_back(seconds(forward));
        }

        kael::nn::GenerationOptions greedy;
        greedy.sampling.temperature = 0.0;
        greedy.max_new_tokens = options.new_tokens + 1;  // the first comes with the prefill
        double prefill = 1e300;
        double decode = 0.0;
        (void)kael::nn::generate(*model, prompt_ids, greedy);
        for (int i = 0; i < options.repeats; ++i) {
            const kael::nn::Generation run = kael::nn::generate(*model, prompt_ids, greedy);
            prefill = std::min(prefill, run.prefill_seconds);
            decode = std::max(decode, static_cast<double>(run.decode_steps) / run.decode_seconds);
        }

        std::string nocache = "null";
        if (options.no_cache_tokens > 0) {
            kael::nn::GenerationOptions slow = greedy;
            slow.use_cache = false;
            slow.max_new_tokens = options.no_cache_tokens;
            const auto run_slow = [&] { (void)kael::nn::generate(*model, prompt_ids, slow); };
            run_slow();
            double best = 1e300;
            for (int i = 0; i < options.repeats; ++i) {
                best = std::min(best, seconds(run_slow));
            }
            nocache = std::to_string(rounded(static_cast<double>(options.no_cache_tokens) / best));
        }

        std::int64_t weight_bytes = 0;
        for (const kael::Tensor& parameter : model->parameters()) {
            weight_bytes += parameter.numel() * kael::element_size(parameter.dtype());
        }
        const double bandwidth = read_bandwidth(options.repeats);

        std::printf(
            "{\"impl\": \"kael\", \"kael_version\": \"%.*s\", \"threads\": %d, \"forward_ms_best\": %.3f, "
            "\"forward_ms_median\": %.3f, \"prefill_ms\": %.3f, \"decode_tokens_per_s\": %.3f, "
            "\"nocache_tokens_per_s\": %s, \"prompt_tokens\": %lld, \"new_tokens\": %lld, \"no_cache_tokens\": %lld, "
            "\"repeats\": %d, \"weight_bytes\": %lld, \"read_gb_per_s\": %.3f}\n",
            static_cast<int>(kael::version().size()), kael::version().data(), kael::get_num_threads(), 1e3 * *std::min_element(forward_times.begin(), forward_times.end()),
            1e3 * median(forward_times), 1e3 * prefill, decode, nocache.c_str(),
            static_cast<long long>(options.prompt_tokens), static_cast<long long>(options.new_tokens),
            static_cast<long long>(options.no_cache_tokens), options.repeats, static_cast<long long>(weight_bytes),
            bandwidth);
    } catch (const std::exception& error) {
        std::cerr << "kael_bench_gpt2: " << error.what() << "\n";
        return 1;
    }
    return 0;
}

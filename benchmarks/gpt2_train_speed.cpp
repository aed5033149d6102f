// kael training GPT-2, the twin of benchmarks/gpt2_train_torch.py: the same model directory,
// the same tokens, the same batches, AdamW with the same settings, one JSON line with the
// same keys, so that benchmarks/record_gpt2_train.sh can put the two side by side and check
// that their losses agree step by step.
//
//   kael_bench_gpt2_train --model DIR --tokens FILE --threads N [--steps 12] [--batch 4]
//                         [--seq 64] [--lr 1e-4] [--contiguous] [--profile-step S]
//
// FILE holds uint16 token ids (kael_gpt2_tokens writes it). Step s trains on rows
// b = 0 .. batch-1 taken at token (s * batch + b) * seq: inputs the seq tokens there,
// targets the seq tokens one further. Parameters are used as nn::load_gpt2 returns them;
// --contiguous copies each into a fresh contiguous tensor first. --profile-step (from
// chapter 13, which adds the profiler) prints kael's profiler table for that step, counted
// from 0, on stderr.
//
//   step_ms          every step's time: forward, loss, backward and the optimizer step
//   forward_ms, backward_ms, optimizer_ms   the parts, per step
//   losses           every step's loss, before its update
//   system_allocations  per step, the allocations the caching allocator could not serve
//                    from its cache: fresh memory, which the system hands out page by page
//                    on first touch
//   peak_in_use_mib  the most memory the allocator had in use at once
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "kael/kael.h"

namespace {

struct Options {
    std::string model;
    std::string tokens;
    int threads = 0;
    int steps = 12;
    std::int64_t batch = 4;
    std::int64_t seq = 64;
    double lr = 1e-4;
    bool contiguous = false;
    int profile_step = -1;
};

[[noreturn]] void usage(const std::string& problem) {
    std::cerr << "kael_bench_gpt2_train: " << problem << "\n"
              << "usage: kael_bench_gpt2_train --model DIR --tokens FILE --threads N [--steps 12] [--batch 4]\n"
              << "                             [--seq 64] [--lr 1e-4] [--contiguous] [--profile-step S]\n";
    std::exit(2);
}

Options parse(int argc, char** argv) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string_view flag = argv[i];
        if (flag == "--contiguous") {
            options.contiguous = true;
            continue;
        }
        if (i + 1 >= argc) {
            usage("missing the value of " + std::string(flag));
        }
        const std::string value = argv[++i];
        try {
            if (flag == "--model") {
                options.model = value;
            } else if (flag == "--tokens") {
                options.tokens = value;
            } else if (flag == "--threads") {
                options.threads = std::stoi(value);
            } else if (flag == "--steps") {
                options.steps = std::stoi(value);
            } else if (flag == "--batch") {
                options.batch = std::stoll(value);
            } else if (flag == "--seq") {
                options.seq = std::stoll(value);
            } else if (flag == "--lr") {
                options.lr = std::stod(value);
//> stage 14
            } else if (flag == "--profile-step") {
                options.profile_step = std::stoi(value);
//< stage 14
            } else {
                usage("unknown flag " + std::string(flag));
            }
        } catch (const std::logic_error&) {
            usage("not a number: " + std::string(flag) + " " + value);
        }
    }
    if (options.model.empty() || options.tokens.empty() || options.threads < 1 || options.steps < 1 ||
        options.batch < 1 || options.seq < 1) {
        usage("--model, --tokens and a positive --threads are required; counts must be positive");
    }
    return options;
}

std::vector<std::int64_t> read_tokens(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw kael::Error("cannot open '" + path + "'");
    }
    const std::string bytes{std::istreambuf_iterator<char>(in), {}};
    std::vector<std::int64_t> ids(bytes.size() / 2);
    for (std::size_t i = 0; i < ids.size(); ++i) {
        ids[i] = static_cast<unsigned char>(bytes[2 * i]) | (static_cast<unsigned char>(bytes[2 * i + 1]) << 8);
    }
    return ids;
}

// Rows of `seq` tokens starting at (step * batch + b) * seq, and the same shifted by one.
std::pair<kael::Tensor, kael::Tensor> batch_at(const std::vector<std::int64_t>& ids, int step, const Options& o) {
    std::vector<std::int64_t> inputs;
    std::vector<std::int64_t> targets;
    for (std::int64_t b = 0; b < o.batch; ++b) {
        const auto start = static_cast<std::size_t>((step * o.batch + b) * o.seq);
        inputs.insert(inputs.end(), ids.begin() + static_cast<std::ptrdiff_t>(start),
                      ids.begin() + static_cast<std::ptrdiff_t>(start + static_cast<std::size_t>(o.seq)));
        targets.insert(targets.end(), ids.begin() + static_cast<std::ptrdiff_t>(start + 1),
                       ids.begin() + static_cast<std::ptrdiff_t>(start + 1 + static_cast<std::size_t>(o.seq)));
    }
    return {kael::from_vector(inputs, {o.batch, o.seq}), kael::from_vector(targets, {o.batch * o.seq})};
}

double now_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string json_list(const std::vector<double>& values, int digits) {
    std::ostringstream out;
    out.precision(digits);
    out << "[";
    for (std::size_t i = 0; i < values.size(); ++i) {
        out << (i > 0 ? ", " : "") << values[i];
    }
    out << "]";
    return out.str();
}

}  // namespace

int main(int argc, char** argv) {
    const Options options = parse(argc, argv);
    try {
        kael::set_num_threads(options.threads);
        const auto model = kael::nn::load_gpt2(options.model);
        model->train();
        if (options.contiguous) {
            const kael::autograd::NoGradGuard no_grad;
            for (kael::Tensor parameter : model->parameters()) {
                parameter.set_(parameter.contiguous().clone());
            }
        }
        const std::vector<std::int64_t> ids = read_tokens(options.tokens);
        const auto needed = static_cast<std::size_t>(options.steps * options.batch * options.seq + 1);
        if (ids.size() < needed) {
            usage("the token file holds " + std::to_string(ids.size()) + " tokens; the run needs " +
                  std::to_string(needed));
        }
        const std::int64_t vocab = model->config().vocab_size;
        kael::optim::AdamOptions adam = kael::optim::AdamW::default_options();
        adam.lr = options.lr;
        kael::optim::AdamW optimizer(model->parameters(), adam);

        std::vector<double> step_ms, forward_ms, backward_ms, optimizer_ms, losses, system_allocations;
        for (int step = 0; step < options.steps; ++step) {
            const auto [inputs, targets] = batch_at(ids, step, options);
//> stage 14
            std::optional<kael::Profiler> profiler;
            if (step == options.profile_step) {
                profiler.emplace();
            }
//< stage 14
            const kael::AllocatorStats before = kael::allocator_stats();
            const double start = now_seconds();
            const kael::Tensor logits = (*model)(inputs);
            const kael::Tensor loss = kael::cross_entropy(logits.view({options.batch * options.seq, vocab}), targets);
            const double forward_end = now_seconds();
            optimizer.zero_grad();
            loss.backward();
            const double backward_end = now_seconds();
            optimizer.step();
            const double end = now_seconds();
//> stage 14
            if (profiler) {
                profiler->stop();
                std::cerr << "kael_bench_gpt2_train: profile of step " << step << "\n" << profiler->summary(40);
            }
//< stage 14
            const kael::AllocatorStats after = kael::allocator_stats();
            system_allocations.push_back(static_cast<double>(after.misses - before.misses));
            losses.push_back(loss.item<float>());
            step_ms.push_back(1e3 * (end - start));
            forward_ms.push_back(1e3 * (forward_end - start));
            backward_ms.push_back(1e3 * (backward_end - forward_end));
            optimizer_ms.push_back(1e3 * (end - backward_end));
        }
        std::printf("{\"impl\": \"kael\", \"kael_version\": \"%.*s\", \"threads\": %d, \"batch\": %lld, \"seq\": %lld, "
                    "\"contiguous\": %s, \"step_ms\": %s, \"forward_ms\": %s, \"backward_ms\": %s, "
                    "\"optimizer_ms\": %s, \"losses\": %s, \"system_allocations\": %s, \"peak_in_use_mib\": %.1f}\n",
                    static_cast<int>(kael::version().size()), kael::version().data(), kael::get_num_threads(),
                    static_cast<long long>(options.batch), static_cast<long long>(options.seq),
                    options.contiguous ? "true" : "false", json_list(step_ms, 6).c_str(),
                    json_list(forward_ms, 6).c_str(), json_list(backward_ms, 6).c_str(),
                    json_list(optimizer_ms, 6).c_str(), json_list(losses, 9).c_str(),
                    json_list(system_allocations, 6).c_str(),
                    static_cast<double>(kael::allocator_stats().peak_in_use_bytes) / (1 << 20));
    } catch (const std::exception& error) {
        std::cerr << "kael_bench_gpt2_train: " << error.what() << "\n";
        return 1;
    }
    return 0;
}

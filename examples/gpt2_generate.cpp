// Generates text with GPT-2 from a Hugging Face model directory (chapter 12).
//
//   gpt2_generate --model DIR [--prompt TEXT] [--max-new-tokens 64] [--temperature 0.8]
//                 [--top-k 40] [--top-p 1.0] [--seed 0] [--threads N] [--greedy]
//                 [--no-cache] [--device cpu|cuda]
//
// DIR holds what the hub's `gpt2` repository holds: config.json, model.safetensors,
// vocab.json and merges.txt (or OpenAI's encoder.json and vocab.bpe). The weights are
// memory-mapped, not read. The continuation is printed as it is generated, one token at a
// time, and stops after --max-new-tokens or at <|endoftext|>. The prompt may spell
// <|endoftext|> to start a fresh document. At the end, on standard error, the speed of
// both phases: the prompt's prefill and the token-by-token decode.
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

#include "kael/kael.h"
#include "kael/parallel.h"

namespace {

struct Options {
    std::filesystem::path model;
    std::string prompt = "<|endoftext|>";
    kael::nn::GenerationOptions generation;
    std::uint64_t seed = 0;
    std::optional<int> threads;
    kael::Device device = kael::Device::CPU;
};

Options parse(int argc, char** argv) {
    Options o;
    o.generation.max_new_tokens = 64;
    o.generation.sampling = {0.8, 40, 1.0};
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (flag == "--help") {
            std::cout << "usage: gpt2_generate --model DIR [--prompt TEXT] [--max-new-tokens N] [--temperature T]\n"
                         "                     [--top-k K] [--top-p P] [--seed S] [--threads N] [--greedy]\n"
                         "                     [--no-cache] [--device cpu|cuda]\n";
            std::exit(0);
        }
        if (flag == "--greedy") { o.generation.sampling.temperature = 0.0; continue; }
        if (flag == "--no-cache") { o.generation.use_cache = false; continue; }
        KAEL_CHECK_VALUE(i + 1 < argc, "option " << flag << " needs a value");
        const std::string value = argv[++i];
        if (flag == "--model") { o.model = value; }
        else if (flag == "--prompt") { o.prompt = value; }
        else if (flag == "--max-new-tokens") { o.generation.max_new_tokens = std::stoll(value); }
        else if (flag == "--temperature") { o.generation.sampling.temperature = std::stod(value); }
        else if (flag == "--top-k") { o.generation.sampling.top_k = std::stoll(value); }
        else if (flag == "--top-p") { o.generation.sampling.top_p = std::stod(value); }
        else if (flag == "--seed") { o.seed = std::stoull(value); }
        else if (flag == "--threads") { o.threads = std::stoi(value); }
        else if (flag == "--device") { o.device = kael::parse_device(value); }
        else { throw kael::ValueError("unknown option " + flag); }
    }
    KAEL_CHECK_VALUE(!o.model.empty(), "gpt2_generate needs --model DIR (see --help)");
    KAEL_CHECK_VALUE(o.generation.max_new_tokens >= 0, "--max-new-tokens must be >= 0");
    kael::nn::check_sampling_options(o.generation.sampling);
    return o;
}

// "N tokens in S s (R tokens/s)".
std::string rate(std::size_t tokens, double seconds) {
    std::ostringstream out;
    out << tokens << " tokens in " << std::fixed << std::setprecision(3) << seconds << " s ("
        << std::setprecision(1) << (seconds > 0 ? static_cast<double>(tokens) / seconds : 0.0) << " tokens/s)";
    return out.str();
}

}  // namespace

int main(int argc, char** argv) try {
    const Options o = parse(argc, argv);
    if (o.threads) {
        kael::set_num_threads(*o.threads);
    }
    const kael::text::GPT2Tokenizer tokenizer = kael::text::GPT2Tokenizer::from_directory(o.model);
    const std::shared_ptr<kael::nn::GPT> model = kael::nn::load_gpt2(o.model);
    model->to(o.device);
    KAEL_CHECK_VALUE(tokenizer.vocab_size() <= model->config().vocab_size,
                     "the tokenizer has " << tokenizer.vocab_size() << " tokens, more than the model's "
                                          << model->config().vocab_size);
    const std::vector<std::int64_t> prompt = tokenizer.encode(o.prompt, /*allow_special=*/true);
    kael::nn::GenerationOptions generation = o.generation;
    generation.stop_token = tokenizer.end_of_text();

    kael::manual_seed(o.seed);
    std::cout << o.prompt << std::flush;
    kael::text::StreamingDecoder decoder(tokenizer);
    const kael::nn::Generation result = kael::nn::generate(*model, prompt, generation, [&](std::int64_t token) {
        std::cout << decoder.push(token) << std::flush;
        return true;
    });
    std::cout << decoder.finish() << "\n";
    std::cerr << "threads " << kael::get_num_threads() << "; prefill: " << rate(prompt.size(), result.prefill_seconds)
              << "; decode: " << rate(static_cast<std::size_t>(result.decode_steps), result.decode_seconds)
              << "\n";
    return 0;
} catch (const std::exception& error) {
    std::cerr << "gpt2_generate: " << error.what() << "\n";
    return 1;
}

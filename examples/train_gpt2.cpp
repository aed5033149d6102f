// Fine-tunes GPT-2 from a Hugging Face model directory on a text, and samples from it
// (chapter 12).
//
//   train_gpt2 --model DIR [--data FILE] [--steps 100] [--batch-size 4] [--block-size 64]
//              [--lr 1e-4] [--weight-decay 0.01] [--seed 0] [--threads N]
//              [--eval-every 20] [--eval-batches 8] [--checkpoint-every 0] [--resume FILE]
//              [--out DIR] [--prompt TEXT] [--sample-tokens 40] [--temperature 0.8]
//              [--top-k N]
//
// DIR holds config.json, model.safetensors and GPT-2's tokenizer (vocab.json and merges.txt,
// or encoder.json and vocab.bpe). The text (default build/data/kjv.txt, the King James
// Version that scripts/make-corpus writes) is encoded with that tokenizer; the first 90% of
// its tokens train, the last 10% validate. Every step trains on --batch-size windows of
// --block-size tokens drawn from a generator seeded by (seed, step), with AdamW and the
// gradient clipped to norm 1, as nanoGPT fine-tunes. The parameters train where
// nn::load_gpt2 put them: views of the mapped file, which the first write to each page copies
// into this process (MAP_PRIVATE); the file never changes.
//
// Every --eval-every steps it prints the validation loss; every step it appends the
// training loss to <out>/train_gpt2_loss.csv. A checkpoint (<out>/train_gpt2.safetensors:
// the model, AdamW's state, the step and the model's sizes) is written every
// --checkpoint-every steps and at the end; --resume FILE continues from one, bit for bit
// what the uninterrupted run computes (the batches of step s depend on s alone). The
// fine-tuned model is also written as a Hugging Face directory, <out>/model (config.json,
// model.safetensors with GPT-2's names and Conv1D layout, the tokenizer's files), which
// gpt2_generate and load_gpt2 read like any other. At the end it samples --sample-tokens
// tokens after --prompt. Exit status 77 when the text is missing.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "kael/kael.h"

namespace {

struct Options {
    std::filesystem::path model;
    std::filesystem::path data = "build/data/kjv.txt";
    std::int64_t steps = 100, batch_size = 4, block_size = 64;
    double lr = 1e-4, weight_decay = 0.01;
    std::uint64_t seed = 0;
    std::optional<int> threads;
    std::int64_t eval_every = 20, eval_batches = 8, checkpoint_every = 0;
    std::optional<std::filesystem::path> resume;
    std::filesystem::path out = "train_gpt2_out";
    std::string prompt = "And God said";
    std::int64_t sample_tokens = 40;
    kael::nn::SamplingOptions sampling{0.8, std::nullopt, 1.0};
};

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (flag == "--help") {
            std::cout << "usage: train_gpt2 --model DIR [--data FILE] [--steps N] [--resume FILE] ... (see the source)\n";
            std::exit(0);
        }
        KAEL_CHECK_VALUE(i + 1 < argc, "option " << flag << " needs a value");
        const std::string value = argv[++i];
        if (flag == "--model") { o.model = value; }
        else if (flag == "--data") { o.data = value; }
        else if (flag == "--steps") { o.steps = std::stoll(value); }
        else if (flag == "--batch-size") { o.batch_size = std::stoll(value); }
        else if (flag == "--block-size") { o.block_size = std::stoll(value); }
        else if (flag == "--lr") { o.lr = std::stod(value); }
        else if (flag == "--weight-decay") { o.weight_decay = std::stod(value); }
        else if (flag == "--seed") { o.seed = std::stoull(value); }
        else if (flag == "--threads") { o.threads = std::stoi(value); }
        else if (flag == "--eval-every") { o.eval_every = std::stoll(value); }
        else if (flag == "--eval-batches") { o.eval_batches = std::stoll(value); }
        else if (flag == "--checkpoint-every") { o.checkpoint_every = std::stoll(value); }
        else if (flag == "--resume") { o.resume = value; }
        else if (flag == "--out") { o.out = value; }
        else if (flag == "--prompt") { o.prompt = value; }
        else if (flag == "--sample-tokens") { o.sample_tokens = std::stoll(value); }
        else if (flag == "--temperature") { o.sampling.temperature = std::stod(value); }
        else if (flag == "--top-k") { o.sampling.top_k = std::stoll(value); }
        else { throw kael::ValueError("unknown option " + flag); }
    }
    KAEL_CHECK_VALUE(!o.model.empty(), "train_gpt2 needs --model DIR (see --help)");
    KAEL_CHECK_VALUE(o.steps >= 0 && o.batch_size >= 1 && o.block_size >= 1 && o.eval_every >= 1 &&
                         o.eval_batches >= 1 && o.checkpoint_every >= 0 && o.sample_tokens >= 0,
                     "train_gpt2: counts must be positive (steps, checkpoint-every and sample-tokens may be 0)");
    kael::nn::check_sampling_options(o.sampling);
    return o;
}

// ---- batches and losses -------------------------------------------------------------------------

// `batch` windows of block + 1 tokens at offsets drawn by `rng`: the inputs are the first
// block tokens of each window, the targets the last block.
std::pair<kael::Tensor, kael::Tensor> batch_of(const std::vector<std::int64_t>& tokens, std::int64_t batch,
                                               std::int64_t block, std::mt19937_64& rng) {
    std::uniform_int_distribution<std::int64_t> offset(0, static_cast<std::int64_t>(tokens.size()) - block - 1);
    std::vector<std::int64_t> inputs;
    std::vector<std::int64_t> targets;
    for (std::int64_t b = 0; b < batch; ++b) {
        const auto start = tokens.begin() + static_cast<std::ptrdiff_t>(offset(rng));
        inputs.insert(inputs.end(), start, start + block);
        targets.insert(targets.end(), start + 1, start + block + 1);
    }
    return {kael::from_vector(inputs, {batch, block}), kael::from_vector(targets, {batch * block})};
}

kael::Tensor loss_of(kael::nn::GPT& model, const kael::Tensor& inputs, const kael::Tensor& targets) {
    const kael::Tensor logits = model(inputs);
    return kael::cross_entropy(logits.view({-1, logits.size(-1)}), targets);
}

// The mean loss over the same validation batches every time.
double validation_loss(kael::nn::GPT& model, const std::vector<std::int64_t>& tokens, const Options& o) {
    const kael::autograd::NoGradGuard no_grad;
    model.eval();
    std::mt19937_64 rng(o.seed ^ 0x5eed5eedULL);
    double total = 0;
    for (std::int64_t i = 0; i < o.eval_batches; ++i) {
        const auto [x, y] = batch_of(tokens, o.batch_size, o.block_size, rng);
        total += loss_of(model, x, y).item();
    }
    model.train();
    return total / static_cast<double>(o.eval_batches);
}

// ---- checkpoints --------------------------------------------------------------------------------

kael::Tensor sizes_of(const kael::nn::GPTConfig& c) {
    return kael::from_vector<std::int64_t>({c.vocab_size, c.block_size, c.n_layer, c.n_head, c.n_embd});
}

void save_checkpoint(const std::filesystem::path& path, kael::nn::GPT& model, const kael::optim::AdamW& optimizer,
                     std::int64_t step) {
    kael::nn::StateDict state;
    for (const auto& [name, tensor] : model.state_dict()) {
        state.insert("model." + name, tensor);
    }
    for (const auto& [name, tensor] : optimizer.state_dict()) {
        state.insert("optimizer." + name, tensor);
    }
    state.insert("meta.config", sizes_of(model.config()));
    state.insert("meta.step", kael::scalar(step, kael::DType::I64));
    // Written beside and renamed: a run killed while saving leaves the last checkpoint whole.
    const std::filesystem::path partial = path.string() + ".partial";
    kael::io::save_safetensors(state, partial);
    std::filesystem::rename(partial, path);
}

// Reads a checkpoint into `model` and `optimizer`; returns the step to continue from. A
// checkpoint of a model of other sizes is refused before anything is loaded.
std::int64_t load_checkpoint(const std::filesystem::path& path, kael::nn::GPT& model, kael::optim::AdamW& optimizer) {
    const kael::nn::StateDict state = kael::io::load_safetensors(path);
    KAEL_CHECK_VALUE(state.contains("meta.config") && state.contains("meta.step") &&
                         state.at("meta.config").shape() == kael::Shape{5} &&
                         kael::allclose(state.at("meta.config"), sizes_of(model.config()), 0, 0),
                     path.string() << " is not a checkpoint of this model (its sizes differ from --model's)");
    kael::nn::StateDict model_state;
    kael::nn::StateDict optimizer_state;
    for (const auto& [name, tensor] : state) {
        if (name.starts_with("model.")) {
            model_state.insert(name.substr(6), tensor);
        } else if (name.starts_with("optimizer.")) {
            optimizer_state.insert(name.substr(10), tensor);
        }
    }
    model.load_state_dict(model_state);
    optimizer.load_state_dict(optimizer_state);
    return state.at("meta.step").item<std::int64_t>();
}

bool is_conv1d(const std::string& name) {
    return name.ends_with("attn.c_attn.weight") || name.ends_with("attn.c_proj.weight") ||
           name.ends_with("mlp.c_fc.weight") || name.ends_with("mlp.c_proj.weight");
}

// The model as a Hugging Face directory: GPT-2's names (kael's are the same without the
// "transformer." prefix, which the loader accepts either way), the Conv1D weights stored
// [in, out] again, the source's config.json and tokenizer files copied beside.
void save_model_directory(const std::filesystem::path& directory, kael::nn::GPT& model,
                          const std::filesystem::path& source) {
    std::filesystem::create_directories(directory);
    kael::nn::StateDict weights;
    for (const auto& [name, parameter] : model.named_parameters()) {
        weights.insert(name, is_conv1d(name) ? parameter.detach().mT().contiguous() : parameter.detach());
    }
    kael::io::save_safetensors(weights, directory / "model.safetensors");
    for (const char* file : {"config.json", "vocab.json", "merges.txt", "encoder.json", "vocab.bpe"}) {
        if (std::filesystem::exists(source / file)) {
            std::filesystem::copy_file(source / file, directory / file,
                                       std::filesystem::copy_options::overwrite_existing);
        }
    }
}

std::vector<std::int64_t> read_tokens(const Options& o, const kael::text::GPT2Tokenizer& tokenizer) {
    std::ifstream file(o.data, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    return tokenizer.encode(text);
}

}  // namespace

int main(int argc, char** argv) try {
    const Options o = parse(argc, argv);
    if (!std::filesystem::is_regular_file(o.data)) {
        std::cout << "skipped: no text at '" << o.data.string() << "' (scripts/make-corpus writes build/data/kjv.txt)\n";
        return 77;
    }
    if (o.threads) {
        kael::set_num_threads(*o.threads);
    }
    const kael::text::GPT2Tokenizer tokenizer = kael::text::GPT2Tokenizer::from_directory(o.model);
    const std::shared_ptr<kael::nn::GPT> model = kael::nn::load_gpt2(o.model);
    const kael::nn::GPTConfig& config = model->config();
    KAEL_CHECK_VALUE(tokenizer.vocab_size() <= config.vocab_size,
                     "the tokenizer has " << tokenizer.vocab_size() << " tokens, more than the model's "
                                          << config.vocab_size);
    KAEL_CHECK_VALUE(o.block_size <= config.block_size,
                     "--block-size " << o.block_size << " is longer than the model's " << config.block_size
                                     << " positions");
    const std::vector<std::int64_t> tokens = read_tokens(o, tokenizer);
    const auto split = static_cast<std::ptrdiff_t>(tokens.size() * 9 / 10);
    const std::vector<std::int64_t> train(tokens.begin(), tokens.begin() + split);
    const std::vector<std::int64_t> validation(tokens.begin() + split, tokens.end());
    KAEL_CHECK_VALUE(static_cast<std::int64_t>(validation.size()) > o.block_size + 1,
                     "the text has " << tokens.size() << " tokens, too few for windows of " << o.block_size);

    model->train();
    kael::optim::AdamW optimizer(model->parameters(), {.lr = o.lr, .beta1 = 0.9, .beta2 = 0.95, .eps = 1e-8,
                                                       .weight_decay = o.weight_decay, .amsgrad = false,
                                                       .maximize = false});
    std::int64_t step = 0;
    if (o.resume) {
        step = load_checkpoint(*o.resume, *model, optimizer);
        std::cout << "resumed from " << o.resume->string() << " at step " << step << "\n";
    }
    std::printf("text: %zu tokens (%zu train, %zu validation)\nmodel: %lld parameters, %d thread(s), %s\n",
                tokens.size(), train.size(), validation.size(), static_cast<long long>(model->num_parameters()),
                kael::get_num_threads(), kael::matmul_kernel_description().c_str());

    std::filesystem::create_directories(o.out);
    std::ofstream curve(o.out / "train_gpt2_loss.csv", o.resume ? std::ios::app : std::ios::trunc);
    if (!o.resume) {
        curve << "step,train_loss,val_loss\n";
    }
    curve << std::setprecision(9);  // every float32 loss exactly, so two runs compare as text
    const std::int64_t first_step = step;
    const auto start = std::chrono::steady_clock::now();
    for (; step < o.steps; ++step) {
        std::mt19937_64 rng(o.seed * 1000003ULL + static_cast<std::uint64_t>(step));
        const auto [x, y] = batch_of(train, o.batch_size, o.block_size, rng);
        const kael::Tensor loss = loss_of(*model, x, y);
        optimizer.zero_grad();
        loss.backward();
        kael::nn::clip_grad_norm_(model->parameters(), 1.0);
        optimizer.step();
        const double value = loss.item();
        curve << step + 1 << ',' << value << ',';
        if ((step + 1) % o.eval_every == 0 || step + 1 == o.steps) {
            const double val = validation_loss(*model, validation, o);
            curve << val;
            std::printf("step %5lld  train loss %.4f  validation loss %.4f\n", static_cast<long long>(step + 1), value,
                        val);
            std::fflush(stdout);
        }
        curve << '\n';
        if (o.checkpoint_every > 0 && (step + 1) % o.checkpoint_every == 0) {
            save_checkpoint(o.out / "train_gpt2.safetensors", *model, optimizer, step + 1);
        }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (step > first_step) {
        std::printf("training: %lld steps in %.1f s, %.0f ms a step, %.0f tokens/s\n",
                    static_cast<long long>(step - first_step), seconds,
                    1e3 * seconds / static_cast<double>(step - first_step),
                    static_cast<double>((step - first_step) * o.batch_size * o.block_size) / seconds);
    }
    save_checkpoint(o.out / "train_gpt2.safetensors", *model, optimizer, step);
    save_model_directory(o.out / "model", *model, o.model);

    model->eval();
    kael::nn::GenerationOptions generation;
    generation.max_new_tokens = o.sample_tokens;
    generation.sampling = o.sampling;
    generation.stop_token = tokenizer.end_of_text();
    kael::manual_seed(o.seed);
    const std::vector<std::int64_t> prompt = tokenizer.encode(o.prompt);
    const kael::nn::Generation sampled = kael::nn::generate(*model, prompt, generation);
    std::printf("sample (temperature %.2f):\n%s%s\n", o.sampling.temperature, o.prompt.c_str(),
                tokenizer.decode(sampled.tokens).c_str());
    return 0;
} catch (const std::exception& error) {
    std::fprintf(stderr, "train_gpt2: %s\n", error.what());
    return 2;
}

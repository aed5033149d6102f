// Trains a character-level GPT on a text and samples from it (chapter 11).
//
//   char_gpt --data FILE [--steps 2000] [--batch-size 16] [--block-size 64] [--layers 4]
//            [--heads 4] [--width 128] [--lr 1e-3] [--seed 0] [--eval-every 200]
//            [--eval-batches 20] [--checkpoint-every 0] [--resume FILE] [--out DIR]
//            [--prompt TEXT] [--sample-chars 300] [--temperature 0.8] [--top-k N]
//            [--top-p 1.0] [--device cpu|cuda] [--target-val-loss X]
//
// The default text is the King James Version as Debian's bible-kjv prints it (public
// domain; scripts/make-corpus writes it to build/data/kjv.txt). The first 90% of the
// characters train, the last 10% validate. The vocabulary is the text's own characters
// (Unicode code points of its UTF-8). Every --eval-every steps it prints the validation
// loss; every step it writes the training loss to <out>/char_gpt_loss.csv. The checkpoint
// (<out>/char_gpt.safetensors: the model, AdamW's state, the step and the vocabulary)
// resumes bit for bit: the batches of step s are drawn from a generator seeded by
// (seed, s), so a resumed run draws what an uninterrupted one would have (with dropout 0,
// the default: dropout draws from the global generator, which the checkpoint does not
// hold; and the learning rate is the checkpoint's). At the end it
// samples --sample-chars characters after --prompt. Exit status 77 when --data is missing.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "kael/kael.h"
#include "progress_bar.h"

namespace {

struct Options {
    std::filesystem::path data;
    std::int64_t steps = 2000, batch_size = 16, block_size = 64, layers = 4, heads = 4, width = 128;
    double lr = 1e-3;
    std::uint64_t seed = 0;
    std::int64_t eval_every = 200, eval_batches = 20, checkpoint_every = 0;
    std::optional<std::filesystem::path> resume;
    std::filesystem::path out = ".";
    std::string prompt = "And God said";
    std::int64_t sample_chars = 300;
    kael::nn::SamplingOptions sampling{0.8, std::nullopt, 1.0};
    kael::Device device = kael::Device::CPU;
    double target_val_loss = 0;
};

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (flag == "--help") {
            std::cout << "usage: char_gpt --data FILE [--steps N] [--resume FILE] [--prompt TEXT] ... (see the source)\n";
            std::exit(0);
        }
        KAEL_CHECK_VALUE(i + 1 < argc, "option " << flag << " needs a value");
        const std::string value = argv[++i];
        if (flag == "--data") { o.data = value; }
        else if (flag == "--steps") { o.steps = std::stoll(value); }
        else if (flag == "--batch-size") { o.batch_size = std::stoll(value); }
        else if (flag == "--block-size") { o.block_size = std::stoll(value); }
        else if (flag == "--layers") { o.layers = std::stoll(value); }
        else if (flag == "--heads") { o.heads = std::stoll(value); }
        else if (flag == "--width") { o.width = std::stoll(value); }
        else if (flag == "--lr") { o.lr = std::stod(value); }
        else if (flag == "--seed") { o.seed = std::stoull(value); }
        else if (flag == "--eval-every") { o.eval_every = std::stoll(value); }
        else if (flag == "--eval-batches") { o.eval_batches = std::stoll(value); }
        else if (flag == "--checkpoint-every") { o.checkpoint_every = std::stoll(value); }
        else if (flag == "--resume") { o.resume = value; }
        else if (flag == "--out") { o.out = value; }
        else if (flag == "--prompt") { o.prompt = value; }
        else if (flag == "--sample-chars") { o.sample_chars = std::stoll(value); }
        else if (flag == "--temperature") { o.sampling.temperature = std::stod(value); }
        else if (flag == "--top-k") { o.sampling.top_k = std::stoll(value); }
        else if (flag == "--top-p") { o.sampling.top_p = std::stod(value); }
        else if (flag == "--device") { o.device = kael::parse_device(value); }
        else if (flag == "--target-val-loss") { o.target_val_loss = std::stod(value); }
        else { throw kael::ValueError("unknown option " + flag); }
    }
    KAEL_CHECK_VALUE(o.steps >= 0 && o.batch_size >= 1 && o.block_size >= 1 && o.eval_every >= 1 &&
                         o.eval_batches >= 1 && o.checkpoint_every >= 0 && o.sample_chars >= 0,
                     "char_gpt: counts must be positive (steps, checkpoint-every and sample-chars may be 0)");
    kael::nn::check_sampling_options(o.sampling);
    return o;
}

// ---- the text as code points ------------------------------------------------------------------

// The code points of UTF-8 `bytes`; ValueError at the first byte that is not valid UTF-8.
std::vector<std::uint32_t> decode_utf8(const std::string& bytes) {
    std::vector<std::uint32_t> points;
    points.reserve(bytes.size());
    for (std::size_t i = 0; i < bytes.size();) {
        const auto lead = static_cast<unsigned char>(bytes[i]);
        const std::size_t length = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 0;
        KAEL_CHECK_VALUE(length > 0 && i + length <= bytes.size(), "the text is not valid UTF-8 at byte " << i);
        std::uint32_t point = length == 1 ? lead : static_cast<std::uint32_t>(lead & (0x7F >> length));
        for (std::size_t k = 1; k < length; ++k) {
            const auto next = static_cast<unsigned char>(bytes[i + k]);
            KAEL_CHECK_VALUE((next >> 6) == 0x2, "the text is not valid UTF-8 at byte " << i + k);
            point = (point << 6) | static_cast<std::uint32_t>(next & 0x3F);
        }
        const std::uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
        KAEL_CHECK_VALUE(point >= smallest[length] && point <= 0x10FFFF && (point < 0xD800 || point > 0xDFFF),
                         "the text is not valid UTF-8 at byte " << i << " (an overlong or surrogate sequence)");
        points.push_back(point);
        i += length;
    }
    return points;
}

std::string encode_utf8(std::uint32_t point) {
    std::string out;
    if (point < 0x80) {
        out += static_cast<char>(point);
    } else if (point < 0x800) {
        out += static_cast<char>(0xC0 | (point >> 6));
        out += static_cast<char>(0x80 | (point & 0x3F));
    } else if (point < 0x10000) {
        out += static_cast<char>(0xE0 | (point >> 12));
        out += static_cast<char>(0x80 | ((point >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (point & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (point >> 18));
        out += static_cast<char>(0x80 | ((point >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((point >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (point & 0x3F));
    }
    return out;
}

// The characters of the text, sorted: token i is vocabulary[i].
struct Vocabulary {
    std::vector<std::uint32_t> points;
    std::map<std::uint32_t, std::int64_t> index;

    explicit Vocabulary(std::vector<std::uint32_t> sorted) : points(std::move(sorted)) {
        for (std::size_t i = 0; i < points.size(); ++i) {
            index[points[i]] = static_cast<std::int64_t>(i);
        }
    }
    [[nodiscard]] std::vector<std::int64_t> encode(const std::vector<std::uint32_t>& text) const {
        std::vector<std::int64_t> tokens;
        tokens.reserve(text.size());
        for (const std::uint32_t point : text) {
            const auto found = index.find(point);
            KAEL_CHECK_VALUE(found != index.end(), "the character U+" << std::hex << point
                                                                      << " is not in the model's vocabulary");
            tokens.push_back(found->second);
        }
        return tokens;
    }
};

// ---- batches ------------------------------------------------------------------------------------

// `batch` windows of block + 1 tokens from `tokens`, at offsets drawn by `rng`: inputs are
// the first block tokens of each window, targets the last block.
std::pair<kael::Tensor, kael::Tensor> batch_of(const std::vector<std::int64_t>& tokens, std::int64_t batch,
                                               std::int64_t block, std::mt19937_64& rng, kael::Device device) {
    std::uniform_int_distribution<std::int64_t> offset(0, static_cast<std::int64_t>(tokens.size()) - block - 1);
    std::vector<std::int64_t> inputs;
    std::vector<std::int64_t> targets;
    for (std::int64_t b = 0; b < batch; ++b) {
        const auto start = static_cast<std::size_t>(offset(rng));
        inputs.insert(inputs.end(), tokens.begin() + static_cast<std::ptrdiff_t>(start),
                      tokens.begin() + static_cast<std::ptrdiff_t>(start) + block);
        targets.insert(targets.end(), tokens.begin() + static_cast<std::ptrdiff_t>(start) + 1,
                       tokens.begin() + static_cast<std::ptrdiff_t>(start) + block + 1);
    }
    return {kael::from_vector(inputs, {batch, block}).to(device), kael::from_vector(targets, {batch, block}).to(device)};
}

kael::Tensor loss_of(kael::nn::GPT& model, const kael::Tensor& inputs, const kael::Tensor& targets) {
    const kael::Tensor logits = model(inputs);
    const std::int64_t vocabulary = logits.size(-1);
    return kael::cross_entropy(logits.view({-1, vocabulary}), targets.reshape({-1}));
}

// The mean loss over the same `batches` validation batches every time.
double validation_loss(kael::nn::GPT& model, const std::vector<std::int64_t>& tokens, const Options& o) {
    const kael::autograd::NoGradGuard no_grad;
    model.eval();
    std::mt19937_64 rng(o.seed ^ 0x5eed5eedULL);
    double total = 0;
    for (std::int64_t i = 0; i < o.eval_batches; ++i) {
        const auto [x, y] = batch_of(tokens, o.batch_size, o.block_size, rng, o.device);
        total += loss_of(model, x, y).item();
    }
    model.train();
    return total / static_cast<double>(o.eval_batches);
}

// ---- checkpoints --------------------------------------------------------------------------------

void save_checkpoint(const std::filesystem::path& path, kael::nn::GPT& model, const kael::optim::AdamW& optimizer,
                     std::int64_t step, const Vocabulary& vocabulary) {
    kael::nn::StateDict state;
    for (const auto& [name, tensor] : model.state_dict()) {
        state.insert("model." + name, tensor.cpu());
    }
    for (const auto& [name, tensor] : optimizer.state_dict()) {
        state.insert("optimizer." + name, tensor.cpu());
    }
    const kael::nn::GPTConfig& c = model.config();
    state.insert("meta.config", kael::from_vector<std::int64_t>({c.vocab_size, c.block_size, c.n_layer, c.n_head, c.n_embd}));
    state.insert("meta.step", kael::scalar(step, kael::DType::I64));
    std::vector<std::int64_t> points(vocabulary.points.begin(), vocabulary.points.end());
    state.insert("meta.vocabulary", kael::from_vector(points));
    kael::io::save_safetensors(state, path);
}

// Reads a checkpoint into `model` and `optimizer`; returns the step to continue from.
// A checkpoint of another shape or vocabulary is refused before anything is loaded.
std::int64_t load_checkpoint(const std::filesystem::path& path, kael::nn::GPT& model, kael::optim::AdamW& optimizer,
                             const Vocabulary& vocabulary) {
    const kael::nn::StateDict state = kael::io::load_safetensors(path);
    const kael::nn::GPTConfig& c = model.config();
    const kael::Tensor expected = kael::from_vector<std::int64_t>({c.vocab_size, c.block_size, c.n_layer, c.n_head, c.n_embd});
    KAEL_CHECK_VALUE(state.contains("meta.config") && kael::allclose(state.at("meta.config"), expected, 0, 0),
                     path << " holds a model of another shape than --layers/--heads/--width/--block-size ask for");
    std::vector<std::int64_t> points(vocabulary.points.begin(), vocabulary.points.end());
    KAEL_CHECK_VALUE(state.contains("meta.vocabulary") && state.at("meta.vocabulary").shape() == kael::Shape{c.vocab_size} &&
                         kael::allclose(state.at("meta.vocabulary"), kael::from_vector(points), 0, 0),
                     path << " was trained on a text with another vocabulary");
    kael::nn::StateDict model_state;
    kael::nn::StateDict optimizer_state;
    for (const auto& [name, tensor] : state) {
        if (name.rfind("model.", 0) == 0) {
            model_state.insert(name.substr(6), tensor);
        } else if (name.rfind("optimizer.", 0) == 0) {
            optimizer_state.insert(name.substr(10), tensor);
        }
    }
    model.load_state_dict(model_state);
    optimizer.load_state_dict(optimizer_state);
    return state.at("meta.step").item<std::int64_t>();
}

// ---- sampling -----------------------------------------------------------------------------------

std::string sample(kael::nn::GPT& model, const Vocabulary& vocabulary, const Options& o) {
    const kael::autograd::NoGradGuard no_grad;
    model.eval();
    std::vector<std::int64_t> context = vocabulary.encode(decode_utf8(o.prompt));
    KAEL_CHECK_VALUE(!context.empty(), "the prompt must have at least one character");
    std::string text = o.prompt;
    for (std::int64_t i = 0; i < o.sample_chars; ++i) {
        // The model sees at most block_size characters: the last ones.
        const auto window = std::min<std::size_t>(context.size(), static_cast<std::size_t>(o.block_size));
        const std::vector<std::int64_t> last(context.end() - static_cast<std::ptrdiff_t>(window), context.end());
        const kael::Tensor logits = model(kael::from_vector(last, {1, static_cast<std::int64_t>(window)}).to(o.device));
        const std::int64_t next =
            kael::nn::sample_next(logits.select(0, 0).select(0, static_cast<std::int64_t>(window) - 1), o.sampling)
                .item<std::int64_t>();
        context.push_back(next);
        text += encode_utf8(vocabulary.points[static_cast<std::size_t>(next)]);
    }
    model.train();
    return text;
}

}  // namespace

int main(int argc, char** argv) try {
    const Options o = parse(argc, argv);
    if (o.data.empty() || !std::filesystem::exists(o.data)) {
        std::cout << "skipped: no text at '" << o.data.string() << "' (scripts/make-corpus writes build/data/kjv.txt)\n";
        return 77;
    }
    std::ifstream file(o.data, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    const std::vector<std::uint32_t> text = decode_utf8(bytes);
    KAEL_CHECK_VALUE(static_cast<std::int64_t>(text.size()) > 20 * (o.block_size + 1),
                     "the text has " << text.size() << " characters, too few for a block of " << o.block_size);
    std::vector<std::uint32_t> characters(text);
    std::sort(characters.begin(), characters.end());
    characters.erase(std::unique(characters.begin(), characters.end()), characters.end());
    const Vocabulary vocabulary(characters);
    const std::vector<std::int64_t> tokens = vocabulary.encode(text);
    const auto split = static_cast<std::ptrdiff_t>(tokens.size() * 9 / 10);
    const std::vector<std::int64_t> train(tokens.begin(), tokens.begin() + split);
    const std::vector<std::int64_t> validation(tokens.begin() + split, tokens.end());

    kael::manual_seed(o.seed);
    kael::nn::GPT model({.vocab_size = static_cast<std::int64_t>(characters.size()), .block_size = o.block_size,
                         .n_layer = o.layers, .n_head = o.heads, .n_embd = o.width, .dropout = 0.0,
                         .layer_norm_epsilon = 1e-5, .fused_attention = true});
    kael::optim::AdamW optimizer(model.parameters(), {.lr = o.lr, .beta1 = 0.9, .beta2 = 0.99, .eps = 1e-8,
                                                      .weight_decay = 0.1, .amsgrad = false, .maximize = false});
    model.to(o.device);
    std::int64_t step = 0;
    if (o.resume) {
        step = load_checkpoint(*o.resume, model, optimizer, vocabulary);
        std::cout << "resumed from " << o.resume->string() << " at step " << step << "\n";
    }
    std::printf("text: %zu characters (%zu train, %zu validation), %zu distinct\nmodel: %lld parameters, %s\n",
                text.size(), train.size(), validation.size(), characters.size(),
                static_cast<long long>(model.num_parameters()), kael::matmul_kernel_description().c_str());

    std::filesystem::create_directories(o.out);
    std::ofstream curve(o.out / "char_gpt_loss.csv", o.resume ? std::ios::app : std::ios::trunc);
    if (!o.resume) {
        curve << "step,train_loss,val_loss\n";
    }
    // 9 significant digits print every float32 loss exactly, so two runs' curves compare bit
    // for bit as text.
    curve << std::setprecision(9);
    const std::int64_t tokens_per_step = o.batch_size * o.block_size;
    const std::int64_t first_step = step;
    ProgressBar progress(std::max<std::int64_t>(o.steps - first_step, 1), tokens_per_step);
    const auto start = std::chrono::steady_clock::now();
    // book-region: training-loop
    double last_val = 0;
    for (; step < o.steps; ++step) {
        std::mt19937_64 rng(o.seed * 1000003ULL + static_cast<std::uint64_t>(step));
        const auto [x, y] = batch_of(train, o.batch_size, o.block_size, rng, o.device);
        const kael::Tensor loss = loss_of(model, x, y);
        optimizer.zero_grad();
        loss.backward();
        kael::nn::clip_grad_norm_(model.parameters(), 1.0);
        optimizer.step();
        const double value = loss.item();
        progress.update(step + 1 - first_step, value);
        curve << step + 1 << ',' << value << ',';
        if ((step + 1) % o.eval_every == 0 || step + 1 == o.steps) {
            last_val = validation_loss(model, validation, o);
            curve << last_val;
            std::printf("step %5lld  train loss %.4f  validation loss %.4f\n", static_cast<long long>(step + 1), value,
                        last_val);
            std::fflush(stdout);
        }
        curve << '\n';
        if (o.checkpoint_every > 0 && (step + 1) % o.checkpoint_every == 0) {
            save_checkpoint(o.out / "char_gpt.safetensors", model, optimizer, step + 1, vocabulary);
        }
    }
    // end-book-region: training-loop
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (step > first_step) {
        std::printf("training: %lld steps in %.1f s, %.0f tokens/s\n", static_cast<long long>(step - first_step),
                    seconds, static_cast<double>((step - first_step) * tokens_per_step) / seconds);
    }
    save_checkpoint(o.out / "char_gpt.safetensors", model, optimizer, step, vocabulary);
    const auto sample_start = std::chrono::steady_clock::now();
    const std::string sampled = sample(model, vocabulary, o);
    const double sample_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - sample_start).count();
    std::printf("sample (temperature %.2f):\n%s\n", o.sampling.temperature, sampled.c_str());
    if (o.sample_chars > 0) {
        std::printf("sampling: %.0f characters/s\n", static_cast<double>(o.sample_chars) / sample_seconds);
    }
    if (o.target_val_loss > 0 && !(last_val <= o.target_val_loss)) {
        std::printf("missed the target: validation loss %.4f above %.4f\n", last_val, o.target_val_loss);
        return 1;
    }
    return 0;
} catch (const std::exception& error) {
    std::fprintf(stderr, "char_gpt: %s\n", error.what());
    return 2;
}

// Chapter 12: the generation pipeline, from a prompt's text to new text, with GPT-2's real
// tokenizer and a model of GPT-2 small's sizes. The project cannot download GPT-2's
// trained weights, so the model here is nn::GPT with GPT-2's configuration and the random
// weights its constructor draws: the continuation is not English. What the output shows
// is the machinery: the prompt encoded into GPT-2's token ids, tokens drawn one at a time
// with the KV cache, each decoded as it arrives, and why generation stopped.
//
// GPT-2's vocabulary (encoder.json and vocab.bpe) is not part of kael; scripts/fetch-gpt2-vocab
// writes it to build/data/gpt2-vocab in the repository, and vocabulary_directory() below
// finds it.
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kael/kael.h"

namespace {

// GPT-2's vocabulary directory: the environment variable KAEL_GPT2_VOCAB_DIR, which
// scripts/lib/run-book-programs sets to build/data/gpt2-vocab in the repository (where
// scripts/fetch-gpt2-vocab writes it). Without it there is nothing to load: say what to run.
std::filesystem::path vocabulary_directory() {
    const char* dir = std::getenv("KAEL_GPT2_VOCAB_DIR");
    if (dir == nullptr || *dir == '\0') {
        throw kael::Error("set KAEL_GPT2_VOCAB_DIR to the directory with GPT-2's encoder.json and vocab.bpe "
                          "(scripts/fetch-gpt2-vocab writes them to build/data/gpt2-vocab)");
    }
    return dir;
}

// A token's text in double quotes, with the characters that would break a line (or hide)
// written as escapes: GPT-2's tokens include newlines, tabs and bare control bytes.
std::string quoted(std::string_view text) {
    std::string out = "\"";
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '\n') {
            out += "\\n";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (byte < 0x20 || byte == 0x7F) {
            constexpr std::string_view hex = "0123456789abcdef";
            out += "\\x";
            out += hex[byte >> 4];
            out += hex[byte & 0xF];
        } else {
            out += c;  // printable ASCII, or part of a UTF-8 character
        }
    }
    return out + "\"";
}

// "[1, 2, 3]".
std::string list(std::span<const std::int64_t> ids) {
    std::string out = "[";
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (i > 0) {
            out += ", ";
        }
        out += std::to_string(ids[i]);
    }
    return out + "]";
}

std::string_view to_string(kael::nn::StopReason reason) {
    switch (reason) {
        case kael::nn::StopReason::MaxNewTokens: return "MaxNewTokens (max_new_tokens were produced)";
        case kael::nn::StopReason::StopToken: return "StopToken (<|endoftext|> was drawn)";
        case kael::nn::StopReason::ContextFull: return "ContextFull (the context is full)";
        case kael::nn::StopReason::Callback: return "Callback (the callback asked to stop)";
    }
    return "?";
}

}  // namespace

int main() try {
    // The tokenizer: GPT-2's 50,257 tokens and 50,000 merges.
    const auto tokenizer = kael::text::GPT2Tokenizer::from_directory(vocabulary_directory());
    std::cout << "tokenizer: GPT-2's vocabulary, " << tokenizer.vocab_size() << " tokens, <|endoftext|> = "
              << tokenizer.end_of_text().value_or(-1) << '\n';

    // The model: GPTConfig's defaults are GPT-2 small's sizes. Its constructor draws every
    // weight from kael's global generator, so the seed fixes the model as well as the draws.
    kael::manual_seed(12);
    const kael::nn::GPTConfig config;  // 12 layers, 12 heads, width 768, context 1024, 50257 tokens
    kael::nn::GPT model(config);
    std::cout << "model: GPT-2 small's configuration (" << config.n_layer << " layers, " << config.n_head
              << " heads, width " << config.n_embd << ", context " << config.block_size << ", vocabulary "
              << config.vocab_size << "), random weights, " << model.num_parameters() << " parameters\n\n";

    // The prompt: text to ids, and each id's own bytes back, to see where the text was cut.
    const std::string prompt = "A tensor is a view of memory with a shape and strides, and";
    const std::vector<std::int64_t> prompt_ids = tokenizer.encode(prompt);
    std::cout << "prompt: " << quoted(prompt) << '\n'
              << "prompt ids (" << prompt_ids.size() << "): " << list(prompt_ids) << '\n'
              << "as tokens:";
    for (const std::int64_t id : prompt_ids) {
        std::cout << ' ' << quoted(tokenizer.token_bytes(id));
    }
    std::cout << "\n\n";

    // Generation: the prompt's prefill fills the KV cache, then one position per token.
    // top-k 40 at temperature 0.8 draws from the 40 likeliest tokens only; <|endoftext|>
    // would end the text early.
    kael::nn::GenerationOptions options;
    options.max_new_tokens = 20;
    options.sampling = {.temperature = 0.8, .top_k = 40, .top_p = 1.0};
    options.stop_token = tokenizer.end_of_text();
    std::cout << "generating at most " << options.max_new_tokens
              << " tokens with the KV cache, temperature 0.8, top-k 40, seed 12\n";

    // The callback runs as soon as each token is drawn. The streaming decoder turns the
    // token into the text it completes: empty when the token ends inside a character.
    kael::text::StreamingDecoder decoder(tokenizer);
    std::string streamed;
    int count = 0;
    const auto on_token = [&](std::int64_t id) {
        const std::string piece = decoder.push(id);
        streamed += piece;
        std::cout << "  token " << ++count << ": " << id << ' ' << quoted(piece) << '\n';
        return true;  // keep going
    };
    kael::manual_seed(12);  // the draws, from here on, repeat from run to run
    const kael::nn::Generation generation = kael::nn::generate(model, prompt_ids, options, on_token);
    streamed += decoder.finish();

    std::cout << "\nnew ids (" << generation.tokens.size() << "): " << list(generation.tokens) << '\n'
              << "stopped: " << to_string(generation.reason) << '\n'
              << "the streamed pieces equal decode(new ids): "
              << (streamed == tokenizer.decode(generation.tokens) ? "yes" : "NO") << '\n'
              << "prompt and continuation: " << quoted(prompt + streamed) << '\n';
    return 0;
} catch (const std::exception& error) {
    std::cerr << "ch12_generate: " << error.what() << '\n';
    return 1;
}

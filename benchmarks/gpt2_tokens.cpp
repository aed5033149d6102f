// Tokenizes a text with GPT-2's tokenizer into the file format nanoGPT trains from: the ids
// one after the other as little-endian uint16 (every GPT-2 id is below 65,536). The GPT-2
// training benchmark (gpt2_train_speed.cpp and gpt2_train_torch.py) reads the same file on
// both sides, so both train on the same tokens.
//
//   kael_gpt2_tokens --text FILE --vocab DIR --out FILE [--max-bytes N]
//
// DIR holds vocab.json and merges.txt, or encoder.json and vocab.bpe (scripts/fetch-gpt2-vocab).
// --max-bytes cuts the text first, at a line's end, for a quick file from a long text.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "kael/kael.h"

namespace {

[[noreturn]] void usage(const std::string& problem) {
    std::cerr << "kael_gpt2_tokens: " << problem << "\n"
              << "usage: kael_gpt2_tokens --text FILE --vocab DIR --out FILE [--max-bytes N]\n";
    std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
    std::filesystem::path text_path, vocab, out_path;
    std::size_t max_bytes = std::numeric_limits<std::size_t>::max();
    for (int i = 1; i < argc; i += 2) {
        const std::string_view flag = argv[i];
        if (i + 1 >= argc) {
            usage("missing the value of " + std::string(flag));
        }
        const std::string value = argv[i + 1];
        if (flag == "--text") {
            text_path = value;
        } else if (flag == "--vocab") {
            vocab = value;
        } else if (flag == "--out") {
            out_path = value;
        } else if (flag == "--max-bytes") {
            try {
                max_bytes = std::stoull(value);
            } catch (const std::logic_error&) {
                usage("not a number: --max-bytes " + value);
            }
        } else {
            usage("unknown flag " + std::string(flag));
        }
    }
    if (text_path.empty() || vocab.empty() || out_path.empty()) {
        usage("--text, --vocab and --out are required");
    }
    try {
        std::ifstream in(text_path, std::ios::binary);
        if (!in) {
            throw kael::Error("cannot open '" + text_path.string() + "'");
        }
        std::string text{std::istreambuf_iterator<char>(in), {}};
        if (text.size() > max_bytes) {
            const std::size_t line_end = text.rfind('\n', max_bytes);
            text.resize(line_end == std::string::npos ? max_bytes : line_end + 1);
        }
        const auto tokenizer = kael::text::GPT2Tokenizer::from_directory(vocab);
        const std::vector<std::int64_t> ids = tokenizer.encode(text);
        std::vector<unsigned char> bytes;
        bytes.reserve(2 * ids.size());
        for (const std::int64_t id : ids) {
            if (id < 0 || id > 65535) {
                throw kael::ValueError("token id " + std::to_string(id) + " does not fit in uint16");
            }
            bytes.push_back(static_cast<unsigned char>(id & 0xFF));  // little-endian, as numpy's uint16 on x86
            bytes.push_back(static_cast<unsigned char>(id >> 8));
        }
        std::ofstream out(out_path, std::ios::binary);
        out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        if (!out) {
            throw kael::Error("cannot write '" + out_path.string() + "'");
        }
        std::cerr << "kael_gpt2_tokens: " << text.size() << " bytes of text, " << ids.size() << " tokens -> "
                  << out_path.string() << "\n";
    } catch (const std::exception& error) {
        std::cerr << "kael_gpt2_tokens: " << error.what() << "\n";
        return 1;
    }
    return 0;
}

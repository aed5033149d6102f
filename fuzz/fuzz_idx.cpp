// libFuzzer target: the IDX reader, both ways in. Each input is parsed from memory
// (parse_idx) and read from a file (read_idx, through zlib's streaming reader, which
// inflates gzip files and passes plain ones through), as each of kael's four dtypes.
// Either may refuse it, but only with a kael::Error; a tensor it returns is read to its
// last element; and for a plain file the two ways must agree on the outcome, the kind of
// error and the tensor, as idx.h promises.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <typeindex>

#include "fuzz_check.h"
#include "kael/data/idx.h"

namespace {

using kael::DType;
using kael::Tensor;
using kael::fuzz::require;

// The file read_idx reads: one per process, rewritten for every input, removed at exit.
class ScratchFile {
public:
    ScratchFile() {
        const char* tmp = std::getenv("TMPDIR");
        path_ = std::string(tmp != nullptr ? tmp : "/tmp") + "/kael_fuzz_idx_XXXXXX";
        const int fd = mkstemp(path_.data());
        require(fd >= 0, "cannot create the scratch file");
        close(fd);
    }
    ~ScratchFile() { std::remove(path_.c_str()); }
    ScratchFile(const ScratchFile&) = delete;
    ScratchFile& operator=(const ScratchFile&) = delete;

    const std::string& write(std::span<const std::uint8_t> bytes) const {
        std::FILE* file = std::fopen(path_.c_str(), "wb");
        require(file != nullptr, "cannot open the scratch file");
        require(std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size(), "cannot write the scratch file");
        require(std::fclose(file) == 0, "cannot close the scratch file");
        return path_;
    }

private:
    std::string path_;
};

// What one read gave: a tensor, or the class of the kael::Error that refused the input.
struct Outcome {
    std::optional<Tensor> tensor;
    std::optional<std::type_index> error;
};

template <typename F> Outcome outcome_of(F&& read) {
    Outcome outcome;
    outcome.error = kael::fuzz::refusal_of([&] { outcome.tensor = read(); });
    return outcome;
}

bool same_tensor(const Tensor& a, const Tensor& b) {
    if (a.dtype() != b.dtype() || a.shape() != b.shape()) {
        return false;
    }
    const auto nbytes = static_cast<std::size_t>(a.nbytes());
    return nbytes == 0 || std::memcmp(a.data_ptr_raw(), b.data_ptr_raw(), nbytes) == 0;
}

// A returned tensor is a new contiguous one whose bytes are all there to read.
void check_tensor(const Tensor& t) {
    require(t.is_contiguous() && t.offset() == 0, "the reader returned a tensor that is not a fresh contiguous one");
    require(t.impl()->storage->nbytes() >= t.nbytes(), "the tensor's storage is smaller than its elements");
    unsigned char sum = 0;
    const std::byte* bytes = t.numel() == 0 ? nullptr : t.data_ptr_raw();
    for (std::int64_t i = 0; i < t.nbytes(); ++i) {
        sum = static_cast<unsigned char>(sum + static_cast<unsigned char>(bytes[i]));
    }
    volatile unsigned char keep = sum;  // so that the reads are not optimised away
    (void)keep;
}

bool is_gzip(std::span<const std::uint8_t> bytes) {
    return bytes.size() >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const ScratchFile scratch;
    const std::span<const std::uint8_t> bytes(data, size);
    const std::string& path = scratch.write(bytes);
    for (const DType dtype : {DType::F32, DType::F64, DType::I64, DType::Bool}) {
        const Outcome parsed = outcome_of([&] { return kael::data::parse_idx(bytes, dtype); });
        const Outcome read = outcome_of([&] { return kael::data::read_idx(path, dtype); });
        for (const Outcome* outcome : {&parsed, &read}) {
            if (outcome->tensor) {
                require(outcome->tensor->dtype() == dtype, "the reader returned another dtype than asked for");
                check_tensor(*outcome->tensor);
            }
        }
        if (is_gzip(bytes)) {
            continue;  // parse_idx takes decompressed bytes only
        }
        require(parsed.error == read.error, "parse_idx and read_idx disagree on a plain file");
        require(!parsed.tensor || same_tensor(*parsed.tensor, *read.tensor),
                "parse_idx and read_idx read different tensors from a plain file");
    }
    return 0;
}

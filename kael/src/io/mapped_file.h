#pragma once
// A file mapped into memory (chapter 12): the bytes of a checkpoint seen in place, without
// reading them into a buffer first. The pages come from the operating system's page cache
// when a tensor first touches them, so opening a 500 MB checkpoint costs almost nothing,
// and two processes that map the same file share its pages.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>

namespace kael::io {

/// One mapping of a whole file, private to this process: the pages are readable and
/// writable, and a write copies the page it touches (copy-on-write), so a tensor over the
/// mapping can be changed in place (fine-tuning, say) without ever changing the file.
/// The mapping lives as long as the MappedFile; tensors over it hold a shared_ptr to it as
/// their storage's owner, so the last tensor to die unmaps the file.
class MappedFile {
public:
    /// Maps the file at `path`. Throws kael::Error naming the path when it cannot be
    /// opened, is not a regular file, or cannot be mapped. An empty file gives an empty
    /// mapping (no system call maps zero bytes).
    [[nodiscard]] static std::shared_ptr<MappedFile> open(const std::filesystem::path& path);

    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    ~MappedFile();

    /// The file's bytes.
    [[nodiscard]] std::span<const std::uint8_t> bytes() const noexcept { return {address_, size_}; }
    /// The byte at `offset`, writable (a write stays in this process).
    [[nodiscard]] std::byte* writable(std::size_t offset) const noexcept {
        return reinterpret_cast<std::byte*>(address_ + offset);
    }
    /// The path it was mapped from, for messages.
    [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

private:
    MappedFile(std::filesystem::path path, std::uint8_t* address, std::size_t size)
        : path_(std::move(path)), address_(address), size_(size) {}

    std::filesystem::path path_;
    std::uint8_t* address_;  // nullptr for an empty file
    std::size_t size_;
};

}  // namespace kael::io

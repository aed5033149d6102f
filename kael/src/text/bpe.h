#pragma once
// Byte-pair merging (chapter 12): how GPT-2 turns one piece of text into tokens. The piece
// starts as one token per byte. Then, again and again, the adjacent pair whose merge has
// the lowest rank (the earliest line of merges.txt) is found and every occurrence of it,
// left to right, is replaced by the token the merge makes; this ends when no adjacent
// pair is a merge. Worked through on "lower", with the merges "e r" (rank 0), "l o",
// "lo w" and "low er":
//
//     l o w e r  ->  l o w er  ->  lo w er  ->  low er  ->  lower
//
// "e r" goes first although it is last in the word: only the ranks decide.
#include <cstddef>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace kael::text {

/// Two adjacent tokens, by id.
struct TokenPair {
    std::int64_t left = 0;
    std::int64_t right = 0;
    bool operator==(const TokenPair&) const = default;
};

struct TokenPairHash {
    std::size_t operator()(const TokenPair& pair) const noexcept;
};

/// One line of merges.txt: the pair's rank (the line's position among the merges, from 0)
/// and the token the two become.
struct Merge {
    std::int64_t rank = 0;
    std::int64_t result = 0;
};

/// Every merge, by the pair it merges.
using MergeTable = std::unordered_map<TokenPair, Merge, TokenPairHash>;

/// The tokens that `tokens` (one piece, usually one token per byte) becomes under
/// `merges`, exactly as OpenAI's encoder.py computes them. It takes O(n log n) time for a
/// piece of n tokens where the original takes O(n^2), which matters for a hostile input: a
/// megabyte of letters is one piece.
[[nodiscard]] std::vector<std::int64_t> apply_merges(std::span<const std::int64_t> tokens, const MergeTable& merges);

}  // namespace kael::text

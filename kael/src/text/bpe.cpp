// Byte-pair merging with a priority queue.
//
// The original, per step, scans every adjacent pair for the one of lowest rank and then
// rewrites the whole piece: O(n) work for each of up to n steps. Here the piece is a
// linked list of tokens, and every adjacent pair that is a merge waits in a queue ordered
// by (rank, position); a merge changes two links and queues the (at most two) pairs it
// creates. Pairs in the queue go stale when a neighbour merges first; each is checked
// when it comes out and skipped if its two tokens are no longer there.
//
// Two details make the result the original's, for any merges file:
// - All occurrences of one pair, one pass. Coming out in position order, the entries of
//   one rank are merged left to right, as the original's scan does; of two overlapping
//   occurrences ("a a a" with the merge "a a") the left one wins and the right one is
//   then stale.
// - New pairs wait for the pass to end. A merge can create a pair of lower rank than its
//   own (nothing forbids "ab a" to come before "a b" in a file); the original sees it
//   only after merging every "a b", so the queue gets it only then too.
#include "text/bpe.h"

#include <functional>
#include <limits>
#include <queue>

namespace kael::text {
namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

// One token of the piece, and its neighbours in the list. Positions are the tokens'
// original indices, so they keep the order of the piece.
struct Node {
    std::int64_t token;
    std::size_t previous;
    std::size_t next;
};

// A pair waiting in the queue: the merge it would be, at `left` and its next node, as long
// as those still hold `pair`.
struct Candidate {
    std::int64_t rank;
    std::size_t left;
    TokenPair pair;
    std::int64_t result;

    // The queue serves the smallest first: the lowest rank, then the leftmost position.
    bool operator>(const Candidate& other) const {
        return rank != other.rank ? rank > other.rank : left > other.left;
    }
};

}  // namespace

std::size_t TokenPairHash::operator()(const TokenPair& pair) const noexcept {
    // Ids are small, so multiplying one by a large odd constant spreads them over the
    // bits of the other.
    const auto left = static_cast<std::uint64_t>(pair.left);
    const auto right = static_cast<std::uint64_t>(pair.right);
    return std::hash<std::uint64_t>{}((left * 0x9E3779B97F4A7C15ULL) ^ right);
}

std::vector<std::int64_t> apply_merges(std::span<const std::int64_t> tokens, const MergeTable& merges) {
    if (tokens.size() < 2) {
        return {tokens.begin(), tokens.end()};
    }
    std::vector<Node> nodes(tokens.size());
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        nodes[i] = {tokens[i], i == 0 ? kNone : i - 1, i + 1 == tokens.size() ? kNone : i + 1};
    }

    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> queue;
    // Queues the pair that starts at `left`, if there is one and it is a merge.
    const auto consider = [&](std::size_t left) {
        if (left == kNone || nodes[left].next == kNone) {
            return;
        }
        const TokenPair pair{nodes[left].token, nodes[nodes[left].next].token};
        const auto found = merges.find(pair);
        if (found != merges.end()) {
            queue.push({found->second.rank, left, pair, found->second.result});
        }
    };
    // Stale: the left node was merged into its neighbour, or either side has since become
    // a longer token. A node that was merged away keeps its old links but is no longer
    // anybody's next, which the second test catches. A token only ever grows, so a pair
    // that went stale never holds its two tokens at that position again.
    const auto still_there = [&](const Candidate& candidate) {
        const Node& left = nodes[candidate.left];
        return left.token == candidate.pair.left && left.next != kNone &&
               nodes[left.next].previous == candidate.left && nodes[left.next].token == candidate.pair.right;
    };

    for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
        consider(i);
    }
    std::vector<std::size_t> merged;  // the nodes that took in their right neighbour in this pass
    while (!queue.empty()) {
        const std::int64_t rank = queue.top().rank;
        merged.clear();
        while (!queue.empty() && queue.top().rank == rank) {
            const Candidate candidate = queue.top();
            queue.pop();
            if (!still_there(candidate)) {
                continue;
            }
            Node& left = nodes[candidate.left];
            const std::size_t gone = left.next;
            left.token = candidate.result;
            left.next = nodes[gone].next;
            if (left.next != kNone) {
                nodes[left.next].previous = candidate.left;
            }
            merged.push_back(candidate.left);
        }
        for (const std::size_t left : merged) {
            consider(nodes[left].previous);
            consider(left);
        }
    }

    std::vector<std::int64_t> result;
    for (std::size_t i = 0; i != kNone; i = nodes[i].next) {  // node 0 is never merged away
        result.push_back(nodes[i].token);
    }
    return result;
}

}  // namespace kael::text

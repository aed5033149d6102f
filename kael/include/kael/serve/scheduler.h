#pragma once
/// \file
/// \brief serve::Scheduler: many generation requests served by one model, their decode
/// steps batched together (chapter 13).
///
/// Requests arrive at any time and want different lengths. Running them one after the other
/// makes each wait for all before it; running each on its own thread makes them fight over
/// the cores and read every weight once per request and step. The scheduler runs them on
/// one thread instead, in steps. A step first admits waiting requests while fewer than
/// max_batch are active; then it runs one decode step for every request past its prompt
/// together (nn::decode_step), so each weight is read once for all of them; then it
/// prefills the new prompts, a chunk of at most prefill_chunk tokens in all, and a prompt
/// whose last chunk this is draws its first token. A request that finishes leaves at once
/// and its place goes to the next in the queue at the next step: continuous batching.
///
/// Every request carries its own Generator, seeded with its seed, and its own table of
/// blocks in one serve::BlockPool, the KV cache of all requests: a request is admitted when
/// the blocks it can reach are free, and a prompt that starts as an earlier one did takes
/// that prompt's cached blocks instead of computing them. Its tokens are those that
/// kael::manual_seed(seed) and nn::generate() give for the same prompt and options,
/// whatever else runs beside it and whatever it reused (on the CPU, with at most 8 active
/// requests; decode_step says why).

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "kael/nn/gpt.h"
#include "kael/nn/sampling.h"
#include "kael/serve/block_pool.h"
#include "kael/serve/token_scores.h"

namespace kael::serve {

/// What one request asks for, in tokens.
struct GenerationRequest {
    std::vector<std::int64_t> prompt;  ///< at least one token, at most the block size
    /// The most tokens to add (>= 0). 0 runs the prompt only: a request that wants the
    /// prompt's log-probabilities, to score a text.
    std::int64_t max_new_tokens = 16;
    nn::SamplingOptions sampling;      ///< temperature 0 is greedy
    std::uint64_t seed = 0;            ///< the request's own Generator starts here
    std::optional<std::int64_t> stop_token;  ///< ends the text when drawn; not delivered
    LogitAdjustments adjustments;      ///< penalties and logit bias, applied before each draw
    /// Report each drawn token's log-probability with this many of the most likely tokens
    /// (>= 0) through RequestCallbacks::on_logprobs; unset reports nothing.
    std::optional<std::int64_t> logprobs;
    /// Report the prompt's log-probabilities too, through on_prompt_logprobs (with
    /// logprobs.value_or(0) alternatives each): the prefill then computes the logits of
    /// every position instead of the last one only.
    bool prompt_logprobs = false;
};

/// Why a request ended.
enum class FinishReason {
    Length,       ///< max_new_tokens were produced
    StopToken,    ///< the stop token was drawn
    ContextFull,  ///< prompt and tokens reached the model's block size
    Callback,     ///< on_token returned false (a stop string, say)
    Cancelled,    ///< Ticket::cancel(), a client that went away
    Shutdown,     ///< the scheduler stopped before it finished
    Error,        ///< the model threw; the message says what
};

/// "length", "stop", ...: the name of a reason, as the OpenAI API reports the first two.
[[nodiscard]] const char* to_string(FinishReason reason) noexcept;

/// How a request ended, with the timings a server reports.
struct Finished {
    FinishReason reason = FinishReason::Length;  ///< why it ended
    std::string error;                  ///< the model's message for FinishReason::Error
    std::int64_t prompt_tokens = 0;     ///< the prompt's length
    std::int64_t completion_tokens = 0;  ///< tokens delivered to on_token
    double queued_seconds = 0;           ///< from submit to admission
    double first_token_seconds = 0;      ///< from submit to the first token (0 without one)
    double total_seconds = 0;            ///< from submit to the end
};

/// What the scheduler calls for one request, always on its own thread: keep both short.
struct RequestCallbacks {
    /// Each new token as soon as it is drawn; return false to end the request after it.
    std::function<bool(std::int64_t token)> on_token;
    /// Called once, last, however the request ends (a refused submit calls nothing).
    std::function<void(const Finished&)> on_finish;
    /// With GenerationRequest::logprobs: each delivered token's log-probabilities under the
    /// model's own distribution (before temperature, penalties and bias, as vLLM reports
    /// them by default), just before on_token.
    std::function<void(const TokenLogprobs&)> on_logprobs;
    /// With GenerationRequest::prompt_logprobs: the prompt's, once, after its prefill; the
    /// first token has no log-probability, having nothing before it.
    std::function<void(std::vector<TokenLogprobs>)> on_prompt_logprobs;
};

/// A request's handle: lets its owner cancel it from any thread.
class Ticket {
public:
    /// Ends the request at the scheduler's next step, with FinishReason::Cancelled;
    /// on_finish still runs. A request still in the queue gives up its place there at once:
    /// the next submit() or stats() no longer counts it.
    void cancel() noexcept;
    /// Whether cancel() was called.
    [[nodiscard]] bool cancelled() const noexcept;

private:
    friend class Scheduler;
    std::atomic<bool> cancelled_{false};
};

/// The smallest SchedulerOptions::prefill_chunk.
inline constexpr std::int64_t kMinPrefillChunk = 16;

/// How many requests run together, how many may wait, and how much prompt a step prefills.
struct SchedulerOptions {
    std::int64_t max_batch = 8;   ///< active requests decoded together (>= 1)
    /// Requests that may wait while all max_batch places are taken (>= 0); submit() refuses
    /// the next one. A request that finds a place free never counts as waiting.
    std::int64_t max_queue = 64;
    /// The most prompt tokens one step prefills, over all new requests, beside its decode
    /// rows (>= kMinPrefillChunk): a longer prompt is prefilled over several steps, so the
    /// running streams wait for one chunk at a time, not for the whole prompt. (A step may
    /// run up to 8 tokens past it, so that no chunk leaves 8 tokens or fewer of its prompt;
    /// see prefill_chunk_size.)
    std::int64_t prefill_chunk = 256;
    /// Positions a block of the KV cache holds (>= 1).
    std::int64_t kv_block_tokens = 16;
    /// Blocks in the pool, (>= 1), or 0 for enough that max_batch requests can each reach the
    /// model's whole context. A request is admitted when its blocks are free.
    std::int64_t kv_blocks = 0;
    /// Reuse the cached blocks of earlier prompts that a new prompt starts with.
    bool prefix_caching = true;
};

/// The size of the next prefill chunk of a prompt with `remaining` tokens left, under what is
/// left of a step's `budget`: all of them when they are at most 8 more than the budget;
/// else the budget when it is more than 8, and 0 (wait for the next step) when it is not.
/// So every chunk of a prompt longer than 8 tokens has more than 8, as the product of its
/// rows must for the request to get generate()'s tokens (chapter 12's few-rows product sums
/// in another order).
[[nodiscard]] std::int64_t prefill_chunk_size(std::int64_t remaining, std::int64_t budget) noexcept;

/// The counters a metrics endpoint shows.
struct SchedulerStats {
    std::int64_t active = 0;           ///< requests being decoded now
    std::int64_t queued = 0;           ///< requests waiting for a place
    std::int64_t submitted = 0;        ///< requests accepted since start
    std::int64_t refused = 0;          ///< submits refused: queue full or stopping
    std::int64_t finished = 0;         ///< requests ended, whatever the reason
    std::int64_t tokens = 0;           ///< tokens delivered, over all requests
    std::int64_t decode_steps = 0;     ///< batched decode steps run
    std::int64_t decoded_rows = 0;     ///< requests over all decode steps (rows / steps = mean batch)
    std::int64_t largest_batch = 0;    ///< the most requests one decode step served
    BlockPoolStats kv;                 ///< the KV cache's blocks, and what prefix caching saved
};

/// Why submit() refused a request.
enum class Refusal {
    QueueFull,  ///< max_queue requests are waiting already
    Stopping,   ///< stop() has been called
};

/// The result of submit(): a ticket, or why there is none.
struct Submission {
    std::shared_ptr<Ticket> ticket;   ///< null when refused
    std::optional<Refusal> refusal;   ///< set when refused
};

/// Runs generation requests on one model, on a thread of its own (see the file comment).
class Scheduler {
public:
    /// Starts the scheduler's thread for `model`, which must outlive the scheduler and not
    /// be used elsewhere meanwhile. ValueError for max_batch below 1 or max_queue below 0.
    Scheduler(nn::GPT& model, SchedulerOptions options = {});
    /// stop(false): cancels what is left and joins the thread.
    ~Scheduler();
    Scheduler(const Scheduler&) = delete;
    Scheduler& operator=(const Scheduler&) = delete;

    /// Queues `request`. ValueError, before anything is queued, for an empty prompt or one
    /// longer than the block size, a token outside the vocabulary (in the prompt or the
    /// logit bias), max_new_tokens or logprobs below 0, non-finite penalties or bias, bad
    /// sampling options, or a request that needs more KV blocks than the pool has. A full queue or a stopping scheduler refuses it instead:
    /// no ticket, and no callback runs.
    [[nodiscard]] Submission submit(GenerationRequest request, RequestCallbacks callbacks);

    /// Refuses new requests from now on. With `finish` the requests already queued or
    /// active run to their end; without, each ends at the next step with
    /// FinishReason::Shutdown, also when a stop(true) is waiting for them (a deadline).
    /// Waits for the thread either way; may be called again, from any thread.
    void stop(bool finish);

    /// The counters, read at one moment.
    [[nodiscard]] SchedulerStats stats() const;

    /// The options it runs with.
    [[nodiscard]] const SchedulerOptions& options() const noexcept { return options_; }

private:
    struct Sequence;
    using Clock = std::chrono::steady_clock;

    void run();
    void admit(std::vector<std::unique_ptr<Sequence>>& arrivals);
    void decode();
    void prefill_chunks();
    void prefill(Sequence& sequence, std::int64_t chunk);
    std::int64_t draw(Sequence& sequence, const Tensor& logits);
    void deliver(Sequence& sequence, std::int64_t token, const Tensor& logits);
    void retire_finished();
    void finish(Sequence& sequence, FinishReason reason, std::string error = {});
    void withdraw_cancelled();
    [[nodiscard]] std::int64_t reachable(const GenerationRequest& request) const noexcept;

    nn::GPT& model_;
    SchedulerOptions options_;
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::unique_ptr<BlockPool> pool_;                 // the scheduler thread's own
    std::deque<std::unique_ptr<Sequence>> queue_;     // guarded by mutex_
    std::vector<std::unique_ptr<Sequence>> withdrawn_;  // cancelled while queued; guarded by mutex_
    std::vector<std::unique_ptr<Sequence>> active_;   // the scheduler thread's own
    bool stopping_ = false;                           // guarded by mutex_
    bool finish_on_stop_ = true;                      // guarded by mutex_
    SchedulerStats stats_;                            // guarded by mutex_
    std::mutex join_mutex_;                           // one stop() joins the thread
    std::thread thread_;
};

}  // namespace kael::serve

// serve::Scheduler (chapter 13): one thread, steps of admission, prefill and one batched
// decode step, each request with its own cache and generator.
#include "kael/serve/scheduler.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <iterator>
#include <unordered_map>
#include <utility>

#include "kael/autograd/grad_mode.h"
#include "kael/error.h"
#include "kael/factory.h"
#include "kael/generator.h"
#include "kael/nn/batched_decode.h"
#include "kael/ops/few_rows.h"
#include "kael/serve/paged_kv_cache.h"

namespace kael::serve {

const char* to_string(FinishReason reason) noexcept {
    switch (reason) {
        case FinishReason::Length: return "length";
        case FinishReason::StopToken: return "stop";
        case FinishReason::ContextFull: return "context_full";
        case FinishReason::Callback: return "callback";
        case FinishReason::Cancelled: return "cancelled";
        case FinishReason::Shutdown: return "shutdown";
        case FinishReason::Error: return "error";
    }
    return "unknown";
}

void Ticket::cancel() noexcept { cancelled_.store(true, std::memory_order_relaxed); }

bool Ticket::cancelled() const noexcept { return cancelled_.load(std::memory_order_relaxed); }

// One request from submit() to its end.
struct Scheduler::Sequence {
    GenerationRequest request;
    RequestCallbacks callbacks;
    std::shared_ptr<Ticket> ticket = std::make_shared<Ticket>();
    Generator generator;
    std::unique_ptr<PagedKVCache> cache;  // its blocks go back to the pool with it
    std::int64_t length = 0;  // the prompt and the tokens delivered so far
    std::int64_t last_token = 0;
    std::int64_t prefilled = 0;  // prompt positions in the cache; the prompt's length once it is done
    bool decoding = false;       // the prompt is done and the first token drawn
    std::unordered_map<std::int64_t, std::int64_t> counts;  // how often each token was drawn
    Finished result;
    bool done = false;
    Clock::time_point submitted = Clock::now();

    Sequence(GenerationRequest r, RequestCallbacks c)
        : request(std::move(r)), callbacks(std::move(c)), generator(request.seed),
          length(static_cast<std::int64_t>(request.prompt.size())) {
        result.prompt_tokens = length;
    }

    [[nodiscard]] double seconds_since_submit() const {
        return std::chrono::duration<double>(Clock::now() - submitted).count();
    }
};

Scheduler::Scheduler(nn::GPT& model, SchedulerOptions options) : model_(model), options_(options) {
    KAEL_CHECK_VALUE(options.max_batch >= 1, "Scheduler needs max_batch >= 1, got " << options.max_batch);
    KAEL_CHECK_VALUE(options.max_queue >= 0, "Scheduler needs max_queue >= 0, got " << options.max_queue);
    KAEL_CHECK_VALUE(options.prefill_chunk >= kMinPrefillChunk,
                     "Scheduler needs prefill_chunk >= " << kMinPrefillChunk << ", got " << options.prefill_chunk);
    KAEL_CHECK_VALUE(options.kv_block_tokens >= 1, "Scheduler needs kv_block_tokens >= 1, got " << options.kv_block_tokens);
    KAEL_CHECK_VALUE(options.kv_blocks >= 0, "Scheduler needs kv_blocks >= 0, got " << options.kv_blocks);
    const nn::GPTConfig& config = model.config();
    const std::int64_t per_context = (config.block_size + options.kv_block_tokens - 1) / options.kv_block_tokens;
    const Tensor& weight = model.wte->weight;
    pool_ = std::make_unique<BlockPool>(config, options.kv_blocks > 0 ? options.kv_blocks : options.max_batch * per_context,
                                        options.kv_block_tokens, weight.dtype(), weight.device());
    stats_.kv = pool_->stats();
    thread_ = std::thread([this] { run(); });
}

Scheduler::~Scheduler() { stop(false); }

Submission Scheduler::submit(GenerationRequest request, RequestCallbacks callbacks) {
    const nn::GPTConfig& config = model_.config();
    const auto length = static_cast<std::int64_t>(request.prompt.size());
    KAEL_CHECK_VALUE(length >= 1, "a request needs a prompt of at least one token");
    KAEL_CHECK_VALUE(length <= config.block_size, "a prompt of " << length << " tokens is longer than the model's context of "
                                                                 << config.block_size);
    for (std::size_t i = 0; i < request.prompt.size(); ++i) {
        KAEL_CHECK_VALUE(request.prompt[i] >= 0 && request.prompt[i] < config.vocab_size,
                         "prompt token " << i << " is " << request.prompt[i] << ", outside the vocabulary [0, "
                                         << config.vocab_size << ")");
    }
    KAEL_CHECK_VALUE(request.max_new_tokens >= 0, "max_new_tokens must be >= 0, got " << request.max_new_tokens);
    KAEL_CHECK_VALUE(pool_->blocks_for(reachable(request)) <= pool_->blocks(),
                     "a request of " << reachable(request) << " positions needs "
                                     << pool_->blocks_for(reachable(request)) << " KV blocks; the pool has "
                                     << pool_->blocks());
    KAEL_CHECK_VALUE(!request.logprobs || *request.logprobs >= 0,
                     "logprobs must be >= 0 when given, got " << *request.logprobs);
    const LogitAdjustments& adjust = request.adjustments;
    KAEL_CHECK_VALUE(std::isfinite(adjust.presence_penalty) && std::isfinite(adjust.frequency_penalty),
                     "the penalties must be finite, got " << adjust.presence_penalty << " and "
                                                          << adjust.frequency_penalty);
    for (const auto& [token, bias] : adjust.logit_bias) {
        KAEL_CHECK_VALUE(token >= 0 && token < config.vocab_size, "logit_bias names token "
                                                                      << token << ", outside the vocabulary [0, "
                                                                      << config.vocab_size << ")");
        KAEL_CHECK_VALUE(std::isfinite(bias), "the bias of token " << token << " must be finite, got " << bias);
    }
    nn::check_sampling_options(request.sampling);

    auto sequence = std::make_unique<Sequence>(std::move(request), std::move(callbacks));
    std::shared_ptr<Ticket> ticket = sequence->ticket;
    {
        const std::lock_guard lock(mutex_);
        withdraw_cancelled();
        // A request may wait while every place is taken; one that finds a free place only
        // waits for the scheduler's next step, and does not count against the queue.
        const std::int64_t free_places = std::max<std::int64_t>(0, options_.max_batch - stats_.active);
        if (stopping_ || static_cast<std::int64_t>(queue_.size()) >= options_.max_queue + free_places) {
            ++stats_.refused;
            return {nullptr, stopping_ ? Refusal::Stopping : Refusal::QueueFull};
        }
        queue_.push_back(std::move(sequence));
        ++stats_.submitted;
        stats_.queued = static_cast<std::int64_t>(queue_.size());
    }
    wake_.notify_one();
    return {std::move(ticket), std::nullopt};
}

void Scheduler::stop(bool finish) {
    {
        const std::lock_guard lock(mutex_);
        stopping_ = true;
        finish_on_stop_ = finish_on_stop_ && finish;  // a stop(false) cuts short a stop(true)
    }
    wake_.notify_one();
    const std::lock_guard join(join_mutex_);
    if (thread_.joinable()) {
        thread_.join();
    }
}

SchedulerStats Scheduler::stats() const {
    const std::lock_guard lock(mutex_);
    SchedulerStats now = stats_;
    now.queued = 0;
    for (const auto& sequence : queue_) {
        now.queued += sequence->ticket->cancelled() ? 0 : 1;  // leaving at once: no longer waiting
    }
    return now;
}

// Moves the cancelled requests out of the queue, where they would otherwise hold a place
// until their turn came; the scheduler's thread ends them at its next step. Under mutex_.
void Scheduler::withdraw_cancelled() {
    const auto cancelled = std::stable_partition(queue_.begin(), queue_.end(),
                                                 [](const auto& sequence) { return !sequence->ticket->cancelled(); });
    std::move(cancelled, queue_.end(), std::back_inserter(withdrawn_));
    queue_.erase(cancelled, queue_.end());
    stats_.queued = static_cast<std::int64_t>(queue_.size());
}

void Scheduler::run() {
    const autograd::NoGradGuard no_grad;
    model_.eval();
    for (;;) {
        std::vector<std::unique_ptr<Sequence>> arrivals;
        std::vector<std::unique_ptr<Sequence>> leaving;  // cancelled in the queue: they end this step
        bool shutting_down = false;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [&] { return stopping_ || !queue_.empty() || !active_.empty() || !withdrawn_.empty(); });
            withdraw_cancelled();
            leaving.swap(withdrawn_);
            if (stopping_ && queue_.empty() && active_.empty() && leaving.empty()) {
                return;
            }
            shutting_down = stopping_ && !finish_on_stop_;
            // Places free up only as requests finish: the queue waits for them.
            while (!queue_.empty() && (shutting_down || static_cast<std::int64_t>(active_.size() + arrivals.size()) <
                                                            options_.max_batch)) {
                arrivals.push_back(std::move(queue_.front()));
                queue_.pop_front();
            }
            stats_.queued = static_cast<std::int64_t>(queue_.size());
            stats_.active = static_cast<std::int64_t>(active_.size() + arrivals.size());
        }
        for (auto& sequence : leaving) {
            finish(*sequence, FinishReason::Cancelled);
            active_.push_back(std::move(sequence));  // retired, on_finish and all, below
        }
        if (shutting_down) {
            std::move(arrivals.begin(), arrivals.end(), std::back_inserter(active_));
            for (auto& sequence : active_) {
                if (!sequence->done) {
                    finish(*sequence, FinishReason::Shutdown);
                }
            }
            retire_finished();
            continue;
        }
        admit(arrivals);
        decode();
        prefill_chunks();
        retire_finished();
    }
}

// The positions a request can reach, which its blocks must hold: none for one that only
// scores its prompt.
std::int64_t Scheduler::reachable(const GenerationRequest& request) const noexcept {
    const auto length = static_cast<std::int64_t>(request.prompt.size());
    return request.max_new_tokens == 0 ? 0 : std::min(model_.config().block_size, length + request.max_new_tokens);
}

// Each arrival joins the active requests with the blocks it can reach, its prompt's cached
// prefix first; its prompt is then prefilled by prefill_chunks(), in this step and the next.
// An arrival whose blocks are not free goes back to the head of the queue with the ones
// after it, to wait for running requests to end.
void Scheduler::admit(std::vector<std::unique_ptr<Sequence>>& arrivals) {
    const nn::GPTConfig& config = model_.config();
    for (std::size_t a = 0; a < arrivals.size(); ++a) {
        Sequence& sequence = *arrivals[a];
        const GenerationRequest& request = sequence.request;
        if (!sequence.ticket->cancelled() && request.max_new_tokens > 0 && sequence.length < config.block_size) {
            // Reused positions must leave more than 8 of the prompt to compute, as a chunk
            // must (prefill_chunk_size); a prompt that wants its log-probabilities computes all.
            const bool reuse = options_.prefix_caching && !request.prompt_logprobs;
            const std::int64_t limit = reuse ? sequence.length - (kMatmulFewRows + 1) : 0;
            try {
                sequence.cache = PagedKVCache::reserve(*pool_, reachable(request), request.prompt, limit);
            } catch (const std::exception& e) {
                finish(sequence, FinishReason::Error, e.what());
            }
            if (!sequence.done && !sequence.cache) {  // too few free blocks: back to the queue
                const std::lock_guard lock(mutex_);
                for (std::size_t back = arrivals.size(); back > a; --back) {
                    queue_.push_front(std::move(arrivals[back - 1]));
                }
                arrivals.resize(a);
                stats_.queued = static_cast<std::int64_t>(queue_.size());
                stats_.active = static_cast<std::int64_t>(active_.size() + arrivals.size());
                break;
            }
            if (sequence.cache) {
                sequence.prefilled = sequence.cache->reused();
            }
        }
    }
    for (auto& owned : arrivals) {
        Sequence& sequence = *owned;
        active_.push_back(std::move(owned));
        sequence.result.queued_seconds = sequence.seconds_since_submit();
        if (sequence.done) {
            continue;
        }
        if (sequence.ticket->cancelled()) {
            finish(sequence, FinishReason::Cancelled);
        } else if (sequence.request.max_new_tokens > 0 && sequence.length >= config.block_size) {
            // OpenAI's API counts prompt and completion together within the context, so a
            // prompt that fills it gets no token here (nn::generate would draw one more).
            finish(sequence, FinishReason::ContextFull);
        }
    }
}

namespace {
// Each prompt token scored by the logits of the whole prompt ([1, T, V], row t for token
// t + 1), as OpenAI's echo with logprobs reports a prompt: the first token has no score.
std::vector<TokenLogprobs> prompt_token_scores(const GenerationRequest& request, const Tensor& logits) {
    std::vector<TokenLogprobs> scores{TokenLogprobs{request.prompt.front(), std::nullopt, {}}};
    for (std::size_t t = 1; t < request.prompt.size(); ++t) {
        scores.push_back(token_logprobs(logits.select(1, static_cast<std::int64_t>(t) - 1), request.prompt[t],
                                        request.logprobs.value_or(0)));
    }
    return scores;
}
}  // namespace

std::int64_t prefill_chunk_size(std::int64_t remaining, std::int64_t budget) noexcept {
    // A chunk of 8 rows or fewer would go through the product of a few rows, whose sums run
    // in another order than the blocked product's (chapter 12): the request's tokens would
    // then differ from generate()'s, which prefills the prompt whole. So a chunk takes the
    // rest of the prompt when that is at most 8 more than the budget, and otherwise no
    // chunk is cut from a budget of 8 or less.
    if (remaining <= budget + kMatmulFewRows) {
        return remaining;
    }
    return budget > kMatmulFewRows ? budget : 0;
}

// Prompts are prefilled in chunks, at most prefill_chunk tokens a step over all prompts,
// oldest first, beside the step's decode rows: a long prompt then delays each running
// stream's next token by one chunk's work, not by the whole prompt's. A prompt that wants
// its log-probabilities, or only them, goes through whole.
void Scheduler::prefill_chunks() {
    std::int64_t budget = options_.prefill_chunk;
    for (auto& owned : active_) {
        Sequence& sequence = *owned;
        if (sequence.done || sequence.decoding) {
            continue;
        }
        const std::int64_t remaining = sequence.length - sequence.prefilled;
        const bool whole = sequence.request.prompt_logprobs || sequence.request.max_new_tokens == 0;
        const std::int64_t chunk = !whole ? prefill_chunk_size(remaining, budget)
                                          : budget == options_.prefill_chunk ? remaining : 0;
        if (chunk == 0) {
            break;  // the oldest waiting prompt goes first, next step
        }
        try {
            prefill(sequence, chunk);
        } catch (const std::exception& e) {
            finish(sequence, FinishReason::Error, e.what());
        }
        budget -= chunk;
        if (budget <= 0) {
            break;
        }
    }
}

// Prompt positions [prefilled, prefilled + chunk) through the model into the cache; the
// chunk that ends the prompt draws the first token.
void Scheduler::prefill(Sequence& sequence, std::int64_t chunk) {
    const GenerationRequest& request = sequence.request;
    const Tensor& weight = model_.wte->weight;
    const auto first = request.prompt.begin() + sequence.prefilled;
    const std::vector<std::int64_t> piece(first, first + chunk);
    const Tensor tokens = from_vector(piece, Shape{1, chunk}).to(weight.device());
    const auto report_prompt = [&](const Tensor& logits) {
        if (sequence.callbacks.on_prompt_logprobs) {
            sequence.callbacks.on_prompt_logprobs(prompt_token_scores(request, logits));
        }
    };
    if (request.max_new_tokens == 0) {  // scoring only: no cache, no draw
        if (request.prompt_logprobs) {
            report_prompt(model_.forward(tokens));
        }
        finish(sequence, FinishReason::Length);
        return;
    }
    const bool last = sequence.prefilled + chunk == sequence.length;
    const Tensor logits =
        model_.forward(tokens, *sequence.cache, request.prompt_logprobs ? nn::Logits::All : nn::Logits::Last);
    sequence.prefilled += chunk;
    if (!last) {
        return;
    }
    if (request.prompt_logprobs) {
        report_prompt(logits);
    }
    if (options_.prefix_caching) {  // its full blocks can now serve prompts that start the same way
        pool_->register_prefix(request.prompt, sequence.cache->blocks());
    }
    sequence.decoding = true;
    const Tensor final_row = logits.select(1, logits.size(1) - 1);  // [1, V]
    deliver(sequence, draw(sequence, final_row), final_row);
}

// One decode step for every active sequence that wants another token.
void Scheduler::decode() {
    std::vector<Sequence*> rows;
    for (auto& sequence : active_) {
        if (!sequence->done && sequence->ticket->cancelled()) {
            finish(*sequence, FinishReason::Cancelled);
        }
        if (!sequence->done && sequence->decoding) {
            rows.push_back(sequence.get());
        }
    }
    if (rows.empty()) {
        return;
    }
    std::vector<std::int64_t> tokens;
    std::vector<nn::AttentionCache*> caches;
    for (Sequence* sequence : rows) {
        tokens.push_back(sequence->last_token);
        caches.push_back(sequence->cache.get());
    }
    try {
        const Tensor logits = nn::decode_step(model_, tokens, caches);  // [R, V]
        for (std::size_t r = 0; r < rows.size(); ++r) {
            const Tensor row = logits.narrow(0, static_cast<std::int64_t>(r), 1);
            deliver(*rows[r], draw(*rows[r], row), row);
        }
    } catch (const std::exception& e) {
        for (Sequence* sequence : rows) {
            if (!sequence->done) {
                finish(*sequence, FinishReason::Error, e.what());
            }
        }
    }
    const std::lock_guard lock(mutex_);
    ++stats_.decode_steps;
    stats_.decoded_rows += static_cast<std::int64_t>(rows.size());
    stats_.largest_batch = std::max(stats_.largest_batch, static_cast<std::int64_t>(rows.size()));
}

// The next token from one row of logits [1, V], with the request's own generator, after
// its penalties and bias.
std::int64_t Scheduler::draw(Sequence& sequence, const Tensor& logits) {
    const GenerationRequest& request = sequence.request;
    const Tensor scored = request.adjustments.any() ? adjusted_logits(logits, sequence.counts, request.adjustments)
                                                    : logits;
    const GeneratorGuard own_stream(sequence.generator);
    return nn::sample_next(scored, request.sampling).cpu().reshape({1}).item<std::int64_t>();
}

// A drawn token, under generate()'s rules: the stop token ends the request unseen; any
// other is delivered (its log-probabilities under `logits` first, when asked for), and the
// request ends at max_new_tokens or a full context.
void Scheduler::deliver(Sequence& sequence, std::int64_t token, const Tensor& logits) {
    if (sequence.request.stop_token && token == *sequence.request.stop_token) {
        finish(sequence, FinishReason::StopToken);
        return;
    }
    ++sequence.counts[token];
    if (sequence.result.completion_tokens == 0) {
        sequence.result.first_token_seconds = sequence.seconds_since_submit();
    }
    ++sequence.result.completion_tokens;
    ++sequence.length;
    sequence.last_token = token;
    {
        const std::lock_guard lock(mutex_);
        ++stats_.tokens;
    }
    bool keep_going = true;
    try {
        if (sequence.request.logprobs && sequence.callbacks.on_logprobs) {
            sequence.callbacks.on_logprobs(token_logprobs(logits, token, *sequence.request.logprobs));
        }
        keep_going = !sequence.callbacks.on_token || sequence.callbacks.on_token(token);
    } catch (const std::exception& e) {
        finish(sequence, FinishReason::Error, e.what());
        return;
    }
    if (!keep_going) {
        finish(sequence, FinishReason::Callback);
    } else if (sequence.result.completion_tokens == sequence.request.max_new_tokens) {
        finish(sequence, FinishReason::Length);
    } else if (sequence.length >= model_.config().block_size) {
        finish(sequence, FinishReason::ContextFull);
    }
}

void Scheduler::finish(Sequence& sequence, FinishReason reason, std::string error) {
    sequence.done = true;
    sequence.result.reason = reason;
    sequence.result.error = std::move(error);
    sequence.result.total_seconds = sequence.seconds_since_submit();
}

// Ends the finished sequences: their blocks go back to the pool, their places open,
// on_finish runs.
void Scheduler::retire_finished() {
    const auto finished = std::stable_partition(active_.begin(), active_.end(),
                                                [](const auto& sequence) { return !sequence->done; });
    std::vector<std::unique_ptr<Sequence>> leaving(std::make_move_iterator(finished),
                                                   std::make_move_iterator(active_.end()));
    active_.erase(finished, active_.end());
    for (const auto& sequence : leaving) {
        sequence->cache.reset();  // before on_finish: a client told its request ended sees its blocks free
    }
    {
        const std::lock_guard lock(mutex_);
        stats_.finished += static_cast<std::int64_t>(leaving.size());
        stats_.active = static_cast<std::int64_t>(active_.size());
        stats_.kv = pool_->stats();
    }
    for (const auto& sequence : leaving) {
        if (sequence->callbacks.on_finish) {
            try {
                sequence->callbacks.on_finish(sequence->result);
            } catch (...) {
                // The request is over either way; a failing callback must not stop the others.
            }
        }
    }
}

}  // namespace kael::serve

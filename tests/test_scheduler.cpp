// serve::Scheduler (chapter 13): concurrent requests on one model, their decode steps
// batched, each request's tokens those of generate() with its seed.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <future>
#include <limits>
#include <mutex>
#include <vector>

#include "helpers.h"
#include "kael/kael.h"
#include "own_matmul_kernels.h"
#include "kael/serve/scheduler.h"

namespace {

using kael::nn::GPT;
using kael::nn::GPTConfig;
using kael::serve::FinishReason;
using kael::serve::Finished;
using kael::serve::GenerationRequest;
using kael::serve::Refusal;
using kael::serve::RequestCallbacks;
using kael::serve::Scheduler;
using kael::serve::SchedulerOptions;
using Ids = std::vector<std::int64_t>;

GPTConfig small() {
    return {.vocab_size = 41, .block_size = 24, .n_layer = 2, .n_head = 2, .n_embd = 32, .dropout = 0.0,
            .layer_norm_epsilon = 1e-5, .fused_attention = true};
}

GenerationRequest request(Ids prompt, std::int64_t max_new, std::uint64_t seed, double temperature = 1.0) {
    GenerationRequest r;
    r.prompt = std::move(prompt);
    r.max_new_tokens = max_new;
    r.seed = seed;
    r.sampling.temperature = temperature;
    return r;
}

// What generate() gives for the request, with manual_seed(seed) before it.
Ids reference(GPT& model, const GenerationRequest& r) {
    kael::nn::GenerationOptions options;
    options.max_new_tokens = r.max_new_tokens;
    options.sampling = r.sampling;
    options.stop_token = r.stop_token;
    kael::manual_seed(r.seed);
    return kael::nn::generate(model, r.prompt, options).tokens;
}

// One request's tokens and end, collected from the scheduler's callbacks.
struct Outcome {
    Ids tokens;
    std::promise<Finished> done;
    std::future<Finished> finished = done.get_future();

    RequestCallbacks callbacks() {
        return {[this](std::int64_t token) {
                    tokens.push_back(token);
                    return true;
                },
                [this](const Finished& f) { done.set_value(f); },
                {},
                {}};
    }
    Finished wait() {
        EXPECT_EQ(finished.wait_for(std::chrono::seconds(60)), std::future_status::ready);
        return finished.get();
    }
};

TEST(Scheduler, ARequestGetsTheTokensOfGenerateWithItsSeed) {
    kael::manual_seed(1);
    GPT model(small());
    GenerationRequest r = request({1, 2, 3}, 10, 42);
    r.sampling.top_k = 5;
    const Ids expected = reference(model, r);
    Scheduler scheduler(model);
    Outcome outcome;
    ASSERT_TRUE(scheduler.submit(r, outcome.callbacks()).ticket);
    const Finished f = outcome.wait();
    EXPECT_EQ(f.reason, FinishReason::Length);
    EXPECT_EQ(f.prompt_tokens, 3);
    EXPECT_EQ(f.completion_tokens, 10);
    EXPECT_EQ(outcome.tokens, expected);
}

TEST(Scheduler, ConcurrentRequestsAreBatchedAndEachGetsItsOwnTokens) {
    kael::manual_seed(2);
    GPT model(small());
    std::vector<GenerationRequest> requests;
    for (std::uint64_t i = 0; i < 7; ++i) {
        Ids prompt;
        for (std::uint64_t t = 0; t <= i % 4; ++t) {
            prompt.push_back(static_cast<std::int64_t>((3 * i + t) % 41));
        }
        requests.push_back(request(prompt, 6 + static_cast<std::int64_t>(i), 100 + i, i % 3 == 0 ? 0.0 : 0.9));
    }
    std::vector<Ids> expected;
    for (const GenerationRequest& r : requests) {
        expected.push_back(reference(model, r));
    }
    Scheduler scheduler(model, {.max_batch = 4, .max_queue = 16});
    std::vector<Outcome> outcomes(requests.size());
    for (std::size_t i = 0; i < requests.size(); ++i) {
        ASSERT_TRUE(scheduler.submit(requests[i], outcomes[i].callbacks()).ticket);
    }
    for (std::size_t i = 0; i < requests.size(); ++i) {
        EXPECT_EQ(outcomes[i].wait().reason, FinishReason::Length);
        EXPECT_EQ(outcomes[i].tokens, expected[i]) << "request " << i;
    }
    const kael::serve::SchedulerStats stats = scheduler.stats();
    EXPECT_GT(stats.largest_batch, 1);  // decode steps served several requests at once
    EXPECT_LE(stats.largest_batch, 4);  // and never more than max_batch
    EXPECT_EQ(stats.finished, 7);
    EXPECT_EQ(stats.active, 0);
    EXPECT_EQ(stats.queued, 0);
}

// A first request parks the scheduler inside its callback, so the queue's contents are known.
struct Gate {
    std::mutex mutex;
    std::condition_variable changed;
    bool entered = false;
    bool open = false;

    RequestCallbacks callbacks(Outcome& outcome) {
        RequestCallbacks c = outcome.callbacks();
        c.on_token = [this, &outcome](std::int64_t token) {
            outcome.tokens.push_back(token);
            std::unique_lock lock(mutex);
            entered = true;
            changed.notify_all();
            changed.wait(lock, [&] { return open; });
            return true;
        };
        return c;
    }
    void wait_entered() {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return entered; });
    }
    void release() {
        const std::lock_guard lock(mutex);
        open = true;
        changed.notify_all();
    }
};

TEST(Scheduler, TheQueueTakesItsLimitAndRefusesOneMore) {
    GPT model(small());
    Scheduler scheduler(model, {.max_batch = 1, .max_queue = 2});
    Gate gate;
    Outcome first;
    ASSERT_TRUE(scheduler.submit(request({1}, 2, 0), gate.callbacks(first)).ticket);
    gate.wait_entered();  // the first request is active, the queue is empty
    Outcome second;
    Outcome third;
    Outcome fourth;
    EXPECT_TRUE(scheduler.submit(request({2}, 2, 0), second.callbacks()).ticket);
    EXPECT_TRUE(scheduler.submit(request({3}, 2, 0), third.callbacks()).ticket);  // exactly at the limit
    const kael::serve::Submission refused = scheduler.submit(request({4}, 2, 0), fourth.callbacks());
    EXPECT_FALSE(refused.ticket);
    ASSERT_TRUE(refused.refusal.has_value());
    EXPECT_EQ(*refused.refusal, Refusal::QueueFull);
    EXPECT_EQ(scheduler.stats().queued, 2);
    EXPECT_EQ(scheduler.stats().refused, 1);
    gate.release();
    EXPECT_EQ(first.wait().reason, FinishReason::Length);
    EXPECT_EQ(second.wait().reason, FinishReason::Length);
    EXPECT_EQ(third.wait().reason, FinishReason::Length);
    EXPECT_FALSE(fourth.finished.valid() && fourth.finished.wait_for(std::chrono::seconds(0)) ==
                                                std::future_status::ready);  // never ran
}

TEST(Scheduler, ACancelledRequestEndsAndFreesItsPlace) {
    GPT model(small());
    Scheduler scheduler(model, {.max_batch = 1, .max_queue = 4});
    Gate gate;
    Outcome running;
    const auto ticket = scheduler.submit(request({1}, 20, 0), gate.callbacks(running)).ticket;
    ASSERT_TRUE(ticket);
    gate.wait_entered();
    Outcome waiting;
    Outcome next;
    const auto waiting_ticket = scheduler.submit(request({2}, 3, 0), waiting.callbacks()).ticket;
    ASSERT_TRUE(scheduler.submit(request({3}, 3, 0), next.callbacks()).ticket);
    waiting_ticket->cancel();  // still in the queue: ends without running
    ticket->cancel();          // running: ends at the next step
    gate.release();
    const Finished ended = running.wait();
    EXPECT_EQ(ended.reason, FinishReason::Cancelled);
    EXPECT_EQ(ended.completion_tokens, 1);
    EXPECT_EQ(waiting.wait().reason, FinishReason::Cancelled);
    EXPECT_TRUE(waiting.tokens.empty());
    EXPECT_EQ(next.wait().reason, FinishReason::Length);
    EXPECT_EQ(next.tokens.size(), 3U);
}

TEST(Scheduler, ACancelledRequestLeavesTheQueueAtOnce) {
    GPT model(small());
    Scheduler scheduler(model, {.max_batch = 1, .max_queue = 1});
    Gate gate;
    Outcome running;
    ASSERT_TRUE(scheduler.submit(request({1}, 4, 0), gate.callbacks(running)).ticket);
    gate.wait_entered();  // the scheduler's thread waits inside the running request's callback
    Outcome waiting;
    const auto waiting_ticket = scheduler.submit(request({2}, 3, 0), waiting.callbacks()).ticket;
    ASSERT_TRUE(waiting_ticket);
    Outcome refused;
    EXPECT_EQ(scheduler.submit(request({3}, 3, 0), refused.callbacks()).refusal, Refusal::QueueFull);
    waiting_ticket->cancel();
    // Its place is free while the scheduler is still busy: no step has run since.
    EXPECT_EQ(scheduler.stats().queued, 0);
    Outcome next;
    ASSERT_TRUE(scheduler.submit(request({3}, 3, 0), next.callbacks()).ticket);
    EXPECT_EQ(scheduler.stats().queued, 1);
    gate.release();
    EXPECT_EQ(waiting.wait().reason, FinishReason::Cancelled);
    EXPECT_TRUE(waiting.tokens.empty());
    EXPECT_EQ(running.wait().reason, FinishReason::Length);
    EXPECT_EQ(next.wait().reason, FinishReason::Length);
}

TEST(Scheduler, TheStopTokenEndsARequestWithoutBeingDelivered) {
    GPT model(small());
    GenerationRequest probe = request({5, 6}, 1, 0, 0.0);
    const std::int64_t first_greedy = reference(model, probe).at(0);
    Scheduler scheduler(model);
    Outcome outcome;
    GenerationRequest r = request({5, 6}, 8, 0, 0.0);
    r.stop_token = first_greedy;
    ASSERT_TRUE(scheduler.submit(r, outcome.callbacks()).ticket);
    const Finished f = outcome.wait();
    EXPECT_EQ(f.reason, FinishReason::StopToken);
    EXPECT_EQ(f.completion_tokens, 0);
    EXPECT_TRUE(outcome.tokens.empty());
}

TEST(Scheduler, TheContextEndsARequestAtTheBlockSize) {
    GPT model(small());
    Scheduler scheduler(model);
    Ids full(24, 1);  // exactly the block size: nothing fits after it
    Ids one_short(23, 1);
    Outcome none;
    Outcome one;
    ASSERT_TRUE(scheduler.submit(request(full, 5, 0), none.callbacks()).ticket);
    ASSERT_TRUE(scheduler.submit(request(one_short, 5, 0), one.callbacks()).ticket);
    EXPECT_EQ(none.wait().reason, FinishReason::ContextFull);
    EXPECT_TRUE(none.tokens.empty());
    EXPECT_EQ(one.wait().reason, FinishReason::ContextFull);
    EXPECT_EQ(one.tokens.size(), 1U);
}

TEST(Scheduler, RefusesBadRequestsBeforeQueueingThem) {
    GPT model(small());
    Scheduler scheduler(model);
    Outcome unused;
    auto refuses = [&](const GenerationRequest& r) {
        EXPECT_THROW((void)scheduler.submit(r, unused.callbacks()), kael::ValueError);
    };
    refuses(request({}, 5, 0));
    refuses(request(Ids(25, 1), 5, 0));  // one past the block size
    refuses(request({41}, 5, 0));        // vocab_size: one past the last id
    refuses(request({-1}, 5, 0));
    refuses(request({1}, -1, 0));
    refuses(request({1}, 5, 0, -1.0));
    GenerationRequest bad_scores = request({1}, 5, 0);
    bad_scores.logprobs = -1;
    refuses(bad_scores);
    bad_scores.logprobs = 2;
    bad_scores.adjustments.logit_bias = {{41, 1.0}};  // one past the last id
    refuses(bad_scores);
    bad_scores.adjustments.logit_bias = {{3, std::numeric_limits<double>::infinity()}};
    refuses(bad_scores);
    bad_scores.adjustments.logit_bias = {};
    bad_scores.adjustments.presence_penalty = std::numeric_limits<double>::quiet_NaN();
    refuses(bad_scores);
    EXPECT_EQ(scheduler.stats().submitted, 0);
    EXPECT_THROW(Scheduler(model, {.max_batch = 0, .max_queue = 1}), kael::ValueError);
    EXPECT_THROW(Scheduler(model, {.max_batch = 1, .max_queue = -1}), kael::ValueError);
}

TEST(SchedulerPrefill, ChunksNeverLeaveEightTokensOrFewer) {
    using kael::serve::prefill_chunk_size;
    EXPECT_EQ(prefill_chunk_size(5, 256), 5);      // a short prompt goes whole
    EXPECT_EQ(prefill_chunk_size(264, 256), 264);  // up to 8 past the budget rather than a rest of 8
    EXPECT_EQ(prefill_chunk_size(265, 256), 256);  // leaves 9
    EXPECT_EQ(prefill_chunk_size(17, 16), 17);
    EXPECT_EQ(prefill_chunk_size(100, 9), 9);
    EXPECT_EQ(prefill_chunk_size(100, 8), 0);  // no chunk of 8 or fewer: the next step
    EXPECT_EQ(prefill_chunk_size(10, 3), 10);
    EXPECT_EQ(prefill_chunk_size(12, 3), 0);
    for (std::int64_t remaining = 1; remaining < 300; ++remaining) {
        for (std::int64_t budget = 1; budget <= 64; ++budget) {
            const std::int64_t chunk = prefill_chunk_size(remaining, budget);
            ASSERT_TRUE(chunk == remaining || chunk == 0 || (chunk > 8 && remaining - chunk > 8))
                << remaining << " " << budget;
            ASSERT_LE(chunk, budget + 8);
        }
    }
}

TEST(Scheduler, ALongPromptIsPrefilledInChunksBesideRunningStreams) {
    const OwnMatmulKernels own_kernels;
    kael::manual_seed(12);
    GPTConfig config = small();
    config.block_size = 96;
    GPT model(config);
    GenerationRequest running = request({5, 6, 7}, 30, 21, 0.9);
    Ids long_prompt;
    for (std::int64_t t = 0; t < 60; ++t) {
        long_prompt.push_back((t * 7 + 3) % 41);
    }
    GenerationRequest arriving = request(long_prompt, 6, 22, 0.9);
    const Ids running_expected = reference(model, running);
    const Ids arriving_expected = reference(model, arriving);
    Scheduler scheduler(model, {.max_batch = 4, .max_queue = 4, .prefill_chunk = 16});
    Outcome first;
    Outcome second;
    std::size_t running_tokens_at_first_of_second = 0;
    RequestCallbacks watched = second.callbacks();
    watched.on_token = [&](std::int64_t token) {  // on the scheduler's thread, as first's
        if (second.tokens.empty()) {
            running_tokens_at_first_of_second = first.tokens.size();
        }
        second.tokens.push_back(token);
        return true;
    };
    ASSERT_TRUE(scheduler.submit(running, first.callbacks()).ticket);
    ASSERT_TRUE(scheduler.submit(arriving, watched).ticket);
    first.wait();
    second.wait();
    // 60 prompt tokens in chunks of at most 16 take four steps, each with a decode row for
    // the running stream, which so waits for a chunk at a time; and both get generate()'s
    // tokens: the chunks' products sum as the whole prompt's does.
    EXPECT_GE(running_tokens_at_first_of_second, 4U);
    EXPECT_EQ(first.tokens, running_expected);
    EXPECT_EQ(second.tokens, arriving_expected);
    EXPECT_THROW(Scheduler(model, {.max_batch = 1, .max_queue = 1, .prefill_chunk = 15}), kael::ValueError);
}

TEST(Scheduler, APromptThatStartsAsAnEarlierOneReusesItsBlocksAndGetsTheSameTokens) {
    const OwnMatmulKernels own_kernels;
    kael::manual_seed(13);
    GPTConfig config = small();
    config.block_size = 64;
    GPT model(config);
    Ids shared;
    for (std::int64_t t = 0; t < 30; ++t) {
        shared.push_back((t * 11 + 5) % 41);
    }
    GenerationRequest first = request(shared, 5, 31, 0.9);
    Ids longer = shared;
    longer.insert(longer.end(), {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
    GenerationRequest second = request(longer, 5, 32, 0.9);
    Scheduler scheduler(model, {.max_batch = 2, .max_queue = 2, .kv_block_tokens = 4});
    Outcome one;
    ASSERT_TRUE(scheduler.submit(first, one.callbacks()).ticket);
    one.wait();
    EXPECT_EQ(scheduler.stats().kv.hit_tokens, 0);
    Outcome two;
    ASSERT_TRUE(scheduler.submit(second, two.callbacks()).ticket);
    two.wait();
    // The first prompt filled 7 blocks of 4 (28 positions); the second takes them all.
    const kael::serve::SchedulerStats stats = scheduler.stats();
    EXPECT_EQ(stats.kv.hit_tokens, 28);
    EXPECT_EQ(stats.kv.hit_requests, 1);
    EXPECT_EQ(stats.kv.used, 0);  // every block is back in the pool
    EXPECT_EQ(one.tokens, reference(model, first));
    EXPECT_EQ(two.tokens, reference(model, second));  // the reused keys and values are exact
    // Without prefix caching nothing is reused.
    Scheduler plain(model, {.max_batch = 2, .max_queue = 2, .kv_block_tokens = 4, .prefix_caching = false});
    Outcome three;
    Outcome four;
    ASSERT_TRUE(plain.submit(first, three.callbacks()).ticket);
    three.wait();
    ASSERT_TRUE(plain.submit(second, four.callbacks()).ticket);
    four.wait();
    EXPECT_EQ(plain.stats().kv.hit_tokens, 0);
    EXPECT_EQ(four.tokens, two.tokens);
}

TEST(Scheduler, ARequestWaitsForFreeBlocksAndOneThatCouldNeverFitIsRefused) {
    kael::manual_seed(14);
    GPT model(small());
    // 6 blocks of 4 positions: one request of 3 + 9 positions takes 3 blocks, so a third
    // request waits until one of the first two ends.
    Scheduler scheduler(model, {.max_batch = 4, .max_queue = 4, .kv_block_tokens = 4, .kv_blocks = 6});
    std::vector<Outcome> outcomes(3);
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
        ASSERT_TRUE(scheduler.submit(request({1, 2, 3}, 9, i), outcomes[i].callbacks()).ticket);
    }
    for (Outcome& outcome : outcomes) {
        EXPECT_EQ(outcome.wait().reason, FinishReason::Length);
        EXPECT_EQ(outcome.tokens.size(), 9U);
    }
    const kael::serve::SchedulerStats stats = scheduler.stats();
    EXPECT_EQ(stats.kv.blocks, 6);
    EXPECT_EQ(stats.kv.used, 0);
    EXPECT_LE(stats.largest_batch, 2);  // never three at once: their blocks were not free
    // The model's whole context, 24 positions, takes 6 blocks: a pool of 5 can never hold it.
    Scheduler tight(model, {.max_batch = 1, .max_queue = 1, .kv_block_tokens = 4, .kv_blocks = 5});
    Outcome too_long;
    EXPECT_THROW((void)tight.submit(request({1, 2, 3}, 21, 0), too_long.callbacks()), kael::ValueError);
    Outcome fits;
    ASSERT_TRUE(tight.submit(request({1, 2, 3}, 17, 0), fits.callbacks()).ticket);  // 20 positions, 5 blocks
    EXPECT_EQ(fits.wait().completion_tokens, 17);
    EXPECT_THROW(Scheduler(model, {.max_batch = 1, .max_queue = 1, .kv_block_tokens = 0}), kael::ValueError);
    EXPECT_THROW(Scheduler(model, {.max_batch = 1, .max_queue = 1, .kv_blocks = -1}), kael::ValueError);
}

// The model's own log-probabilities of `prompt`'s positions, [T, V], in double.
kael::Tensor log_softmax_of(GPT& model, const Ids& prompt) {
    const kael::autograd::NoGradGuard no_grad;
    model.eval();
    const kael::Tensor logits = model(kael::from_vector(prompt, {1, static_cast<std::int64_t>(prompt.size())}));
    return kael::log_softmax(logits.select(0, 0).to(kael::DType::F64), -1);
}

TEST(Scheduler, ReportsEachTokensLogprobUnderTheModelsOwnDistribution) {
    kael::manual_seed(9);
    GPT model(small());
    GenerationRequest r = request({4, 9, 1}, 5, 3, 0.8);
    r.logprobs = 3;
    std::vector<kael::serve::TokenLogprobs> reported;
    Outcome outcome;
    RequestCallbacks callbacks = outcome.callbacks();
    callbacks.on_logprobs = [&](const kael::serve::TokenLogprobs& scores) { reported.push_back(scores); };
    Scheduler scheduler(model);
    ASSERT_TRUE(scheduler.submit(r, callbacks).ticket);
    ASSERT_EQ(outcome.wait().completion_tokens, 5);
    ASSERT_EQ(reported.size(), 5U);
    // Position t's scores are those of the prompt and the tokens before it, unscaled by the
    // temperature: the model's own distribution.
    Ids sequence = r.prompt;
    for (std::size_t i = 0; i < reported.size(); ++i) {
        const kael::Tensor expected = log_softmax_of(model, sequence).select(0, -1);
        EXPECT_EQ(reported[i].token, outcome.tokens[i]);
        EXPECT_NEAR(*reported[i].logprob, expected.select(0, outcome.tokens[i]).item<double>(), 1e-5);
        ASSERT_EQ(reported[i].top.size(), 3U);
        const auto [best, best_logprob] = reported[i].top[0];
        EXPECT_EQ(best, kael::argmax(expected).item<std::int64_t>());
        EXPECT_NEAR(best_logprob, kael::max(expected).item<double>(), 1e-5);
        EXPECT_GE(reported[i].top[0].second, reported[i].top[1].second);
        EXPECT_GE(reported[i].top[1].second, reported[i].top[2].second);
        sequence.push_back(outcome.tokens[i]);
    }
}

TEST(Scheduler, ScoresAPromptWithoutDrawingWhenMaxNewTokensIsZero) {
    kael::manual_seed(10);
    GPT model(small());
    GenerationRequest r = request(Ids(24, 7), 0, 0);  // a prompt that fills the context
    r.prompt[3] = 12;
    r.logprobs = 1;
    r.prompt_logprobs = true;
    std::vector<kael::serve::TokenLogprobs> prompt_scores;
    Outcome outcome;
    RequestCallbacks callbacks = outcome.callbacks();
    callbacks.on_prompt_logprobs = [&](std::vector<kael::serve::TokenLogprobs> scores) {
        prompt_scores = std::move(scores);
    };
    Scheduler scheduler(model);
    ASSERT_TRUE(scheduler.submit(r, callbacks).ticket);
    const Finished f = outcome.wait();
    EXPECT_EQ(f.reason, FinishReason::Length);
    EXPECT_EQ(f.completion_tokens, 0);
    EXPECT_TRUE(outcome.tokens.empty());
    ASSERT_EQ(prompt_scores.size(), 24U);
    EXPECT_EQ(prompt_scores[0].token, 7);
    EXPECT_FALSE(prompt_scores[0].logprob);  // nothing comes before the first token
    const kael::Tensor expected = log_softmax_of(model, r.prompt);
    for (std::size_t t = 1; t < prompt_scores.size(); ++t) {
        EXPECT_EQ(prompt_scores[t].token, r.prompt[t]);
        EXPECT_NEAR(*prompt_scores[t].logprob,
                    expected.select(0, static_cast<std::int64_t>(t) - 1).select(0, r.prompt[t]).item<double>(), 1e-5)
            << t;
        EXPECT_EQ(prompt_scores[t].top.size(), 1U);
    }
}

TEST(Scheduler, TheLogitBiasAndPenaltiesSteerTheDraw) {
    kael::manual_seed(11);
    GPT model(small());
    Scheduler scheduler(model);
    // A bias of +100 makes one token all but certain, at any temperature.
    GenerationRequest biased = request({2, 3}, 6, 4, 1.0);
    biased.adjustments.logit_bias = {{17, 100.0}};
    Outcome favoured;
    ASSERT_TRUE(scheduler.submit(biased, favoured.callbacks()).ticket);
    favoured.wait();
    EXPECT_EQ(favoured.tokens, Ids(6, 17));
    // The same bias with a frequency penalty larger than it: the favoured token's logit
    // falls by 150 with each draw, so greedy decoding cannot repeat it back to back.
    biased.sampling.temperature = 0.0;
    biased.adjustments.frequency_penalty = 150.0;  // past the API's range; the scheduler takes any finite value
    Outcome penalised;
    ASSERT_TRUE(scheduler.submit(biased, penalised.callbacks()).ticket);
    penalised.wait();
    ASSERT_EQ(penalised.tokens.size(), 6U);
    EXPECT_EQ(penalised.tokens[0], 17);
    EXPECT_NE(penalised.tokens[1], 17);
}

TEST(Scheduler, StopWithoutFinishingEndsEveryRequestWithShutdown) {
    GPT model(small());
    Scheduler scheduler(model, {.max_batch = 1, .max_queue = 1000});
    Gate gate;
    Outcome running;
    Outcome queued;
    ASSERT_TRUE(scheduler.submit(request({1}, 20, 0), gate.callbacks(running)).ticket);
    gate.wait_entered();
    ASSERT_TRUE(scheduler.submit(request({2}, 20, 0), queued.callbacks()).ticket);
    std::thread stopper([&] { scheduler.stop(/*finish=*/false); });
    while (scheduler.submit(request({3}, 1, 0), RequestCallbacks{}).refusal != Refusal::Stopping) {
        std::this_thread::yield();  // until stop() has marked the scheduler as stopping
    }
    gate.release();
    stopper.join();
    EXPECT_EQ(running.wait().reason, FinishReason::Shutdown);
    EXPECT_EQ(queued.wait().reason, FinishReason::Shutdown);
    Outcome late;
    const kael::serve::Submission refused = scheduler.submit(request({3}, 1, 0), late.callbacks());
    EXPECT_EQ(refused.refusal, Refusal::Stopping);
}

TEST(Scheduler, StopWithFinishingCompletesEveryRequest) {
    GPT model(small());
    Scheduler scheduler(model, {.max_batch = 2, .max_queue = 4});
    std::vector<Outcome> outcomes(4);
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
        ASSERT_TRUE(scheduler.submit(request({static_cast<std::int64_t>(i)}, 5, i), outcomes[i].callbacks()).ticket);
    }
    scheduler.stop(/*finish=*/true);
    for (Outcome& outcome : outcomes) {
        EXPECT_EQ(outcome.wait().reason, FinishReason::Length);
        EXPECT_EQ(outcome.tokens.size(), 5U);
    }
}

TEST(Scheduler, ACallbackThatThrowsEndsOnlyItsOwnRequest) {
    GPT model(small());
    Scheduler scheduler(model, {.max_batch = 2, .max_queue = 4});
    Outcome failing;
    Outcome fine;
    RequestCallbacks throwing = failing.callbacks();
    throwing.on_token = [](std::int64_t) -> bool { throw std::runtime_error("the client's sink broke"); };
    ASSERT_TRUE(scheduler.submit(request({1, 2}, 5, 0), throwing).ticket);
    ASSERT_TRUE(scheduler.submit(request({3, 4}, 5, 0), fine.callbacks()).ticket);
    const Finished f = failing.wait();
    EXPECT_EQ(f.reason, FinishReason::Error);
    EXPECT_NE(f.error.find("the client's sink broke"), std::string::npos);
    EXPECT_EQ(fine.wait().reason, FinishReason::Length);
    EXPECT_EQ(fine.tokens.size(), 5U);
}

TEST(Scheduler, ReasonsHaveTheApisNames) {
    EXPECT_STREQ(kael::serve::to_string(FinishReason::Length), "length");
    EXPECT_STREQ(kael::serve::to_string(FinishReason::StopToken), "stop");
    EXPECT_STREQ(kael::serve::to_string(FinishReason::Cancelled), "cancelled");
}

}  // namespace

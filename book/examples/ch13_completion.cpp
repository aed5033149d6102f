// Chapter 13: the server's completion API without the HTTP. examples/gpt2_server.cpp
// receives a POST /v1/completions body, parses it with serve::parse_completion_request,
// turns it into a GenerationRequest, runs it on a serve::Scheduler, and answers with the
// JSON that serve::completion_body builds, or, for "stream": true, with the server-sent
// events of serve::completion_event. This program does the same steps in one process, so
// the book can show what a client receives.
//
// The model is a small GPT with random weights and GPT-2's vocabulary (the project cannot
// download GPT-2's trained weights), so the text is not English. GPT-2's tokenizer comes
// from build/data/gpt2-vocab, which scripts/fetch-gpt2-vocab writes; see vocabulary_directory.
//
// A real server puts a fresh id and the clock's time into every response. Here both are
// fixed (CompletionIds is the caller's to fill), so that every run prints the same bytes.
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kael/kael.h"
#include "kael/serve/completion_api.h"
#include "kael/serve/scheduler.h"
#include "kael/serve/stop_strings.h"

namespace {

namespace serve = kael::serve;

// Starts a part of the output that the book shows on its own ({{ output(..., section=...) }}).
void section(std::string_view name) { std::cout << "--- section: " << name << " ---\n"; }

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

// What one request produced: the pieces of text in the order they became sendable, and
// how it ended.
struct Outcome {
    std::vector<std::string> pieces;
    serve::Finished finished;
    bool stop_string_met = false;
};

// Parses `body` as the server's handler does, runs the request on `scheduler`, and waits
// for its end. The callbacks run on the scheduler's thread; they turn each token into text
// exactly as gpt2_server's do: the streaming decoder makes whole characters of it, and the
// stop strings hold back whatever might still become one of them.
Outcome complete(serve::Scheduler& scheduler, const kael::nn::GPT& model, const kael::text::GPT2Tokenizer& tokenizer,
                 const serve::CompletionRequest& request) {
    // The seed a request without "seed" would get; these requests all give one.
    constexpr std::uint64_t kFallbackSeed = 0;
    serve::GenerationRequest generation =
        serve::to_generation_request(request, tokenizer, model.config(), kFallbackSeed);

    struct State {
        kael::text::StreamingDecoder decoder;
        serve::StopStrings stop;
        Outcome outcome;
        std::promise<void> done;
    };
    auto state = std::make_shared<State>(State{kael::text::StreamingDecoder(tokenizer),
                                               serve::StopStrings(request.stop), {}, {}});
    serve::RequestCallbacks callbacks;
    callbacks.on_token = [state](std::int64_t token) {
        std::string piece = state->stop.push(state->decoder.push(token));
        if (!piece.empty()) {
            state->outcome.pieces.push_back(std::move(piece));
        }
        return !state->stop.stopped();  // false ends the request: a stop string was met
    };
    callbacks.on_finish = [state](const serve::Finished& finished) {
        // Whatever the decoder and the stop strings still hold is the end of the text.
        std::string rest = state->stop.push(state->decoder.finish());
        if (!state->stop.stopped()) {
            rest += state->stop.flush();
        }
        if (!rest.empty()) {
            state->outcome.pieces.push_back(std::move(rest));
        }
        state->outcome.finished = finished;
        state->outcome.stop_string_met = state->stop.stopped();
        state->done.set_value();  // wakes the waiting main thread
    };
    const serve::Submission submission = scheduler.submit(std::move(generation), std::move(callbacks));
    KAEL_CHECK(submission.ticket != nullptr, "the scheduler refused the request");
    state->done.get_future().wait();
    return state->outcome;
}

}  // namespace

int main() try {
    const auto tokenizer = kael::text::GPT2Tokenizer::from_directory(vocabulary_directory());

    // A small GPT with GPT-2's vocabulary: two blocks of width 64, which answer in
    // milliseconds. The constructor draws its random weights from the global generator.
    kael::manual_seed(13);
    kael::nn::GPT model({.vocab_size = tokenizer.vocab_size(), .block_size = 128, .n_layer = 2, .n_head = 4,
                         .n_embd = 64, .dropout = 0.0, .layer_norm_epsilon = 1e-5, .fused_attention = true});
    serve::Scheduler scheduler(model, {.max_batch = 8, .max_queue = 8});

    // The fixed identity of the responses: "cmpl-1" is what a fresh gpt2_server calls its
    // first completion; "created" would be the clock's Unix time.
    const serve::CompletionIds ids{.id = "cmpl-1", .created = 1700000000, .model = "tiny-random-gpt"};

    // The two request bodies: the same request, answered whole and streamed.
    const std::string whole_body = R"({"prompt": "The tensor is", "max_tokens": 8, "temperature": 0.8, "seed": 1})";
    const std::string stream_body =
        R"({"prompt": "The tensor is", "max_tokens": 8, "temperature": 0.8, "seed": 1, "stream": true})";
    section("request");
    std::cout << "POST /v1/completions " << whole_body << '\n' << "POST /v1/completions " << stream_body << '\n';

    // A whole answer: wait for the end, then one JSON body with all of the text.
    const serve::CompletionRequest whole = serve::parse_completion_request(whole_body);
    const Outcome answer = complete(scheduler, model, tokenizer, whole);
    std::string text;
    for (const std::string& piece : answer.pieces) {
        text += piece;
    }
    section("response");
    std::cout << serve::completion_body(ids, text,
                                        serve::finish_reason_name(answer.finished.reason, answer.stop_string_met),
                                        answer.finished.prompt_tokens, answer.finished.completion_tokens)
              << '\n';

    // The same request streamed. The request carries its seed, so the scheduler's
    // generator for it starts where the first one's did, and it draws the same tokens.
    const serve::CompletionRequest streamed = serve::parse_completion_request(stream_body);
    const Outcome events = complete(scheduler, model, tokenizer, streamed);
    section("stream");
    // One event per piece of text, one that carries the finish reason, then [DONE]. Each
    // event ends with a blank line, as server-sent events do on the wire.
    for (const std::string& piece : events.pieces) {
        std::cout << serve::completion_event(ids, piece, std::nullopt);
    }
    std::cout << serve::completion_event(
                     ids, "", serve::finish_reason_name(events.finished.reason, events.stop_string_met))
              << serve::done_event();
    scheduler.stop(/*finish=*/true);
    return 0;
} catch (const std::exception& error) {
    std::cerr << "ch13_completion: " << error.what() << '\n';
    return 1;
}

// A GPT-2 generation server with OpenAI's completion API (chapter 13).
//
//   gpt2_server --model DIR [--host 127.0.0.1] [--port 8000] [--max-batch 8] [--max-queue 32]
//               [--max-body-bytes 65536] [--http-threads N] [--threads N] [--name NAME]
//               [--shutdown-grace 10] [--write-timeout 10] [--send-buffer-bytes N]
//               [--prefill-chunk 256] [--kv-blocks N] [--kv-block-tokens 16] [--prefix-caching on|off]
//               [--chat-template FILE]   (a JSON ChatTemplate, kael/include/kael/serve/chat_api.h)
//
// Endpoints:
//   POST /v1/completions        OpenAI's completion request; "stream": true sends server-sent events
//   POST /v1/chat/completions   OpenAI's chat request, the messages rendered by chat_api.h's template
//   GET  /v1/models             the one model served (and GET /v1/models/{name})
//   GET  /health                {"status": "ok"}, or 503 {"status": "stopping"} during shutdown
//   GET  /metrics               requests by outcome, tokens, latency percentiles, queue length, in
//                               Prometheus's text format (?format=json for JSON)
//
// The HTTP is cpp-httplib's, the JSON nlohmann-json's, and everything between them is
// kael::serve: requests are parsed by completion_api.h, scheduled by Scheduler (one model,
// decode steps of concurrent requests batched), and counted by ServerMetrics. SIGINT or
// SIGTERM stops it gracefully: new requests get 503, the running ones have --shutdown-grace
// seconds to finish and are cancelled after that, then the server exits with status 0.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include <httplib.h>

#include "kael/kael.h"
#include "kael/parallel.h"
#include "kael/serve/chat_api.h"
#include "kael/serve/completion_api.h"
#include "kael/serve/metrics.h"
#include "kael/serve/scheduler.h"
#include "kael/serve/stop_strings.h"

namespace {

namespace serve = kael::serve;
using Clock = std::chrono::steady_clock;

struct Options {
    std::filesystem::path model;
    std::string host = "127.0.0.1";
    int port = 8000;
    serve::SchedulerOptions scheduler{.max_batch = 8, .max_queue = 32};
    std::size_t max_body_bytes = 64 * 1024;
    std::optional<int> http_threads;
    std::optional<int> threads;
    std::string name;
    double shutdown_grace = 10.0;
    int write_timeout = 10;  // seconds a write to a client may block before it is cut off
    std::optional<int> send_buffer_bytes;  // the kernel's buffer of each connection (SO_SNDBUF)
    serve::ChatTemplate chat_template;     // kael's transcript, or --chat-template FILE
};

// The name the program was started as: gpt2_server in the build, kael-serve once installed.
std::string program = "gpt2_server";

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (flag == "--help") {
            std::cout << "usage: " << program
                      << " --model DIR [--host H] [--port P] [--max-batch N] [--max-queue N]\n"
                         "         [--max-body-bytes N] [--http-threads N] [--threads N] [--name NAME]\n"
                         "         [--shutdown-grace SECONDS] [--write-timeout SECONDS] [--send-buffer-bytes N]\n"
                         "         [--prefill-chunk TOKENS] [--kv-blocks N] [--kv-block-tokens N] [--prefix-caching on|off]\n"
                         "         [--chat-template FILE]\n"
                         "Serves the GPT-2 directory DIR with OpenAI's API: POST /v1/completions,\n"
                         "POST /v1/chat/completions, GET /v1/models, GET /health and GET /metrics.\n";
            std::exit(0);
        }
        KAEL_CHECK_VALUE(i + 1 < argc, "option " << flag << " needs a value");
        const std::string value = argv[++i];
        if (flag == "--model") { o.model = value; }
        else if (flag == "--host") { o.host = value; }
        else if (flag == "--port") { o.port = std::stoi(value); }
        else if (flag == "--max-batch") { o.scheduler.max_batch = std::stoll(value); }
        else if (flag == "--max-queue") { o.scheduler.max_queue = std::stoll(value); }
        else if (flag == "--max-body-bytes") { o.max_body_bytes = std::stoull(value); }
        else if (flag == "--http-threads") { o.http_threads = std::stoi(value); }
        else if (flag == "--threads") { o.threads = std::stoi(value); }
        else if (flag == "--name") { o.name = value; }
        else if (flag == "--shutdown-grace") { o.shutdown_grace = std::stod(value); }
        else if (flag == "--write-timeout") { o.write_timeout = std::stoi(value); }
        else if (flag == "--send-buffer-bytes") { o.send_buffer_bytes = std::stoi(value); }
        else if (flag == "--prefill-chunk") { o.scheduler.prefill_chunk = std::stoll(value); }
        else if (flag == "--kv-blocks") { o.scheduler.kv_blocks = std::stoll(value); }
        else if (flag == "--kv-block-tokens") { o.scheduler.kv_block_tokens = std::stoll(value); }
        else if (flag == "--chat-template") {
            std::ifstream file(value);
            KAEL_CHECK_VALUE(file, "--chat-template: cannot read " << value);
            o.chat_template = serve::parse_chat_template(std::string(std::istreambuf_iterator<char>(file), {}));
        }
        else if (flag == "--prefix-caching") {
            KAEL_CHECK_VALUE(value == "on" || value == "off", "--prefix-caching takes on or off, got " << value);
            o.scheduler.prefix_caching = value == "on";
        }
        else { throw kael::ValueError("unknown option " + flag); }
    }
    KAEL_CHECK_VALUE(!o.model.empty(), program << " needs --model DIR (see --help)");
    KAEL_CHECK_VALUE(o.port >= 0 && o.port <= 65535, "--port must be in 0 .. 65535, got " << o.port);
    KAEL_CHECK_VALUE(o.max_body_bytes >= 1, "--max-body-bytes must be at least 1");
    KAEL_CHECK_VALUE(o.shutdown_grace >= 0, "--shutdown-grace must be >= 0 seconds");
    KAEL_CHECK_VALUE(o.write_timeout >= 1, "--write-timeout must be at least 1 second");
    KAEL_CHECK_VALUE(!o.send_buffer_bytes || *o.send_buffer_bytes >= 1024, "--send-buffer-bytes must be at least 1024");
    KAEL_CHECK_VALUE(!o.http_threads || *o.http_threads >= 1, "--http-threads must be at least 1");
    if (o.name.empty()) {
        o.name = std::filesystem::absolute(o.model).lexically_normal().filename().string();
        if (o.name.empty()) {
            o.name = std::filesystem::absolute(o.model).lexically_normal().parent_path().filename().string();
        }
    }
    return o;
}

// A piece of one choice's answer: text as it is decoded, and with logprobs the tokens it
// comes from (a token whose text a stop string holds back comes with none).
struct Piece {
    std::size_t choice;
    std::string text;
    std::vector<serve::ScoredToken> tokens;
};

// What the scheduler's thread hands one HTTP handler: the pieces of each choice, tagged
// with the choice's index, then each choice's end. A request of several choices (n, or
// several prompts) is several sequences in the scheduler and one outbox here.
struct Outbox {
    explicit Outbox(std::size_t choices) : finished(choices), stop_string_met(choices), remaining(choices) {}

    std::mutex mutex;
    std::condition_variable changed;
    std::deque<Piece> pieces;                                // pieces not yet taken
    std::vector<std::optional<serve::Finished>> finished;    // per choice, once it has ended
    std::vector<bool> stop_string_met;
    std::size_t remaining;  // choices not yet ended

    void put(std::size_t choice, std::string text, std::optional<serve::Finished> end = std::nullopt,
             bool stopped = false, std::vector<serve::ScoredToken> tokens = {}) {
        {
            const std::lock_guard lock(mutex);
            if (!text.empty() || !tokens.empty()) {
                pieces.push_back(Piece{choice, std::move(text), std::move(tokens)});
            }
            if (end) {
                finished[choice] = std::move(end);
                stop_string_met[choice] = stopped;
                --remaining;
            }
        }
        changed.notify_all();
    }
};

// One choice's decoder, stop strings and log-probabilities: touched by the scheduler's
// thread only (and by the handler before the choice is submitted).
struct ChoiceDecoder {
    ChoiceDecoder(const kael::text::GPT2Tokenizer& tokenizer, std::vector<std::string> stops)
        : decoder(tokenizer), stop(std::move(stops)) {}

    kael::text::StreamingDecoder decoder;
    serve::StopStrings stop;
    std::optional<serve::ScoredToken> drawn;  // the last token's scores, until its text goes out
    std::int64_t offset = 0;                  // characters of the prompt and the tokens so far
};

// What an error that httplib answers by itself means, for its JSON body.
std::string status_text(int status) {
    switch (status) {
        case 400: return "the request is malformed";
        case 404:
            return "no such endpoint; this server has POST /v1/completions, POST /v1/chat/completions, "
                   "GET /v1/models, GET /health and GET /metrics";
        case 405: return "this endpoint does not take that method";
        case 413: return "the request body is larger than the server accepts";
        case 414: return "the request line is too long";
        default: return "the request failed with HTTP status " + std::to_string(status);
    }
}

class Server {
public:
    Server(const Options& options, std::shared_ptr<kael::nn::GPT> model, kael::text::GPT2Tokenizer tokenizer)
        : options_(options), model_(std::move(model)), tokenizer_(std::move(tokenizer)),
          scheduler_(*model_, options.scheduler), seeds_(std::random_device{}()) {
        const int http_threads = options.http_threads.value_or(
            static_cast<int>(options.scheduler.max_batch + options.scheduler.max_queue) + 8);
        http_.new_task_queue = [http_threads] { return new httplib::ThreadPool(static_cast<std::size_t>(http_threads)); };
        http_.set_payload_max_length(options.max_body_bytes);
        http_.set_write_timeout(options.write_timeout, 0);
        if (const std::optional<int> bytes = options.send_buffer_bytes) {
            // The connections inherit the listening socket's buffer size: with a small one, a
            // client that stops reading makes the server's writes wait (and time out) sooner.
            http_.set_socket_options([size = *bytes](socket_t sock) {
                httplib::default_socket_options(sock);
                setsockopt(sock, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
            });
        }
        http_.Get("/health", [this](const httplib::Request&, httplib::Response& res) {
            if (stopping_) {
                res.status = 503;
                res.set_content(R"({"status":"stopping"})", "application/json");
            } else {
                res.set_content(R"({"status":"ok"})", "application/json");
            }
        });
        // Prometheus's text format, which scrapers read; ?format=json for the same as JSON.
        http_.Get("/metrics", [this](const httplib::Request& req, httplib::Response& res) {
            if (req.get_param_value("format") == "json") {
                res.set_content(metrics_.to_json(scheduler_.stats()), "application/json");
            } else {
                res.set_content(metrics_.to_prometheus(scheduler_.stats()), "text/plain; version=0.0.4");
            }
        });
        http_.Post("/v1/completions",
                   [this](const httplib::Request& req, httplib::Response& res) { complete(req, res, false); });
        http_.Post("/v1/chat/completions",
                   [this](const httplib::Request& req, httplib::Response& res) { complete(req, res, true); });
        http_.Get("/v1/models", [this](const httplib::Request&, httplib::Response& res) {
            res.set_content(serve::models_body(options_.name, started_), "application/json");
        });
        http_.Get(R"(/v1/models/(.+))", [this](const httplib::Request& req, httplib::Response& res) {
            try {
                serve::check_model(req.matches[1].str(), options_.name);
                res.set_content(serve::model_body(options_.name, started_), "application/json");
            } catch (const serve::RequestError& e) {
                fail(res, e.status(), e.what(), "invalid_request_error", e.param(), e.code());
            }
        });
        // Errors httplib answers itself (404, 413, ...) get a JSON body too.
        http_.set_error_handler([this](const httplib::Request&, httplib::Response& res) {
            if (res.body.empty()) {
                fail(res, res.status, status_text(res.status), "invalid_request_error");
            }
        });
        http_.set_exception_handler([this](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
            fail(res, 500, "the server failed to handle the request", "server_error");
        });
    }

    // Serves until shutdown(); false when the address cannot be bound.
    bool listen() {
        const int port = options_.port == 0 ? http_.bind_to_any_port(options_.host) : options_.port;
        if (port < 0 || (options_.port != 0 && !http_.bind_to_port(options_.host, port))) {
            return false;
        }
        std::cout << program << ": " << options_.name << " on http://" << options_.host << ":" << port
                  << " (batch " << options_.scheduler.max_batch << ", queue " << options_.scheduler.max_queue
                  << ", threads " << kael::get_num_threads() << ")" << std::endl;
        return http_.listen_after_bind();
    }

    // Refuses new requests, lets the running ones finish for up to the grace period,
    // cancels the rest, then stops the HTTP server.
    void shutdown() {
        stopping_ = true;
        std::thread deadline([this] {
            std::unique_lock lock(shutdown_mutex_);
            const auto grace = std::chrono::duration<double>(options_.shutdown_grace);
            if (!shutdown_done_.wait_for(lock, grace, [this] { return drained_; })) {
                scheduler_.stop(/*finish=*/false);
            }
        });
        scheduler_.stop(/*finish=*/true);
        {
            const std::lock_guard lock(shutdown_mutex_);
            drained_ = true;
        }
        shutdown_done_.notify_all();
        deadline.join();
        http_.stop();
    }

private:
    void fail(httplib::Response& res, int status, const std::string& message, const std::string& type,
              const std::string& param = {}, const std::string& code = {}) {
        res.status = status;
        res.set_content(serve::error_body(message, type, param, code), "application/json");
        metrics_.record_refused(status);
    }

    std::uint64_t next_seed() {
        const std::lock_guard lock(seed_mutex_);
        return seeds_();
    }

    // POST /v1/completions (chat false) and POST /v1/chat/completions (chat true): the same
    // generation, told apart by how the request is read and how the answer is written.
    void complete(const httplib::Request& req, httplib::Response& res, bool chat) {
        serve::CompletionRequest request;
        std::vector<serve::GenerationRequest> generations;
        try {
            request = chat ? serve::parse_chat_request(req.body, options_.chat_template).options
                           : serve::parse_completion_request(req.body);
            serve::check_model(request.model, options_.name);
            const auto choices = static_cast<std::int64_t>(request.prompts.size()) * request.n;
            for (std::int64_t c = 0; c < choices; ++c) {
                generations.push_back(
                    serve::to_generation_request(request, c, tokenizer_, model_->config(), next_seed()));
            }
        } catch (const serve::RequestError& e) {
            fail(res, e.status(), e.what(), "invalid_request_error", e.param(), e.code());
            return;
        }
        // The prompt's tokens count once per prompt in the usage, as OpenAI counts them.
        std::int64_t prompt_tokens = 0;
        for (std::size_t c = 0; c < generations.size(); c += static_cast<std::size_t>(request.n)) {
            prompt_tokens += static_cast<std::int64_t>(generations[c].prompt.size());
        }
        auto outbox = std::make_shared<Outbox>(generations.size());
        std::vector<std::shared_ptr<serve::Ticket>> tickets;
        const bool drawn_among_top = !chat;  // the completion endpoint lists the drawn token too
        for (std::size_t c = 0; c < generations.size(); ++c) {
            auto choice = std::make_shared<ChoiceDecoder>(tokenizer_, request.stop);
            const serve::Prompt& prompt = request.prompts[c / static_cast<std::size_t>(request.n)];
            const auto* given_text = std::get_if<std::string>(&prompt);
            const std::string prompt_text = given_text ? *given_text : tokenizer_.decode(generations[c].prompt);
            // Offsets count from the prompt's start, echoed or not, as OpenAI's do.
            choice->offset = serve::character_count(prompt_text);
            serve::RequestCallbacks callbacks;
            if (request.echo && !generations[c].prompt_logprobs) {
                outbox->put(c, prompt_text);
            }
            callbacks.on_prompt_logprobs = [this, outbox, prompt_text, drawn_among_top,
                                            c](std::vector<serve::TokenLogprobs> scores) {
                std::vector<serve::ScoredToken> tokens;
                std::int64_t offset = 0;
                for (const serve::TokenLogprobs& score : scores) {
                    tokens.push_back(serve::scored_token(score, tokenizer_, offset, drawn_among_top));
                    offset += serve::character_count(tokens.back().text);
                }
                outbox->put(c, prompt_text, std::nullopt, false, std::move(tokens));
            };
            callbacks.on_logprobs = [this, choice, drawn_among_top](const serve::TokenLogprobs& score) {
                choice->drawn = serve::scored_token(score, tokenizer_, choice->offset, drawn_among_top);
                choice->offset += serve::character_count(choice->drawn->text);
            };
            callbacks.on_token = [outbox, choice, c](std::int64_t token) {
                std::vector<serve::ScoredToken> tokens;
                if (choice->drawn) {
                    tokens.push_back(std::move(*choice->drawn));
                    choice->drawn.reset();
                }
                outbox->put(c, choice->stop.push(choice->decoder.push(token)), std::nullopt, false, std::move(tokens));
                return !choice->stop.stopped();
            };
            callbacks.on_finish = [this, outbox, choice, c](const serve::Finished& finished) {
                metrics_.record_finished(finished);
                std::string rest = choice->stop.push(choice->decoder.finish());
                if (!choice->stop.stopped()) {
                    rest += choice->stop.flush();  // no stop string came: the held text is the end
                }
                outbox->put(c, std::move(rest), finished, choice->stop.stopped());
            };
            serve::Submission submission;
            try {
                submission = scheduler_.submit(std::move(generations[c]), std::move(callbacks));
            } catch (const kael::ValueError& e) {  // more KV blocks than the server has, say
                for (const auto& ticket : tickets) {
                    ticket->cancel();
                }
                fail(res, 400, e.what(), "invalid_request_error");
                return;
            }
            if (!submission.ticket) {
                for (const auto& ticket : tickets) {  // all of a request's choices, or none
                    ticket->cancel();
                }
                if (*submission.refusal == serve::Refusal::QueueFull) {
                    fail(res, 429, "the server's queue is full; try again later", "server_overloaded");
                } else {
                    fail(res, 503, "the server is shutting down", "server_unavailable");
                }
                return;
            }
            tickets.push_back(submission.ticket);
        }
        const serve::CompletionIds ids{(chat ? "chatcmpl-" : "cmpl-") + std::to_string(next_id_++),
                                       std::chrono::duration_cast<std::chrono::seconds>(
                                           std::chrono::system_clock::now().time_since_epoch())
                                           .count(),
                                       options_.name};
        Format format = chat ? chat_format() : completion_format();
        format.logprobs = request.logprobs.has_value();
        if (request.stream) {
            stream(res, outbox, std::move(tickets), ids, format, request.include_usage, prompt_tokens);
        } else {
            answer_whole(res, *outbox, ids, format, prompt_tokens);
        }
    }

    // Log-probabilities of a piece's tokens as an event carries them: with logprobs asked
    // for, a list (empty for text a stop string held back); without, none.
    using EventLogprobs = std::optional<std::vector<serve::ScoredToken>>;

    // How one endpoint writes its answers: the whole body, and the events of a stream
    // (an opening one per choice, one per piece, a closing one with the finish reason),
    // each event for the choice of the given index.
    struct Format {
        const char* chunk_object;
        std::function<std::string(const serve::CompletionIds&, const std::vector<serve::ChoiceText>&, std::int64_t,
                                  std::int64_t)>
            whole;
        std::function<std::string(const serve::CompletionIds&, std::int64_t)> opening;  // empty string: none
        std::function<std::string(const serve::CompletionIds&, std::string_view, std::int64_t, const EventLogprobs&)>
            piece;
        std::function<std::string(const serve::CompletionIds&, std::string_view, std::int64_t)> closing;
        bool logprobs = false;  // the request asked for log-probabilities
    };

    static Format completion_format() {
        return {"text_completion",
                [](const serve::CompletionIds& ids, const std::vector<serve::ChoiceText>& choices, std::int64_t prompt,
                   std::int64_t completion) { return serve::completion_body(ids, choices, prompt, completion); },
                [](const serve::CompletionIds&, std::int64_t) { return std::string(); },
                [](const serve::CompletionIds& ids, std::string_view text, std::int64_t index,
                   const EventLogprobs& logprobs) {
                    return serve::completion_event(ids, text, std::nullopt, index, logprobs);
                },
                [](const serve::CompletionIds& ids, std::string_view reason, std::int64_t index) {
                    return serve::completion_event(ids, "", reason, index);
                }};
    }

    // OpenAI's chat stream: the role first, then the content, then an empty delta with
    // the finish reason.
    static Format chat_format() {
        return {"chat.completion.chunk",
                [](const serve::CompletionIds& ids, const std::vector<serve::ChoiceText>& choices, std::int64_t prompt,
                   std::int64_t completion) { return serve::chat_completion_body(ids, choices, prompt, completion); },
                [](const serve::CompletionIds& ids, std::int64_t index) {
                    return serve::chat_chunk_event(ids, "assistant", "", std::nullopt, index);
                },
                [](const serve::CompletionIds& ids, std::string_view text, std::int64_t index,
                   const EventLogprobs& logprobs) {
                    return serve::chat_chunk_event(ids, std::nullopt, text, std::nullopt, index, logprobs);
                },
                [](const serve::CompletionIds& ids, std::string_view reason, std::int64_t index) {
                    return serve::chat_chunk_event(ids, std::nullopt, std::nullopt, reason, index);
                }};
    }

    // The first failure among a request's choices, if any of them ended without its text.
    static std::optional<std::pair<int, std::string>> first_failure(const Outbox& outbox) {
        for (const auto& end : outbox.finished) {
            if (const auto problem = end ? failure(*end) : std::nullopt) {
                return problem;
            }
        }
        return std::nullopt;
    }

    static std::int64_t completion_tokens(const Outbox& outbox) {
        std::int64_t total = 0;
        for (const auto& end : outbox.finished) {
            total += end ? end->completion_tokens : 0;
        }
        return total;
    }

    // Waits for every choice to end, then answers with their whole texts.
    void answer_whole(httplib::Response& res, Outbox& outbox, const serve::CompletionIds& ids, const Format& format,
                      std::int64_t prompt_tokens) {
        std::unique_lock lock(outbox.mutex);
        outbox.changed.wait(lock, [&] { return outbox.remaining == 0; });
        if (const auto problem = first_failure(outbox)) {
            res.status = problem->first;
            res.set_content(serve::error_body(problem->second, "server_error"), "application/json");
            return;
        }
        std::vector<serve::ChoiceText> choices(outbox.finished.size());
        for (serve::ChoiceText& choice : choices) {
            choice.logprobs = format.logprobs ? EventLogprobs(std::vector<serve::ScoredToken>{}) : std::nullopt;
        }
        for (const Piece& piece : outbox.pieces) {
            choices[piece.choice].text += piece.text;
            if (format.logprobs) {
                auto& tokens = *choices[piece.choice].logprobs;
                tokens.insert(tokens.end(), piece.tokens.begin(), piece.tokens.end());
            }
        }
        for (std::size_t c = 0; c < choices.size(); ++c) {
            choices[c].finish_reason = serve::finish_reason_name(outbox.finished[c]->reason, outbox.stop_string_met[c]);
        }
        res.set_content(format.whole(ids, choices, prompt_tokens, completion_tokens(outbox)), "application/json");
    }

    // Sends each piece of text as an event as soon as it is decoded. A client that goes
    // away is noticed at the next write (a comment line every half second keeps a waiting
    // stream checking), and one that stops reading at the write that does not finish within
    // --write-timeout; either way its request is cancelled, which frees its place.
    void stream(httplib::Response& res, std::shared_ptr<Outbox> outbox,
                std::vector<std::shared_ptr<serve::Ticket>> tickets, const serve::CompletionIds& ids,
                const Format& format, bool include_usage, std::int64_t prompt_tokens) {
        res.set_header("Cache-Control", "no-cache");
        const auto cancel = [tickets] {
            for (const auto& ticket : tickets) {
                ticket->cancel();
            }
        };
        res.set_chunked_content_provider(
            "text/event-stream",
            [outbox, cancel, ids, format, include_usage, prompt_tokens](std::size_t, httplib::DataSink& sink) {
                auto send = [&](const std::string& event) { return sink.write(event.data(), event.size()); };
                const std::size_t choices = outbox->finished.size();
                for (std::size_t c = 0; c < choices; ++c) {
                    if (const std::string opening = format.opening(ids, static_cast<std::int64_t>(c));
                        !opening.empty() && !send(opening)) {
                        cancel();
                        return false;
                    }
                }
                std::vector<bool> closed(choices, false);
                std::size_t open = choices;
                while (open > 0) {
                    // The text is taken under the lock and written with it released: a client
                    // that reads slowly then holds up its own handler only. The scheduler's
                    // thread takes this lock to hand over each token's text, so a write made
                    // while holding it would stall every stream behind this one socket.
                    std::deque<Piece> ready;
                    std::vector<std::pair<std::size_t, std::string>> endings;  // choice, finish reason
                    std::optional<std::pair<int, std::string>> problem;
                    {
                        std::unique_lock lock(outbox->mutex);
                        outbox->changed.wait_for(lock, std::chrono::milliseconds(500), [&] {
                            return !outbox->pieces.empty() || outbox->remaining < open;
                        });
                        ready.swap(outbox->pieces);
                        for (std::size_t c = 0; c < choices; ++c) {
                            if (!closed[c] && outbox->finished[c]) {
                                closed[c] = true;
                                --open;
                                problem = problem ? problem : failure(*outbox->finished[c]);
                                endings.emplace_back(c, serve::finish_reason_name(outbox->finished[c]->reason,
                                                                                  outbox->stop_string_met[c]));
                            }
                        }
                    }
                    for (const Piece& piece : ready) {
                        const EventLogprobs logprobs = format.logprobs ? EventLogprobs(piece.tokens) : std::nullopt;
                        if (!send(format.piece(ids, piece.text, static_cast<std::int64_t>(piece.choice), logprobs))) {
                            cancel();
                            return false;
                        }
                    }
                    if (problem) {
                        cancel();  // the others cannot make a whole answer either
                        send("data: " + serve::error_body(problem->second, "server_error") + "\n\n");
                        send(serve::done_event());
                        sink.done();
                        return true;
                    }
                    for (const auto& [choice, reason] : endings) {
                        if (!send(format.closing(ids, reason, static_cast<std::int64_t>(choice)))) {
                            cancel();
                            return false;
                        }
                    }
                    if (ready.empty() && endings.empty() && !send(": waiting\n\n")) {
                        cancel();
                        return false;
                    }
                }
                if (include_usage) {
                    const std::lock_guard lock(outbox->mutex);
                    send(serve::usage_event(ids, format.chunk_object, prompt_tokens, completion_tokens(*outbox)));
                }
                send(serve::done_event());
                sink.done();
                return true;
            },
            [cancel](bool success) {
                if (!success) {
                    cancel();
                }
            });
    }

    // The status and message of a request that ended without its completion.
    static std::optional<std::pair<int, std::string>> failure(const serve::Finished& end) {
        switch (end.reason) {
            case serve::FinishReason::Error: return std::pair{500, "generation failed: " + end.error};
            case serve::FinishReason::Shutdown: return std::pair{503, std::string("the server shut down")};
            case serve::FinishReason::Cancelled: return std::pair{499, std::string("the request was cancelled")};
            case serve::FinishReason::Length:
            case serve::FinishReason::StopToken:
            case serve::FinishReason::ContextFull:
            case serve::FinishReason::Callback: return std::nullopt;
        }
        return std::nullopt;
    }

    Options options_;
    std::shared_ptr<kael::nn::GPT> model_;
    kael::text::GPT2Tokenizer tokenizer_;
    serve::Scheduler scheduler_;
    serve::ServerMetrics metrics_;
    httplib::Server http_;
    std::atomic<bool> stopping_{false};
    std::atomic<std::int64_t> next_id_{1};
    const std::int64_t started_ = std::chrono::duration_cast<std::chrono::seconds>(
                                      std::chrono::system_clock::now().time_since_epoch())
                                      .count();
    std::mutex seed_mutex_;
    std::mt19937_64 seeds_;
    std::mutex shutdown_mutex_;
    std::condition_variable shutdown_done_;
    bool drained_ = false;
};

}  // namespace

int main(int argc, char** argv) try {
    if (argc > 0 && !std::filesystem::path(argv[0]).filename().empty()) {
        program = std::filesystem::path(argv[0]).filename().string();
    }
    const Options o = parse(argc, argv);
    // SIGINT and SIGTERM are taken by one thread with sigwait, so a signal never lands in
    // the middle of a kernel or a lock; every thread started after this inherits the mask.
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    std::signal(SIGPIPE, SIG_IGN);  // a client that hangs up is an error on write, not a signal
    if (o.threads) {
        kael::set_num_threads(*o.threads);
    }
    kael::text::GPT2Tokenizer tokenizer = kael::text::GPT2Tokenizer::from_directory(o.model);
    std::shared_ptr<kael::nn::GPT> model = kael::nn::load_gpt2(o.model);
    KAEL_CHECK_VALUE(tokenizer.vocab_size() <= model->config().vocab_size,
                     "the tokenizer has " << tokenizer.vocab_size() << " tokens, more than the model's "
                                          << model->config().vocab_size);
    Server server(o, std::move(model), std::move(tokenizer));
    std::thread signal_waiter([&] {
        int signal = 0;
        sigwait(&signals, &signal);
        std::cout << program << ": signal " << signal << ", shutting down" << std::endl;
        server.shutdown();
    });
    if (!server.listen()) {
        std::cerr << program << ": cannot listen on " << o.host << ":" << o.port << "\n";
        pthread_kill(signal_waiter.native_handle(), SIGTERM);
        signal_waiter.join();
        return 1;
    }
    signal_waiter.join();
    std::cout << program << ": stopped" << std::endl;
    return 0;
} catch (const std::exception& error) {
    std::cerr << program << ": " << error.what() << "\n";
    return 1;
}

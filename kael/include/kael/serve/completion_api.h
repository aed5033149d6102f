#pragma once
/// \file
/// \brief The OpenAI completion API's requests and responses, without the HTTP
/// (chapter 13): a body parsed and checked into a GenerationRequest, and the JSON a
/// server sends back.
///
/// The server speaks the API of OpenAI's POST /v1/completions, so that `curl` and the
/// clients written for it work unchanged. Parsing is kept apart from the HTTP library:
/// every rule a request must meet is a function of its text alone, tested without a socket.

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "kael/nn/gpt.h"
#include "kael/serve/scheduler.h"
#include "kael/serve/token_scores.h"
#include "kael/text/gpt2_tokenizer.h"

namespace kael::serve {

/// A request the client got wrong, with the HTTP status to answer, the parameter at fault
/// and OpenAI's error code (each empty when there is none): 400 for a bad body, 404 with
/// code "model_not_found" for a model the server does not serve, and so on.
class RequestError : public std::runtime_error {
public:
    /// `message` is what the client reads.
    RequestError(int status, const std::string& message, std::string param = {}, std::string code = {})
        : std::runtime_error(message), status_(status), param_(std::move(param)), code_(std::move(code)) {}
    /// The HTTP status code.
    [[nodiscard]] int status() const noexcept { return status_; }
    /// The request parameter the error is about, or empty.
    [[nodiscard]] const std::string& param() const noexcept { return param_; }
    /// OpenAI's machine-readable code ("model_not_found"), or empty.
    [[nodiscard]] const std::string& code() const noexcept { return code_; }

private:
    int status_;
    std::string param_;
    std::string code_;
};

/// The most stop strings a request may give, as in OpenAI's API.
inline constexpr std::size_t kMaxStopStrings = 4;
/// The most alternatives `logprobs` may ask for per token on the completion endpoint (5, as
/// OpenAI's).
inline constexpr std::int64_t kMaxCompletionLogprobs = 5;
/// The most alternatives `top_logprobs` may ask for per token on the chat endpoint (20).
inline constexpr std::int64_t kMaxChatTopLogprobs = 20;
/// The most choices one request may ask for (`n` times the number of prompts): each is a
/// sequence of its own in the scheduler, with its own cache.
inline constexpr std::int64_t kMaxChoices = 16;

/// One prompt: a text, or its token ids.
using Prompt = std::variant<std::string, std::vector<std::int64_t>>;

/// A POST /v1/completions body, checked field by field.
struct CompletionRequest {
    std::string model;  ///< checked by check_model, echoed back
    /// The texts to continue, or their token ids: one prompt, or a list of them. An empty
    /// text means "<|endoftext|>", the start of a new document, as OpenAI's API reads it.
    std::vector<Prompt> prompts = {Prompt(std::string())};
    std::int64_t n = 1;                 ///< choices per prompt, 1 .. kMaxChoices in all
    std::optional<std::int64_t> best_of;  ///< accepted only equal to n
    std::int64_t max_tokens = 16;       ///< >= 1, or 0 with echo (to score the prompt)
    double temperature = 1.0;           ///< 0 .. 2; 0 is greedy
    double top_p = 1.0;                 ///< (0, 1]
    std::optional<std::int64_t> top_k;  ///< >= 1 when given (not in OpenAI's API; as in vLLM's)
    std::optional<std::uint64_t> seed;  ///< >= 0; without, the server picks one
    std::vector<std::string> stop;      ///< up to four non-empty strings
    bool stream = false;                ///< send server-sent events as tokens arrive
    /// stream_options.include_usage: a last event with the token counts and no choices.
    bool include_usage = false;
    bool stream_options_given = false;  ///< stream_options was in the body (it needs stream)
    /// The answer's text starts with the prompt's (and, with logprobs, its tokens with theirs).
    bool echo = false;
    /// Report each token's log-probability with this many alternatives (0 .. 5 here; the chat
    /// endpoint's top_logprobs, 0 .. 20, lands here too); unset reports none.
    std::optional<std::int64_t> logprobs;
    LogitAdjustments adjustments;  ///< presence_penalty, frequency_penalty and logit_bias (-2 .. 2, -100 .. 100)
};

/// Parses and checks `body`. RequestError 400 naming the parameter for a body that is not
/// a JSON object, an unknown parameter, a parameter of the wrong JSON type (an integer
/// must be a JSON integer: 16.5, "16" and true are refused), a value out of range (a
/// logit_bias key that is not a token id included), max_tokens 0 without echo,
/// stream_options without stream, more than kMaxChoices choices in all, best_of other
/// than n, or suffix, which this server does not have.
[[nodiscard]] CompletionRequest parse_completion_request(std::string_view body);

/// RequestError 404 with OpenAI's code "model_not_found" unless `requested` is the name
/// the server serves (`served`). An empty `requested` (no "model" given) is accepted.
void check_model(std::string_view requested, std::string_view served);

/// The body of GET /v1/models: OpenAI's list with the one model the server serves.
[[nodiscard]] std::string models_body(std::string_view name, std::int64_t created);
/// The body of GET /v1/models/{name}: the model itself.
[[nodiscard]] std::string model_body(std::string_view name, std::int64_t created);

/// The request as the scheduler takes it: the prompt encoded (or its ids checked), the
/// sampling options, penalties, bias and log-probabilities asked for (the prompt's with
/// echo and logprobs), and the stop token (<|endoftext|>, which ends every completion as
/// in OpenAI's API). `seed` is used when the request has none. RequestError 400 when the
/// prompt's tokens and max_tokens together pass the model's context, with the numbers,
/// for an id outside the vocabulary (in the prompt or the logit bias), and for a prompt
/// that is not UTF-8.
[[nodiscard]] GenerationRequest to_generation_request(const CompletionRequest& request,
                                                      const text::GPT2Tokenizer& tokenizer,
                                                      const nn::GPTConfig& config, std::uint64_t seed);
/// The same for choice `choice` of a request with several (prompts.size() * n of them,
/// numbered as OpenAI numbers them: prompt by prompt, n choices each). Choice c of a
/// request with a seed is sampled with seed + c, so the choices differ and each is
/// reproducible.
[[nodiscard]] GenerationRequest to_generation_request(const CompletionRequest& request, std::int64_t choice,
                                                      const text::GPT2Tokenizer& tokenizer,
                                                      const nn::GPTConfig& config, std::uint64_t seed);

/// "stop" or "length", the OpenAI name of how a completion ended: a stop token or stop
/// string is "stop"; the length limit and a full context are "length".
[[nodiscard]] const char* finish_reason_name(FinishReason reason, bool stop_string_met) noexcept;

/// The identity of one completion in its responses.
struct CompletionIds {
    std::string id;        ///< "cmpl-..."
    std::int64_t created;  ///< Unix time in seconds
    std::string model;     ///< the model's name
};

/// One of the most likely tokens at a position.
struct TokenAlternative {
    std::string text;   ///< the token's text (a cut character replaced by U+FFFD)
    std::string bytes;  ///< the token's bytes, unchanged
    double logprob;     ///< its log-probability there
};

/// One token of an answer with its log-probabilities, ready to be written.
struct ScoredToken {
    std::string text;               ///< the token's text (a cut character replaced by U+FFFD)
    std::string bytes;              ///< the token's bytes, unchanged
    std::optional<double> logprob;  ///< none for a prompt's first token
    std::vector<TokenAlternative> top;  ///< the most likely tokens at its position, most likely first
    std::int64_t text_offset = 0;   ///< characters before it in the prompt and completion
};

/// `scores` as a ScoredToken at `text_offset`, the texts from `tokenizer`. With
/// `drawn_among_top` the drawn token joins `top` when it is not there already, as the
/// completion endpoint reports it (up to logprobs + 1 entries); chat's top has exactly N.
[[nodiscard]] ScoredToken scored_token(const TokenLogprobs& scores, const text::GPT2Tokenizer& tokenizer,
                                       std::int64_t text_offset, bool drawn_among_top);

/// The characters of UTF-8 `text` (its code points), as offsets into it are counted.
[[nodiscard]] std::int64_t character_count(std::string_view text) noexcept;

/// One choice of a whole answer: its text, how it ended, and its tokens' log-probabilities
/// when they were asked for.
struct ChoiceText {
    std::string text;           ///< the choice's whole text
    std::string finish_reason;  ///< "stop" or "length"
    std::optional<std::vector<ScoredToken>> logprobs = std::nullopt;  ///< with logprobs only
};

/// The body of a whole completion ("object": "text_completion", one choice, usage).
[[nodiscard]] std::string completion_body(const CompletionIds& ids, std::string_view text,
                                          std::string_view finish_reason, std::int64_t prompt_tokens,
                                          std::int64_t completion_tokens);
/// The same with several choices, indexed in order.
[[nodiscard]] std::string completion_body(const CompletionIds& ids, const std::vector<ChoiceText>& choices,
                                          std::int64_t prompt_tokens, std::int64_t completion_tokens);

/// One server-sent event of a streamed completion: "data: {json}\n\n", the text of choice
/// `index` and, in its last event, its finish reason (null before); with `logprobs`, those
/// of the tokens the event's text comes from.
[[nodiscard]] std::string completion_event(const CompletionIds& ids, std::string_view text,
                                           std::optional<std::string_view> finish_reason, std::int64_t index = 0,
                                           const std::optional<std::vector<ScoredToken>>& logprobs = std::nullopt);

/// The last event of a stream that asked for stream_options.include_usage: `object`
/// ("text_completion" or "chat.completion.chunk"), no choices, and the token counts.
[[nodiscard]] std::string usage_event(const CompletionIds& ids, std::string_view object, std::int64_t prompt_tokens,
                                      std::int64_t completion_tokens);

/// The event that ends a stream, "data: [DONE]\n\n".
[[nodiscard]] std::string done_event();

/// An error body in OpenAI's shape: {"error": {"message", "type", "param", "code"}}, with
/// null for an empty param or code.
[[nodiscard]] std::string error_body(std::string_view message, std::string_view type, std::string_view param = {},
                                     std::string_view code = {});

}  // namespace kael::serve

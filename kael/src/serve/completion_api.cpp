// The OpenAI completion API (chapter 13): request bodies checked field by field with
// nlohmann-json, and the bodies and events a server answers with.
#include "kael/serve/completion_api.h"

#include <cmath>
#include <functional>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "kael/error.h"
#include "serve/json_body.h"

namespace kael::serve {
namespace {

using nlohmann::json;

// Nesting deeper than any real request is refused while parsing, before it costs memory.
constexpr int kMaxDepth = 16;

[[noreturn]] void bad(const std::string& param, const std::string& message) {
    throw RequestError(400, message, param);
}

std::int64_t integer_field(const json& value, const std::string& name) {
    if (!value.is_number_integer()) {
        bad(name, "'" + name + "' must be an integer, got " + value.dump());
    }
    if (value.is_number_unsigned() && value.get<std::uint64_t>() > std::uint64_t{INT64_MAX}) {
        bad(name, "'" + name + "' is too large: " + value.dump());
    }
    return value.get<std::int64_t>();
}

double number_field(const json& value, const std::string& name) {
    if (!value.is_number() || !std::isfinite(value.get<double>())) {
        bad(name, "'" + name + "' must be a number, got " + value.dump());
    }
    return value.get<double>();
}

std::vector<std::int64_t> token_ids(const json& value) {
    std::vector<std::int64_t> ids;
    for (const json& id : value) {
        if (!id.is_number_integer()) {
            bad("prompt", "a prompt given as tokens must hold integers only, got " + id.dump());
        }
        ids.push_back(integer_field(id, "prompt"));
    }
    if (ids.empty()) {
        bad("prompt", "a prompt given as tokens needs at least one token");
    }
    return ids;
}

// "prompt": a text, a list of token ids, or a list of either (several prompts at once).
std::vector<Prompt> prompts_of(const json& v) {
    if (v.is_string()) {
        return {v.get<std::string>()};
    }
    if (!v.is_array() || v.empty()) {
        bad("prompt", "'prompt' must be a string, a list of token ids, or a non-empty list of either, got " +
                          v.dump());
    }
    if (v.front().is_number()) {
        return {token_ids(v)};
    }
    std::vector<Prompt> prompts;
    for (const json& one : v) {
        if (one.is_string()) {
            prompts.emplace_back(one.get<std::string>());
        } else if (one.is_array()) {
            prompts.emplace_back(token_ids(one));
        } else {
            bad("prompt", "each prompt of a list must be a string or a list of token ids, got " + one.dump());
        }
    }
    return prompts;
}

std::vector<std::string> stop_strings(const json& value) {
    std::vector<std::string> stops;
    if (value.is_string()) {
        stops.push_back(value.get<std::string>());
    } else if (value.is_array()) {
        for (const json& stop : value) {
            if (!stop.is_string()) {
                bad("stop", "'stop' must be a string or a list of strings, got " + stop.dump());
            }
            stops.push_back(stop.get<std::string>());
        }
    } else {
        bad("stop", "'stop' must be a string or a list of strings, got " + value.dump());
    }
    if (stops.size() > kMaxStopStrings) {
        bad("stop", "'stop' takes at most " + std::to_string(kMaxStopStrings) + " strings, got " +
                        std::to_string(stops.size()));
    }
    for (const std::string& stop : stops) {
        if (stop.empty()) {
            bad("stop", "a stop string must not be empty");
        }
    }
    return stops;
}

// presence_penalty and frequency_penalty: a number from -2 to 2.
double penalty(const json& value, const std::string& name) {
    const double penalty = number_field(value, name);
    if (penalty < -2 || penalty > 2) {
        bad(name, "'" + name + "' must be between -2 and 2, got " + value.dump());
    }
    return penalty;
}

// "logit_bias": {"token id": bias from -100 to 100, ...}; the ids are checked against the
// vocabulary when the request meets the model.
std::vector<std::pair<std::int64_t, double>> logit_bias(const json& value) {
    if (!value.is_object()) {
        bad("logit_bias", "'logit_bias' must be an object from token ids to numbers, got " + value.dump());
    }
    std::vector<std::pair<std::int64_t, double>> biases;
    for (const auto& [key, bias] : value.items()) {
        const bool digits = !key.empty() && key.size() <= 18 &&
                            key.find_first_not_of("0123456789") == std::string::npos;
        if (!digits) {
            bad("logit_bias", "the keys of 'logit_bias' must be token ids, got '" + key + "'");
        }
        const double number = number_field(bias, "logit_bias");
        if (number < -100 || number > 100) {
            bad("logit_bias", "a bias must be between -100 and 100, got " + bias.dump() + " for token " + key);
        }
        biases.emplace_back(std::stoll(key), number);
    }
    return biases;
}

using FieldReader = std::function<void(const json& value, CompletionRequest& request)>;

// Every parameter the endpoint knows, and how each is read.
const std::map<std::string, FieldReader>& fields() {
    static const std::map<std::string, FieldReader> readers = {
        {"model",
         [](const json& v, CompletionRequest& r) {
             if (!v.is_string()) {
                 bad("model", "'model' must be a string, got " + v.dump());
             }
             r.model = v.get<std::string>();
         }},
        {"prompt", [](const json& v, CompletionRequest& r) { r.prompts = prompts_of(v); }},
        {"max_tokens",
         [](const json& v, CompletionRequest& r) {
             r.max_tokens = integer_field(v, "max_tokens");
             if (r.max_tokens < 0) {
                 bad("max_tokens", "'max_tokens' must be at least 1 (or 0 with echo), got " + v.dump());
             }
         }},
        {"temperature",
         [](const json& v, CompletionRequest& r) {
             r.temperature = number_field(v, "temperature");
             if (r.temperature < 0 || r.temperature > 2) {
                 bad("temperature", "'temperature' must be between 0 and 2, got " + v.dump());
             }
         }},
        {"top_p",
         [](const json& v, CompletionRequest& r) {
             r.top_p = number_field(v, "top_p");
             if (!(r.top_p > 0 && r.top_p <= 1)) {
                 bad("top_p", "'top_p' must be in (0, 1], got " + v.dump());
             }
         }},
        {"top_k",
         [](const json& v, CompletionRequest& r) {
             r.top_k = integer_field(v, "top_k");
             if (*r.top_k < 1) {
                 bad("top_k", "'top_k' must be at least 1, got " + v.dump());
             }
         }},
        {"seed",
         [](const json& v, CompletionRequest& r) {
             if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<std::int64_t>() < 0)) {
                 bad("seed", "'seed' must be a non-negative integer, got " + v.dump());
             }
             r.seed = v.get<std::uint64_t>();
         }},
        {"stop", [](const json& v, CompletionRequest& r) { r.stop = stop_strings(v); }},
        {"stream",
         [](const json& v, CompletionRequest& r) {
             if (!v.is_boolean()) {
                 bad("stream", "'stream' must be true or false, got " + v.dump());
             }
             r.stream = v.get<bool>();
         }},
        {"n",
         [](const json& v, CompletionRequest& r) {
             r.n = integer_field(v, "n");
             if (r.n < 1 || r.n > kMaxChoices) {
                 bad("n", "'n' must be between 1 and " + std::to_string(kMaxChoices) + ", got " + v.dump());
             }
         }},
        {"best_of",
         [](const json& v, CompletionRequest& r) {
             r.best_of = integer_field(v, "best_of");
         }},
        {"echo",
         [](const json& v, CompletionRequest& r) {
             if (!v.is_boolean()) {
                 bad("echo", "'echo' must be true or false, got " + v.dump());
             }
             r.echo = v.get<bool>();
         }},
        {"logprobs",
         [](const json& v, CompletionRequest& r) {
             r.logprobs = integer_field(v, "logprobs");
             if (*r.logprobs < 0 || *r.logprobs > kMaxCompletionLogprobs) {
                 bad("logprobs", "'logprobs' must be between 0 and " + std::to_string(kMaxCompletionLogprobs) +
                                     ", got " + v.dump());
             }
         }},
        {"suffix", [](const json& v, CompletionRequest&) { bad("suffix", "'suffix' is not supported, got " + v.dump()); }},
        {"presence_penalty",
         [](const json& v, CompletionRequest& r) { r.adjustments.presence_penalty = penalty(v, "presence_penalty"); }},
        {"frequency_penalty",
         [](const json& v, CompletionRequest& r) { r.adjustments.frequency_penalty = penalty(v, "frequency_penalty"); }},
        {"logit_bias", [](const json& v, CompletionRequest& r) { r.adjustments.logit_bias = logit_bias(v); }},
        {"user", [](const json&, CompletionRequest&) {}},  // who asked, for the client's own records
        {"stream_options",
         [](const json& v, CompletionRequest& r) {
             if (!v.is_object()) {
                 bad("stream_options", "'stream_options' must be an object, got " + v.dump());
             }
             for (const auto& [option, value] : v.items()) {
                 if (option != "include_usage") {
                     bad("stream_options", "unrecognized stream option: '" + option + "'");
                 }
                 if (!value.is_boolean()) {
                     bad("stream_options", "'include_usage' must be true or false, got " + value.dump());
                 }
                 r.include_usage = value.get<bool>();
             }
             r.stream_options_given = true;
         }},
    };
    return readers;
}

std::string dump(const json& value) { return dump_json(value); }

// The completion endpoint's "logprobs" of a choice: four lists over its tokens; a token
// without a log-probability (the prompt's first, echoed) has null in two of them.
json completion_logprobs(const std::optional<std::vector<ScoredToken>>& tokens) {
    if (!tokens) {
        return nullptr;
    }
    json texts = json::array();
    json logprobs = json::array();
    json tops = json::array();
    json offsets = json::array();
    for (const ScoredToken& token : *tokens) {
        texts.push_back(token.text);
        logprobs.push_back(token.logprob ? json(*token.logprob) : json(nullptr));
        json top = json::object();
        for (const TokenAlternative& alternative : token.top) {
            top[alternative.text] = alternative.logprob;
        }
        tops.push_back(token.logprob ? top : json(nullptr));
        offsets.push_back(token.text_offset);
    }
    return {{"tokens", texts}, {"token_logprobs", logprobs}, {"top_logprobs", tops}, {"text_offset", offsets}};
}



}  // namespace

json parse_json_object(std::string_view body) {
    json parsed;
    try {
        parsed = json::parse(body, [](int depth, json::parse_event_t, json&) {
            if (depth >= kMaxDepth) {  // the outermost value is at depth 0
                throw RequestError(400, "the request body nests deeper than " + std::to_string(kMaxDepth) + " levels");
            }
            return true;
        });
    } catch (const json::exception& e) {
        throw RequestError(400, std::string("the request body is not valid JSON: ") + e.what());
    }
    if (!parsed.is_object()) {
        throw RequestError(400, "the request body must be a JSON object, got " + std::string(parsed.type_name()));
    }
    return parsed;
}

std::string dump_json(const json& value) { return value.dump(-1, ' ', false, json::error_handler_t::replace); }

json response_json(const CompletionIds& ids, std::string_view object, json choices,
                   std::optional<std::pair<std::int64_t, std::int64_t>> usage) {
    json body = {{"id", ids.id}, {"object", object}, {"created", ids.created}, {"model", ids.model},
                 {"choices", std::move(choices)}};
    if (usage) {
        const auto [prompt_tokens, completion_tokens] = *usage;
        body["usage"] = {{"prompt_tokens", prompt_tokens},
                         {"completion_tokens", completion_tokens},
                         {"total_tokens", prompt_tokens + completion_tokens}};
    }
    return body;
}

CompletionRequest parse_completion_request(std::string_view body) {
    const json parsed = parse_json_object(body);
    CompletionRequest request;
    for (const auto& [name, value] : parsed.items()) {
        const auto reader = fields().find(name);
        if (reader == fields().end()) {
            bad(name, "unrecognized request argument: '" + name + "'");
        }
        if (!value.is_null()) {  // null is the parameter's default, as OpenAI's API reads it
            reader->second(value, request);
        }
    }
    if (request.max_tokens == 0 && !request.echo) {
        bad("max_tokens", "'max_tokens' must be at least 1; 0 is for scoring a prompt, with 'echo'");
    }
    if (request.stream_options_given && !request.stream) {
        bad("stream_options", "'stream_options' is only allowed when 'stream' is true");
    }
    // best_of > n would rank candidates by their log-probabilities, which this server does
    // not compute; best_of == n is the same as leaving it out.
    if (request.best_of && *request.best_of != request.n) {
        bad("best_of", "'best_of' must equal 'n' (" + std::to_string(request.n) + ") on this server, got " +
                           std::to_string(*request.best_of));
    }
    const auto choices = static_cast<std::int64_t>(request.prompts.size()) * request.n;
    if (choices > kMaxChoices) {
        bad("n", "this request asks for " + std::to_string(choices) + " choices (" +
                     std::to_string(request.prompts.size()) + " prompts, n = " + std::to_string(request.n) +
                     "); the server gives at most " + std::to_string(kMaxChoices));
    }
    return request;
}

void check_model(std::string_view requested, std::string_view served) {
    if (!requested.empty() && requested != served) {
        throw RequestError(404, "The model '" + std::string(requested) + "' does not exist; this server serves '" +
                                    std::string(served) + "'",
                           "model", "model_not_found");
    }
}

namespace {

json model_object(std::string_view name, std::int64_t created) {
    return {{"id", name}, {"object", "model"}, {"created", created}, {"owned_by", "kael"}};
}

}  // namespace

std::string models_body(std::string_view name, std::int64_t created) {
    return dump(json{{"object", "list"}, {"data", json::array({model_object(name, created)})}});
}

std::string model_body(std::string_view name, std::int64_t created) { return dump(model_object(name, created)); }

GenerationRequest to_generation_request(const CompletionRequest& request, const text::GPT2Tokenizer& tokenizer,
                                        const nn::GPTConfig& config, std::uint64_t seed) {
    return to_generation_request(request, 0, tokenizer, config, seed);
}

GenerationRequest to_generation_request(const CompletionRequest& request, std::int64_t choice,
                                        const text::GPT2Tokenizer& tokenizer, const nn::GPTConfig& config,
                                        std::uint64_t seed) {
    const auto prompt_index = static_cast<std::size_t>(choice / request.n);
    KAEL_CHECK_VALUE(choice >= 0 && prompt_index < request.prompts.size(),
                     "choice " << choice << " is outside the request's " << request.prompts.size() * 
                                   static_cast<std::size_t>(request.n) << " choices");
    const Prompt& prompt = request.prompts[prompt_index];
    GenerationRequest out;
    if (const auto* text = std::get_if<std::string>(&prompt)) {
        try {
            out.prompt = tokenizer.encode(*text, /*allow_special=*/true);  // as gpt2_generate reads a prompt
        } catch (const ValueError& e) {
            bad("prompt", std::string("the prompt cannot be encoded: ") + e.what());
        }
        if (out.prompt.empty() && tokenizer.end_of_text()) {
            out.prompt.push_back(*tokenizer.end_of_text());  // a new document, as OpenAI reads ""
        }
        if (out.prompt.empty()) {
            bad("prompt", "the prompt is empty and the vocabulary has no <|endoftext|> to start from");
        }
    } else {
        out.prompt = std::get<std::vector<std::int64_t>>(prompt);
    }
    for (const std::int64_t id : out.prompt) {
        if (id < 0 || id >= config.vocab_size) {
            bad("prompt", "token " + std::to_string(id) + " is outside the vocabulary [0, " +
                              std::to_string(config.vocab_size) + ")");
        }
    }
    const auto prompt_tokens = static_cast<std::int64_t>(out.prompt.size());
    if (request.max_tokens > config.block_size - prompt_tokens) {
        std::ostringstream message;
        message << "the model's context is " << config.block_size << " tokens, and this request needs "
                << prompt_tokens + request.max_tokens << " (" << prompt_tokens << " in the prompt, "
                << request.max_tokens << " for the completion); shorten the prompt or lower max_tokens";
        bad(prompt_tokens >= config.block_size ? "prompt" : "max_tokens", message.str());
    }
    for (const auto& [token, bias] : request.adjustments.logit_bias) {
        if (token >= config.vocab_size) {
            bad("logit_bias", "logit_bias names token " + std::to_string(token) + ", outside the vocabulary [0, " +
                                  std::to_string(config.vocab_size) + ")");
        }
    }
    out.max_new_tokens = request.max_tokens;
    out.adjustments = request.adjustments;
    out.logprobs = request.logprobs;
    out.prompt_logprobs = request.echo && request.logprobs.has_value();
    out.sampling.temperature = request.temperature;
    out.sampling.top_p = request.top_p;
    out.sampling.top_k = request.top_k;
    out.seed = request.seed ? *request.seed + static_cast<std::uint64_t>(choice) : seed;
    out.stop_token = tokenizer.end_of_text();
    return out;
}

std::int64_t character_count(std::string_view text) noexcept {
    std::int64_t count = 0;
    for (const char c : text) {
        count += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;  // a byte that starts a character
    }
    return count;
}

ScoredToken scored_token(const TokenLogprobs& scores, const text::GPT2Tokenizer& tokenizer, std::int64_t text_offset,
                         bool drawn_among_top) {
    const auto alternative = [&](std::int64_t token, double logprob) {
        const std::int64_t one[] = {token};
        return TokenAlternative{tokenizer.decode(one), std::string(tokenizer.token_bytes(token)), logprob};
    };
    const std::int64_t drawn[] = {scores.token};
    ScoredToken scored{tokenizer.decode(drawn), std::string(tokenizer.token_bytes(scores.token)), scores.logprob, {},
                       text_offset};
    bool drawn_listed = false;
    for (const auto& [token, logprob] : scores.top) {
        scored.top.push_back(alternative(token, logprob));
        drawn_listed = drawn_listed || token == scores.token;
    }
    if (drawn_among_top && !drawn_listed && scores.logprob) {
        scored.top.push_back(alternative(scores.token, *scores.logprob));
    }
    return scored;
}

const char* finish_reason_name(FinishReason reason, bool stop_string_met) noexcept {
    if (stop_string_met || reason == FinishReason::StopToken) {
        return "stop";
    }
    return "length";
}

std::string completion_body(const CompletionIds& ids, std::string_view text, std::string_view finish_reason,
                            std::int64_t prompt_tokens, std::int64_t completion_tokens) {
    return completion_body(ids, {ChoiceText{std::string(text), std::string(finish_reason), std::nullopt}}, prompt_tokens,
                           completion_tokens);
}

std::string completion_body(const CompletionIds& ids, const std::vector<ChoiceText>& choices,
                            std::int64_t prompt_tokens, std::int64_t completion_tokens) {
    json listed = json::array();
    for (std::size_t i = 0; i < choices.size(); ++i) {
        listed.push_back({{"text", choices[i].text},
                          {"index", i},
                          {"logprobs", completion_logprobs(choices[i].logprobs)},
                          {"finish_reason", choices[i].finish_reason}});
    }
    const json body = response_json(ids, "text_completion", listed, std::pair{prompt_tokens, completion_tokens});
    return dump(body);
}

std::string completion_event(const CompletionIds& ids, std::string_view text,
                             std::optional<std::string_view> finish_reason, std::int64_t index,
                             const std::optional<std::vector<ScoredToken>>& logprobs) {
    const json reason = finish_reason ? json(*finish_reason) : json(nullptr);
    const json choice = {
        {"text", text}, {"index", index}, {"logprobs", completion_logprobs(logprobs)}, {"finish_reason", reason}};
    return "data: " + dump(response_json(ids, "text_completion", json::array({choice}))) + "\n\n";
}

std::string usage_event(const CompletionIds& ids, std::string_view object, std::int64_t prompt_tokens,
                        std::int64_t completion_tokens) {
    const json body = response_json(ids, object, json::array(), std::pair{prompt_tokens, completion_tokens});
    return "data: " + dump(body) + "\n\n";
}

std::string done_event() { return "data: [DONE]\n\n"; }

std::string error_body(std::string_view message, std::string_view type, std::string_view param,
                       std::string_view code) {
    const json error = {{"message", message},
                        {"type", type},
                        {"param", param.empty() ? json(nullptr) : json(param)},
                        {"code", code.empty() ? json(nullptr) : json(code)}};
    return dump(json{{"error", error}});
}

}  // namespace kael::serve

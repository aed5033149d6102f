// OpenAI's chat completion API over a base model (chapter 13). The chat-only parameters
// are read here; everything the two endpoints share goes through the completion
// endpoint's own parser, so the two cannot drift apart.
#include "kael/serve/chat_api.h"

#include <set>

#include <nlohmann/json.hpp>

#include "kael/error.h"
#include "serve/json_body.h"

namespace kael::serve {
namespace {

using nlohmann::json;

[[noreturn]] void bad(const std::string& param, const std::string& message) {
    throw RequestError(400, message, param);
}

// A message's text: a string, or the text parts of a list of content parts.
std::string message_text(const json& content, std::size_t index) {
    const std::string where = "messages[" + std::to_string(index) + "].content";
    if (content.is_string()) {
        return content.get<std::string>();
    }
    if (!content.is_array()) {
        bad(where, "'" + where + "' must be a string or a list of text parts, got " + content.dump());
    }
    std::string text;
    for (const json& part : content) {
        if (!part.is_object() || part.value("type", "") != "text" || !part.contains("text") ||
            !part["text"].is_string()) {
            bad(where, "this server reads text parts only ({\"type\": \"text\", \"text\": ...}), got " + part.dump());
        }
        text += part["text"].get<std::string>();
    }
    return text;
}

std::vector<ChatMessage> messages_of(const json& value) {
    if (!value.is_array() || value.empty()) {
        bad("messages", "'messages' must be a non-empty list of messages, got " + value.dump());
    }
    static const std::set<std::string> roles = {"system", "developer", "user", "assistant"};
    std::vector<ChatMessage> messages;
    for (std::size_t i = 0; i < value.size(); ++i) {
        const json& message = value[i];
        const std::string where = "messages[" + std::to_string(i) + "]";
        if (!message.is_object() || !message.contains("role") || !message["role"].is_string()) {
            bad(where, "'" + where + "' must be an object with a 'role', got " + message.dump());
        }
        const std::string role = message["role"].get<std::string>();
        if (roles.count(role) == 0) {
            bad(where + ".role", "role '" + role + "' is not supported; this server takes system, developer, "
                                 "user and assistant messages");
        }
        if (!message.contains("content") || message["content"].is_null()) {
            bad(where + ".content", "'" + where + "' has no content");
        }
        messages.push_back({role, message_text(message["content"], i)});
    }
    return messages;
}

// "logprobs": true and "top_logprobs": 0 .. 20 (which needs logprobs) as the count of
// alternatives to report, or none; both leave `parsed`.
std::optional<std::int64_t> chat_logprobs(json& parsed) {
    const json wanted = parsed.contains("logprobs") ? parsed["logprobs"] : json(nullptr);
    const json top = parsed.contains("top_logprobs") ? parsed["top_logprobs"] : json(nullptr);
    parsed.erase("logprobs");
    parsed.erase("top_logprobs");
    if (!wanted.is_null() && !wanted.is_boolean()) {
        bad("logprobs", "'logprobs' must be true or false, got " + wanted.dump());
    }
    const bool on = wanted.is_boolean() && wanted.get<bool>();
    if (top.is_null()) {
        return on ? std::optional<std::int64_t>(0) : std::nullopt;
    }
    if (!top.is_number_integer() || top.get<std::int64_t>() < 0 || top.get<std::int64_t>() > kMaxChatTopLogprobs) {
        bad("top_logprobs", "'top_logprobs' must be an integer between 0 and " + std::to_string(kMaxChatTopLogprobs) +
                                ", got " + top.dump());
    }
    if (!on) {
        bad("top_logprobs", "'top_logprobs' needs 'logprobs' to be true");
    }
    return top.get<std::int64_t>();
}

// The chat endpoint's "logprobs" of a choice or chunk: {"content": [one entry per token]},
// each with its bytes as a list of numbers, as OpenAI writes them.
json chat_logprobs_json(const std::optional<std::vector<ScoredToken>>& tokens) {
    if (!tokens) {
        return nullptr;
    }
    const auto byte_list = [](const std::string& bytes) {
        json list = json::array();
        for (const char c : bytes) {
            list.push_back(static_cast<int>(static_cast<unsigned char>(c)));
        }
        return list;
    };
    json content = json::array();
    for (const ScoredToken& token : *tokens) {
        json top = json::array();
        for (const TokenAlternative& alternative : token.top) {
            top.push_back({{"token", alternative.text},
                           {"logprob", alternative.logprob},
                           {"bytes", byte_list(alternative.bytes)}});
        }
        content.push_back({{"token", token.text},
                           {"logprob", token.logprob.value_or(0.0)},
                           {"bytes", byte_list(token.bytes)},
                           {"top_logprobs", top}});
    }
    return {{"content", content}, {"refusal", nullptr}};
}

}  // namespace

ChatRequest parse_chat_request(std::string_view body, const ChatTemplate& chat_template) {
    json parsed = parse_json_object(body);
    ChatRequest request;
    if (!parsed.contains("messages")) {
        bad("messages", "a chat completion needs 'messages'");
    }
    request.messages = messages_of(parsed["messages"]);
    parsed.erase("messages");
    // Parameters of the completion endpoint that chat does not have.
    for (const char* name : {"prompt", "echo", "suffix", "best_of"}) {
        if (parsed.contains(name)) {
            bad(name, "unrecognized request argument: '" + std::string(name) + "'");
        }
    }
    for (const char* name : {"tools", "tool_choice", "functions", "function_call"}) {
        if (parsed.contains(name) && !parsed[name].is_null()) {
            bad(name, "'" + std::string(name) + "' is not supported by this server");
        }
        parsed.erase(name);
    }
    // Chat asks for log-probabilities with a flag and counts the alternatives apart.
    const std::optional<std::int64_t> top_logprobs = chat_logprobs(parsed);
    if (parsed.contains("response_format")) {
        const json& format = parsed["response_format"];
        if (!format.is_null() && !(format.is_object() && format.value("type", "") == "text" && format.size() == 1)) {
            bad("response_format", "only {\"type\": \"text\"} is supported, got " + format.dump());
        }
        parsed.erase("response_format");
    }
    if (parsed.contains("max_completion_tokens")) {
        if (parsed.contains("max_tokens") && !parsed["max_tokens"].is_null()) {
            bad("max_completion_tokens", "give 'max_completion_tokens' or 'max_tokens', not both");
        }
        parsed["max_tokens"] = parsed["max_completion_tokens"];
        parsed.erase("max_completion_tokens");
    }
    request.options = parse_completion_request(dump_json(parsed));
    request.options.logprobs = top_logprobs;
    request.options.prompts = {render_chat_prompt(request.messages, chat_template)};
    request.options.stop.insert(request.options.stop.end(), chat_template.stop.begin(), chat_template.stop.end());
    return request;
}

std::string render_chat_prompt(const std::vector<ChatMessage>& messages, const ChatTemplate& chat_template) {
    std::string prompt;
    for (const ChatMessage& message : messages) {
        const ChatTemplate::Role& role = message.role == "user"        ? chat_template.user
                                         : message.role == "assistant" ? chat_template.assistant
                                                                       : chat_template.system;  // or developer
        prompt += role.prefix + message.content + role.suffix;
    }
    return prompt + chat_template.generation_prompt;
}

ChatTemplate parse_chat_template(std::string_view text) {
    json parsed;
    try {
        parsed = json::parse(text);
    } catch (const json::exception& e) {
        throw ValueError(std::string("a chat template must be JSON: ") + e.what());
    }
    KAEL_CHECK_VALUE(parsed.is_object(), "a chat template must be a JSON object, got " << parsed.type_name());
    const auto text_of = [](const json& value, const std::string& name) {
        KAEL_CHECK_VALUE(value.is_string(), "chat template: '" << name << "' must be a string, got " << value.dump());
        return value.get<std::string>();
    };
    ChatTemplate result;
    for (const auto& [name, value] : parsed.items()) {
        if (name == "system" || name == "user" || name == "assistant") {
            ChatTemplate::Role& role = name == "system" ? result.system : name == "user" ? result.user : result.assistant;
            KAEL_CHECK_VALUE(value.is_object(), "chat template: '" << name << "' must be an object with 'prefix' and "
                                                                   "'suffix', got " << value.dump());
            for (const auto& [part, piece] : value.items()) {
                KAEL_CHECK_VALUE(part == "prefix" || part == "suffix",
                                 "chat template: '" << name << "' takes 'prefix' and 'suffix', not '" << part << "'");
                (part == "prefix" ? role.prefix : role.suffix) = text_of(piece, name + "." + part);
            }
        } else if (name == "generation_prompt") {
            result.generation_prompt = text_of(value, name);
        } else if (name == "stop") {
            KAEL_CHECK_VALUE(value.is_array() && value.size() <= kMaxStopStrings,
                             "chat template: 'stop' must be a list of at most " << kMaxStopStrings << " strings");
            result.stop.clear();
            for (const json& stop : value) {
                result.stop.push_back(text_of(stop, "stop"));
                KAEL_CHECK_VALUE(!result.stop.back().empty(), "chat template: a stop string must not be empty");
            }
        } else {
            throw ValueError("chat template: unknown field '" + name +
                             "' (it takes system, user, assistant, generation_prompt and stop)");
        }
    }
    return result;
}

std::string chat_completion_body(const CompletionIds& ids, std::string_view content, std::string_view finish_reason,
                                 std::int64_t prompt_tokens, std::int64_t completion_tokens) {
    return chat_completion_body(ids, {ChoiceText{std::string(content), std::string(finish_reason), std::nullopt}},
                                prompt_tokens,
                                completion_tokens);
}

std::string chat_completion_body(const CompletionIds& ids, const std::vector<ChoiceText>& choices,
                                 std::int64_t prompt_tokens, std::int64_t completion_tokens) {
    json listed = json::array();
    for (std::size_t i = 0; i < choices.size(); ++i) {
        listed.push_back({{"index", i},
                          {"message", {{"role", "assistant"}, {"content", choices[i].text}, {"refusal", nullptr}}},
                          {"logprobs", chat_logprobs_json(choices[i].logprobs)},
                          {"finish_reason", choices[i].finish_reason}});
    }
    const json body = response_json(ids, "chat.completion", listed, std::pair{prompt_tokens, completion_tokens});
    return dump_json(body);
}

std::string chat_chunk_event(const CompletionIds& ids, std::optional<std::string_view> role,
                             std::optional<std::string_view> content, std::optional<std::string_view> finish_reason,
                             std::int64_t index, const std::optional<std::vector<ScoredToken>>& logprobs) {
    json delta = json::object();
    if (role) {
        delta["role"] = *role;
    }
    if (content) {
        delta["content"] = *content;
    }
    const json choice = {{"index", index},
                         {"delta", delta},
                         {"logprobs", chat_logprobs_json(logprobs)},
                         {"finish_reason", finish_reason ? json(*finish_reason) : json(nullptr)}};
    const json body = response_json(ids, "chat.completion.chunk", json::array({choice}));
    return "data: " + dump_json(body) + "\n\n";
}

}  // namespace kael::serve

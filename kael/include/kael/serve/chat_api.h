#pragma once
/// \file
/// \brief OpenAI's chat completion API for a base model (chapter 13): messages checked and
/// rendered into one prompt by a documented template, and the bodies and events of
/// POST /v1/chat/completions.
///
/// GPT-2 was trained on plain text and knows no chat format, so the template is plain text
/// too. Each message becomes one paragraph of a transcript, and the prompt ends where the
/// assistant's next turn begins:
///
///     <system or developer message>\n\n     (each one, first)
///     User: <user message>\n
///     Assistant: <assistant message>\n
///     ...
///     Assistant:
///
/// A base model that has written its turn tends to go on with the user's next one, so
/// "\nUser:" is one more stop string of every chat request, beside the client's own.
///
/// A model tuned on another format takes another template (ChatTemplate, read from JSON by
/// parse_chat_template; the server's --chat-template FILE).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kael/serve/completion_api.h"

namespace kael::serve {

/// One message of a conversation; the role is "system", "developer", "user" or "assistant".
struct ChatMessage {
    std::string role;     ///< system, developer, user or assistant
    std::string content;  ///< the message's text
};

/// A POST /v1/chat/completions body: the messages, and the options shared with the
/// completion endpoint (`options.prompt` holds the rendered transcript).
struct ChatRequest {
    std::vector<ChatMessage> messages;  ///< the conversation, in order
    CompletionRequest options;          ///< the rendered prompt and the shared parameters
};

/// The stop string that ends the assistant's turn where the user's would begin.
inline constexpr std::string_view kChatTurnEnd = "\nUser:";

/// How a conversation becomes a prompt: each message between its role's prefix and suffix
/// (developer messages as system ones), then the text that opens the assistant's turn; the
/// stop strings end that turn. The defaults are kael's transcript above.
struct ChatTemplate {
    /// What comes before and after a message of one role.
    struct Role {
        std::string prefix;  ///< before the message's text
        std::string suffix;  ///< after it
    };
    Role system{"", "\n\n"};                                   ///< system and developer messages
    Role user{"User: ", "\n"};                                  ///< the user's
    Role assistant{"Assistant: ", "\n"};                        ///< the assistant's earlier turns
    std::string generation_prompt = "Assistant:";               ///< opens the turn to write
    std::vector<std::string> stop{std::string(kChatTurnEnd)};  ///< end it, beside the client's
};

/// A template from JSON text: an object with any of "system", "user" and "assistant" (each
/// an object with "prefix" and "suffix" strings), "generation_prompt" (a string) and "stop"
/// (a list of up to 4 non-empty strings); what is not given keeps the default. ValueError
/// naming the field for anything else. For ChatML, say:
///
///     {"system": {"prefix": "<|im_start|>system\n", "suffix": "<|im_end|>\n"},
///      "user": {"prefix": "<|im_start|>user\n", "suffix": "<|im_end|>\n"},
///      "assistant": {"prefix": "<|im_start|>assistant\n", "suffix": "<|im_end|>\n"},
///      "generation_prompt": "<|im_start|>assistant\n", "stop": ["<|im_end|>"]}
[[nodiscard]] ChatTemplate parse_chat_template(std::string_view text);

/// Parses and checks `body`, rendering the messages with `chat_template`, whose stop strings
/// join the client's. RequestError 400 naming the parameter for missing or empty
/// `messages`, a message without a known role or without text content (a string, or a
/// list of {"type": "text", "text": ...} parts), a tool message or tools, a logprobs that
/// is not a boolean, a top_logprobs outside 0 .. 20 or without logprobs, and everything
/// parse_completion_request refuses. logprobs with top_logprobs N land in
/// `options.logprobs` as N (0 without top_logprobs). `max_completion_tokens` is read as
/// `max_tokens`; the completion endpoint's `prompt`, `echo`, `suffix` and `best_of` are
/// not chat parameters and are refused as unknown.
[[nodiscard]] ChatRequest parse_chat_request(std::string_view body, const ChatTemplate& chat_template = {});

/// The prompt of `messages` under `chat_template` (by default the transcript above).
[[nodiscard]] std::string render_chat_prompt(const std::vector<ChatMessage>& messages,
                                             const ChatTemplate& chat_template = {});

/// The body of a whole chat completion ("object": "chat.completion", one choice whose
/// message is the assistant's, usage).
[[nodiscard]] std::string chat_completion_body(const CompletionIds& ids, std::string_view content,
                                               std::string_view finish_reason, std::int64_t prompt_tokens,
                                               std::int64_t completion_tokens);
/// The same with several choices (n), indexed in order.
[[nodiscard]] std::string chat_completion_body(const CompletionIds& ids, const std::vector<ChoiceText>& choices,
                                               std::int64_t prompt_tokens, std::int64_t completion_tokens);

/// One event of a streamed chat completion, as OpenAI sends them: the first carries the
/// role ({"role": "assistant", "content": ""}), the next ones the content (with
/// `logprobs`, those of the tokens it comes from), and the last an empty delta with the
/// finish reason.
[[nodiscard]] std::string chat_chunk_event(const CompletionIds& ids, std::optional<std::string_view> role,
                                           std::optional<std::string_view> content,
                                           std::optional<std::string_view> finish_reason, std::int64_t index = 0,
                                           const std::optional<std::vector<ScoredToken>>& logprobs = std::nullopt);

}  // namespace kael::serve

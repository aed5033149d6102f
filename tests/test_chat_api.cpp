// OpenAI's chat completion API and the model endpoints without the HTTP (chapter 13): the
// messages a request must carry, the template that turns them into a prompt, the
// parameters shared with the completion endpoint, and the shapes of what is sent back.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>

#include "kael/serve/chat_api.h"
#include "kael/serve/completion_api.h"

namespace {

using kael::serve::RequestError;
using kael::serve::parse_chat_request;
using nlohmann::json;

// The status and parameter of the RequestError that parsing `body` throws.
std::pair<int, std::string> chat_refusal(const std::string& body) {
    try {
        (void)parse_chat_request(body);
    } catch (const RequestError& e) {
        return {e.status(), e.param()};
    }
    ADD_FAILURE() << "accepted: " << body;
    return {0, ""};
}

// The JSON of one server-sent event, without "data: " and the blank line.
json event_json(const std::string& event) {
    EXPECT_EQ(event.rfind("data: ", 0), 0u);
    EXPECT_EQ(event.substr(event.size() - 2), "\n\n");
    return json::parse(event.substr(6, event.size() - 8));
}

const kael::serve::CompletionIds kIds{"chatcmpl-1", 1700000000, "gpt2"};

TEST(ChatApi, MessagesBecomeATranscriptEndingWhereTheAssistantSpeaks) {
    const auto request = parse_chat_request(R"({"model": "gpt2", "messages": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hello"},
        {"role": "assistant", "content": "Hi."},
        {"role": "user", "content": [{"type": "text", "text": "How "}, {"type": "text", "text": "are you?"}]}]})");
    ASSERT_EQ(request.messages.size(), 4u);
    EXPECT_EQ(std::get<std::string>(request.options.prompts.at(0)),
              "Be brief.\n\nUser: Hello\nAssistant: Hi.\nUser: How are you?\nAssistant:");
    EXPECT_EQ(request.options.model, "gpt2");
    // The user's next turn ends the assistant's, beside the client's own stop strings.
    ASSERT_FALSE(request.options.stop.empty());
    EXPECT_EQ(request.options.stop.back(), "\nUser:");
}

TEST(ChatApi, SharedParametersAreReadAsTheCompletionEndpointReadsThem) {
    const auto request = parse_chat_request(R"({"messages": [{"role": "user", "content": "x"}],
        "max_completion_tokens": 7, "temperature": 0, "seed": 3, "stop": ["a", "b", "c", "d"], "stream": true,
        "stream_options": {"include_usage": true}, "user": "me", "n": 1, "logprobs": false,
        "response_format": {"type": "text"}})");
    EXPECT_EQ(request.options.max_tokens, 7);
    EXPECT_EQ(request.options.temperature, 0.0);
    EXPECT_EQ(request.options.seed, 3u);
    EXPECT_EQ(request.options.stop.size(), 5u);  // the client's four and the turn's end
    EXPECT_TRUE(request.options.stream && request.options.include_usage);
    EXPECT_EQ(parse_chat_request(R"({"messages": [{"role": "user", "content": "x"}], "max_tokens": 4})")
                  .options.max_tokens,
              4);
}

TEST(ChatApi, RefusesWhatItCannotHonour) {
    EXPECT_EQ(chat_refusal(R"({"model": "gpt2"})"), (std::pair{400, std::string("messages")}));
    EXPECT_EQ(chat_refusal(R"({"messages": []})").second, "messages");
    EXPECT_EQ(chat_refusal(R"({"messages": [{"content": "x"}]})").second, "messages[0]");
    EXPECT_EQ(chat_refusal(R"({"messages": [{"role": "tool", "content": "x"}]})").second, "messages[0].role");
    EXPECT_EQ(chat_refusal(R"({"messages": [{"role": "user"}]})").second, "messages[0].content");
    EXPECT_EQ(chat_refusal(R"({"messages": [{"role": "user", "content": [{"type": "image_url"}]}]})").second,
              "messages[0].content");
    const std::string one = R"("messages": [{"role": "user", "content": "x"}])";
    EXPECT_EQ(chat_refusal("{" + one + R"(, "prompt": "x"})").second, "prompt");
    EXPECT_EQ(chat_refusal("{" + one + R"(, "tools": [{"type": "function"}]})").second, "tools");
    EXPECT_EQ(chat_refusal("{" + one + R"(, "logprobs": "yes"})").second, "logprobs");
    EXPECT_EQ(chat_refusal("{" + one + R"(, "top_logprobs": 2})").second, "top_logprobs");  // needs logprobs
    EXPECT_EQ(chat_refusal("{" + one + R"(, "logprobs": true, "top_logprobs": 21})").second, "top_logprobs");
    EXPECT_EQ(chat_refusal("{" + one + R"(, "logprobs": true, "top_logprobs": -1})").second, "top_logprobs");
    EXPECT_EQ(chat_refusal("{" + one + R"(, "n": 0})").second, "n");
    EXPECT_EQ(chat_refusal("{" + one + R"(, "max_tokens": 2, "max_completion_tokens": 2})").second,
              "max_completion_tokens");
    EXPECT_EQ(chat_refusal("{" + one + R"(, "stream_options": {"include_usage": true}})").second,
              "stream_options");
    EXPECT_EQ(chat_refusal("{" + one + R"(, "response_format": {"type": "json_object"}})").second,
              "response_format");
}

TEST(ChatApi, AnotherTemplateCanBeGivenAsJson) {
    const kael::serve::ChatTemplate chatml = kael::serve::parse_chat_template(R"({
        "system": {"prefix": "<|im_start|>system\n", "suffix": "<|im_end|>\n"},
        "user": {"prefix": "<|im_start|>user\n", "suffix": "<|im_end|>\n"},
        "assistant": {"prefix": "<|im_start|>assistant\n", "suffix": "<|im_end|>\n"},
        "generation_prompt": "<|im_start|>assistant\n", "stop": ["<|im_end|>"]})");
    const std::vector<kael::serve::ChatMessage> messages = {
        {"developer", "Be brief."}, {"user", "Hi"}, {"assistant", "Hello."}, {"user", "Sum 2 and 3."}};
    EXPECT_EQ(kael::serve::render_chat_prompt(messages, chatml),
              "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n"
              "<|im_start|>assistant\nHello.<|im_end|>\n<|im_start|>user\nSum 2 and 3.<|im_end|>\n"
              "<|im_start|>assistant\n");
    const kael::serve::ChatRequest request = kael::serve::parse_chat_request(
        R"({"messages": [{"role": "user", "content": "Hi"}], "stop": "\n\n"})", chatml);
    EXPECT_EQ(request.options.stop, (std::vector<std::string>{"\n\n", "<|im_end|>"}));
    // What a template leaves out keeps kael's transcript.
    const kael::serve::ChatTemplate partial = kael::serve::parse_chat_template(R"({"user": {"prefix": "Q: "}})");
    EXPECT_EQ(kael::serve::render_chat_prompt({{"user", "Hi"}}, partial), "Q: Hi\nAssistant:");
    EXPECT_EQ(partial.stop, (std::vector<std::string>{"\nUser:"}));
    for (const char* bad : {"[]", "{\"tool\": {}}", "{\"user\": \"x\"}", "{\"user\": {\"middle\": \"x\"}}",
                            "{\"stop\": [\"\"]}", "{\"stop\": [1]}", "{\"generation_prompt\": 3}", "not json",
                            "{\"stop\": [\"a\", \"b\", \"c\", \"d\", \"e\"]}"}) {
        EXPECT_THROW((void)kael::serve::parse_chat_template(bad), kael::ValueError) << bad;
    }
}

TEST(ChatApi, LogprobsAreAFlagWithTopLogprobsCountingTheAlternatives) {
    const std::string one = R"({"messages": [{"role": "user", "content": "x"}])";
    EXPECT_FALSE(kael::serve::parse_chat_request(one + "}").options.logprobs);
    EXPECT_FALSE(kael::serve::parse_chat_request(one + R"(, "logprobs": false})").options.logprobs);
    EXPECT_EQ(kael::serve::parse_chat_request(one + R"(, "logprobs": true})").options.logprobs, 0);
    EXPECT_EQ(kael::serve::parse_chat_request(one + R"(, "logprobs": true, "top_logprobs": 20})").options.logprobs,
              20);
    // Chat writes one entry per token, with its bytes as numbers.
    const kael::serve::ScoredToken token{"\xc3\xa9", "\xc3\xa9", -0.5, {{"\xc3\xa9", "\xc3\xa9", -0.5}, {"a", "a", -2.0}}, 0};
    const kael::serve::CompletionIds ids{"chatcmpl-1", 7, "gpt2"};
    const json body = json::parse(kael::serve::chat_completion_body(
        ids, {kael::serve::ChoiceText{"\xc3\xa9", "stop", std::vector<kael::serve::ScoredToken>{token}}}, 3, 1));
    const json& entry = body["choices"][0]["logprobs"]["content"][0];
    EXPECT_EQ(entry["token"], "\xc3\xa9");
    EXPECT_EQ(entry["logprob"], -0.5);
    EXPECT_EQ(entry["bytes"], json::array({195, 169}));
    ASSERT_EQ(entry["top_logprobs"].size(), 2U);
    EXPECT_EQ(entry["top_logprobs"][1], json::parse(R"({"token": "a", "logprob": -2.0, "bytes": [97]})"));
    const std::string chunk = kael::serve::chat_chunk_event(ids, std::nullopt, "\xc3\xa9", std::nullopt, 0,
                                                            std::vector<kael::serve::ScoredToken>{token});
    EXPECT_EQ(json::parse(chunk.substr(6))["choices"][0]["logprobs"]["content"][0]["logprob"], -0.5);
}

TEST(ChatApi, ResponsesHaveOpenAIsShape) {
    const json whole = json::parse(kael::serve::chat_completion_body(kIds, "Fine.", "stop", 12, 3));
    EXPECT_EQ(whole["object"], "chat.completion");
    EXPECT_EQ(whole["choices"][0]["message"]["role"], "assistant");
    EXPECT_EQ(whole["choices"][0]["message"]["content"], "Fine.");
    EXPECT_EQ(whole["choices"][0]["finish_reason"], "stop");
    EXPECT_EQ(whole["usage"]["total_tokens"], 15);

    const json first = event_json(kael::serve::chat_chunk_event(kIds, "assistant", "", std::nullopt));
    EXPECT_EQ(first["object"], "chat.completion.chunk");
    EXPECT_EQ(first["choices"][0]["delta"], (json{{"role", "assistant"}, {"content", ""}}));
    EXPECT_TRUE(first["choices"][0]["finish_reason"].is_null());
    const json middle = event_json(kael::serve::chat_chunk_event(kIds, std::nullopt, "Fi", std::nullopt));
    EXPECT_EQ(middle["choices"][0]["delta"], (json{{"content", "Fi"}}));
    const json last = event_json(kael::serve::chat_chunk_event(kIds, std::nullopt, std::nullopt, "length"));
    EXPECT_EQ(last["choices"][0]["delta"], json::object());
    EXPECT_EQ(last["choices"][0]["finish_reason"], "length");

    const json usage = event_json(kael::serve::usage_event(kIds, "chat.completion.chunk", 12, 3));
    EXPECT_TRUE(usage["choices"].empty());
    EXPECT_EQ(usage["usage"]["completion_tokens"], 3);
}

TEST(ModelsApi, OnlyTheServedModelIsFoundAndTheErrorIsOpenAIs) {
    EXPECT_NO_THROW(kael::serve::check_model("gpt2", "gpt2"));
    EXPECT_NO_THROW(kael::serve::check_model("", "gpt2"));
    try {
        kael::serve::check_model("gpt-4", "gpt2");
        ADD_FAILURE() << "gpt-4 accepted";
    } catch (const RequestError& e) {
        EXPECT_EQ(e.status(), 404);
        EXPECT_EQ(e.param(), "model");
        EXPECT_EQ(e.code(), "model_not_found");
        const json error = json::parse(kael::serve::error_body(e.what(), "invalid_request_error", e.param(),
                                                               e.code()))["error"];
        EXPECT_EQ(error["code"], "model_not_found");
        EXPECT_NE(error["message"].get<std::string>().find("gpt-4"), std::string::npos);
    }
    const json list = json::parse(kael::serve::models_body("gpt2", 1700000000));
    EXPECT_EQ(list["object"], "list");
    ASSERT_EQ(list["data"].size(), 1u);
    EXPECT_EQ(list["data"][0], json::parse(kael::serve::model_body("gpt2", 1700000000)));
    EXPECT_EQ(list["data"][0]["id"], "gpt2");
    EXPECT_EQ(list["data"][0]["object"], "model");
}

TEST(CompletionApi, StreamOptionsNeedAStreamAndIncludeUsageIsRead) {
    EXPECT_TRUE(kael::serve::parse_completion_request(R"({"stream": true, "stream_options": {"include_usage": true}})")
                    .include_usage);
    EXPECT_FALSE(kael::serve::parse_completion_request(R"({"stream": true, "stream_options": {}})").include_usage);
    for (const char* body : {R"({"stream_options": {"include_usage": true}})",
                             R"({"stream": true, "stream_options": {"include_usage": 1}})",
                             R"({"stream": true, "stream_options": {"other": true}})",
                             R"({"stream": true, "stream_options": true})"}) {
        try {
            (void)kael::serve::parse_completion_request(body);
            ADD_FAILURE() << "accepted: " << body;
        } catch (const RequestError& e) {
            EXPECT_EQ(e.param(), "stream_options") << body;
        }
    }
}

}  // namespace

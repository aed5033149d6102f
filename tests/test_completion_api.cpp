// OpenAI's completion API without the HTTP (chapter 13): every rule a request body must
// meet, on both sides of each limit, and the shape of what the server answers.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "kael/kael.h"
#include "kael/serve/completion_api.h"
#include "text/byte_alphabet.h"
#include "text/utf8.h"

namespace {

using kael::serve::CompletionRequest;
using kael::serve::RequestError;
using kael::serve::parse_completion_request;
using nlohmann::json;
using Ids = std::vector<std::int64_t>;

// The status and parameter of the RequestError that parsing `body` throws.
std::pair<int, std::string> refusal(const std::string& body) {
    try {
        (void)parse_completion_request(body);
    } catch (const RequestError& e) {
        return {e.status(), e.param()};
    }
    ADD_FAILURE() << "accepted: " << body;
    return {0, ""};
}

// A tokenizer with one token per byte (id = the byte) and <|endoftext|> as id 256.
kael::text::GPT2Tokenizer byte_tokenizer() {
    json vocabulary = json::object();
    for (int byte = 0; byte < 256; ++byte) {
        vocabulary[kael::text::encode_utf8(kael::text::byte_to_char(static_cast<std::uint8_t>(byte)))] = byte;
    }
    vocabulary["<|endoftext|>"] = 256;
    return kael::text::GPT2Tokenizer::from_strings(vocabulary.dump(), "#version: 0.2\n");
}

kael::nn::GPTConfig config(std::int64_t block_size) {
    kael::nn::GPTConfig c;
    c.vocab_size = 257;
    c.block_size = block_size;
    return c;
}

TEST(CompletionApi, ParsesEveryParameter) {
    const CompletionRequest r = parse_completion_request(R"({
        "model": "gpt2", "prompt": "Hello", "max_tokens": 7, "temperature": 0.5, "top_p": 0.9,
        "top_k": 40, "seed": 18446744073709551615, "stop": ["\n", "END"], "stream": true,
        "n": 1, "best_of": 1, "echo": false, "logprobs": null, "suffix": null,
        "presence_penalty": 0, "frequency_penalty": 0.0, "logit_bias": {}, "user": "someone"})");
    EXPECT_EQ(r.model, "gpt2");
    EXPECT_EQ(std::get<std::string>(r.prompts.at(0)), "Hello");
    EXPECT_EQ(r.max_tokens, 7);
    EXPECT_EQ(r.temperature, 0.5);
    EXPECT_EQ(r.top_p, 0.9);
    EXPECT_EQ(r.top_k, 40);
    EXPECT_EQ(r.seed, 18446744073709551615ULL);
    EXPECT_EQ(r.stop, (std::vector<std::string>{"\n", "END"}));
    EXPECT_TRUE(r.stream);
    const CompletionRequest defaults = parse_completion_request("{}");
    EXPECT_EQ(std::get<std::string>(defaults.prompts.at(0)), "");
    EXPECT_EQ(defaults.max_tokens, 16);
    EXPECT_EQ(defaults.temperature, 1.0);
    EXPECT_FALSE(defaults.seed.has_value());
    EXPECT_FALSE(defaults.stream);
    EXPECT_EQ(std::get<Ids>(parse_completion_request(R"({"prompt": [1, 2, 3]})").prompts.at(0)), (Ids{1, 2, 3}));
    EXPECT_EQ(parse_completion_request(R"({"stop": "x"})").stop, (std::vector<std::string>{"x"}));
}

TEST(CompletionApi, RefusesBodiesThatAreNotJsonObjects) {
    EXPECT_EQ(refusal("").first, 400);
    EXPECT_EQ(refusal("{\"prompt\": ").first, 400);
    EXPECT_EQ(refusal("[1, 2]").first, 400);
    EXPECT_EQ(refusal("\"text\"").first, 400);
    EXPECT_EQ(refusal("{\"prompt\": \"a\"} trailing").first, 400);
    EXPECT_EQ(refusal("{\"prompt\": \"\xff\"}").first, 400);  // not UTF-8
    // Nesting: 16 levels are parsed (and then refused for their meaning), 17 are not parsed.
    const auto nested = [](int depth) {
        return "{\"user\": " + std::string(static_cast<std::size_t>(depth - 1), '[') +
               std::string(static_cast<std::size_t>(depth - 1), ']') + "}";
    };
    EXPECT_NO_THROW((void)parse_completion_request(nested(16)));
    const auto [status, param] = refusal(nested(17));
    EXPECT_EQ(status, 400);
    EXPECT_EQ(param, "");
}

TEST(CompletionApi, RefusesParametersOfTheWrongType) {
    for (const auto& [body, param] : std::vector<std::pair<std::string, std::string>>{
             {R"({"max_tokens": 16.5})", "max_tokens"},
             {R"({"max_tokens": "16"})", "max_tokens"},
             {R"({"max_tokens": true})", "max_tokens"},
             {R"({"max_tokens": 16.0})", "max_tokens"},
             {R"({"temperature": "hot"})", "temperature"},
             {R"({"top_p": [1]})", "top_p"},
             {R"({"top_k": 2.5})", "top_k"},
             {R"({"seed": "7"})", "seed"},
             {R"({"stream": "yes"})", "stream"},
             {R"({"prompt": 5})", "prompt"},
             {R"({"prompt": {"text": "a"}})", "prompt"},
             {R"({"prompt": [1, "a"]})", "prompt"},
             {R"({"prompt": []})", "prompt"},
             {R"({"stop": 3})", "stop"},
             {R"({"stop": ["a", 3]})", "stop"},
             {R"({"model": 2})", "model"},
         }) {
        EXPECT_EQ(refusal(body), (std::pair{400, param})) << body;
    }
}

TEST(CompletionApi, ChecksRangesOnBothSidesOfEachLimit) {
    auto accepted = [](const std::string& body) {
        (void)parse_completion_request(body);
        return true;
    };
    EXPECT_TRUE(accepted(R"({"max_tokens": 1})"));
    EXPECT_EQ(refusal(R"({"max_tokens": 0})").second, "max_tokens");
    EXPECT_EQ(refusal(R"({"max_tokens": 9223372036854775808})").second, "max_tokens");  // past int64
    EXPECT_TRUE(accepted(R"({"temperature": 0})"));
    EXPECT_TRUE(accepted(R"({"temperature": 2})"));
    EXPECT_EQ(refusal(R"({"temperature": 2.0001})").second, "temperature");
    EXPECT_EQ(refusal(R"({"temperature": -0.0001})").second, "temperature");
    EXPECT_EQ(refusal(R"({"temperature": 1e400})").first, 400);  // past double: not JSON it can read
    EXPECT_TRUE(accepted(R"({"top_p": 1})"));
    EXPECT_TRUE(accepted(R"({"top_p": 1e-9})"));
    EXPECT_EQ(refusal(R"({"top_p": 0})").second, "top_p");
    EXPECT_EQ(refusal(R"({"top_p": 1.0001})").second, "top_p");
    EXPECT_TRUE(accepted(R"({"top_k": 1})"));
    EXPECT_EQ(refusal(R"({"top_k": 0})").second, "top_k");
    EXPECT_TRUE(accepted(R"({"seed": 0})"));
    EXPECT_EQ(refusal(R"({"seed": -1})").second, "seed");
    EXPECT_TRUE(accepted(R"({"stop": ["a", "b", "c", "d"]})"));
    EXPECT_EQ(refusal(R"({"stop": ["a", "b", "c", "d", "e"]})").second, "stop");
    EXPECT_EQ(refusal(R"({"stop": ""})").second, "stop");
}

TEST(CompletionApi, RefusesUnknownAndUnsupportedParameters) {
    EXPECT_EQ(refusal(R"({"promt": "typo"})"), (std::pair{400, std::string("promt")}));
    EXPECT_EQ(refusal(R"({"n": 0})").second, "n");
    EXPECT_EQ(refusal(R"({"n": 17})").second, "n");
    EXPECT_EQ(refusal(R"({"n": 2.0})").second, "n");
    EXPECT_EQ(refusal(R"({"best_of": 3})").second, "best_of");  // ranking needs log-probabilities
    EXPECT_EQ(refusal(R"({"n": 2, "best_of": 1})").second, "best_of");
    EXPECT_EQ(refusal(R"({"suffix": "x"})").second, "suffix");
}

TEST(CompletionApi, ReadsLogprobsEchoPenaltiesAndBiasWithinTheirRanges) {
    const CompletionRequest r = parse_completion_request(
        R"({"logprobs": 5, "echo": true, "max_tokens": 0, "presence_penalty": -2, "frequency_penalty": 2,
            "logit_bias": {"50256": -100, "7": 100}})");
    EXPECT_EQ(r.logprobs, 5);
    EXPECT_TRUE(r.echo);
    EXPECT_EQ(r.max_tokens, 0);
    EXPECT_EQ(r.adjustments.presence_penalty, -2);
    EXPECT_EQ(r.adjustments.frequency_penalty, 2);
    ASSERT_EQ(r.adjustments.logit_bias.size(), 2U);
    EXPECT_EQ(r.adjustments.logit_bias[0], (std::pair<std::int64_t, double>{50256, -100}));
    EXPECT_EQ(r.adjustments.logit_bias[1], (std::pair<std::int64_t, double>{7, 100}));
    EXPECT_FALSE(parse_completion_request("{}").logprobs);
    EXPECT_EQ(parse_completion_request(R"({"logprobs": 0})").logprobs, 0);
    for (const auto& [body, param] : std::vector<std::pair<std::string, std::string>>{
             {R"({"logprobs": 6})", "logprobs"},
             {R"({"logprobs": -1})", "logprobs"},
             {R"({"logprobs": true})", "logprobs"},
             {R"({"echo": "yes"})", "echo"},
             {R"({"max_tokens": 0})", "max_tokens"},  // 0 only scores a prompt, with echo
             {R"({"presence_penalty": 2.01})", "presence_penalty"},
             {R"({"frequency_penalty": -2.01})", "frequency_penalty"},
             {R"({"frequency_penalty": "1"})", "frequency_penalty"},
             {R"({"logit_bias": [1]})", "logit_bias"},
             {R"({"logit_bias": {"x": 1}})", "logit_bias"},
             {R"({"logit_bias": {"-1": 1}})", "logit_bias"},
             {R"({"logit_bias": {"1": 100.5}})", "logit_bias"},
             {R"({"logit_bias": {"1": "a"}})", "logit_bias"},
         }) {
        EXPECT_EQ(refusal(body), (std::pair{400, param})) << body;
    }
}

TEST(CompletionApi, GenerationRequestsCarryTheScoresAskedFor) {
    const auto tokenizer = byte_tokenizer();
    CompletionRequest r = parse_completion_request(
        R"({"prompt": "abcd", "logprobs": 2, "echo": true, "max_tokens": 0, "logit_bias": {"98": 3}})");
    const kael::serve::GenerationRequest scoring = kael::serve::to_generation_request(r, tokenizer, config(4), 5);
    EXPECT_EQ(scoring.max_new_tokens, 0);  // a prompt that fills the context can be scored
    EXPECT_EQ(scoring.logprobs, 2);
    EXPECT_TRUE(scoring.prompt_logprobs);
    EXPECT_EQ(scoring.adjustments.logit_bias, (std::vector<std::pair<std::int64_t, double>>{{98, 3.0}}));
    r.echo = false;
    EXPECT_FALSE(kael::serve::to_generation_request(r, tokenizer, config(4), 5).prompt_logprobs);
    r.adjustments.logit_bias = {{257, 1.0}};  // vocab_size: one past the last id
    try {
        (void)kael::serve::to_generation_request(r, tokenizer, config(4), 5);
        ADD_FAILURE() << "a bias on a token outside the vocabulary was accepted";
    } catch (const RequestError& e) {
        EXPECT_EQ(e.param(), "logit_bias");
    }
}

TEST(CompletionApi, LogprobsAreWrittenAsOpenAIsFourLists) {
    const auto tokenizer = byte_tokenizer();
    EXPECT_EQ(kael::serve::character_count("h\xc3\xa9llo"), 5);  // é is one character of two bytes
    // The completion endpoint lists the drawn token among the top ones; chat does not.
    const kael::serve::TokenLogprobs drawn{'b', -1.5, {{'a', -0.25}, {'c', -1.0}}};
    const kael::serve::ScoredToken listed = kael::serve::scored_token(drawn, tokenizer, 1, true);
    EXPECT_EQ(listed.text, "b");
    ASSERT_EQ(listed.top.size(), 3U);
    EXPECT_EQ(listed.top[2].text, "b");
    EXPECT_EQ(kael::serve::scored_token(drawn, tokenizer, 1, false).top.size(), 2U);
    const kael::serve::ScoredToken first =
        kael::serve::scored_token(kael::serve::TokenLogprobs{'a', std::nullopt, {}}, tokenizer, 0, true);
    const kael::serve::CompletionIds ids{"cmpl-1", 7, "gpt2"};
    const json body = json::parse(kael::serve::completion_body(
        ids, {kael::serve::ChoiceText{"ab", "length", std::vector<kael::serve::ScoredToken>{first, listed}}}, 1, 1));
    const json& logprobs = body["choices"][0]["logprobs"];
    EXPECT_EQ(logprobs["tokens"], json::array({"a", "b"}));
    EXPECT_EQ(logprobs["token_logprobs"], json::parse("[null, -1.5]"));
    EXPECT_EQ(logprobs["top_logprobs"], json::parse(R"([null, {"a": -0.25, "c": -1.0, "b": -1.5}])"));
    EXPECT_EQ(logprobs["text_offset"], json::array({0, 1}));
    const std::string event = kael::serve::completion_event(ids, "b", std::nullopt, 0,
                                                            std::vector<kael::serve::ScoredToken>{listed});
    EXPECT_EQ(json::parse(event.substr(6))["choices"][0]["logprobs"]["tokens"], json::array({"b"}));
    // Without logprobs asked for, the field is null, as OpenAI writes it.
    EXPECT_TRUE(json::parse(kael::serve::completion_body(ids, "ab", "stop", 1, 1))["choices"][0]["logprobs"].is_null());
}

TEST(CompletionApi, TheContextLimitCountsThePromptAndTheCompletion) {
    const auto tokenizer = byte_tokenizer();
    CompletionRequest r;
    r.prompts = {std::string("abcd")};  // four byte tokens
    r.max_tokens = 4;
    const kael::serve::GenerationRequest fits = kael::serve::to_generation_request(r, tokenizer, config(8), 5);
    EXPECT_EQ(fits.prompt, (Ids{'a', 'b', 'c', 'd'}));
    EXPECT_EQ(fits.max_new_tokens, 4);
    EXPECT_EQ(fits.seed, 5U);
    EXPECT_EQ(fits.stop_token, 256);
    r.max_tokens = 5;  // one past: 4 + 5 = 9 > 8
    try {
        (void)kael::serve::to_generation_request(r, tokenizer, config(8), 5);
        ADD_FAILURE() << "a request past the context was accepted";
    } catch (const RequestError& e) {
        EXPECT_EQ(e.status(), 400);
        EXPECT_EQ(e.param(), "max_tokens");
        EXPECT_NE(std::string(e.what()).find("needs 9 (4 in the prompt, 5 for the completion)"), std::string::npos)
            << e.what();
    }
    r.prompts = {std::string(8, 'a')};  // the prompt alone fills the context
    r.max_tokens = 1;
    EXPECT_THROW((void)kael::serve::to_generation_request(r, tokenizer, config(8), 5), RequestError);
}

TEST(CompletionApi, PromptsBecomeTokensAsTheApiReadsThem) {
    const auto tokenizer = byte_tokenizer();
    CompletionRequest r;
    r.seed = 9;
    r.max_tokens = 2;
    EXPECT_EQ(kael::serve::to_generation_request(r, tokenizer, config(8), 5).prompt, (Ids{256}));  // "" starts a document
    EXPECT_EQ(kael::serve::to_generation_request(r, tokenizer, config(8), 5).seed, 9U);
    r.prompts = {std::string("a<|endoftext|>")};
    EXPECT_EQ(kael::serve::to_generation_request(r, tokenizer, config(8), 5).prompt, (Ids{'a', 256}));
    r.prompts = {Ids{0, 256}};  // the last id of the vocabulary
    EXPECT_EQ(kael::serve::to_generation_request(r, tokenizer, config(8), 5).prompt, (Ids{0, 256}));
    r.prompts = {Ids{0, 257}};  // one past it
    EXPECT_THROW((void)kael::serve::to_generation_request(r, tokenizer, config(8), 5), RequestError);
    r.prompts = {Ids{-1}};
    EXPECT_THROW((void)kael::serve::to_generation_request(r, tokenizer, config(8), 5), RequestError);
}

TEST(CompletionApi, ResponsesHaveOpenAIsShape) {
    const kael::serve::CompletionIds ids{"cmpl-7", 1700000000, "gpt2"};
    const json body = json::parse(kael::serve::completion_body(ids, "Hi \xe2\x9c\x93", "length", 3, 2));
    EXPECT_EQ(body["id"], "cmpl-7");
    EXPECT_EQ(body["object"], "text_completion");
    EXPECT_EQ(body["created"], 1700000000);
    EXPECT_EQ(body["model"], "gpt2");
    EXPECT_EQ(body["choices"][0]["text"], "Hi \xe2\x9c\x93");
    EXPECT_EQ(body["choices"][0]["index"], 0);
    EXPECT_TRUE(body["choices"][0]["logprobs"].is_null());
    EXPECT_EQ(body["choices"][0]["finish_reason"], "length");
    EXPECT_EQ(body["usage"]["prompt_tokens"], 3);
    EXPECT_EQ(body["usage"]["completion_tokens"], 2);
    EXPECT_EQ(body["usage"]["total_tokens"], 5);

    const std::string event = kael::serve::completion_event(ids, "a\"b", std::nullopt);
    ASSERT_EQ(event.rfind("data: ", 0), 0U);
    ASSERT_EQ(event.substr(event.size() - 2), "\n\n");
    const json chunk = json::parse(event.substr(6));
    EXPECT_EQ(chunk["choices"][0]["text"], "a\"b");
    EXPECT_TRUE(chunk["choices"][0]["finish_reason"].is_null());
    EXPECT_EQ(json::parse(kael::serve::completion_event(ids, "", "stop").substr(6))["choices"][0]["finish_reason"],
              "stop");
    EXPECT_EQ(kael::serve::done_event(), "data: [DONE]\n\n");

    const json error = json::parse(kael::serve::error_body("bad", "invalid_request_error", "top_p"));
    EXPECT_EQ(error["error"]["message"], "bad");
    EXPECT_EQ(error["error"]["type"], "invalid_request_error");
    EXPECT_EQ(error["error"]["param"], "top_p");
    EXPECT_TRUE(json::parse(kael::serve::error_body("bad", "x"))["error"]["param"].is_null());
}

TEST(CompletionApi, FinishReasonsAreStopOrLength) {
    using kael::serve::FinishReason;
    EXPECT_STREQ(kael::serve::finish_reason_name(FinishReason::StopToken, false), "stop");
    EXPECT_STREQ(kael::serve::finish_reason_name(FinishReason::Callback, true), "stop");
    EXPECT_STREQ(kael::serve::finish_reason_name(FinishReason::Length, false), "length");
    EXPECT_STREQ(kael::serve::finish_reason_name(FinishReason::ContextFull, false), "length");
}

TEST(CompletionApi, SeveralPromptsAndChoicesAreNumberedPromptByPrompt) {
    const CompletionRequest texts =
        parse_completion_request(R"({"prompt": ["ab", "c"], "n": 3, "seed": 10, "max_tokens": 4})");
    ASSERT_EQ(texts.prompts.size(), 2u);
    EXPECT_EQ(texts.n, 3);
    const CompletionRequest lists = parse_completion_request(R"({"prompt": [[1, 2], [3]], "best_of": 1})");
    EXPECT_EQ(std::get<Ids>(lists.prompts.at(1)), (Ids{3}));
    // Choices 0..2 continue "ab" and 3..5 continue "c", with seeds 10..15.
    const auto tokenizer = byte_tokenizer();
    const auto choice = [&](std::int64_t c) { return kael::serve::to_generation_request(texts, c, tokenizer, config(8), 5); };
    EXPECT_EQ(choice(2).prompt, (Ids{'a', 'b'}));
    EXPECT_EQ(choice(3).prompt, (Ids{'c'}));
    EXPECT_EQ(choice(0).seed, 10u);
    EXPECT_EQ(choice(5).seed, 15u);
    EXPECT_THROW((void)choice(6), kael::ValueError);
    // Sixteen choices in all is the limit, on both sides of it.
    EXPECT_EQ(parse_completion_request(R"({"prompt": ["a", "b"], "n": 8})").n, 8);
    EXPECT_EQ(refusal(R"({"prompt": ["a", "b"], "n": 9})").second, "n");
    EXPECT_EQ(refusal(R"({"prompt": []})").second, "prompt");
    EXPECT_EQ(refusal(R"({"prompt": ["a", 1]})").second, "prompt");
    EXPECT_EQ(refusal(R"({"prompt": [[1], []]})").second, "prompt");
}

TEST(CompletionApi, SeveralChoicesAreIndexedInTheBodyAndTheEvents) {
    const kael::serve::CompletionIds ids{"cmpl-2", 1700000000, "gpt2"};
    const json body = json::parse(kael::serve::completion_body(ids, {{"a", "stop"}, {"b", "length"}}, 4, 6));
    ASSERT_EQ(body["choices"].size(), 2u);
    EXPECT_EQ(body["choices"][1]["index"], 1);
    EXPECT_EQ(body["choices"][1]["text"], "b");
    EXPECT_EQ(body["choices"][1]["finish_reason"], "length");
    EXPECT_EQ(body["usage"]["total_tokens"], 10);
    const std::string event = kael::serve::completion_event(ids, "x", std::nullopt, 3);
    EXPECT_EQ(json::parse(event.substr(6))["choices"][0]["index"], 3);
}

}  // namespace

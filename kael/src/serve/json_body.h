#pragma once
// The one way a request body becomes JSON (chapter 13), shared by the completion and chat
// endpoints: parsed with nlohmann-json, nesting limited while parsing, and required to be
// an object. RequestError 400 otherwise.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "kael/serve/completion_api.h"

namespace kael::serve {

nlohmann::json parse_json_object(std::string_view body);

/// `value` as JSON text, with invalid UTF-8 replaced rather than thrown on.
std::string dump_json(const nlohmann::json& value);

/// What every answer and event of both endpoints has: its id, `object`, creation time,
/// model and choices, and the usage when `usage` is given as (prompt, completion) tokens.
nlohmann::json response_json(const CompletionIds& ids, std::string_view object, nlohmann::json choices,
                             std::optional<std::pair<std::int64_t, std::int64_t>> usage = std::nullopt);

}  // namespace kael::serve

#pragma once
// The one way a request body becomes JSON (chapter 13), shared by the completion and chat
// endpoints: parsed with nlohmann-json, nesting limited while parsing, and required to be
// an object. RequestError 400 otherwise.
#include <string_view>

#include <nlohmann/json.hpp>

namespace kael::serve {

nlohmann::json parse_json_object(std::string_view body);

/// `value` as JSON text, with invalid UTF-8 replaced rather than thrown on.
std::string dump_json(const nlohmann::json& value);

}  // namespace kael::serve

// Loading GPT-2 from Hugging Face's files (chapter 12): config.json for the sizes, then the
// checkpoint's tensors renamed, transposed where GPT-2 stored a Conv1D, checked against
// the config, and set into the model's parameters as views of the mapped file.
#include "kael/nn/gpt2.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kael/autograd/grad_mode.h"
#include "kael/error.h"
#include "kael/io/safetensors.h"
#include "kael/ops/compare.h"

namespace kael::nn {
namespace {

using Json = nlohmann::json;

// ---------------------------------------------------------------------------------------
// config.json

// A config nests a few levels (task_specific_params holds objects of settings); anything
// much deeper is not a config, and the parser stops there.
constexpr int kMaxNesting = 8;

Json parse_json(std::string_view text, std::string_view origin) {
    const auto limit_nesting = [&](int depth, Json::parse_event_t event, Json&) {
        const bool starts = event == Json::parse_event_t::object_start || event == Json::parse_event_t::array_start;
        KAEL_CHECK_VALUE(!starts || depth < kMaxNesting,
                         origin << ": nests arrays and objects more than " << kMaxNesting << " deep");
        return true;
    };
    std::optional<std::size_t> error_at;
    Json config;
    try {
        config = Json::parse(text.begin(), text.end(), limit_nesting);
    } catch (const Json::parse_error& error) {
        error_at = error.byte;
    } catch (const Json::out_of_range&) {  // 1e400: valid JSON, no double
        error_at = 0;
    }
    // nlohmann's message quotes the text around the error; the position is enough.
    KAEL_CHECK_VALUE(!error_at, origin << ": not valid JSON (the error is at byte " << error_at.value_or(0) << ")");
    KAEL_CHECK_VALUE(config.is_object(), origin << ": not a JSON object");
    return config;
}

// The positive integer under `key`, which must be present (or under `fallback` when that
// is given and `key` is absent).
std::int64_t positive_integer(const Json& config, const char* key, std::string_view origin,
                              const char* fallback = nullptr) {
    auto found = config.find(key);
    if (found == config.end() && fallback != nullptr) {
        found = config.find(fallback);
    }
    KAEL_CHECK_VALUE(found != config.end(), origin << ": the key '" << key << "' is missing");
    KAEL_CHECK_VALUE(found->is_number_unsigned() && found->get<std::uint64_t>() >= 1 &&
                         found->get<std::uint64_t>() <= (std::uint64_t{1} << 40U),
                     origin << ": '" << found.key() << "' must be a positive integer (at most 2^40)");
    return found->get<std::int64_t>();
}

// Settings whose other values would change the model's arithmetic: each, when given, must
// be what kael computes.
void check_arithmetic_settings(const Json& config, std::int64_t n_embd, std::string_view origin) {
    if (const auto found = config.find("activation_function"); found != config.end()) {
        const bool tanh_gelu = found->is_string() && (*found == "gelu_new" || *found == "gelu_pytorch_tanh" ||
                                                      *found == "gelu_fast");
        KAEL_CHECK_VALUE(tanh_gelu, origin << ": 'activation_function' must be one of GPT-2's tanh GELUs "
                                              "(\"gelu_new\", \"gelu_pytorch_tanh\", \"gelu_fast\")");
    }
    if (const auto found = config.find("n_inner"); found != config.end()) {
        KAEL_CHECK_VALUE(found->is_null() || (found->is_number_unsigned() && found->get<std::uint64_t>() ==
                                                                                  static_cast<std::uint64_t>(4 * n_embd)),
                         origin << ": 'n_inner' must be null or 4 x n_embd = " << 4 * n_embd);
    }
    const auto require_flag = [&](const char* key, bool wanted) {
        const auto found = config.find(key);
        KAEL_CHECK_VALUE(found == config.end() || (found->is_boolean() && found->get<bool>() == wanted),
                         origin << ": '" << key << "' must be " << (wanted ? "true" : "false")
                                << ", the only value kael's GPT-2 computes");
    };
    require_flag("scale_attn_weights", true);
    require_flag("scale_attn_by_inverse_layer_idx", false);
    require_flag("tie_word_embeddings", true);
}

// ---------------------------------------------------------------------------------------
// The checkpoint's tensors

bool ends_with(std::string_view text, std::string_view suffix) {
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// GPT-2's Conv1D layers store [in, out]; kael's Linear holds [out, in].
bool stored_transposed(std::string_view name) {
    return ends_with(name, "attn.c_attn.weight") || ends_with(name, "attn.c_proj.weight") ||
           ends_with(name, "mlp.c_fc.weight") || ends_with(name, "mlp.c_proj.weight");
}

// The causal mask the Python model keeps as a buffer; kael's attention has no mask tensor.
bool ignored_buffer(std::string_view name) {
    return ends_with(name, ".attn.bias") || ends_with(name, ".attn.masked_bias");
}

// The checkpoint's tensors under kael's names, as kael's layout: the prefix removed and the
// Conv1D weights transposed (as views). The head, when stored, is returned on its own.
struct Renamed {
    std::map<std::string, Tensor> tensors;
    std::optional<Tensor> lm_head;
};

Renamed rename(const StateDict& checkpoint, std::string_view origin) {
    constexpr std::string_view kPrefix = "transformer.";
    Renamed renamed;
    for (const auto& [stored, tensor] : checkpoint) {
        if (stored == "lm_head.weight") {
            renamed.lm_head = tensor;
            continue;
        }
        if (ignored_buffer(stored)) {
            continue;
        }
        const std::string name = stored.starts_with(kPrefix) ? stored.substr(kPrefix.size()) : stored;
        KAEL_CHECK_TYPE(tensor.dtype() == DType::F32, origin << ": tensor '" << stored << "' is " << tensor.dtype()
                                                             << "; kael's GPT-2 loads float32 weights");
        const bool transposed = stored_transposed(name) && tensor.dim() == 2;
        const bool fresh = renamed.tensors.emplace(name, transposed ? tensor.mT() : tensor).second;
        KAEL_CHECK_VALUE(fresh, origin << ": tensor '" << name << "' is stored both with and without the prefix '"
                                       << kPrefix << "'");
    }
    return renamed;
}

// The shape a tensor of the checkpoint has in GPT-2's own layout, for messages: a Conv1D
// weight is shown as the file stores it.
std::string stored_shape(const std::string& name, const Shape& kael_shape) {
    if (!stored_transposed(name) || kael_shape.size() != 2) {
        return to_string(kael_shape);
    }
    return to_string(Shape{kael_shape[1], kael_shape[0]});
}

std::string read_text(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    KAEL_CHECK(in.is_open(), "cannot open '" << path.string() << "'");
    std::string text{std::istreambuf_iterator<char>(in), {}};
    KAEL_CHECK(!in.bad(), "cannot read '" << path.string() << "'");
    return text;
}

}  // namespace

GPTConfig parse_gpt2_config(std::string_view json, std::string_view origin) {
    const Json config = parse_json(json, origin);
    GPTConfig sizes;
    sizes.n_layer = positive_integer(config, "n_layer", origin);
    sizes.n_head = positive_integer(config, "n_head", origin);
    sizes.n_embd = positive_integer(config, "n_embd", origin);
    sizes.block_size = positive_integer(config, "n_positions", origin, "n_ctx");
    sizes.vocab_size = positive_integer(config, "vocab_size", origin);
    KAEL_CHECK_VALUE(sizes.n_embd % sizes.n_head == 0, origin << ": n_embd " << sizes.n_embd
                                                              << " is not divisible by n_head " << sizes.n_head);
    const auto epsilon = config.find("layer_norm_epsilon");
    KAEL_CHECK_VALUE(epsilon != config.end(), origin << ": the key 'layer_norm_epsilon' is missing");
    KAEL_CHECK_VALUE(epsilon->is_number() && epsilon->get<double>() > 0 && epsilon->get<double>() < 1,
                     origin << ": 'layer_norm_epsilon' must be a number in (0, 1)");
    sizes.layer_norm_epsilon = epsilon->get<double>();
    check_arithmetic_settings(config, sizes.n_embd, origin);
    sizes.dropout = 0.0;  // a loaded model generates; fine-tuning can set train() and its own dropout
    return sizes;
}

GPTConfig read_gpt2_config(const std::filesystem::path& path) {
    return parse_gpt2_config(read_text(path), path.string());
}

void load_gpt2_weights(GPT& model, const StateDict& checkpoint, std::string_view origin) {
    const Renamed renamed = rename(checkpoint, origin);
    const std::vector<NamedTensor> parameters = model.named_parameters();
    std::vector<std::string> missing;
    for (const auto& [name, parameter] : parameters) {
        if (!renamed.tensors.contains(name)) {
            missing.push_back(name);
        }
    }
    KAEL_CHECK_VALUE(missing.empty(), origin << ": " << missing.size() << " tensor(s) of GPT-2 are missing, the first '"
                                             << (missing.empty() ? "" : missing.front()) << "'");
    // Every tensor is now present; any other is one kael would silently not use.
    for (const auto& [name, tensor] : renamed.tensors) {
        const bool known = std::any_of(parameters.begin(), parameters.end(),
                                       [&](const NamedTensor& p) { return p.first == name; });
        KAEL_CHECK_VALUE(known, origin << ": tensor '" << name << "' is not part of GPT-2");
    }
    const GPTConfig& config = model.config();
    for (const auto& [name, parameter] : parameters) {
        const Tensor& stored = renamed.tensors.at(name);
        KAEL_CHECK_VALUE(stored.shape() == parameter.shape(),
                         origin << ": tensor '" << name << "' has shape " << stored_shape(name, stored.shape())
                                << ", but the config (n_layer=" << config.n_layer << ", n_head=" << config.n_head
                                << ", n_embd=" << config.n_embd << ", n_positions=" << config.block_size
                                << ", vocab_size=" << config.vocab_size << ") needs "
                                << stored_shape(name, parameter.shape()));
    }
    if (renamed.lm_head) {
        const Tensor& wte = renamed.tensors.at("wte.weight");
        KAEL_CHECK_VALUE(renamed.lm_head->shape() == wte.shape() && renamed.lm_head->dtype() == wte.dtype() &&
                             allclose(*renamed.lm_head, wte, /*rtol=*/0.0, /*atol=*/0.0),
                         origin << ": 'lm_head.weight' differs from 'wte.weight'; kael's GPT-2 ties its head to "
                                   "the token embedding");
    }
    // Only now does the model change: a refused checkpoint leaves it as it was.
    const autograd::NoGradGuard no_grad;
    for (const auto& [name, parameter] : parameters) {
        Tensor target = parameter;
        target.set_(renamed.tensors.at(name));
    }
}

std::shared_ptr<GPT> load_gpt2(const std::filesystem::path& directory) {
    const std::filesystem::path config_path = directory / "config.json";
    const std::filesystem::path weights_path = directory / "model.safetensors";
    KAEL_CHECK(std::filesystem::is_regular_file(config_path),
               "GPT-2: '" << config_path.string() << "' is missing; a Hugging Face model directory has config.json "
                                                     "and model.safetensors");
    KAEL_CHECK(std::filesystem::is_regular_file(weights_path),
               "GPT-2: '" << weights_path.string() << "' is missing; a Hugging Face model directory has config.json "
                                                      "and model.safetensors");
    auto model = std::make_shared<GPT>(read_gpt2_config(config_path));
    load_gpt2_weights(*model, io::map_safetensors(weights_path), weights_path.string());
    model->eval();
    return model;
}

}  // namespace kael::nn

// Chapter 12 from Python: GPT-2 loaded from a Hugging Face directory, its tokenizer, text
// generation with a callback per token, and the thread count of the parallel runtime.
//
//   model = kael.nn.load_gpt2("gpt2/")
//   tokenizer = kael.text.GPT2Tokenizer.from_directory("gpt2/")
//   result = kael.nn.generate(model, tokenizer.encode("Hello"), max_new_tokens=20,
//                             on_token=lambda t: print(tokenizer.decode([t]), end=""))
//
// Every call that computes releases the GIL; the callback takes it back for the time it
// runs, so other Python threads go on while a model generates.
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "casters.h"
#include "kael/nn/generation.h"
#include "kael/nn/gpt2.h"
#include "kael/parallel.h"
#include "kael/text/gpt2_tokenizer.h"
#include "kael/text/streaming_decoder.h"

namespace py = pybind11;

namespace kael::python {
namespace {

using Release = py::call_guard<py::gil_scoped_release>;

const char* reason_name(nn::StopReason reason) {
    switch (reason) {
    case nn::StopReason::MaxNewTokens:
        return "max_new_tokens";
    case nn::StopReason::StopToken:
        return "stop_token";
    case nn::StopReason::ContextFull:
        return "context_full";
    case nn::StopReason::Callback:
        return "callback";
    }
    return "unknown";
}

void bind_tokenizer(py::module_& m) {
    py::module_ text = m.def_submodule("text", "kael::text: GPT-2's byte-level BPE tokenizer");
    using text::GPT2Tokenizer;
    py::class_<GPT2Tokenizer>(text, "GPT2Tokenizer",
                              "GPT-2's tokenizer, from vocab.json + merges.txt (or encoder.json + vocab.bpe)")
        .def_static("from_directory", &GPT2Tokenizer::from_directory, py::arg("directory"), Release())
        .def_static("from_files", &GPT2Tokenizer::from_files, py::arg("vocab_json"), py::arg("merges"), Release())
        .def("encode", &GPT2Tokenizer::encode, py::arg("text"), py::arg("allow_special") = false, Release())
        .def("decode", [](const GPT2Tokenizer& tokenizer, const std::vector<std::int64_t>& ids) {
                 return tokenizer.decode(ids);
             }, py::arg("ids"))
        .def_property_readonly("vocab_size", &GPT2Tokenizer::vocab_size)
        .def_property_readonly("end_of_text", &GPT2Tokenizer::end_of_text)
        .def("__repr__", [](const GPT2Tokenizer& tokenizer) {
            return "GPT2Tokenizer(vocab_size=" + std::to_string(tokenizer.vocab_size()) + ")";
        });
    // A token may end inside a character (an emoji is several tokens): push() returns only
    // the text that is complete, so a stream never prints half a character.
    py::class_<text::StreamingDecoder>(text, "StreamingDecoder", "tokens in, complete UTF-8 text out")
        .def(py::init<GPT2Tokenizer>(), py::arg("tokenizer"))
        .def("push", &text::StreamingDecoder::push, py::arg("id"))
        .def("finish", &text::StreamingDecoder::finish);
}

void bind_generation(py::module_& nn_module) {
    nn_module.def("load_gpt2", &nn::load_gpt2, py::arg("directory"), Release(),
                  "GPT-2 from a Hugging Face directory (config.json and model.safetensors)");
    nn_module.def(
        "generate",
        [](nn::GPT& model, const std::vector<std::int64_t>& prompt, std::int64_t max_new_tokens, double temperature,
           std::optional<std::int64_t> top_k, double top_p, std::optional<std::int64_t> stop_token, bool use_cache,
           const py::object& on_token) {
            nn::GenerationOptions options;
            options.max_new_tokens = max_new_tokens;
            options.sampling = {temperature, top_k, top_p};
            options.stop_token = stop_token;
            options.use_cache = use_cache;
            nn::TokenCallback callback;
            if (!on_token.is_none()) {
                // A callback that returns None (a print, say) means "go on". An exception it
                // raises leaves generate() and reaches the caller as itself.
                callback = [&on_token](std::int64_t token) {
                    const py::gil_scoped_acquire gil;
                    const py::object answer = on_token(token);
                    return answer.is_none() || answer.cast<bool>();
                };
            }
            nn::Generation result;
            {
                const py::gil_scoped_release no_gil;
                result = nn::generate(model, prompt, options, callback);
            }
            py::dict out;
            out["tokens"] = result.tokens;
            out["reason"] = reason_name(result.reason);
            out["prefill_seconds"] = result.prefill_seconds;
            out["decode_seconds"] = result.decode_seconds;
            out["decode_steps"] = result.decode_steps;
            return out;
        },
        py::arg("model"), py::arg("prompt"), py::arg("max_new_tokens") = 64, py::arg("temperature") = 1.0,
        py::arg("top_k") = py::none(), py::arg("top_p") = 1.0, py::arg("stop_token") = py::none(),
        py::arg("use_cache") = true, py::arg("on_token") = py::none(),
        "Continues `prompt` (token ids); returns a dict with tokens, reason, prefill_seconds, decode_seconds and "
        "decode_steps. on_token(token) is called as each token is drawn; returning False stops.");
}

}  // namespace

void bind_gpt2(py::module_& m) {
    m.def("set_num_threads", &kael::set_num_threads, py::arg("threads"));
    m.def("get_num_threads", &kael::get_num_threads);
    bind_tokenizer(m);
    py::module_ nn_module = m.attr("nn").cast<py::module_>();
    bind_generation(nn_module);
}

}  // namespace kael::python

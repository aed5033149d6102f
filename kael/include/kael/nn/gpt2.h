#pragma once
/// \file
/// \brief GPT-2 from the files Hugging Face publishes (chapter 12): the sizes from
/// config.json, the weights from model.safetensors, mapped into memory and used in place.
///
/// The checkpoint's names are the GPT of chapter 11's names, once two differences are
/// undone. Some files put every name under "transformer." (those saved from
/// GPT2LMHeadModel) and some do not (GPT2Model, and the `gpt2` repository itself). And
/// GPT-2's layers are Conv1D modules, whose weight is stored [in, out], the transpose of a
/// Linear's [out, in]; the loader hands each Linear a transposed view of the mapped
/// matrix, so that x @ weight^T reads the file's matrix as it lies. The buffers
/// `attn.bias` and `attn.masked_bias` (the causal mask, as a tensor) are ignored: kael's
/// attention bounds its loop instead.

#include <filesystem>
#include <memory>
#include <string_view>

#include "kael/nn/gpt.h"
#include "kael/nn/state_dict.h"

namespace kael::nn {

/// The GPTConfig of a GPT-2 config.json held in `json`: n_layer, n_head, n_embd,
/// n_positions (the older n_ctx when it is absent), vocab_size and layer_norm_epsilon,
/// every one required, the integers positive and the epsilon a positive number. Settings
/// that would change the arithmetic are checked too: activation_function must be one of
/// GPT-2's tanh GELUs ("gelu_new", "gelu_pytorch_tanh", "gelu_fast"), n_inner null or 4 x
/// n_embd, scale_attn_weights true, scale_attn_by_inverse_layer_idx false and
/// tie_word_embeddings true when given. Any other key is ignored, as transformers ignores
/// what a model does not use. ValueError naming `origin` and the key otherwise.
[[nodiscard]] GPTConfig parse_gpt2_config(std::string_view json, std::string_view origin = "config.json");

/// parse_gpt2_config of the file at `path`. kael::Error when it cannot be read.
[[nodiscard]] GPTConfig read_gpt2_config(const std::filesystem::path& path);

/// Puts the tensors of a GPT-2 checkpoint in Hugging Face's layout into `model`, whose
/// parameters then view them (Tensor::set_): nothing is copied, and a mapped checkpoint
/// stays mapped for as long as the model lives. Names with and without the
/// "transformer." prefix are accepted (not both for one tensor); the buffers ending in
/// "attn.bias" or "attn.masked_bias" are skipped; an "lm_head.weight" must equal
/// wte.weight (kael's head is tied). Everything is checked before any parameter changes:
/// ValueError naming `origin` and the tensor for a missing or unexpected tensor, a shape
/// that disagrees with the model's config, or an untied head; TypeError for a dtype other
/// than float32.
void load_gpt2_weights(GPT& model, const StateDict& checkpoint, std::string_view origin = "checkpoint");

/// A GPT-2 from a directory in the Hugging Face layout: config.json and model.safetensors
/// (memory-mapped), in eval mode. The tokenizer's files (vocab.json and merges.txt) are
/// read separately, by text::GPT2Tokenizer::from_directory. kael::Error naming the file
/// when one is missing, and what the functions above throw.
[[nodiscard]] std::shared_ptr<GPT> load_gpt2(const std::filesystem::path& directory);

}  // namespace kael::nn

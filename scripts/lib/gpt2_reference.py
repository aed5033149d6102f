"""GPT-2 in plain PyTorch, and the Hugging Face files it is stored in (chapter 12).

kael loads GPT-2 from a directory laid out as the Hugging Face hub lays it out:
config.json, model.safetensors, vocab.json and merges.txt. To test that loader without
downloading half a gigabyte, scripts/make-tiny-gpt2 writes such directories with random
weights, and this module is everything it needs:

- write_safetensors / read_safetensors: the safetensors format, by hand, so that a reader
  can see every byte of it (no `safetensors` package involved);
- random_gpt2_state / gpt2_config: a random checkpoint under the exact names Hugging Face
  uses, in both of the layouts found on the hub;
- GPT2: the model's forward pass written from the GPT-2 definition (no `transformers`),
  with an optional key/value cache, so its logits are an independent reference for kael's.

Everything is float32. The module is also imported by benchmarks/gpt2_torch.py, the PyTorch
speed reference for kael's GPT-2.
"""
from __future__ import annotations

import json
import math
import os
import pathlib
import struct

import numpy as np
import torch

# ---------------------------------------------------------------------------------------
# safetensors
# ---------------------------------------------------------------------------------------
#
# A file is: an 8-byte little-endian unsigned length N; N bytes of UTF-8 JSON mapping each
# tensor name to {"dtype", "shape", "data_offsets": [begin, end]} (offsets relative to the
# start of the data section), plus an optional "__metadata__" of string pairs; then the
# data section, every tensor's raw little-endian bytes, back to back.

_ALIGNMENT = 8  # the Python library pads the header so that the data starts 8-aligned
_METADATA_KEY = "__metadata__"


def write_safetensors(path, tensors: dict[str, torch.Tensor], metadata: dict[str, str] | None = None) -> None:
    """Writes `tensors` (float32, any shape, scalars included) to `path` as safetensors.

    Tensors go into the data section in sorted-name order, which is also the order of the
    header, so two runs with the same tensors write the same bytes. The file is written
    under a temporary name and renamed, so an interrupted run never leaves a file that
    looks complete but is not.
    """
    if _METADATA_KEY in tensors:
        raise ValueError(f"a tensor may not be named {_METADATA_KEY!r}: the format reserves it")
    header: dict[str, object] = {_METADATA_KEY: dict(metadata if metadata is not None else {"format": "pt"})}
    blobs = []
    offset = 0
    for name in sorted(tensors):
        tensor = tensors[name]
        if tensor.dtype != torch.float32:
            raise ValueError(f"{name}: only float32 is written here, not {tensor.dtype}")
        # '<f4' pins the byte order: the format is little-endian whatever the machine is.
        blob = tensor.detach().cpu().contiguous().numpy().astype("<f4", copy=False).tobytes()
        header[name] = {"dtype": "F32", "shape": list(tensor.shape), "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)

    header_bytes = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    # Spaces are JSON whitespace, so padding with them keeps the header valid JSON while
    # putting the data section, and so every float32, on an aligned address once mapped.
    header_bytes += b" " * ((-(8 + len(header_bytes))) % _ALIGNMENT)

    path = pathlib.Path(path)
    partial = path.with_name(path.name + ".partial")
    with open(partial, "wb") as file:
        file.write(struct.pack("<Q", len(header_bytes)))
        file.write(header_bytes)
        for blob in blobs:
            file.write(blob)
    os.replace(partial, path)


def _reject_duplicate_keys(pairs):
    # json.loads silently keeps the last of repeated keys; a file where two entries claim
    # the same name is ambiguous, so it is refused instead.
    result = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"safetensors: the header repeats the key {key!r}")
        result[key] = value
    return result


def _is_count(x) -> bool:
    # bool is a subclass of int in Python, and JSON's true must not pass for 1.
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0


def read_safetensors(path) -> dict[str, torch.Tensor]:
    """The tensors of the safetensors file at `path`, by name; float32 only.

    Nothing in the header is trusted before it is checked: anything malformed (a truncated
    file, a header that is not a JSON object, a repeated key, an entry with missing, extra
    or mistyped fields, a dtype other than F32, byte ranges that do not match the shape, or
    that overlap, leave gaps or leave bytes unused) raises ValueError.
    """
    data = pathlib.Path(path).read_bytes()
    if len(data) < 8:
        raise ValueError(f"safetensors: {len(data)} bytes is too short for the header length")
    (header_length,) = struct.unpack("<Q", data[:8])
    if header_length > len(data) - 8:
        raise ValueError(f"safetensors: the header claims {header_length} bytes, the file has {len(data) - 8} after the length")
    try:
        header = json.loads(data[8 : 8 + header_length].decode("utf-8"), object_pairs_hook=_reject_duplicate_keys)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"safetensors: the header is not UTF-8 JSON ({error})") from None
    if not isinstance(header, dict):
        raise ValueError("safetensors: the header is not a JSON object")

    metadata = header.pop(_METADATA_KEY, {})
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise ValueError("safetensors: __metadata__ is not an object of strings")

    body = data[8 + header_length :]
    entries = []
    for name, entry in header.items():
        if not isinstance(entry, dict) or set(entry) != {"dtype", "shape", "data_offsets"}:
            raise ValueError(f"safetensors: {name}: an entry needs exactly dtype, shape and data_offsets")
        if entry["dtype"] != "F32":
            raise ValueError(f"safetensors: {name}: dtype {entry['dtype']!r} is not read here (F32 only)")
        shape, offsets = entry["shape"], entry["data_offsets"]
        if not isinstance(shape, list) or not all(_is_count(d) for d in shape):
            raise ValueError(f"safetensors: {name}: shape is not a list of non-negative integers")
        if not isinstance(offsets, list) or len(offsets) != 2 or not all(_is_count(o) for o in offsets):
            raise ValueError(f"safetensors: {name}: data_offsets is not two non-negative integers")
        begin, end = offsets
        if end < begin or end - begin != 4 * math.prod(shape):
            raise ValueError(f"safetensors: {name}: bytes [{begin}, {end}) do not hold a float32 tensor of shape {shape}")
        entries.append((begin, end, name, shape))

    # Sorted by where they start, the ranges must tile the data section exactly: each
    # begins where the previous ended, and the last ends at the end of the file.
    entries.sort()
    expected = 0
    for begin, end, name, _ in entries:
        if begin != expected:
            raise ValueError(f"safetensors: {name}: starts at byte {begin}, expected {expected} (overlap or gap)")
        expected = end
    if expected != len(body):
        raise ValueError(f"safetensors: the tensors use {expected} bytes of a {len(body)}-byte data section")

    tensors = {}
    for begin, end, name, shape in entries:
        array = np.frombuffer(body, dtype="<f4", count=(end - begin) // 4, offset=begin)
        # .copy(): the tensor owns its memory instead of viewing the read-only file bytes.
        tensors[name] = torch.from_numpy(array.astype(np.float32, copy=True)).reshape(shape)
    return dict(sorted(tensors.items()))


# ---------------------------------------------------------------------------------------
# config.json and random checkpoints
# ---------------------------------------------------------------------------------------

PRESETS = {
    # Small enough that the test's files stay a few hundred kilobytes, large enough to have
    # several heads and layers, so a head split or layer order done wrongly shows.
    "tiny": dict(vocab_size=512, n_positions=64, n_embd=64, n_layer=2, n_head=4),
    # GPT-2 small, the 124M-parameter model of the `gpt2` hub repository.
    "gpt2": dict(vocab_size=50257, n_positions=1024, n_embd=768, n_layer=12, n_head=12),
}


def gpt2_config(vocab_size: int, n_positions: int, n_embd: int, n_layer: int, n_head: int) -> dict:
    """config.json's contents, with the keys and defaults Hugging Face's GPT2Config writes.

    The dropout probabilities are only there because real files carry them; inference
    ignores them.
    """
    if n_embd % n_head != 0:
        raise ValueError(f"n_embd {n_embd} is not a multiple of n_head {n_head}")
    return {
        "model_type": "gpt2",
        "architectures": ["GPT2LMHeadModel"],
        "vocab_size": vocab_size,
        "n_positions": n_positions,
        "n_ctx": n_positions,
        "n_embd": n_embd,
        "n_layer": n_layer,
        "n_head": n_head,
        "n_inner": None,  # None means 4 * n_embd
        "activation_function": "gelu_new",
        "resid_pdrop": 0.1,
        "embd_pdrop": 0.1,
        "attn_pdrop": 0.1,
        "layer_norm_epsilon": 1e-05,
        "initializer_range": 0.02,
        "scale_attn_weights": True,
        "use_cache": True,
        "bos_token_id": 50256,
        "eos_token_id": 50256,
        "tie_word_embeddings": True,
    }


def write_config(path, config: dict) -> None:
    pathlib.Path(path).write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")


def random_gpt2_state(config: dict, seed: int, layout: str = "plain") -> dict[str, torch.Tensor]:
    """A random GPT-2 checkpoint under Hugging Face's names.

    layout "plain" is what the `gpt2` hub repository holds (names as GPT2Model has them);
    "prefixed" is what GPT2LMHeadModel saves: every name under "transformer." and an
    "lm_head.weight" that is a copy of the token embedding (the head is tied to it).

    No parameter is exactly 0 or 1, so a loader that drops a bias or a layer-norm weight
    changes the logits and is caught. The same seed always gives the same tensors.
    """
    if layout not in ("plain", "prefixed"):
        raise ValueError(f"layout must be 'plain' or 'prefixed', not {layout!r}")
    V, P, C, L = config["vocab_size"], config["n_positions"], config["n_embd"], config["n_layer"]
    generator = torch.Generator().manual_seed(seed)

    def normal(*shape, std=0.02, mean=0.0):
        return torch.randn(*shape, generator=generator) * std + mean

    # GPT-2 scales the init of the projections that write into the residual stream by
    # 1/sqrt(2 * n_layer), as there are two of them per layer adding to it.
    proj_std = 0.02 / math.sqrt(2 * L)
    state = {"wte.weight": normal(V, C), "wpe.weight": normal(P, C)}
    for i in range(L):
        h = f"h.{i}."
        state[h + "ln_1.weight"] = normal(C, std=0.1, mean=1.0)
        state[h + "ln_1.bias"] = normal(C)
        # Conv1D stores its weight as [in, out] (the transpose of nn.Linear's), so that
        # the layer is y = x @ W + b.
        state[h + "attn.c_attn.weight"] = normal(C, 3 * C)
        state[h + "attn.c_attn.bias"] = normal(3 * C)
        state[h + "attn.c_proj.weight"] = normal(C, C, std=proj_std)
        state[h + "attn.c_proj.bias"] = normal(C)
        state[h + "ln_2.weight"] = normal(C, std=0.1, mean=1.0)
        state[h + "ln_2.bias"] = normal(C)
        state[h + "mlp.c_fc.weight"] = normal(C, 4 * C)
        state[h + "mlp.c_fc.bias"] = normal(4 * C)
        state[h + "mlp.c_proj.weight"] = normal(4 * C, C, std=proj_std)
        state[h + "mlp.c_proj.bias"] = normal(C)
        # Buffers, not parameters: older transformers versions saved the causal mask and
        # the value they filled masked scores with, and the hub's files still carry them.
        # A loader has to accept (and ignore) them.
        state[h + "attn.bias"] = torch.tril(torch.ones(P, P)).reshape(1, 1, P, P)
        state[h + "attn.masked_bias"] = torch.tensor(-10000.0)
    state["ln_f.weight"] = normal(C, std=0.1, mean=1.0)
    state["ln_f.bias"] = normal(C)

    if layout == "prefixed":
        state = {"transformer." + name: tensor for name, tensor in state.items()}
        state["lm_head.weight"] = state["transformer.wte.weight"].clone()
    return state


# ---------------------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------------------


def gelu_new(x: torch.Tensor) -> torch.Tensor:
    """GELU's tanh approximation, GPT-2's activation ("gelu_new" in Hugging Face)."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x.pow(3))))


def layer_norm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float) -> torch.Tensor:
    # The biased variance (divided by C, not C - 1), as nn.LayerNorm computes it.
    mean = x.mean(-1, keepdim=True)
    var = (x - mean).pow(2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * weight + bias


def conv1d(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """Hugging Face's Conv1D: a linear layer whose weight is stored [in, out]."""
    return x @ weight + bias


class GPT2:
    """GPT-2's forward pass, from a state dict in either Hugging Face layout.

    Not an nn.Module on purpose: it is only ever run for inference, and a plain class keeps
    every operation of the model in sight in forward().
    """

    def __init__(self, config: dict, state: dict[str, torch.Tensor]):
        self.n_layer = config["n_layer"]
        self.n_head = config["n_head"]
        self.n_embd = config["n_embd"]
        self.n_positions = config["n_positions"]
        self.eps = config["layer_norm_epsilon"]
        # Either layout: strip GPT2LMHeadModel's prefix. lm_head.weight is tied to wte, so
        # it is checked rather than used; the mask buffers are rebuilt per call.
        if "lm_head.weight" in state:
            if not torch.equal(state["lm_head.weight"], state["transformer.wte.weight"]):
                raise ValueError("lm_head.weight is not tied to transformer.wte.weight")
        self.w = {}
        for name, tensor in state.items():
            name = name.removeprefix("transformer.")
            if name == "lm_head.weight" or name.endswith(".attn.bias") or name.endswith(".attn.masked_bias"):
                continue
            self.w[name] = tensor.to(torch.float32)

    def forward(self, ids: torch.Tensor, past=None):
        """Logits [B, T, V] for token ids [B, T], and the updated key/value cache.

        `past` is None or what a previous call returned as `present`: one (k, v) pair per
        layer, each [B, n_head, T_past, head_dim]. The new tokens then sit at positions
        T_past .. T_past + T - 1 and attend to every cached position, so decoding one token
        at a time costs one token's work instead of the whole sequence's.
        """
        B, T = ids.shape
        T_past = 0 if past is None else past[0][0].shape[2]
        if T_past + T > self.n_positions:
            raise ValueError(f"{T_past + T} positions is more than the model's {self.n_positions}")
        H, D = self.n_head, self.n_embd // self.n_head
        w = self.w

        positions = torch.arange(T_past, T_past + T)
        x = w["wte.weight"][ids] + w["wpe.weight"][positions]  # [B, T, C]

        # Query i sits at position T_past + i and may see keys 0 .. T_past + i.
        T_all = T_past + T
        causal = torch.ones(T, T_all, dtype=torch.bool).tril(diagonal=T_past)

        present = []
        for layer in range(self.n_layer):
            h = f"h.{layer}."
            # Attention: one matmul makes q, k and v side by side, [B, T, 3C].
            a = layer_norm(x, w[h + "ln_1.weight"], w[h + "ln_1.bias"], self.eps)
            qkv = conv1d(a, w[h + "attn.c_attn.weight"], w[h + "attn.c_attn.bias"])
            q, k, v = qkv.split(self.n_embd, dim=-1)
            # [B, T, C] -> [B, H, T, D]: head j owns channels j*D .. (j+1)*D - 1.
            q, k, v = (t.reshape(B, T, H, D).transpose(1, 2) for t in (q, k, v))
            if past is not None:
                k = torch.cat([past[layer][0], k], dim=2)
                v = torch.cat([past[layer][1], v], dim=2)
            present.append((k, v))
            scores = (q @ k.transpose(-2, -1)) / math.sqrt(D)  # [B, H, T, T_all]
            # -inf gives masked keys exactly zero weight; every row keeps at least its own
            # position, so no row is all -inf.
            scores = scores.masked_fill(~causal, float("-inf"))
            attended = torch.softmax(scores, dim=-1) @ v  # [B, H, T, D]
            attended = attended.transpose(1, 2).reshape(B, T, self.n_embd)
            x = x + conv1d(attended, w[h + "attn.c_proj.weight"], w[h + "attn.c_proj.bias"])

            # MLP: widen to 4C, GELU, back to C.
            m = layer_norm(x, w[h + "ln_2.weight"], w[h + "ln_2.bias"], self.eps)
            m = gelu_new(conv1d(m, w[h + "mlp.c_fc.weight"], w[h + "mlp.c_fc.bias"]))
            x = x + conv1d(m, w[h + "mlp.c_proj.weight"], w[h + "mlp.c_proj.bias"])

        x = layer_norm(x, w["ln_f.weight"], w["ln_f.bias"], self.eps)
        # The head is tied: scoring against every token's embedding.
        logits = x @ w["wte.weight"].T
        return logits, present

    __call__ = forward


def greedy(model: GPT2, prompt: list[int], new_tokens: int, use_cache: bool) -> list[int]:
    """The `new_tokens` ids greedy decoding appends to `prompt` (batch of one).

    Without the cache every step reruns the whole sequence, the definition of decoding;
    with it, each step feeds only the last token. The two must agree, which is the test of
    the cache.
    """
    sequence = list(prompt)
    past = None
    with torch.inference_mode():
        for _ in range(new_tokens):
            if use_cache:
                feed = sequence if past is None else sequence[-1:]
                logits, past = model(torch.tensor([feed]), past)
            else:
                logits, _ = model(torch.tensor([sequence]))
            sequence.append(int(logits[0, -1].argmax()))
    return sequence[len(prompt) :]


def load_model(directory) -> GPT2:
    """The GPT2 of a Hugging Face-layout directory (config.json and model.safetensors)."""
    directory = pathlib.Path(directory)
    config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
    return GPT2(config, read_safetensors(directory / "model.safetensors"))

#!/usr/bin/env python3
"""Writes the files llm.c's CPU trainer (train_gpt2.c, github.com/karpathy/llm.c) reads, from
the files kael's GPT-2 training benchmark uses, so that benchmarks/record_gpt2_train.sh can
time llm.c on the same weights and tokens.

    llmc_convert.py --model DIR --tokens FILE --out LLMC_RUN_DIR

DIR is a Hugging Face-layout GPT-2 directory (config.json, model.safetensors); FILE holds
uint16 token ids (benchmarks/gpt2_tokens.cpp writes it). LLMC_RUN_DIR receives what
train_gpt2 opens from its working directory:

    gpt2_124M.bin        a header of 256 int32 (20240326, version 3, max_seq_len,
                         vocab_size, num_layers, num_heads, channels, padded_vocab_size),
                         then every parameter as float32 in llm.c's order: wte with its rows
                         padded to a multiple of 128 with zeros, wpe, then per tensor kind
                         the layers one after another (ln1w, ln1b, qkvw, qkvb, attprojw,
                         attprojb, ln2w, ln2b, fcw, fcb, fcprojw, fcprojb), lnfw, lnfb. The
                         Conv1D weights, stored [in, out] by Hugging Face, are written
                         [out, in], as llm.c's matmuls read them.
    dev/data/tinyshakespeare/tiny_shakespeare_{train,val}.bin
                         a header of 256 int32 (20240520, version 1, token count), then the
                         tokens as uint16: the first 90% of FILE to train, the rest to
                         validate (train_gpt2 takes these names when they exist).
"""
import argparse
import json
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "scripts" / "lib"))
import gpt2_reference as ref  # noqa: E402

MODEL_MAGIC, MODEL_VERSION = 20240326, 3
DATA_MAGIC, DATA_VERSION = 20240520, 1


def header(values: list[int]) -> np.ndarray:
    out = np.zeros(256, dtype="<i4")
    out[: len(values)] = values
    return out


def write_model(model_dir: pathlib.Path, path: pathlib.Path) -> None:
    config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    state = {name.removeprefix("transformer."): tensor.numpy().astype("<f4")
             for name, tensor in ref.read_safetensors(model_dir / "model.safetensors").items()}
    layers, channels, vocab = config["n_layer"], config["n_embd"], config["vocab_size"]
    padded = (vocab + 127) // 128 * 128
    wte = np.zeros((padded, channels), dtype="<f4")
    wte[:vocab] = state["wte.weight"]

    def per_layer(suffix: str, transpose: bool = False) -> list[np.ndarray]:
        return [state[f"h.{i}.{suffix}"].T if transpose else state[f"h.{i}.{suffix}"] for i in range(layers)]

    parts = [wte, state["wpe.weight"],
             *per_layer("ln_1.weight"), *per_layer("ln_1.bias"),
             *per_layer("attn.c_attn.weight", True), *per_layer("attn.c_attn.bias"),
             *per_layer("attn.c_proj.weight", True), *per_layer("attn.c_proj.bias"),
             *per_layer("ln_2.weight"), *per_layer("ln_2.bias"),
             *per_layer("mlp.c_fc.weight", True), *per_layer("mlp.c_fc.bias"),
             *per_layer("mlp.c_proj.weight", True), *per_layer("mlp.c_proj.bias"),
             state["ln_f.weight"], state["ln_f.bias"]]
    with open(path, "wb") as out:
        header([MODEL_MAGIC, MODEL_VERSION, config["n_positions"], vocab, layers, config["n_head"], channels,
                padded]).tofile(out)
        for part in parts:
            np.ascontiguousarray(part, dtype="<f4").tofile(out)


def write_tokens(tokens: np.ndarray, path: pathlib.Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as out:
        header([DATA_MAGIC, DATA_VERSION, len(tokens)]).tofile(out)
        tokens.astype("<u2").tofile(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=pathlib.Path, required=True)
    parser.add_argument("--tokens", type=pathlib.Path, required=True)
    parser.add_argument("--out", type=pathlib.Path, required=True)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    write_model(args.model, args.out / "gpt2_124M.bin")
    tokens = np.fromfile(args.tokens, dtype="<u2")
    split = len(tokens) * 9 // 10
    data = args.out / "dev" / "data" / "tinyshakespeare"
    write_tokens(tokens[:split], data / "tiny_shakespeare_train.bin")
    write_tokens(tokens[split:], data / "tiny_shakespeare_val.bin")
    print(f"llmc_convert: wrote {args.out}/gpt2_124M.bin and {len(tokens)} tokens under {data}")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Writes the seed corpora of chapter 12's fuzz targets into fuzz/corpus/gpt2_config/ and
fuzz/corpus/gpt2_tokenizer/ (fuzz/make_corpus.py writes the others).

    /usr/bin/python3 fuzz/make_corpus_gpt2.py

- gpt2_config: config.json files as the Hugging Face hub has them for gpt2 and a small
  test model, and the kinds of wrong one the reader must refuse.
- gpt2_tokenizer: a small byte-level vocabulary, its merges and a text, separated by the
  byte 0xFF as fuzz_gpt2_tokenizer.cpp reads its input; and damaged variants.

Each directory is emptied first, so the script is the one way to change them.
"""
from __future__ import annotations

import json
import pathlib
import shutil

CORPUS = pathlib.Path(__file__).resolve().parent / "corpus"

GPT2_CONFIG = {
    "activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"], "attn_pdrop": 0.1,
    "bos_token_id": 50256, "embd_pdrop": 0.1, "eos_token_id": 50256, "initializer_range": 0.02,
    "layer_norm_epsilon": 1e-05, "model_type": "gpt2", "n_ctx": 1024, "n_embd": 768, "n_head": 12,
    "n_layer": 12, "n_positions": 1024, "resid_pdrop": 0.1, "summary_activation": None,
    "summary_first_dropout": 0.1, "summary_proj_to_labels": True, "summary_type": "cls_index",
    "summary_use_proj": True, "vocab_size": 50257,
}


def write(target: str, name: str, data: bytes) -> None:
    (CORPUS / target / name).write_bytes(data)


def config_corpus() -> None:
    write("gpt2_config", "valid-gpt2", json.dumps(GPT2_CONFIG, indent=2).encode())
    tiny = {"n_layer": 2, "n_head": 4, "n_embd": 64, "n_positions": 64, "vocab_size": 512,
            "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new"}
    write("gpt2_config", "valid-tiny", json.dumps(tiny).encode())
    old = {k: v for k, v in tiny.items() if k != "n_positions"} | {"n_ctx": 64}
    write("gpt2_config", "valid-n-ctx-only", json.dumps(old).encode())
    write("gpt2_config", "width-not-divisible", json.dumps(tiny | {"n_embd": 66}).encode())
    write("gpt2_config", "negative-layers", json.dumps(tiny | {"n_layer": -1}).encode())
    write("gpt2_config", "huge-size", json.dumps(tiny | {"vocab_size": 2**63 - 1}).encode())
    write("gpt2_config", "epsilon-string", json.dumps(tiny | {"layer_norm_epsilon": "1e-5"}).encode())
    write("gpt2_config", "relu", json.dumps(tiny | {"activation_function": "relu"}).encode())
    write("gpt2_config", "missing-heads", json.dumps({k: v for k, v in tiny.items() if k != "n_head"}).encode())
    write("gpt2_config", "not-an-object", b"[1, 2, 3]")
    write("gpt2_config", "truncated", json.dumps(tiny).encode()[:40])


def byte_alphabet() -> dict[int, str]:
    """GPT-2's printable stand-in for each byte (the table of OpenAI's encoder.py)."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    table, extra = {b: chr(b) for b in printable}, 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + extra)
            extra += 1
    return table


def tokenizer_corpus() -> None:
    alphabet = byte_alphabet()
    tokens = [alphabet[b] for b in range(256)]
    merges = [("Ġ", "t"), ("h", "e"), ("Ġt", "he"), ("i", "n"), ("Ġ", "a")]
    tokens += [a + b for a, b in merges] + ["<|endoftext|>"]
    vocab = json.dumps({token: i for i, token in enumerate(tokens)}, ensure_ascii=False).encode()
    merge_text = ("#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in merges)).encode()
    def seed(name: str, v: bytes, m: bytes, text: bytes) -> None:
        write("gpt2_tokenizer", name, v + b"\xff" + m + b"\xff" + text)
    seed("valid-english", vocab, merge_text, "the cat in the hat, 12345 times!\r\n  ".encode())
    seed("valid-unicode", vocab, merge_text, "naïve café 東京 🙂 e\u0301<|endoftext|>".encode())
    seed("invalid-utf8-text", vocab, merge_text, b"ok \xc3\x28 \xed\xa0\x80 \xf4\x90\x80\x80")
    seed("merge-of-unknown-token", vocab, merge_text + "x yz\n".encode(), b"text")
    seed("duplicate-id", vocab.replace(b'"!": 0', b'"!": 1'), merge_text, b"text")
    seed("not-json", b"{", merge_text, b"text")
    seed("few-byte-tokens", json.dumps({"a": 0, "b": 1, "ab": 2}).encode(), b"a b\n", b"abc")
    # What made the target fail once, a regression case now: an empty vocabulary was accepted.
    seed("finding-empty-vocabulary", b"{}", b"", b"=\xc4\xa4")


def main() -> None:
    for target, make in {"gpt2_config": config_corpus, "gpt2_tokenizer": tokenizer_corpus}.items():
        shutil.rmtree(CORPUS / target, ignore_errors=True)
        (CORPUS / target).mkdir(parents=True)
        make()
        files = sorted((CORPUS / target).iterdir())
        print(f"make_corpus_gpt2: {len(files)} files, {sum(f.stat().st_size for f in files)} bytes in {CORPUS / target}")


if __name__ == "__main__":
    main()

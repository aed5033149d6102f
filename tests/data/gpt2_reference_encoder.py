#!/usr/bin/python3
"""GPT-2's encoder in plain Python: the second, independent check of the reference ids.

tests/data/gpt2_tokenizer_cases.json holds ids computed by the npm package gpt-3-encoder
(tests/data/make_gpt2_tokenizer_cases.js). That package is a JavaScript port of OpenAI's
encoder and has bugs of its own, so every one of its answers is checked here against the
algorithm as OpenAI's encoder.py defines it, run with Python's `regex` module, the one the
original uses:

1. Pre-tokenise with GPT-2's pattern.
2. Write each piece's UTF-8 bytes in the byte alphabet (one printable character a byte).
3. Merge: while some adjacent pair is a merge, merge every occurrence of the one of lowest
   rank, left to right.
4. Look each resulting token up in encoder.json.

    gpt2_reference_encoder.py VOCAB_DIR CASES_JSON [--write]

checks each entry of "cases" (its "ids" must be this encoder's), and that each entry of
"differences" really is one (its "gpt3_encoder_ids" must not be this encoder's); --write
stores this encoder's ids in each difference's "original_ids", which kael's test uses.
Needs Debian's python3-regex.
"""
import json
import pathlib
import sys

import regex

PATTERN = regex.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")


def byte_alphabet():
    """The character GPT-2's files write each byte as, by byte."""
    printable = [b for b in range(256) if 0x21 <= b <= 0x7E or 0xA1 <= b <= 0xAC or 0xAE <= b <= 0xFF]
    others = [b for b in range(256) if b not in printable]
    chars = {b: chr(b) for b in printable}
    chars.update({b: chr(0x100 + i) for i, b in enumerate(others)})
    return chars


class Encoder:
    def __init__(self, directory):
        directory = pathlib.Path(directory)
        self.ids = json.loads((directory / "encoder.json").read_text(encoding="utf-8"))
        lines = (directory / "vocab.bpe").read_text(encoding="utf-8").split("\n")
        merges = [line for line in lines[1:] if line]  # line 0 is "#version: 0.2"
        self.rank = {tuple(line.split(" ")): rank for rank, line in enumerate(merges)}
        self.alphabet = byte_alphabet()

    def merge(self, tokens):
        while len(tokens) > 1:
            pairs = {(a, b) for a, b in zip(tokens, tokens[1:]) if (a, b) in self.rank}
            if not pairs:
                break
            first, second = min(pairs, key=self.rank.__getitem__)
            merged, i = [], 0
            while i < len(tokens):
                if i + 1 < len(tokens) and tokens[i] == first and tokens[i + 1] == second:
                    merged.append(first + second)
                    i += 2
                else:
                    merged.append(tokens[i])
                    i += 1
            tokens = merged
        return tokens

    def encode(self, text):
        ids = []
        for piece in PATTERN.findall(text):
            tokens = [self.alphabet[b] for b in piece.encode("utf-8")]
            ids.extend(self.ids[token] for token in self.merge(tokens))
        return ids


def ascii_json(value):
    # ensure_ascii writes everything beyond ASCII as \u escapes but keeps DEL raw.
    return json.dumps(value, ensure_ascii=True, separators=(",", ":")).replace("\x7f", "\\u007f")


def layout(cases):
    """The file as make_gpt2_tokenizer_cases.js writes it: one case a line."""
    lines = ["{", f' "provenance": {ascii_json(cases["provenance"])},', ' "cases": [']
    lines.append(",\n".join("  " + ascii_json(case) for case in cases["cases"]))
    lines += [" ],", ' "differences": [']
    lines.append(",\n".join("  " + ascii_json(case) for case in cases["differences"]))
    lines += [" ]", "}"]
    return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) not in (3, 4) or (len(argv) == 4 and argv[3] != "--write"):
        print(__doc__, file=sys.stderr)
        return 2
    encoder = Encoder(argv[1])
    path = pathlib.Path(argv[2])
    cases = json.loads(path.read_text(encoding="utf-8"))
    problems = 0
    for case in cases["cases"]:
        if encoder.encode(case["text"]) != case["ids"]:
            problems += 1
            print(f"disagrees with gpt-3-encoder: {case['text']!r}", file=sys.stderr)
    for case in cases["differences"]:
        ids = encoder.encode(case["text"])
        if ids == case["gpt3_encoder_ids"]:
            problems += 1
            print(f"listed as a difference but agrees: {case['text']!r}", file=sys.stderr)
        case["original_ids"] = ids
    print(f"{len(cases['cases'])} cases agree, {len(cases['differences'])} differences" if problems == 0
          else f"{problems} problems", file=sys.stderr)
    if len(argv) == 4 and problems == 0:
        path.write_text(layout(cases), encoding="ascii")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

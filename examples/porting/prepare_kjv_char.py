"""Writes the KJV text as nanoGPT's character-level dataset: train.bin and val.bin (uint16
character ids, the first 90% and the last 10% of the text) and meta.pkl (vocab_size, stoi,
itos), the three files nanoGPT's data/shakespeare_char/prepare.py makes from its own text.

    prepare_kjv_char.py KJV_TEXT OUT_DIR [--chars N]

--chars keeps the first N characters (a quick run does not need the whole Bible).
"""
import argparse
import os
import pickle

import numpy as np


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("text")
    parser.add_argument("out_dir")
    parser.add_argument("--chars", type=int, default=0)
    args = parser.parse_args()

    with open(args.text, encoding="utf-8") as f:
        text = f.read()
    if args.chars > 0:
        text = text[:args.chars]
    chars = sorted(set(text))
    stoi = {ch: i for i, ch in enumerate(chars)}
    itos = {i: ch for i, ch in enumerate(chars)}
    ids = np.array([stoi[ch] for ch in text], dtype=np.uint16)
    split = int(len(ids) * 0.9)

    os.makedirs(args.out_dir, exist_ok=True)
    ids[:split].tofile(os.path.join(args.out_dir, "train.bin"))
    ids[split:].tofile(os.path.join(args.out_dir, "val.bin"))
    with open(os.path.join(args.out_dir, "meta.pkl"), "wb") as f:
        pickle.dump({"vocab_size": len(chars), "itos": itos, "stoi": stoi}, f)
    print(f"{len(text):,} characters, {len(chars)} distinct: {split:,} for training, {len(ids) - split:,} for validation")


if __name__ == "__main__":
    main()

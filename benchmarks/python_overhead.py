#!/usr/bin/env python3
"""The fixed cost of one operation called from Python, kael against PyTorch (chapter 10).

Tiny tensors, so the time is the binding's: argument conversion, dispatch, allocation of
the result, and the Python object around it. One thread on each side. Prints a Markdown
table of the median time per call over repeated runs, and kael's time as a fraction of
torch's (below 1 is faster).

    PYTHONPATH=build/main/python /usr/bin/python3 benchmarks/python_overhead.py [--repeat 7]
"""
import argparse
import statistics
import timeit

import kael
import torch


def cases(lib):
    a = lib.ones(4)
    b = lib.ones(4)
    m = lib.ones(4, 4)
    return {
        "a + b": lambda: a + b,
        "a + 1.5 (a number)": lambda: a + 1.5,
        "a.sum()": lambda: a.sum(),
        "a.exp()": lambda: a.exp(),
        "m @ m": lambda: m @ m,
        "m[1]": lambda: m[1],
        "m[:, 1:3]": lambda: m[:, 1:3],
        "m.transpose(0, 1)": lambda: m.transpose(0, 1),
        "a.add_(1)": lambda: a.add_(1),
        "lib.zeros(4)": lambda: lib.zeros(4),
    }


def per_call_seconds(function, repeat, number=20000):
    return statistics.median(timeit.repeat(function, repeat=repeat, number=number)) / number


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    torch.set_num_threads(1)
    ours, theirs = cases(kael), cases(torch)
    print("| call (4 or 4x4 float32 elements) | kael | PyTorch | kael / PyTorch |")
    print("|---|---:|---:|---:|")
    ratios = []
    for name in ours:
        k = per_call_seconds(ours[name], args.repeat)
        t = per_call_seconds(theirs[name], args.repeat)
        ratios.append(k / t)
        print(f"| `{name}` | {k * 1e6:.2f} us | {t * 1e6:.2f} us | {k / t:.2f} |")
    print(f"| geometric mean | | | {statistics.geometric_mean(ratios):.2f} |")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The Python twin of examples/mnist_mlp.cpp, written with kael's Python module.

784-512-256-10 with ReLU, PyTorch's default initialisation (drawn by kael's C++
initialisers), Adam at 1e-3, batch 128, shuffled, 10 epochs, images scaled to [0, 1]. It
prints the lines the C++ program prints and writes the loss of every step to
<out>/mnist_mlp_loss_python.csv; examples/mnist_mlp.py is the same recipe in PyTorch.

    PYTHONPATH=build/main/python /usr/bin/python3 examples/mnist_mlp_kael.py \\
        [--data DIR] [--epochs 10] [--train-limit N] [--out DIR] [--target-accuracy PERCENT]

With --target-accuracy it exits with status 1 unless some epoch reached that test accuracy,
and with 77 (CTest's "skipped") when the dataset is not installed.
"""
import argparse
import gzip
import os
import pathlib
import struct
import sys
import time

import numpy as np

import kael
import kael.nn as nn


def read_idx(path):
    """An IDX file (gzipped) as a NumPy array of unsigned bytes."""
    with gzip.open(path, "rb") as f:
        data = f.read()
    zero, dtype_code, rank = struct.unpack(">HBB", data[:4])
    if zero != 0 or dtype_code != 0x08:
        raise ValueError(f"{path}: not an unsigned-byte IDX file")
    shape = struct.unpack(f">{rank}I", data[4:4 + 4 * rank])
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * rank).reshape(shape)


def load_split(directory, split, limit=0):
    images = read_idx(directory / f"{split}-images-idx3-ubyte.gz")
    labels = read_idx(directory / f"{split}-labels-idx1-ubyte.gz")
    if limit:
        images, labels = images[:limit], labels[:limit]
    # One conversion each in NumPy, then the tensors share the arrays' memory.
    x = kael.from_numpy(images.reshape(len(images), -1).astype(np.float32) / np.float32(255))
    return x, kael.from_numpy(labels.astype(np.int64))


def accuracy(model, x, y):
    model.eval()
    with kael.no_grad():
        correct = sum(int((model(x[i:i + 1000]).argmax(1) == y[i:i + 1000]).sum()) for i in range(0, len(x), 1000))
    model.train()
    return correct / len(x)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=os.environ.get("KAEL_FASHION_MNIST", "/usr/share/datasets/fashion-mnist"))
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--train-limit", type=int, default=0)
    parser.add_argument("--out", default=".")
    parser.add_argument("--target-accuracy", type=float, default=0)
    args = parser.parse_args()

    directory = pathlib.Path(args.data)
    if not (directory / "t10k-labels-idx1-ubyte.gz").exists():
        print(f"skipped: no Fashion-MNIST in {directory} (install dataset-fashion-mnist)")
        return 77
    kael.manual_seed(args.seed)
    train_x, train_y = load_split(directory, "train", args.train_limit)
    test_x, test_y = load_split(directory, "t10k")
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 10))
    adam = kael.optim.Adam(model.parameters(), lr=args.lr)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    print(f"Fashion-MNIST: {len(train_x)} training and {len(test_x)} test images")
    print(model)

    step, total_seconds, best = 0, 0.0, 0.0
    with open(out / "mnist_mlp_loss_python.csv", "w") as curve:
        curve.write("step,epoch,loss\n")
        for epoch in range(1, args.epochs + 1):
            start = time.perf_counter()
            order = kael.randperm(len(train_x))
            loss_sum, batches = 0.0, 0
            for first in range(0, len(train_x), args.batch_size):
                rows = order[first:first + args.batch_size]
                loss = nn.functional.cross_entropy(model(train_x[rows]), train_y[rows])
                adam.zero_grad()
                loss.backward()
                adam.step()
                value = loss.item()
                loss_sum += value
                batches += 1
                step += 1
                curve.write(f"{step},{epoch},{value}\n")
            seconds = time.perf_counter() - start
            total_seconds += seconds
            epoch_accuracy = 100 * accuracy(model, test_x, test_y)
            best = max(best, epoch_accuracy)
            print(f"epoch {epoch:2d}/{args.epochs}  train loss {loss_sum / batches:.4f}  "
                  f"test accuracy {epoch_accuracy:.2f}%  {seconds:.1f} s", flush=True)
    print(f"training took {total_seconds:.1f} s, {total_seconds / args.epochs:.1f} s per epoch")
    print(f"final test accuracy {100 * accuracy(model, test_x, test_y):.2f}%")
    if args.target_accuracy and best < args.target_accuracy:
        print(f"missed the target: the best epoch reached {best:.2f}%, below {args.target_accuracy}%")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

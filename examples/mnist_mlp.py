#!/usr/bin/env python3
"""The PyTorch twin of examples/mnist_mlp.cpp: the same recipe, for comparing kael with PyTorch.

784-512-256-10 with ReLU, PyTorch's default initialisation, Adam at 1e-3, batch 128,
shuffled, 10 epochs, images scaled to [0, 1]. Prints the same lines as the C++ program and
writes the loss of every step to <out>/mnist_mlp_loss_torch.csv.

    /usr/bin/python3 examples/mnist_mlp.py [--data DIR] [--epochs 10] [--threads 1] [--out DIR]
"""
import argparse
import gzip
import os
import pathlib
import struct
import time

import numpy as np
import torch


def read_idx(path):
    """An IDX file (gzipped) as a numpy array: the format the C++ side reads with kael::data."""
    with gzip.open(path, "rb") as f:
        data = f.read()
    zero, dtype_code, rank = struct.unpack(">HBB", data[:4])
    if zero != 0 or dtype_code != 0x08:
        raise ValueError(f"{path}: not an unsigned-byte IDX file")
    shape = struct.unpack(f">{rank}I", data[4:4 + 4 * rank])
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * rank).reshape(shape)


def load_split(directory, split):
    images = read_idx(directory / f"{split}-images-idx3-ubyte.gz")
    labels = read_idx(directory / f"{split}-labels-idx1-ubyte.gz")
    x = torch.from_numpy(images.reshape(len(images), -1).astype(np.float32) / 255.0)
    return x, torch.from_numpy(labels.astype(np.int64))


def accuracy(model, x, y):
    model.eval()
    with torch.no_grad():
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
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", default=".")
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    directory = pathlib.Path(args.data)
    train_x, train_y = load_split(directory, "train")
    test_x, test_y = load_split(directory, "t10k")
    model = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 256),
                                torch.nn.ReLU(), torch.nn.Linear(256, 10))
    adam = torch.optim.Adam(model.parameters(), lr=args.lr)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    print(f"Fashion-MNIST: {len(train_x)} training and {len(test_x)} test images")

    step = 0
    total_seconds = 0.0
    with open(out / "mnist_mlp_loss_torch.csv", "w") as curve:
        curve.write("step,epoch,loss\n")
        for epoch in range(1, args.epochs + 1):
            start = time.perf_counter()
            order = torch.randperm(len(train_x))
            loss_sum, batches = 0.0, 0
            for first in range(0, len(train_x), args.batch_size):
                rows = order[first:first + args.batch_size]
                loss = torch.nn.functional.cross_entropy(model(train_x[rows]), train_y[rows])
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
            print(f"epoch {epoch:2d}/{args.epochs}  train loss {loss_sum / batches:.4f}  "
                  f"test accuracy {100 * accuracy(model, test_x, test_y):.2f}%  {seconds:.1f} s", flush=True)
    print(f"training took {total_seconds:.1f} s, {total_seconds / args.epochs:.1f} s per epoch")
    print(f"final test accuracy {100 * accuracy(model, test_x, test_y):.2f}%")


if __name__ == "__main__":
    main()

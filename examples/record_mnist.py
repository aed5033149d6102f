#!/usr/bin/python3
"""Runs the Fashion-MNIST recipe in kael and in PyTorch and records both runs.

    examples/record_mnist.py BUILD_DIR [--epochs 10]

BUILD_DIR holds a build of kael with its examples (build/main). Both programs run with one
thread (OPENBLAS_NUM_THREADS=1 for kael's BLAS, torch.set_num_threads(1)), one after the
other, in the environment this script was started in. The logs and the per-step losses go
to examples/results/: mnist_mlp_kael.log, mnist_mlp_loss.csv, mnist_mlp_torch.log,
mnist_mlp_loss_torch.csv, and summary.md, the table the README and chapter 07 quote. The
book draws its loss-curve figure from the two CSV files.
"""
import argparse
import datetime
import os
import pathlib
import re
import statistics
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
RESULTS = ROOT / "examples" / "results"


def run(command, log, env):
    print("record_mnist: " + " ".join(str(c) for c in command), flush=True)
    result = subprocess.run([str(c) for c in command], capture_output=True, text=True, env=env)
    log.write_text(result.stdout)
    if result.returncode != 0:
        sys.exit(f"record_mnist: {command[0]} failed:\n{result.stderr}")
    return result.stdout


def summary_of(log):
    epochs = [(int(m[1]), float(m[2]), float(m[3]), float(m[4]))
              for m in re.finditer(r"epoch +(\d+)/\d+ +train loss ([\d.]+) +test accuracy ([\d.]+)% +([\d.]+) s", log)]
    final = re.search(r"final test accuracy ([\d.]+)%", log)
    if not epochs or not final:
        sys.exit("record_mnist: a log without epoch lines or a final accuracy")
    return epochs, float(final[1])


def cpu_name():
    for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "an unknown CPU"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build")
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    RESULTS.mkdir(parents=True, exist_ok=True)
    kael = run([pathlib.Path(args.build) / "examples" / "mnist_mlp", "--epochs", args.epochs, "--out", RESULTS],
               RESULTS / "mnist_mlp_kael.log", env)
    (RESULTS / "mnist_mlp.safetensors").unlink(missing_ok=True)  # 2 MB of weights: not worth committing
    torch = run(["/usr/bin/python3", ROOT / "examples" / "mnist_mlp.py", "--epochs", args.epochs, "--threads", 1,
                 "--out", RESULTS], RESULTS / "mnist_mlp_torch.log", env)
    kael_epochs, kael_final = summary_of(kael)
    torch_epochs, torch_final = summary_of(torch)
    kael_epoch = statistics.median(e[3] for e in kael_epochs)
    torch_epoch = statistics.median(e[3] for e in torch_epochs)
    kernel = re.search(r"matrix products: (.*)", kael)
    kernel = kernel[1] if kernel else "unknown"
    core = os.environ.get("OPENBLAS_CORETYPE")
    core = f"OPENBLAS_CORETYPE={core}" if core else "OPENBLAS_CORETYPE unset"
    lines = [
        f"Recorded on {datetime.date.today()} on {cpu_name()} by `examples/record_mnist.py {args.build}`: "
        f"784-512-256-10 MLP, Adam at 1e-3, batch 128, {args.epochs} epochs, one thread per side "
        f"({core}; kael's matrix products: {kernel}; PyTorch's go through OpenBLAS).",
        "",
        "| | kael (examples/mnist_mlp.cpp) | PyTorch (examples/mnist_mlp.py) |",
        "|---|---:|---:|",
        f"| final test accuracy | {kael_final:.2f}% | {torch_final:.2f}% |",
        f"| best test accuracy of an epoch | {max(e[2] for e in kael_epochs):.2f}% | "
        f"{max(e[2] for e in torch_epochs):.2f}% |",
        f"| final train loss | {kael_epochs[-1][1]:.4f} | {torch_epochs[-1][1]:.4f} |",
        f"| median time per epoch | {kael_epoch:.2f} s | {torch_epoch:.2f} s |",
        f"| kael / PyTorch epoch time | {kael_epoch / torch_epoch:.2f} | |",
        "",
        f"Accuracy difference (kael minus PyTorch): {kael_final - torch_final:+.2f} percentage points.",
    ]
    text = "\n".join(lines) + "\n"
    (RESULTS / "summary.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()

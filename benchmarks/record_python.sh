#!/usr/bin/env bash
# Records benchmarks/RESULTS-python.md (chapter 10): the fixed cost of tiny calls from
# Python against PyTorch (benchmarks/python_overhead.py), and one Fashion-MNIST epoch of
# the same recipe three ways: the C++ example, its Python twin, and the PyTorch script.
# One thread everywhere. Needs a build in build/main (or $1) with the Python module.
#
#   benchmarks/record_python.sh [BUILD_DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build/main}"
out="$root/benchmarks/RESULTS-python.md"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1 PYTHONPATH="$build/python"
python=/usr/bin/python3
cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
per_epoch() { sed -n 's/^training took .*, \([0-9.]*\) s per epoch$/\1/p' "$1"; }
"$build/examples/mnist_mlp" --epochs 2 --out "$work" > "$work/cpp.log"
"$python" "$root/examples/mnist_mlp_kael.py" --epochs 2 --out "$work" > "$work/python.log"
"$python" "$root/examples/mnist_mlp.py" --epochs 2 --threads 1 --out "$work" > "$work/torch.log"
{
  echo "Measured on $(date -u +%F) on $cpu, one thread per side, by \`benchmarks/record_python.sh\`."
  echo
  echo "## The fixed cost of a tiny call"
  echo
  "$python" "$root/benchmarks/python_overhead.py" --repeat 7
  echo
  echo "## One Fashion-MNIST epoch (784-512-256-10, Adam, batch 128; the mean of two epochs)"
  echo
  echo "| program | seconds per epoch |"
  echo "|---|---:|"
  echo "| examples/mnist_mlp.cpp (kael, C++) | $(per_epoch "$work/cpp.log") |"
  echo "| examples/mnist_mlp_kael.py (kael, Python) | $(per_epoch "$work/python.log") |"
  echo "| examples/mnist_mlp.py (PyTorch, Python) | $(per_epoch "$work/torch.log") |"
  echo
  echo "The C++ and Python kael runs print the same losses: $(grep -c 'train loss' "$work/cpp.log") epochs each,"
  echo "last line \`$(grep 'train loss' "$work/python.log" | tail -1 | sed 's/  [0-9.]* s$//')\`."
} > "$out"
echo "record_python: wrote $out"

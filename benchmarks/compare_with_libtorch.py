#!/usr/bin/python3
"""Runs the same workloads through kael and through libtorch (PyTorch's C++ API) on this
machine, interleaved, and prints the ratios as a Markdown table, which it also writes to
the table of the instruction set kael's kernels ran: benchmarks/RESULTS.md for AVX-512,
benchmarks/RESULTS-avx2.md for AVX2 (the book's chapter 05 shows both).

    benchmarks/compare_with_libtorch.py [--threads N] [--rounds R] [--min-time S] [--isa avx2]

It builds kael's benchmarks in build/bench and the libtorch side (Debian's libtorch-dev)
in build/bench-libtorch. For a fair comparison it
  - unsets OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE for both sides (the environment of
    these machines pins OpenBLAS to its Haswell kernels, which halves its sgemm),
  - gives both sides the same thread count (and OMP_WAIT_POLICY=PASSIVE above one thread,
    so two busy-waiting OpenMP pools do not fight over two cores),
  - alternates kael and libtorch runs of each workload, several rounds, and keeps each
    side's median: the noise between passes on a shared machine reaches 1.5-2x.

With --isa avx2 both sides run the code an AVX2-only CPU runs, on whatever CPU this is:
kael is built for x86-64-v3 (build/bench-avx2) with KAEL_GEMM_ISA=avx2, libtorch gets
ATEN_CPU_CAPABILITY=avx2 and OpenBLAS its Haswell kernels. The table goes to
benchmarks/RESULTS-avx2.md. It measures AVX2 code on this machine's cores, not an AVX2
machine: the instruction mix is that of the other machines, the memory system is this one's.
On an AVX2-only CPU the plain run already writes that table, from the real thing.

With --only BM_Softmax,BM_Exp (the names in WORKLOADS) it measures those rows alone and
prints them without touching the tables: for a second look at a noisy row, with more rounds.
"""
import argparse
import datetime
import json
import os
import pathlib
#> stage 8
import re
#< stage 8
import statistics
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
WORKLOADS = [
    ("BM_AddInPlace", "add 10M float32 into an existing tensor (a += b)"),
    ("BM_AddFresh", "add 10M float32 into a new tensor"),
    ("BM_AddBroadcast", "add [1000, 1000] + [1000]"),
    ("BM_AddTransposed", "add [2500, 4000] + transposed [4000, 2500]"),
    ("BM_Sum", "sum of 10M float32"),
    ("BM_SumTransposed", "sum(a.T(), {1}) of [4000, 2500] float32 (a strided reduction)"),
    ("BM_Softmax", "softmax [4096, 1024] over the last dim"),
    ("BM_Exp", "exp of 4M float32"),
    ("BM_Tanh", "tanh of 4M float32"),
    ("BM_Gelu", "gelu (exact) of 4M float32"),
    ("BM_Matmul/256", "matmul 256 (kael's own kernel)"),
    ("BM_Matmul/512", "matmul 512 (kael's own kernel)"),
    ("BM_Matmul/1024", "matmul 1024 (kael's own kernel)"),
    ("BM_Matmul/2048", "matmul 2048 (kael's own kernel)"),
    ("BM_MatmulBlas/1024", "matmul 1024 (kael through OpenBLAS)"),
    ("BM_MatmulBlas/2048", "matmul 2048 (kael through OpenBLAS)"),
    ("BM_AddTiny", "add of two 4-element tensors (per-op overhead)"),
]
#> stage 7
# The autograd suite (--suite autograd): kael's side is benchmarks/bench_autograd.cpp.
AUTOGRAD_WORKLOADS = [
    ("BM_MlpStep", "MLP 784-256-10 step, batch 128: forward, backward (kael's default matmul backend)"),
    ("BM_MlpStepOwnKernel", "the same step with kael's own matrix kernel"),
    ("BM_MlpForward", "the MLP forward alone, no graph"),
    ("BM_AddTinyPlain", "add of two 4-element tensors, no grad"),
    ("BM_AddTinyRecorded", "the same add with both inputs requiring grad (one node recorded)"),
]
#< stage 7
#> stage 8
# The training suite (--suite training): kael's side is benchmarks/bench_training.cpp.
TRAINING_WORKLOADS = [
    ("BM_TrainStep", "MLP 784-512-256-10 training step, batch 128: forward, cross entropy, backward, Adam "
                     "(kael's default matmul backend)"),
    ("BM_TrainStepOwnKernel", "the same step with kael's own matrix kernel"),
#> stage 9
    ("BM_TrainStepNoCache", "the same step with kael's caching allocator off"),
#< stage 9
]
#< stage 8
#> stage 9
# The allocator suite (--suite allocator): what the cache of chapter 08 saves, in
# (kael benchmark binary, workload, label) triples. kael runs each workload and its
# NoCache twin in one process, their repetitions interleaved in random order, so that the
# two are compared under the same load; libtorch runs the workload under the same name.
ALLOCATOR_WORKLOADS = [
    ("kael_bench_ops", "BM_AddFresh", "add of 10M float32 into a new tensor"),
    ("kael_bench_ops", "BM_EmptyActivation", "make and drop a [128, 512] float32 tensor"),
    ("kael_bench_training", "BM_TrainStep", "MLP 784-512-256-10 training step with Adam, batch 128"),
    ("kael_bench_training", "BM_TrainStepLargeBatch", "the same step at batch 16384 (32 MiB activations)"),
]
#< stage 9


# Bytes each workload moves per element, to turn times into bandwidth.
BYTES_PER_ELEMENT = {
    "BM_AddInPlace": (10_000_000, 12),
    "BM_AddFresh": (10_000_000, 12),
    "BM_AddTransposed": (10_000_000, 12),
    "BM_Sum": (10_000_000, 4),
    "BM_SumTransposed": (10_000_000, 4),
}


def cpu_name():
    for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "an unknown CPU"


def commit():
    """HEAD's short hash, marked when the working tree has changes the table would not show;
    in a stage's tree written by scripts/stage, the stage and the commit it was cut from."""
    stage_source = ROOT / ".kael-stage-source"
    if stage_source.exists():
        return stage_source.read_text().strip()
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                           capture_output=True, text=True).stdout.strip()
    return f"commit {head.stdout.strip() or 'unknown'}" + (" with uncommitted changes" if dirty else "")


def cpu_vectors():
    flags = pathlib.Path("/proc/cpuinfo").read_text()
    return "AVX-512" if " avx512f" in flags else "AVX2, no AVX-512" if " avx2" in flags else "no AVX2"


def kernel_isa(binary, env, probe="BM_AddTiny"):
    """The copy of the matrix kernel the benchmark binary runs, as its context reports it."""
    result = subprocess.run([str(binary), f"--benchmark_filter=^{probe}$", "--benchmark_format=json",
                             "--benchmark_min_time=0.01"], capture_output=True, text=True, env=env)
    try:
        return json.loads(result.stdout)["context"].get("kael_matmul_kernel", "unknown")
    except (ValueError, KeyError):
        return "unknown"


def torch_version():
    result = subprocess.run(["/usr/bin/python3", "-c", "import torch; print(torch.__version__)"],
                            capture_output=True, text=True)
    return result.stdout.strip() or "(version unknown)"


def build(isa, target="kael_bench_ops"):
    def run(*cmd):
        subprocess.run(cmd, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    kael_dir = "build/bench" if isa == "native" else f"build/bench-{isa}"
    march = [] if isa == "native" else ["-DKAEL_MARCH=x86-64-v3"]
    run("cmake", "-S", ".", "-B", kael_dir, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
        "-DKAEL_BUILD_BENCHMARKS=ON", "-DKAEL_BUILD_TESTS=OFF", "-DKAEL_BUILD_EXAMPLES=OFF", *march)
    run("cmake", "--build", kael_dir, "--target", target)
    run("cmake", "-S", "benchmarks/libtorch", "-B", "build/bench-libtorch", "-G", "Ninja",
        "-DCMAKE_BUILD_TYPE=Release")
    run("cmake", "--build", "build/bench-libtorch")
    return ROOT / kael_dir / "benchmarks" / target, ROOT / "build/bench-libtorch/bench_libtorch"


def environment(threads, isa):
    env = dict(os.environ)
    env.pop("OPENBLAS_CORETYPE", None)
    env.pop("OPENBLAS_L2_SIZE", None)
    if isa == "avx2":
        env.update(KAEL_GEMM_ISA="avx2", ATEN_CPU_CAPABILITY="avx2", OPENBLAS_CORETYPE="Haswell")
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "KAEL_BENCH_THREADS"):
        env[name] = str(threads)
    if threads > 1:
        env["OMP_WAIT_POLICY"] = "PASSIVE"
    return env


def real_milliseconds(run):
    """The real time of one run of Google Benchmark's JSON output, in milliseconds."""
    return run["real_time"] * {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[run["time_unit"]]


def measure(binary, name, env, min_time):
    """Real time of one benchmark in milliseconds (or None), and its counters."""
    result = subprocess.run([str(binary), f"--benchmark_filter=^{name}$", "--benchmark_format=json",
                             f"--benchmark_min_time={min_time}"], capture_output=True, text=True, env=env)
    if result.returncode != 0:
        return None, {}
    runs = [b for b in json.loads(result.stdout)["benchmarks"] if b.get("run_type", "iteration") == "iteration"]
    if not runs or runs[0].get("error_occurred"):
        return None, {}
    return real_milliseconds(runs[0]), runs[0]


def measure_round(kael_binary, torch_binary, names, env, min_time, times, counters=None):
    """One interleaved round: each workload through kael, then through libtorch. Appends
    the times to times[name] = (kael's, libtorch's) and keeps kael's last run in counters."""
    for name in names:
        kael_ms, kael_run = measure(kael_binary, name, env, min_time)
        torch_ms, _ = measure(torch_binary, libtorch_name(name), env, min_time)
        if kael_ms is not None:
            times[name][0].append(kael_ms)
            if counters is not None:
                counters[name] = kael_run
        if torch_ms is not None:
            times[name][1].append(torch_ms)


def libtorch_name(name):
#> stage 7
    if name == "BM_MlpStepOwnKernel":
        return "BM_MlpStep"
#< stage 7
#> stage 8
    if name == "BM_TrainStepOwnKernel":
        return "BM_TrainStep"
#< stage 8
#> stage 9
    if name == "BM_TrainStepNoCache":
        return "BM_TrainStep"
#< stage 9
    return name.replace("BM_MatmulBlas", "BM_Matmul")


#> stage 7
def autograd_suite(args):
    """The forward+backward workloads of chapter 06, written to benchmarks/RESULTS-autograd.md."""
    kael_binary, torch_binary = build(args.isa, target="kael_bench_autograd")
    env = environment(args.threads, args.isa)
    times = {name: ([], []) for name, _ in AUTOGRAD_WORKLOADS}
    for _ in range(args.rounds):
        measure_round(kael_binary, torch_binary, [name for name, _ in AUTOGRAD_WORKLOADS], env, args.min_time, times)
    median = {name: (statistics.median(k), statistics.median(t)) for name, (k, t) in times.items() if k and t}
    lines = [
        f"Measured on {datetime.date.today()} on {cpu_name()} ({cpu_vectors()}), with {args.threads} thread(s) per "
        f"side, {args.rounds} interleaved rounds (medians), by `benchmarks/compare_with_libtorch.py --suite autograd "
        f"--threads {args.threads} --rounds {args.rounds}`; libtorch {torch_version()}, whose matrix products go "
        f"through OpenBLAS, as kael's default backend does when kael is built with BLAS.",
        "",
        "| workload | kael | libtorch | kael / libtorch time |",
        "|---|---:|---:|---:|",
    ]
    for name, label in AUTOGRAD_WORKLOADS:
        if name not in median:
            lines.append(f"| {label} | n/a | n/a | |")
            continue
        k, t = median[name]
        unit = (lambda ms: f"{ms * 1e6:.0f} ns") if k < 0.01 else (lambda ms: f"{ms:.3f} ms")
        lines.append(f"| {label} | {unit(k)} | {unit(t)} | {k / t:.2f} |")
    if "BM_AddTinyPlain" in median and "BM_AddTinyRecorded" in median:
        kael_overhead = (median["BM_AddTinyRecorded"][0] - median["BM_AddTinyPlain"][0]) * 1e6
        torch_overhead = (median["BM_AddTinyRecorded"][1] - median["BM_AddTinyPlain"][1]) * 1e6
        lines.append(f"| recording one node (recorded minus plain) | {kael_overhead:.0f} ns | {torch_overhead:.0f} ns | "
                     f"{kael_overhead / torch_overhead:.2f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    (ROOT / "benchmarks" / "RESULTS-autograd.md").write_text(text)
    return 0


#< stage 7
#> stage 8
def epoch_seconds(command, env):
    """The time of one epoch of the Fashion-MNIST example, from its "epoch  1/1 ..." line."""
    result = subprocess.run([str(c) for c in command], capture_output=True, text=True, env=env)
    match = re.search(r"epoch +1/1 .* ([\d.]+) s", result.stdout)
    return float(match[1]) if result.returncode == 0 and match else None


def training_suite(args):
    """The training step of chapter 07 and one epoch of examples/mnist_mlp.cpp against
    examples/mnist_mlp.py, written to benchmarks/RESULTS-training.md: once with OpenBLAS as
    it configures itself on this CPU, once with its best kernel for the CPU forced on both
    sides, because OpenBLAS falls back to an SSE3 kernel on CPUs it does not recognise."""
    kael_binary, torch_binary = build(args.isa, target="kael_bench_training")
    kael_dir = kael_binary.parents[1]
    subprocess.run(["cmake", "-S", ".", "-B", kael_dir, "-DKAEL_BUILD_EXAMPLES=ON"], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", kael_dir, "--target", "mnist_mlp"], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    best_core = "SkylakeX" if cpu_vectors() == "AVX-512" and args.isa == "native" else "Haswell"
    lines = [
        f"Measured on {datetime.date.today()} on {cpu_name()} ({cpu_vectors()}), with {args.threads} thread(s) per "
        f"side, {args.rounds} interleaved rounds (medians), by `benchmarks/compare_with_libtorch.py --suite training "
        f"--threads {args.threads} --rounds {args.rounds}`; libtorch and PyTorch {torch_version()}, whose matrix "
        f"products go through OpenBLAS 0.3.21.",
    ]
    for title, core in (("OpenBLAS as it configures itself on this CPU", None),
                        (f"OpenBLAS forced to its {best_core} kernel on both sides (OPENBLAS_CORETYPE={best_core})",
                         best_core)):
        env = environment(args.threads, args.isa)
        if core:
            env["OPENBLAS_CORETYPE"] = core
        times = {name: ([], []) for name, _ in TRAINING_WORKLOADS}
        epochs = ([], [])
        scratch = ROOT / "build" / "bench-epoch"
        for _ in range(args.rounds):
            measure_round(kael_binary, torch_binary, [name for name, _ in TRAINING_WORKLOADS], env, args.min_time,
                          times)
            kael_epoch = epoch_seconds([kael_dir / "examples" / "mnist_mlp", "--epochs", 1, "--out", scratch], env)
            torch_epoch = epoch_seconds(["/usr/bin/python3", ROOT / "examples" / "mnist_mlp.py", "--epochs", 1,
                                         "--threads", args.threads, "--out", scratch], env)
            for side, value in zip(epochs, (kael_epoch, torch_epoch)):
                if value is not None:
                    side.append(value)
        lines += [
            "",
            f"**{title}.** kael's default backend used: {kernel_isa(kael_binary, env, 'BM_TrainStep')}.",
            "",
            "| workload | kael | PyTorch | kael / PyTorch time |",
            "|---|---:|---:|---:|",
        ]
        for name, label in TRAINING_WORKLOADS:
            kael_times, torch_times = times[name]
            if not kael_times or not torch_times:
                lines.append(f"| {label} | n/a | n/a | |")
                continue
            k, t = statistics.median(kael_times), statistics.median(torch_times)
            lines.append(f"| {label} (against libtorch) | {k:.2f} ms | {t:.2f} ms | {k / t:.2f} |")
        if epochs[0] and epochs[1]:
            k, t = statistics.median(epochs[0]), statistics.median(epochs[1])
            lines.append(f"| one epoch of examples/mnist_mlp.cpp against examples/mnist_mlp.py | {k:.2f} s | "
                         f"{t:.2f} s | {k / t:.2f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    (ROOT / "benchmarks" / "RESULTS-training.md").write_text(text)
    return 0


#< stage 8
#> stage 9
def measure_pair(binary, name, env, min_time, repetitions):
    """Real times in milliseconds of `name` (cache warm) and of `name`NoCache (cache off),
    from one process that interleaves their repetitions in random order."""
    result = subprocess.run([str(binary), f"--benchmark_filter=^{name}(NoCache)?$", "--benchmark_format=json",
                             f"--benchmark_min_time={min_time}", f"--benchmark_repetitions={repetitions}",
                             "--benchmark_enable_random_interleaving=true"],
                            capture_output=True, text=True, env=env)
    times = {name: [], f"{name}NoCache": []}
    if result.returncode != 0:
        return times
    for run in json.loads(result.stdout)["benchmarks"]:
        if run.get("run_type") == "iteration" and not run.get("error_occurred") and run["name"] in times:
            times[run["name"]].append(real_milliseconds(run))
    return times


def readable_time(ms):
    return f"{ms:.2f} ms" if ms >= 0.1 else f"{ms * 1e6:.0f} ns"


def allocator_suite(args):
    """Each workload with kael's cache warm and with it off, and through libtorch, written
    to benchmarks/RESULTS-allocator.md."""
    ops_binary, torch_binary = build(args.isa, target="kael_bench_ops")
    training_binary, _ = build(args.isa, target="kael_bench_training")
    binaries = {"kael_bench_ops": ops_binary, "kael_bench_training": training_binary}
    env = environment(args.threads, args.isa)
    warm = {name: [] for _, name, _ in ALLOCATOR_WORKLOADS}
    cold = {name: [] for _, name, _ in ALLOCATOR_WORKLOADS}
    torch = {name: [] for _, name, _ in ALLOCATOR_WORKLOADS}
    for _ in range(args.rounds):
        for binary, name, _ in ALLOCATOR_WORKLOADS:
            pair = measure_pair(binaries[binary], name, env, args.min_time, repetitions=3)
            warm[name] += pair[name]
            cold[name] += pair[f"{name}NoCache"]
            torch_ms, _ = measure(torch_binary, name, env, args.min_time)
            if torch_ms is not None:
                torch[name].append(torch_ms)
    lines = [
        f"Measured on {datetime.date.today()} on {cpu_name()} ({cpu_vectors()}), with {args.threads} thread(s) per "
        f"side, by `benchmarks/compare_with_libtorch.py --suite allocator --threads {args.threads} --rounds "
        f"{args.rounds}`; libtorch {torch_version()}. kael's two columns come from the same processes, "
        f"{args.rounds} of them with 3 repetitions of each column in random order; libtorch ran "
        f"{args.rounds} times in between. Medians, and in brackets the middle half of kael's runs.",
        "",
        "| workload | kael, cache warm | kael, cache off | libtorch | warm / libtorch time | the cache saves |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for _, name, label in ALLOCATOR_WORKLOADS:
        if not warm[name] or not cold[name] or not torch[name]:
            lines.append(f"| {label} | n/a | n/a | n/a | | |")
            continue
        k, c, t = (statistics.median(times) for times in (warm[name], cold[name], torch[name]))
        k_quartiles = statistics.quantiles(warm[name], n=4)
        c_quartiles = statistics.quantiles(cold[name], n=4)
        lines.append(f"| {label} | {readable_time(k)} [{readable_time(k_quartiles[0])}, "
                     f"{readable_time(k_quartiles[2])}] | {readable_time(c)} [{readable_time(c_quartiles[0])}, "
                     f"{readable_time(c_quartiles[2])}] | {readable_time(t)} | {k / t:.2f} | {100 * (1 - k / c):.1f}% |")
    text = "\n".join(lines) + "\n"
    print(text)
    (ROOT / "benchmarks" / "RESULTS-allocator.md").write_text(text)
    return 0


#< stage 9
def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--min-time", type=float, default=0.2)
    parser.add_argument("--isa", choices=["native", "avx2"], default="native")
    parser.add_argument("--only", default="", help="comma-separated workloads to measure alone, printed only")
#> stage 7
#> until 8
#|     parser.add_argument("--suite", choices=["ops", "autograd"], default="ops")
#< until 8
#< stage 7
#> stage 8
#> until 9
#|     parser.add_argument("--suite", choices=["ops", "autograd", "training"], default="ops")
#< until 9
#< stage 8
#> stage 9
    parser.add_argument("--suite", choices=["ops", "autograd", "training", "allocator"], default="ops")
#< stage 9
    args = parser.parse_args()
#> stage 7
    if args.suite == "autograd":
        return autograd_suite(args)
#< stage 7
#> stage 8
    if args.suite == "training":
        return training_suite(args)
#< stage 8
#> stage 9
    if args.suite == "allocator":
        return allocator_suite(args)
#< stage 9
    workloads = WORKLOADS
    if args.only:
        wanted = args.only.split(",")
        unknown = sorted(set(wanted) - {name for name, _ in WORKLOADS})
        if unknown:
            sys.exit(f"compare_with_libtorch.py: no workload named {', '.join(unknown)}")
        workloads = [(name, label) for name, label in WORKLOADS if name in wanted]
    kael_binary, torch_binary = build(args.isa)
    env = environment(args.threads, args.isa)

    times = {name: ([], []) for name, _ in workloads}
    counters = {}
    bandwidths = []
    for _ in range(args.rounds):
        # The plain loop runs right before each round's first workload, a += b, so that the
        # two are measured at the same moment of a machine whose bandwidth wanders.
        bandwidths.append(measure(kael_binary, "BM_Bandwidth", env, args.min_time)[1])
        measure_round(kael_binary, torch_binary, [name for name, _ in workloads], env, args.min_time, times, counters)
    bandwidth = statistics.median(b["bytes_per_second"] for b in bandwidths if b) / 1e9
    isa_flag = ("" if args.isa == "native" else f" --isa {args.isa}") + (f" --only {args.only}" if args.only else "")
    code = ("kael built for this CPU (-march=native)" if args.isa == "native"
            else "both sides running AVX2 code (kael -march=x86-64-v3, libtorch ATEN_CPU_CAPABILITY=avx2)")
    matmul_isa = kernel_isa(kael_binary, env)
    lines = [
        f"Measured on {datetime.date.today()} on {cpu_name()} ({cpu_vectors()}), {code}, with "
        f"{args.threads} thread(s) per side, {args.rounds} interleaved rounds (medians), by "
        f"`benchmarks/compare_with_libtorch.py --threads {args.threads} --rounds {args.rounds}{isa_flag}` "
        f"from {commit()}; libtorch {torch_version()}. kael's own matrix kernel ran its "
        f"**{matmul_isa}** copy.",
        "",
        f"Memory bandwidth for the pattern of `a += b` on 10M floats, one thread, measured with a plain "
        f"C++ loop: **{bandwidth:.1f} GB/s**.",
        "",
        "| workload | kael | libtorch | kael / libtorch time | kael throughput |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, label in workloads:
        kael_times, torch_times = times[name]
        if not kael_times or not torch_times:
            lines.append(f"| {label} | {'n/a' if not kael_times else ''} | {'n/a' if not torch_times else ''} | | |")
            continue
        k, t = statistics.median(kael_times), statistics.median(torch_times)
        if name.startswith("BM_Matmul"):
            size = int(name.split("/")[1])
            throughput = f"{2 * size ** 3 / (k / 1e3) / 1e9:.0f} GFLOP/s (libtorch {2 * size ** 3 / (t / 1e3) / 1e9:.0f})"
        elif name in BYTES_PER_ELEMENT:
            elements, per_element = BYTES_PER_ELEMENT[name]
            gbps = elements * per_element / (k / 1e3) / 1e9
            throughput = f"{gbps:.1f} GB/s ({gbps / bandwidth:.0%} of measured)"
        else:
            throughput = ""
        unit = (lambda ms: f"{ms * 1e6:.0f} ns") if k < 0.01 else (lambda ms: f"{ms:.3f} ms")
        lines.append(f"| {label} | {unit(k)} | {unit(t)} | {k / t:.2f} | {throughput} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.only:
        # One table per instruction set, whichever machine it came from: RESULTS.md holds the
        # AVX-512 code's figures, RESULTS-avx2.md the AVX2 code's (from an AVX2-only CPU, or
        # from --isa avx2 on an AVX-512 one).
        name = "RESULTS.md" if matmul_isa == "avx512" else f"RESULTS-{matmul_isa}.md"
        (ROOT / "benchmarks" / name).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

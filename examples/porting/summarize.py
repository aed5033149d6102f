"""Reads the logs nanogpt.sh and mingpt.sh left in WORK_DIR and prints the Markdown results
file of the porting guide (examples/results/porting.md).

    summarize.py WORK_DIR NANOGPT_COMMIT MINGPT_COMMIT
"""
import platform
import re
import statistics
import sys
from pathlib import Path

NANOGPT_EVAL = re.compile(r"^step (\d+): train loss ([\d.]+), val loss ([\d.]+)$")
NANOGPT_ITER = re.compile(r"^iter (\d+): loss [\d.]+, time ([\d.]+)ms")
MINGPT_ITER = re.compile(r"^iter_dt ([\d.]+)ms; iter (\d+): train loss ([\d.]+)$")


def matches(log, pattern):
    return [m for m in map(pattern.match, log.read_text().splitlines()) if m]


def evaluations(log):
    return {int(m[1]): (m[2], m[3]) for m in matches(log, NANOGPT_EVAL)}


def sample_start(log, words=10):
    lines = log.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("In the beginning"))
    return " ".join(" ".join(lines[start:start + 3]).split()[:words]).replace("|", "/")


def cpu_name():
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def nanogpt(work, commit):
    config = (work / "kael" / "train_kjv_char.py").read_text()
    eval_interval = int(re.search(r"^eval_interval = (\d+)", config, re.M)[1])
    sides = {side: evaluations(work / side / "train.log") for side in ("torch", "kael")}
    print(f"## nanoGPT\n\nnanoGPT `{commit}`: `train.py` and `sample.py`, configuration "
          "`examples/porting/train_kjv_char.py`, losses as `train.py` printed them at each evaluation.\n")
    print("| step | PyTorch train | PyTorch val | kael train | kael val |")
    print("|---|---|---|---|---|")
    for step in sorted(sides["torch"]):
        kael_train, kael_val = sides["kael"].get(step, ("-", "-"))
        print(f"| {step} | {sides['torch'][step][0]} | {sides['torch'][step][1]} | {kael_train} | {kael_val} |")
    # Steps right after an evaluation include it in their time; the others are training alone.
    ms = {side: statistics.median(float(m[2]) for m in matches(work / side / "train.log", NANOGPT_ITER)
                                  if int(m[1]) % eval_interval != 0) for side in sides}
    resumed = {side: min(evaluations(work / side / "resume.log").items()) for side in sides}
    print("\n| nanoGPT | PyTorch | kael |")
    print("|---|---|---|")
    print(f"| ms per training step (median) | {ms['torch']:.1f} | {ms['kael']:.1f} |")
    print(f"| val loss after resuming at step {resumed['kael'][0]} | {resumed['torch'][1][1]} | "
          f"{resumed['kael'][1][1]} |")
    print(f"| sample.py from the checkpoint | {sample_start(work / 'torch' / 'sample.log')} | "
          f"{sample_start(work / 'kael' / 'sample.log')} |")


def mingpt(work, commit):
    runs = {side: matches(work / f"mingpt-{side}" / "train.log", MINGPT_ITER) for side in ("torch", "kael")}
    print(f"\n## minGPT\n\nminGPT `{commit}`: `projects/chargpt/chargpt.py` with the `mingpt` package "
          "(`gpt-mini`, block 64, batch 16, dropout 0.1), losses as its trainer printed them.\n")
    print("| iteration | PyTorch loss | kael loss |")
    print("|---|---|---|")
    kael_losses = {int(m[2]): m[3] for m in runs["kael"]}
    for m in runs["torch"]:
        if int(m[2]) % 50 == 0:
            print(f"| {m[2]} | {m[3]} | {kael_losses.get(int(m[2]), '-')} |")
    ms = {side: statistics.median(float(m[1]) for m in run if int(m[2]) > 0) for side, run in runs.items()}
    print(f"\n| minGPT | PyTorch | kael |\n|---|---|---|\n| ms per iteration (median) | {ms['torch']:.1f} | "
          f"{ms['kael']:.1f} |")


def main():
    work, nanogpt_commit, mingpt_commit = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    print("# PyTorch programs on kael\n")
    print("Each program ran unchanged on PyTorch 1.13 and with only its import lines changed on kael "
          f"(`examples/porting/port.py`), one thread each, on {cpu_name()}, by `examples/porting/record.sh`. "
          "Each library draws its own starting weights and dropout masks, so the curves agree within noise, "
          "not to the bit. PyTorch runs as Debian installs it: this is a comparison of what the programs "
          "compute, and the times are as a user first sees them (benchmarks/RESULTS-gpt2-training.md "
          "compares tuned configurations).\n")
    nanogpt(work, nanogpt_commit)
    mingpt(work, mingpt_commit)


if __name__ == "__main__":
    main()

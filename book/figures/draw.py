#!/usr/bin/python3
"""Draws the book's figures, as SVG, from what the book's programs printed.

    book/figures/draw.py OUTPUTS TARGET

OUTPUTS is the folder where scripts/book records what each program in book/examples/
printed (build/book/outputs/<program>.txt); TARGET is where the SVG files go
(book/docs/generated/figures, which git ignores). scripts/book runs this after the programs
and before mkdocs, so every build draws the figures again from the library's own answers.

Where the numbers come from:

- strides.svg: the shape, strides and offset of `grid` and `grid.transpose(0, 1)` and the
  values each one reads, from the sections "grid" and "transpose" of
  book/examples/ch03_views.cpp. The storage positions of every element are computed from
  those strides with chapter 01's formula, and checked against the printed values (the
  grid's storage holds 0, 1, 2, ..., so a value is the position it was read from).
- broadcast.svg: the shapes, strides, storage and expanded strides of a [3, 1] column and
  a [1, 4] row, the iterator's loop and the sum, from the section "broadcast-outer" of
  book/examples/ch04_iterator.cpp. Every cell of the result is recomputed from the
  expanded strides and checked against the printed sum.
- coalescing.svg: the element strides of two sliced inputs and the loop the iterator built
  for them (shape and byte strides after coalescing), from the section
  "coalesce-every-other" of book/examples/ch04_iterator.cpp. The byte strides before
  coalescing are the element strides times 4, the size of the float32 elements of
  `zeros`, checked against the innermost stride of the printed loop.
- benchmarks.svg: the table of benchmarks/RESULTS.md, which
  benchmarks/compare_with_libtorch.py writes from a measured run.
- autograd_graph.svg: the nodes that `loss = (x * w).sum() + x.exp().mean()` records, from
  the section "graph" of book/examples/ch06_graph.cpp: one line per node with its name, the
  leaf an AccumulateGrad node writes into, how many edges lead into it and where its own
  edges lead. The nodes are drawn in layers, each node one layer below the lowest node with
  an edge into it, so every arrow points down, from the loss to the leaves; the number in
  each node's corner is its place in the order the engine ran the nodes, from the section
  "order" of the same program. The printed edge counts are checked against the edges, and
  the run order against the dependencies (no node before a node with an edge into it).
- loss_curve.svg: the training loss of every step of the recorded Fashion-MNIST runs,
  examples/results/mnist_mlp_loss.csv (kael) and mnist_mlp_loss_torch.csv (PyTorch),
  which examples/record_mnist.py writes, with a 100-step moving average over each, and the
  test accuracy of every epoch from the two logs next to them.
- bucket_waste.svg: the internal waste of the caching allocator's buckets, (capacity -
  request) / capacity, for every request size from 1 byte to 16 MiB. The curve follows the
  bucket rule of chapter 08 (multiples of 512 up to 64 KiB, powers of two above); every row
  of the section "table" of book/examples/ch08_buckets.cpp, which detail::block_capacity
  printed, is checked against that rule and marked on the curve.
- char_gpt_loss.svg: the training loss of every step of the recorded character-level GPT
  run, examples/results/char_gpt_loss.csv, with a 50-step moving average, and the
  validation losses that examples/char_gpt.cpp and examples/char_gpt.py printed every 200
  steps (their logs), which examples/record_char_gpt.sh records.
- ch13_autograd_graph.svg: the graph of a small network's loss, drawn by Graphviz's `dot`
  from the DOT text that autograd::to_dot wrote (the section "dot" of
  book/examples/ch13_graph.cpp); not drawn while stage 14 has no recorded outputs.
- performance_ratios.svg: kael's time over libtorch's for every workload of
  benchmarks/RESULTS.md (the AVX-512 code) and benchmarks/RESULTS-avx2.md (the AVX2 code),
  two panels side by side, each titled with the CPU, vector width and date its file names;
  the column "kael / libtorch time" of each, as benchmarks/compare_with_libtorch.py wrote
  it.
- gpt2_decode.svg: GPT-2 small's decode in tokens per second, kael and PyTorch, with and
  without the KV cache, on each thread count of benchmarks/RESULTS-gpt2.md
  (benchmarks/record_gpt2.sh), the ratio the file gives, and the file's decode limit of the
  memory's read bandwidth.
- serving_throughput.svg: the load test of benchmarks/RESULTS-serving.md
- serving_benchmark.svg: the serving benchmark of benchmarks/RESULTS-serving.md
  (benchmarks/record_serving.sh), tokens and requests per second and the p50 and p99
  latencies of each run (max-batch 8 against max-batch 1).

These three are for book/docs/performance.md, and their files are read as Markdown tables:
a table that lost a column, a row or a separator line, or a cell that is not a number, is
an error naming the file (and the line). benchmarks/run-all rewrites all the files.

A section or a line that is missing or does not parse stops the script with an error that
names it: a figure is never drawn from stale or invented numbers. The one exception is a
file not recorded yet: without benchmarks/RESULTS-serving.md, serving_throughput.svg is not
drawn (the script says so), where every other missing file is an error.
"""
from __future__ import annotations

import math
import pathlib
import re
import shutil
import subprocess
import sys
import textwrap

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Rectangle  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]

# One look for every figure: the Material theme's indigo and deep orange, and greys.
INDIGO = "#3f51b5"
ORANGE = "#ff5722"
GREY = "#9e9e9e"
LIGHT = "#e8eaf6"
ROW_COLOURS = ["#c5cae9", "#ffccbc", "#c8e6c9", "#fff9c4", "#b2ebf2", "#f8bbd0"]

plt.rcParams.update({
    "font.family": "DejaVu Sans",
    "font.size": 10,
    "svg.hashsalt": "kael-book",   # stable ids, so an unchanged figure is byte-identical
    "svg.fonttype": "path",
})


class FigureError(Exception):
    pass


# ---------------------------------------------------------------------------------------
# Reading the recorded outputs


def sections(outputs: pathlib.Path, program: str) -> dict[str, list[str]]:
    """The sections of one program's output, split at the hook's `--- section: x ---`."""
    file = output_file(outputs, program)
    result: dict[str, list[str]] = {}
    current = None
    for line in file.read_text(encoding="utf-8").split("\n"):
        marker = re.fullmatch(r"--- section: ([\w.-]+) ---", line)
        if marker:
            current = marker.group(1)
            result[current] = []
        elif current is not None:
            result[current].append(line)
    return result


def output_file(outputs: pathlib.Path, program: str) -> pathlib.Path:
    """Where scripts/book recorded a program's output: OUTPUTS/stage-N/<program>.txt for a
    chapter's program, run against the chapter's stage (chNN_*.cpp against stage NN + 1),
    or OUTPUTS/<program>.txt in a flat folder."""
    chapter = re.match(r"ch(\d\d)_", program)
    candidates = [outputs / f"{program}.txt"]
    if chapter:
        candidates.insert(0, outputs / f"stage-{int(chapter.group(1)) + 1}" / f"{program}.txt")
    candidates.append(outputs / "main" / f"{program}.txt")
    for file in candidates:
        if file.is_file():
            return file
    raise FigureError(f"no output recorded for book/examples/{program}.cpp under {outputs}")


def section(outputs: pathlib.Path, program: str, name: str) -> list[str]:
    found = sections(outputs, program)
    if name not in found:
        raise FigureError(f"book/examples/{program}.cpp printed no section {name!r}")
    return found[name]


def numbers(text: str) -> list[int]:
    """The integers of a printed list such as "[3, 4]" (an empty list gives [])."""
    return [int(n) for n in re.findall(r"-?\d+", text)]


def match(pattern: str, lines: list[str], where: str) -> re.Match:
    for line in lines:
        found = re.search(pattern, line)
        if found:
            return found
    raise FigureError(f"{where}: no line matches {pattern!r}")


def tensor_values(line: str) -> list[float]:
    """The values of a printed tensor, `tensor([0, 1, ...], shape=[...], dtype=...)`."""
    found = re.search(r"tensor\(\[(.*?)\]", line)
    if not found:
        raise FigureError(f"not a printed tensor: {line!r}")
    return [float(v) for v in found.group(1).split(",") if v.strip()]


def positions(shape: list[int], strides: list[int], offset: int) -> list[int]:
    """Storage positions of every element in row-major order: chapter 01's formula."""
    result = []
    for k in range(math.prod(shape)):
        index, rest = [], k
        for size in reversed(shape):
            index.append(rest % size)
            rest //= size
        index.reverse()
        result.append(offset + sum(i * s for i, s in zip(index, strides)))
    return result


# ---------------------------------------------------------------------------------------
# Drawing helpers


def cell(ax, x, y, text, colour="white", edge="#424242", w=1.0, h=1.0, **kw):
    ax.add_patch(Rectangle((x, y), w, h, facecolor=colour, edgecolor=edge, linewidth=1.0,
                           **{k: v for k, v in kw.items() if k in ("hatch", "alpha", "linestyle")}))
    ax.text(x + w / 2, y + h / 2, text, ha="center", va="center",
            fontsize=kw.get("fontsize", 10), color=kw.get("textcolour", "black"))


def arc(ax, x0, x1, y, colour, height=0.6, label=None, below=False):
    sign = -1 if below else 1
    arrow = FancyArrowPatch((x0, y), (x1, y), connectionstyle=f"arc3,rad={-0.5 * sign if x1 > x0 else 0.5 * sign}",
                            arrowstyle="-|>", mutation_scale=9, color=colour, linewidth=1.1)
    ax.add_patch(arrow)
    if label:
        ax.text((x0 + x1) / 2, y + sign * (abs(x1 - x0) * 0.25 + 0.15), label, ha="center",
                va="bottom" if not below else "top", fontsize=8, color=colour)


def finish(fig, target: pathlib.Path, name: str) -> str:
    path = target / name
    fig.savefig(path, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    return name


# ---------------------------------------------------------------------------------------
# strides.svg: a 2-d tensor and its transpose over one storage


def parse_view(lines: list[str], label: str, where: str) -> tuple[list[int], list[int], int, list[float]]:
    for i, line in enumerate(lines):
        found = re.fullmatch(re.escape(label) + r": shape (\[.*?\]), strides (\[.*?\]), offset (\d+)", line)
        if found and i + 1 < len(lines):
            return (numbers(found.group(1)), numbers(found.group(2)), int(found.group(3)),
                    tensor_values(lines[i + 1]))
    raise FigureError(f"{where}: no metadata line for {label!r}")


def draw_strides(outputs: pathlib.Path, target: pathlib.Path) -> str:
    where = "ch03_views"
    views = [("grid", *parse_view(section(outputs, where, "grid"), "grid", where)),
             ("grid.transpose(0, 1)",
              *parse_view(section(outputs, where, "transpose"), "grid.transpose(0, 1)", where))]
    storage = max(max(positions(s, st, o)) for _, s, st, o, _ in views) + 1
    row_length = views[0][2][0]  # the grid is contiguous: a storage row per grid row

    def colour_of(position: int) -> str:
        return ROW_COLOURS[(position // row_length) % len(ROW_COLOURS)]

    fig, ax = plt.subplots(figsize=(9.2, 6.4))
    top = 0.0
    for n, (label, shape, strides, offset, values) in enumerate(views):
        rows, cols = shape
        where_read = positions(shape, strides, offset)
        if [int(v) for v in values] != where_read:
            raise FigureError(f"{where}: {label} read {values}, but its strides give {where_read}")
        y0 = top - rows
        # The logical matrix, each cell coloured by the row of the grid its element lives in.
        ax.text(0, top + 0.35, f"{label}: shape {shape}, strides {strides}", fontsize=10,
                fontweight="bold", color=INDIGO)
        for i in range(rows):
            for j in range(cols):
                p = where_read[i * cols + j]
                cell(ax, j, y0 + rows - 1 - i, str(int(values[i * cols + j])), colour_of(p))
        ax.text(cols + 0.3, y0 + rows / 2, f"position of [i, j]\n= {offset} + {strides[0]}·i + {strides[1]}·j",
                va="center", fontsize=9)
        # The storage, and the order in which a row-major reading of the view visits it.
        sx, sy = 7.4, y0 + rows / 2 - 0.5
        for p in range(storage):
            cell(ax, sx + p * 0.62, sy, str(p), colour_of(p),
                 w=0.62, h=0.8, fontsize=9)
        ax.text(sx, sy - 0.45, "storage positions", fontsize=8, color=GREY)
        for k in range(1, min(len(where_read), 6)):
            a, b = where_read[k - 1], where_read[k]
            step = b - a
            arc(ax, sx + a * 0.62 + 0.31, sx + b * 0.62 + 0.31, sy + 0.8,
                INDIGO if step == strides[-1] else ORANGE, label=f"{step:+d}")
        ax.text(sx + storage * 0.62 + 0.1, sy + 0.4,
                f"reading order {', '.join(map(str, where_read[:6]))}, …", va="center", fontsize=8,
                color=GREY)
        top = y0 - 1.4
    ax.set_xlim(-0.3, 7.4 + storage * 0.62 + 3.6)
    ax.set_ylim(top + 0.8, 1.0)
    ax.set_aspect("equal")
    ax.axis("off")
    return finish(fig, target, "strides.svg")


# ---------------------------------------------------------------------------------------
# broadcast.svg: a [3, 1] column and a [1, 4] row stretched to [3, 4]


def draw_broadcast(outputs: pathlib.Path, target: pathlib.Path) -> str:
    where = "ch04_iterator, section broadcast-outer"
    lines = section(outputs, "ch04_iterator", "broadcast-outer")
    operands = []
    for label in ("column", "row"):
        head = match(re.escape(label) + r": shape (\[.*?\]), strides (\[.*?\]), storage (\[.*?\])", lines, where)
        index = lines.index(head.string)
        expanded = re.search(r"expanded to (\[.*?\]): strides (\[.*?\])", lines[index + 1])
        if not expanded:
            raise FigureError(f"{where}: no expanded strides after {label!r}")
        operands.append((label, numbers(head.group(1)), numbers(head.group(2)), numbers(head.group(3)),
                         numbers(expanded.group(1)), numbers(expanded.group(2))))
    loop = match(r"column \+ row: (loop shape .*)", lines, where).group(1)
    result_line = lines[lines.index(match(r"column \+ row:", lines, where).string) + 1]
    result = [int(v) for v in tensor_values(result_line)]
    shape = operands[0][4]
    rows, cols = shape
    read = []
    for label, _, _, storage, eshape, estrides in operands:
        if eshape != shape:
            raise FigureError(f"{where}: {label} expanded to {eshape}, not {shape}")
        read.append([[storage[i * estrides[0] + j * estrides[1]] for j in range(cols)] for i in range(rows)])
    computed = [read[0][i][j] + read[1][i][j] for i in range(rows) for j in range(cols)]
    if computed != result:
        raise FigureError(f"{where}: the expanded strides give {computed}, the program printed {result}")

    fig, ax = plt.subplots(figsize=(10.5, 4.6))
    panels = [0.0, 6.6, 13.6]
    for n, (label, oshape, ostrides, storage, _, estrides) in enumerate(operands):
        x0 = panels[n]
        ax.text(x0, rows + 1.75, f"{label}: shape {oshape}, strides {ostrides}", fontsize=10,
                fontweight="bold", color=INDIGO)
        ax.text(x0, rows + 1.15, f"expanded to {shape}: strides {estrides}", fontsize=9)
        zero = [d for d, s in enumerate(estrides) if s == 0]
        for i in range(rows):
            for j in range(cols):
                stored = (i if 0 not in zero else 0, j if 1 not in zero else 0) == (i, j) \
                    and (oshape[0] > 1 or i == 0) and (oshape[1] > 1 or j == 0)
                cell(ax, x0 + j, rows - 1 - i, str(read[n][i][j]), LIGHT if not stored else ROW_COLOURS[n],
                     hatch=None if stored else "///", textcolour="black" if stored else "#616161")
        for d in zero:
            if d == 0:
                ax.annotate("", xy=(x0 + cols + 0.35, 0.1), xytext=(x0 + cols + 0.35, rows - 0.1),
                            arrowprops=dict(arrowstyle="-|>", color=ORANGE))
                ax.text(x0 + cols + 0.5, rows / 2, "dim 0\nstride 0", color=ORANGE, fontsize=8, va="center")
            else:
                ax.annotate("", xy=(x0 + cols - 0.1, -0.35), xytext=(x0 + 0.1, -0.35),
                            arrowprops=dict(arrowstyle="-|>", color=ORANGE))
                ax.text(x0 + cols / 2, -0.6, "dim 1: stride 0", color=ORANGE, fontsize=8, ha="center",
                        va="top")
        ax.text(x0, -1.35, "storage", fontsize=8, color=GREY, va="center")
        for p, v in enumerate(storage):
            cell(ax, x0 + 1.2 + p * 0.7, -1.75, str(v), ROW_COLOURS[n], w=0.7, h=0.8, fontsize=9)
    ax.text(panels[0] + cols + 1.3, rows / 2, "+", fontsize=20, ha="center", va="center")
    ax.text(panels[1] + cols + 2.0, rows / 2, "=", fontsize=20, ha="center", va="center")
    x0 = panels[2]
    ax.text(x0, rows + 1.75, f"column + row: shape {shape}", fontsize=10, fontweight="bold", color=INDIGO)
    ax.text(x0, rows + 1.15, loop.replace("; byte strides:", ";\nbyte strides:"), fontsize=8, va="bottom")
    for i in range(rows):
        for j in range(cols):
            cell(ax, x0 + j, rows - 1 - i, str(result[i * cols + j]), "white")
    ax.text(x0, -1.35, "every cell a new element:\n12 stored for 3 + 4 read", fontsize=8, color=GREY,
            va="center")
    ax.set_xlim(-0.3, panels[2] + cols + 0.4)
    ax.set_ylim(-2.3, rows + 2.3)
    ax.set_aspect("equal")
    ax.axis("off")
    return finish(fig, target, "broadcast.svg")


# ---------------------------------------------------------------------------------------
# coalescing.svg: two sliced inputs, before and after the iterator merges their dimensions


def draw_coalescing(outputs: pathlib.Path, target: pathlib.Path) -> str:
    where = "ch04_iterator, section coalesce-every-other"
    lines = section(outputs, "ch04_iterator", "coalesce-every-other")
    cases = []
    for i, line in enumerate(lines):
        found = re.search(r"of (\[\d+, \d+\]).*: shape (\[.*?\]), strides (\[.*?\])", line)
        if not found:
            continue
        loop_line = next((l for l in lines[i + 1:i + 4] if "loop shape" in l), None)
        loop = re.search(r"loop shape (\[.*?\]); byte strides: out (\[.*?\]), in0 (\[.*?\])", loop_line or "")
        if not loop:
            raise FigureError(f"{where}: no loop printed after {line!r}")
        cases.append((numbers(found.group(1)), numbers(found.group(2)), numbers(found.group(3)),
                      numbers(loop.group(1)), numbers(loop.group(3))))
    if len(cases) != 2:
        raise FigureError(f"{where}: expected two sliced inputs, found {len(cases)}")

    fig, axes = plt.subplots(2, 1, figsize=(10.5, 4.4))
    for ax, (base, shape, strides, loop_shape, loop_strides) in zip(axes, cases):
        itemsize = loop_strides[-1] // strides[-1]
        if itemsize != 4:
            raise FigureError(f"{where}: expected float32 elements (4 bytes), the loop implies {itemsize}")
        byte_strides = [s * itemsize for s in strides]
        visited = positions(shape, strides, 0)
        storage = math.prod(base)
        w = 0.62
        for p in range(storage):
            row = p // base[1]
            on = p in visited
            cell(ax, p * w, 0, f"{p * itemsize}", ROW_COLOURS[row % len(ROW_COLOURS)] if on else "white",
                 w=w, h=0.7, fontsize=7, textcolour="black" if on else GREY)
        ax.text(0, -0.35, f"storage of zeros({base}), byte offsets; shaded: the {len(visited)} elements the "
                f"slice reads", fontsize=8, color=GREY, va="top")
        for k in range(1, len(visited)):
            a, b = visited[k - 1], visited[k]
            step = (b - a) * itemsize
            arc(ax, a * w + w / 2, b * w + w / 2, 0.7,
                INDIGO if step == loop_strides[-1] else ORANGE, label=f"+{step}")
        merged = len(loop_shape) < len(shape)
        test = (f"outer stride {byte_strides[0]} == inner stride {byte_strides[1]} × size {shape[1]}"
                f"  {'yes' if byte_strides[0] == byte_strides[1] * shape[1] else 'no'}")
        ax.text(storage * w + 0.4, 1.55, f"before: shape {shape}, input byte strides {byte_strides}",
                fontsize=9, color="black")
        ax.text(storage * w + 0.4, 0.95, test, fontsize=9, color=INDIGO if merged else ORANGE)
        ax.text(storage * w + 0.4, 0.35, f"after:  loop shape {loop_shape}, input byte strides {loop_strides}",
                fontsize=9, fontweight="bold", color=INDIGO if merged else ORANGE)
        ax.text(storage * w + 0.4, -0.25,
                "one run: every step the same" if merged else
                f"{loop_shape[0]} runs of {loop_shape[1]}: the step between rows differs", fontsize=8,
                color=GREY)
        ax.set_xlim(-0.2, storage * w + 7.6)
        ax.set_ylim(-0.8, 2.2)
        ax.set_aspect("equal")
        ax.axis("off")
    return finish(fig, target, "coalescing.svg")


# ---------------------------------------------------------------------------------------
# benchmarks.svg: kael's time over libtorch's, per workload, from benchmarks/RESULTS.md


def parse_results(text: str) -> list[dict[str, str]]:
    rows, header = [], None
    for line in text.splitlines():
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = cells
        elif not all(re.fullmatch(r":?-+:?", c) for c in cells):
            rows.append(dict(zip(header, cells)))
    if not rows:
        raise FigureError("benchmarks/RESULTS.md has no table")
    return rows


def draw_benchmarks(target: pathlib.Path) -> str:
    text = (ROOT / "benchmarks" / "RESULTS.md").read_text(encoding="utf-8")
    rows = parse_results(text)
    ratio_key = next((k for k in rows[0] if "/" in k and "time" in k), None)
    if ratio_key is None:
        raise FigureError("benchmarks/RESULTS.md: no 'kael / libtorch time' column")
    names = [r["workload"] for r in rows]
    ratios = [float(r[ratio_key]) for r in rows]
    measured = next((l for l in text.splitlines() if l.startswith("Measured on")), "")
    fig, ax = plt.subplots(figsize=(9.0, 0.36 * len(rows) + 1.4))
    y = list(range(len(rows)))[::-1]
    colours = [INDIGO if r <= 1.0 else ORANGE for r in ratios]
    ax.barh(y, ratios, color=colours, height=0.62)
    ax.axvline(1.0, color="#424242", linewidth=1.0)
    for yi, r in zip(y, ratios):
        ax.text(r + 0.02, yi, f"{r:.2f}", va="center", fontsize=8)
    ax.set_yticks(y)
    ax.set_yticklabels(names, fontsize=8)
    ax.set_xlabel("kael's time / libtorch's time   (below 1: kael is faster)", fontsize=9)
    ax.set_xlim(0, max(max(ratios) * 1.12, 1.3))
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    date = re.search(r"Measured on (\S+) on ([^,]+)", measured)
    if date:
        ax.set_title(f"benchmarks/RESULTS.md: {date.group(2)}, {date.group(1)}", fontsize=9, loc="left",
                     color=GREY)
    return finish(fig, target, "benchmarks.svg")


# ---------------------------------------------------------------------------------------
# allocator_benchmarks.svg: chapter 08's table, each workload's times as shares of libtorch's


def milliseconds(text: str, where: str) -> float:
    """A time printed as "6.16 ms" or "236 ns", in milliseconds."""
    found = re.fullmatch(r"([\d.]+) (ns|us|ms|s)", text.strip())
    if not found:
        raise FigureError(f"{where}: '{text}' is not a time")
    return float(found[1]) * {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[found[2]]


def timed_cell(cell_text: str, where: str) -> tuple[float, float, float]:
    """(median, lower quartile, upper quartile) of a cell "6.16 ms [4.94 ms, 7.51 ms]"."""
    found = re.fullmatch(r"(.+?) \[(.+?), (.+?)\]", cell_text.strip())
    if not found:
        raise FigureError(f"{where}: '{cell_text}' is not 'median [quartile, quartile]'")
    return tuple(milliseconds(part, where) for part in found.groups())


def draw_allocator_benchmarks(target: pathlib.Path) -> str:
    where = "benchmarks/RESULTS-allocator.md"
    rows = parse_results((ROOT / "benchmarks" / "RESULTS-allocator.md").read_text(encoding="utf-8"))
    columns = ("kael, cache warm", "kael, cache off", "libtorch")
    if any(column not in rows[0] for column in columns):
        raise FigureError(f"{where}: the table lacks one of the columns {columns}")
    fig, ax = plt.subplots(figsize=(9.0, 0.95 * len(rows) + 1.2))
    height = 0.26
    for i, row in enumerate(rows):
        torch = milliseconds(row["libtorch"], where)
        base = len(rows) - 1 - i
        for offset, column, colour in ((height, columns[0], INDIGO), (0.0, columns[1], ORANGE),
                                       (-height, columns[2], GREY)):
            if column == "libtorch":
                share, low, high = 1.0, 1.0, 1.0
            else:
                median, q1, q3 = timed_cell(row[column], where)
                share, low, high = median / torch, q1 / torch, q3 / torch
            ax.barh(base + offset, share, height=height * 0.9, color=colour,
                    label=column if i == 0 else None)
            if column != "libtorch":
                ax.errorbar(share, base + offset, xerr=[[share - low], [high - share]], color="#212121",
                            capsize=2, linewidth=0.8)
            ax.text(max(share, high) + 0.02, base + offset, f"{share:.2f}", va="center", fontsize=7)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([row["workload"] for row in rows][::-1], fontsize=8)
    ax.set_xlabel("time as a share of libtorch's   (whiskers: the middle half of kael's runs)", fontsize=9)
    ax.axvline(1.0, color="#424242", linewidth=0.8)
    ax.legend(loc="upper center", bbox_to_anchor=(0.4, -0.14), ncol=3, fontsize=8, frameon=False)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return finish(fig, target, "allocator_benchmarks.svg")


# ---------------------------------------------------------------------------------------
# loss_curve.svg: the recorded Fashion-MNIST runs of kael and PyTorch


def read_loss_csv(path: pathlib.Path) -> tuple[list[float], list[float]]:
    """(fractional epoch, loss) per step of a CSV with the columns step,epoch,loss."""
    if not path.exists():
        raise FigureError(f"{path.relative_to(ROOT)} is missing: run examples/record_mnist.py")
    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines or lines[0] != "step,epoch,loss":
        raise FigureError(f"{path.relative_to(ROOT)}: the header is not step,epoch,loss")
    rows = [line.split(",") for line in lines[1:]]
    epochs = [int(r[1]) for r in rows]
    per_epoch = {e: epochs.count(e) for e in set(epochs)}
    seen: dict[int, int] = {}
    x, loss = [], []
    for (_, epoch, value) in rows:
        e = int(epoch)
        seen[e] = seen.get(e, 0) + 1
        x.append(e - 1 + seen[e] / per_epoch[e])
        loss.append(float(value))
    return x, loss


def read_accuracies(path: pathlib.Path) -> list[float]:
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    found = [float(m) for m in re.findall(r"test accuracy ([\d.]+)%", text.split("training took")[0])]
    if not found:
        raise FigureError(f"{path.relative_to(ROOT)}: no epoch lines")
    return found


def moving_average(values: list[float], window: int) -> list[float]:
    out, total = [], 0.0
    for i, v in enumerate(values):
        total += v
        if i >= window:
            total -= values[i - window]
        out.append(total / min(i + 1, window))
    return out


def draw_loss_curve(target: pathlib.Path) -> str:
    results = ROOT / "examples" / "results"
    runs = [("kael", INDIGO, "mnist_mlp_loss.csv", "mnist_mlp_kael.log"),
            ("PyTorch", ORANGE, "mnist_mlp_loss_torch.csv", "mnist_mlp_torch.log")]
    fig, (loss_ax, acc_ax) = plt.subplots(1, 2, figsize=(9.5, 3.6), gridspec_kw={"width_ratios": [2.2, 1]})
    for name, colour, csv, log in runs:
        x, loss = read_loss_csv(results / csv)
        loss_ax.plot(x, loss, color=colour, alpha=0.15, linewidth=0.5)
        loss_ax.plot(x, moving_average(loss, 100), color=colour, linewidth=1.6, label=f"{name} (100-step mean)")
        accuracies = read_accuracies(results / log)
        acc_ax.plot(range(1, len(accuracies) + 1), accuracies, color=colour, marker="o", markersize=3.5,
                    linewidth=1.4, label=f"{name}: {accuracies[-1]:.2f}% at the end")
    loss_ax.set_xlabel("epoch")
    loss_ax.set_ylabel("training loss (cross entropy)")
    loss_ax.set_ylim(0, 1.2)
    loss_ax.legend(frameon=False, fontsize=8)
    acc_ax.set_xlabel("epoch")
    acc_ax.set_ylabel("test accuracy (%)")
    acc_ax.axhline(88.0, color=GREY, linewidth=0.8, linestyle="--")
    acc_ax.text(1, 88.1, "88%", color=GREY, fontsize=8)
    acc_ax.legend(frameon=False, fontsize=8, loc="lower right")
    for ax in (loss_ax, acc_ax):
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
    summary = (results / "summary.md").read_text(encoding="utf-8") if (results / "summary.md").exists() else ""
    date = re.search(r"Recorded on (\S+)", summary)
    loss_ax.set_title(f"examples/results, recorded {date.group(1) if date else 'on an unknown date'}", fontsize=9,
                      loc="left", color=GREY)
    fig.tight_layout()
    return finish(fig, target, "loss_curve.svg")


# ---------------------------------------------------------------------------------------
# char_gpt_loss.svg: the recorded character-level GPT runs of chapter 11


def read_validation(path: pathlib.Path) -> tuple[list[int], list[float]]:
    """(step, validation loss) of every evaluation line of a char_gpt log."""
    if not path.exists():
        raise FigureError(f"{path.relative_to(ROOT)} is missing: run examples/record_char_gpt.sh")
    found = re.findall(r"^step +(\d+) +train loss [\d.]+ +validation loss ([\d.]+)$",
                       path.read_text(encoding="utf-8"), re.M)
    if not found:
        raise FigureError(f"{path.relative_to(ROOT)}: no evaluation lines")
    return [int(step) for step, _ in found], [float(loss) for _, loss in found]


def draw_char_gpt_curve(target: pathlib.Path) -> str:
    results = ROOT / "examples" / "results"
    csv = results / "char_gpt_loss.csv"
    if not csv.exists():
        raise FigureError(f"{csv.relative_to(ROOT)} is missing: run examples/record_char_gpt.sh")
    lines = csv.read_text(encoding="utf-8").splitlines()
    if not lines or lines[0] != "step,train_loss,val_loss":
        raise FigureError(f"{csv.relative_to(ROOT)}: the header is not step,train_loss,val_loss")
    rows = [line.split(",") for line in lines[1:]]
    steps = [int(r[0]) for r in rows]
    train = [float(r[1]) for r in rows]
    fig, ax = plt.subplots(figsize=(8, 3.4))
    ax.plot(steps, train, color=INDIGO, alpha=0.2, linewidth=0.5)
    ax.plot(steps, moving_average(train, 50), color=INDIGO, linewidth=1.4, label="kael, training (50-step mean)")
    for name, colour, log in (("kael", INDIGO, "char_gpt_kael.log"), ("PyTorch", ORANGE, "char_gpt_torch.log")):
        at, loss = read_validation(results / log)
        ax.plot(at, loss, color=colour, marker="o", markersize=4, linewidth=1.2, linestyle="--",
                label=f"{name}, validation: {loss[-1]:.4f} at step {at[-1]}")
    ax.set_xlabel("step")
    ax.set_ylabel("loss (cross entropy, nats per character)")
    ax.legend(frameon=False, fontsize=8)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    summary = (results / "char_gpt_summary.md").read_text(encoding="utf-8")
    date = re.search(r"Recorded on (\S+)", summary)
    ax.set_title(f"examples/results, recorded {date.group(1) if date else 'on an unknown date'}", fontsize=9,
                 loc="left", color=GREY)
    fig.tight_layout()
    return finish(fig, target, "char_gpt_loss.svg")


# ---------------------------------------------------------------------------------------
# bucket_waste.svg: how much of each block the caching allocator's rounding leaves unused


def bucket(request: int) -> int:
    """The rule of detail::block_capacity, checked below against what the library printed."""
    if request <= 65536:
        return (request + 511) // 512 * 512
    return 1 << (request - 1).bit_length()


def draw_bucket_waste(outputs: pathlib.Path, target: pathlib.Path) -> str:
    rows = []
    for line in section(outputs, "ch08_buckets", "table")[1:]:
        fields = line.split()
        if len(fields) < 2 or not fields[0].isdigit():
            continue
        request, capacity = int(fields[0]), int(fields[1])
        if bucket(request) != capacity:
            raise FigureError(f"ch08_buckets: block_capacity({request}) printed {capacity}, "
                              f"the figure's rule gives {bucket(request)}")
        rows.append((request, capacity))
    if not rows:
        raise FigureError("ch08_buckets: the section 'table' has no rows")
    limit = 1 << 24
    sizes = sorted({max(1, int(round(10 ** (e / 400)))) for e in range(0, int(400 * math.log10(limit)) + 1)}
                   | {512 * k for k in range(1, 129)} | {(1 << p) + 1 for p in range(9, 24)} | {1 << p for p in range(0, 25)})
    waste = [100 * (bucket(n) - n) / bucket(n) for n in sizes]
    fig, ax = plt.subplots(figsize=(9.0, 3.4))
    ax.plot(sizes, waste, color=INDIGO, linewidth=0.9)
    shown = [(r, c) for r, c in rows if r <= limit]
    ax.scatter([r for r, _ in shown], [100 * (c - r) / c for r, c in shown], color=ORANGE, s=18, zorder=3,
               label="rows of ch08_buckets' table")
    ax.axvline(65536, color=GREY, linewidth=0.8, linestyle="--")
    ax.text(65536 * 1.1, 70, "64 KiB: from multiples of 512\nto powers of two", fontsize=8, color="#424242")
    ax.set_xscale("log", base=2)
    ax.set_xlim(1, limit)
    ax.set_ylim(0, 100)
    ax.set_xlabel("request (bytes)")
    ax.set_ylabel("unused share of the block (%)")
    ax.legend(frameon=False, fontsize=8, loc="upper right")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    fig.tight_layout()
    return finish(fig, target, "bucket_waste.svg")


# ---------------------------------------------------------------------------------------
# autograd_graph.svg: the graph of one loss, from the loss down to the leaves


GRAPH_LINE = re.compile(r"node (\d+) (\w+)(?: (\w+))? created (\d+) inputs (\d+) next((?: (?:\d+|-))*)")


def parse_graph(lines: list[str], where: str) -> tuple[str, dict[int, dict]]:
    """The expression and the nodes of the section "graph": id -> name, leaf, inputs, next."""
    nodes: dict[int, dict] = {}
    expression = None
    for line in lines:
        if not line.strip():
            continue
        found = GRAPH_LINE.fullmatch(line)
        if found:
            nodes[int(found.group(1))] = {
                "name": found.group(2), "leaf": found.group(3), "created": int(found.group(4)),
                "inputs": int(found.group(5)),
                "next": [None if n == "-" else int(n) for n in found.group(6).split()]}
        elif expression is None and not nodes:
            expression = line.strip()
        else:
            raise FigureError(f"{where}: cannot read the line {line!r}")
    if not nodes or expression is None:
        raise FigureError(f"{where}: no expression and nodes printed")
    if 0 not in nodes:
        raise FigureError(f"{where}: no node 0 (the loss's grad_fn)")
    for number, node in nodes.items():
        for target in node["next"]:
            if target is not None and target not in nodes:
                raise FigureError(f"{where}: node {number} has an edge to node {target}, which was not printed")
        if node["name"] == "AccumulateGrad" and (node["next"] or not node["leaf"]):
            raise FigureError(f"{where}: AccumulateGrad node {number} must name its leaf and have no edges")
    for number, node in nodes.items():
        counted = sum(t == number for other in nodes.values() for t in other["next"])
        if counted != node["inputs"]:
            raise FigureError(f"{where}: node {number} says {node['inputs']} edges lead into it, "
                              f"the printed edges give {counted}")
    return expression, nodes


def parse_order(lines: list[str], nodes: dict[int, dict], where: str) -> dict[int, int]:
    """node id -> its place (1, 2, ...) in the order the engine ran the nodes."""
    order: dict[int, int] = {}
    for line in lines:
        found = re.match(r"(\d+)\. node (\d+) (\w+)", line)
        if not found:
            if line.strip():
                raise FigureError(f"{where}: cannot read the line {line!r}")
            continue
        number = int(found.group(2))
        if number not in nodes or nodes[number]["name"] != found.group(3):
            raise FigureError(f"{where}: the order names node {number} {found.group(3)}, which the graph lacks")
        if number in order:
            raise FigureError(f"{where}: node {number} ran twice")
        order[number] = int(found.group(1))
    if set(order) != set(nodes):
        raise FigureError(f"{where}: the order has {len(order)} nodes, the graph {len(nodes)}")
    for number, node in nodes.items():
        for target in node["next"]:
            if target is not None and order[target] < order[number]:
                raise FigureError(f"{where}: node {target} ran before node {number}, which sends it a gradient")
    return order


def graph_layers(nodes: dict[int, dict]) -> list[list[int]]:
    """Layer 0 holds the loss's node; every other node sits one layer below the lowest node
    with an edge into it. Within a layer, nodes are ordered by the mean position of the
    nodes above that point at them (fewer crossings), then by id."""
    depth = {0: 0}
    changed = True
    rounds = 0
    while changed:
        changed = False
        rounds += 1
        if rounds > len(nodes) + 1:
            raise FigureError("ch06_graph: the printed graph has a cycle")
        for number in sorted(depth):
            for target in nodes[number]["next"]:
                if target is not None and depth.get(target, -1) < depth[number] + 1:
                    depth[target] = depth[number] + 1
                    changed = True
    if set(depth) != set(nodes):
        raise FigureError("ch06_graph: some printed nodes cannot be reached from node 0")
    layers: list[list[int]] = [[] for _ in range(max(depth.values()) + 1)]
    for number in sorted(nodes):
        layers[depth[number]].append(number)
    for i in range(1, len(layers)):
        position = {n: k for k, n in enumerate(layers[i - 1])}

        def centre(number: int) -> float:
            parents = [position[p] for p in layers[i - 1] if number in nodes[p]["next"]]
            return sum(parents) / len(parents) if parents else float(len(position))

        layers[i].sort(key=lambda n: (centre(n), n))
    return layers


def draw_autograd_graph(outputs: pathlib.Path, target: pathlib.Path) -> str:
    where = "ch06_graph, section graph"
    expression, nodes = parse_graph(section(outputs, "ch06_graph", "graph"), where)
    order = parse_order(section(outputs, "ch06_graph", "order"), nodes, "ch06_graph, section order")
    layers = graph_layers(nodes)
    width, height, dx, dy = 2.7, 0.8, 3.3, 1.75
    widest = max(len(layer) for layer in layers)
    place = {}
    for i, layer in enumerate(layers):
        start = (widest - len(layer)) * dx / 2
        for k, number in enumerate(layer):
            place[number] = (start + k * dx, -i * dy)

    fig, ax = plt.subplots(figsize=(1.9 + 2.3 * widest, 1.2 + 1.25 * len(layers)))
    ax.text(-0.2, 1.25, expression, fontsize=10, fontweight="bold", color=INDIGO, va="bottom")
    for number, node in nodes.items():
        x, y = place[number]
        leaf = node["name"] == "AccumulateGrad"
        ax.add_patch(FancyBboxPatch((x, y), width, height, boxstyle="round,pad=0.02,rounding_size=0.12",
                                    facecolor=ROW_COLOURS[1] if leaf else LIGHT,
                                    edgecolor=ORANGE if leaf else INDIGO, linewidth=1.2))
        label = f"{node['name']}\ninto {node['leaf']}.grad()" if leaf else node["name"]
        ax.text(x + width / 2, y + height / 2, label, ha="center", va="center", fontsize=9)
        ax.text(x + width - 0.08, y + height + 0.06, f"{node['inputs']} in" if number else "root",
                ha="right", va="bottom", fontsize=7, color=GREY)
        ax.add_patch(plt.Circle((x, y + height), 0.17, facecolor=INDIGO, edgecolor="white", zorder=3))
        ax.text(x, y + height, str(order[number]), ha="center", va="center", fontsize=7, color="white",
                zorder=4)
        outside = sum(t is None for t in node["next"])
        if outside:
            ax.text(x + width / 2, y - 0.12, f"+{outside} input{'s' if outside > 1 else ''} outside the graph",
                    ha="center", va="top", fontsize=7, color=GREY)
        for to in node["next"]:
            if to is None:
                continue
            tx, ty = place[to]
            ax.add_patch(FancyArrowPatch((x + width / 2, y), (tx + width / 2, ty + height), arrowstyle="-|>",
                                         mutation_scale=10, color=ORANGE if nodes[to]["name"] == "AccumulateGrad"
                                         else INDIGO, linewidth=1.1, shrinkA=2, shrinkB=2))
    bottom = -(len(layers) - 1) * dy
    ax.text(-0.2, bottom - 0.45, "arrows: where each node sends gradients (its next_edges)\n"
            "numbers: the order in which backward() ran the nodes\n"
            "\"n in\": the edges into a node, which the engine counts before it starts",
            fontsize=7, color=GREY, va="top")
    ax.set_xlim(-0.4, (widest - 1) * dx + width + 0.4)
    ax.set_ylim(bottom - 1.3, 1.8)
    ax.set_aspect("equal")
    ax.axis("off")
    return finish(fig, target, "autograd_graph.svg")


# ---------------------------------------------------------------------------------------
# The figures of the performance page (book/docs/performance.md), read from the tables of
# the results files that the recording scripts write (benchmarks/run-all runs them all).


BENCHMARKS = ROOT / "benchmarks"


def markdown_tables(path: pathlib.Path) -> list[tuple[list[str], list[list[str]]]]:
    """Every Markdown table of a results file: (header, rows), each row as many cells as
    the header. A table whose second line is not a separator, or a row with another number
    of cells, is an error naming the file and line."""
    where = relative(path)
    if not path.is_file():
        raise FigureError(f"{where} is missing")
    tables: list[tuple[list[str], list[list[str]]]] = []
    block: list[tuple[int, list[str]]] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines + [""], start=1):
        if line.startswith("|"):
            block.append((number, [c.strip() for c in line.strip().strip("|").split("|")]))
            continue
        if not block:
            continue
        (_, header), rest = block[0], block[1:]
        if not rest or not all(re.fullmatch(r":?-+:?", c) for c in rest[0][1]) or len(rest[0][1]) != len(header):
            raise FigureError(f"{where}, line {block[0][0]}: a table without a separator line under its header")
        for row_number, cells in rest[1:]:
            if len(cells) != len(header):
                raise FigureError(f"{where}, line {row_number}: {len(cells)} cells in a table of "
                                  f"{len(header)} columns")
        tables.append((header, [cells for _, cells in rest[1:]]))
        block = []
    return tables


def relative(path: pathlib.Path) -> str:
    try:
        return path.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return str(path)


def table_with(path: pathlib.Path, columns: tuple[str, ...]) -> list[dict[str, str]]:
    """The rows, as column -> cell, of the one table of a results file that has all these
    columns; none or several is an error (the recording script changed the file's shape)."""
    found = [(header, rows) for header, rows in markdown_tables(path) if all(c in header for c in columns)]
    if len(found) != 1:
        raise FigureError(f"{relative(path)}: {len(found)} tables have the columns {', '.join(map(repr, columns))}; "
                          "the figure reads exactly one (did the script that writes the file change its table?)")
    header, rows = found[0]
    if not rows:
        raise FigureError(f"{relative(path)}: the table with the columns {', '.join(map(repr, columns))} has no rows")
    return [dict(zip(header, cells)) for cells in rows]


def number(text: str, where: str, empty_ok: bool = False) -> float | None:
    """A cell that holds a plain number ("0.98", "42.7"); an empty or "n/a" cell is None
    where empty_ok (the script could not measure that row), an error otherwise."""
    text = text.replace("**", "").strip()
    if empty_ok and text in ("", "n/a"):
        return None
    try:
        return float(text)
    except ValueError:
        raise FigureError(f"{where}: '{text}' is not a number") from None


def first_line(path: pathlib.Path, pattern: str) -> re.Match:
    """The match of the line that says where and when the table was measured."""
    for line in path.read_text(encoding="utf-8").splitlines():
        found = re.match(pattern, line)
        if found:
            return found
    raise FigureError(f"{relative(path)}: no line matches {pattern!r} (which CPU, which date)")


def plain_axes(ax) -> None:
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


# performance_ratios.svg: kael's time over PyTorch's (libtorch), per workload, on the
# AVX-512 machine (RESULTS.md) and on the AVX2 one (RESULTS-avx2.md), side by side

RATIO_TABLES = (("RESULTS.md", "AVX-512 code"), ("RESULTS-avx2.md", "AVX2 code"))
RATIO_COLUMN = "kael / libtorch time"


def read_ratios(path: pathlib.Path) -> tuple[dict[str, float | None], str]:
    """workload -> kael's time over libtorch's (None where a side was not measured), and a
    title naming the table's CPU, its vector width and the date."""
    rows = table_with(path, ("workload", RATIO_COLUMN))
    ratios = {row["workload"]: number(row[RATIO_COLUMN], f"{relative(path)}, row '{row['workload']}'",
                                      empty_ok=True) for row in rows}
    measured = first_line(path, r"Measured on (\S+) on (.+?) \(([^)]*)\)")
    return ratios, f"{measured[2]} ({measured[3]}), {measured[1]}"


def draw_performance_ratios(target: pathlib.Path, benchmarks: pathlib.Path = BENCHMARKS) -> str:
    panels = []
    for name, code in RATIO_TABLES:
        ratios, title = read_ratios(benchmarks / name)
        panels.append((name, code, ratios, title))
    workloads: list[str] = []
    for _, _, ratios, _ in panels:
        workloads += [w for w in ratios if w not in workloads]
    shown = [r for _, _, ratios, _ in panels for r in ratios.values() if r is not None]
    if not shown:
        raise FigureError(f"{', '.join(n for n, *_ in panels)}: no workload has a ratio")
    right = max(max(shown) * 1.18, 1.35)
    fig, axes = plt.subplots(1, len(panels), figsize=(12.0, 0.34 * len(workloads) + 1.9), sharey=True)
    y = list(range(len(workloads)))[::-1]
    for ax, (name, code, ratios, title) in zip(axes, panels):
        for yi, workload in zip(y, workloads):
            ratio = ratios.get(workload, "absent")
            if ratio == "absent" or ratio is None:
                ax.text(0.02, yi, "not in this table" if ratio == "absent" else "n/a", va="center", fontsize=7,
                        color=GREY)
                continue
            ax.barh(yi, ratio, color=INDIGO if ratio <= 1.0 else ORANGE, height=0.62)
            ax.text(ratio + 0.02, yi, f"{ratio:.2f}", va="center", fontsize=7)
        ax.axvline(1.0, color="#424242", linewidth=1.0)
        ax.text(1.0, len(workloads) - 0.35, " 1.0: equal time", fontsize=7, color="#424242", va="bottom")
        ax.set_xlim(0, right)
        ax.set_ylim(-0.6, len(workloads) + 0.1)
        ax.set_xlabel("kael's time / libtorch's time\n(below 1: kael is faster)", fontsize=8)
        ax.set_title(f"benchmarks/{name}, {code}\n{title}", fontsize=8.5, loc="left", color="#424242")
        plain_axes(ax)
    axes[0].set_yticks(y)
    axes[0].set_yticklabels([textwrap.fill(w, 52) for w in workloads], fontsize=7.5)
    fig.tight_layout()
    return finish(fig, target, "performance_ratios.svg")


# gpt2_decode.svg: GPT-2 small's decode, tokens per second, kael and PyTorch, from
# benchmarks/RESULTS-gpt2.md, against the limit of the memory's read bandwidth

GPT2_DECODE = re.compile(r"decode (with|without) the cache \(tokens/s\), (\d+) threads?")


def draw_gpt2_decode(target: pathlib.Path, benchmarks: pathlib.Path = BENCHMARKS) -> str:
    path = benchmarks / "RESULTS-gpt2.md"
    where = relative(path)
    rows = table_with(path, ("measure", "kael", "PyTorch", "kael / PyTorch"))
    decode: dict[tuple[str, int], tuple[float, float, float]] = {}
    for row in rows:
        found = GPT2_DECODE.fullmatch(row["measure"])
        if found:
            cells = (row["kael"], row["PyTorch"], row["kael / PyTorch"])
            decode[(found[1], int(found[2]))] = tuple(number(c, f"{where}, row '{row['measure']}'") for c in cells)
    threads = sorted({t for _, t in decode})
    for t in threads:
        for kind in ("with", "without"):
            if (kind, t) not in decode:
                raise FigureError(f"{where}: no row 'decode {kind} the cache (tokens/s), {t} thread(s)'")
    if not threads:
        raise FigureError(f"{where}: no row 'decode with the cache (tokens/s), N thread(s)'")
    limits = {}
    for row in table_with(path, ("threads", "decode limit (tokens/s)")):
        found = re.fullmatch(r"(\d+) threads?", row["threads"])
        if not found:
            raise FigureError(f"{where}: '{row['threads']}' is not a thread count")
        limits[int(found[1])] = number(row["decode limit (tokens/s)"], f"{where}, row '{row['threads']}'")
    measured = first_line(path, r"Measured on (\S+) on (.+?) by ")

    fig, ax = plt.subplots(figsize=(8.6, 4.0))
    width = 0.19
    bars = (("with", 0, INDIGO, None, "kael, with the KV cache"), ("with", 1, ORANGE, None, "PyTorch, with the KV cache"),
            ("without", 0, INDIGO, "///", "kael, no cache"), ("without", 1, ORANGE, "///", "PyTorch, no cache"))
    for group, t in enumerate(threads):
        for k, (kind, side, colour, hatch, label) in enumerate(bars):
            value = decode[(kind, t)][side]
            x = group + (k - 1.5) * width
            ax.bar(x, value, width * 0.92, color=colour if hatch is None else "white", edgecolor=colour,
                   hatch=hatch, linewidth=1.0, label=label if group == 0 else None)
            ax.text(x, value, f"{value:.1f}", ha="center", va="bottom", fontsize=7)
        ratio = decode[("with", t)][2]
        top = max(list(decode[("with", t)][:2]) + [limits.get(t, 0.0)])
        ax.text(group, top * 1.06 + 2, f"with the cache: kael {ratio:.2f}× PyTorch", ha="center",
                va="bottom", fontsize=8, color=INDIGO, fontweight="bold")
        if t in limits:
            ax.hlines(limits[t], group - 2.2 * width, group + 2.2 * width, colors="#424242", linestyles="--",
                      linewidth=1.0, label="bandwidth limit (every weight read once a token)" if group == 0 else None)
            ax.text(group + 2.25 * width, limits[t], f"limit {limits[t]:.1f}", va="center", fontsize=7,
                    color="#424242")
    peak = max([v for key in decode for v in decode[key][:2]] + list(limits.values()))
    ax.set_ylim(0, peak * 1.22 + 4)
    ax.set_xlim(-0.55, len(threads) - 0.35)
    ax.set_xticks(range(len(threads)))
    ax.set_xticklabels([f"{t} thread{'s' if t > 1 else ''}" for t in threads])
    ax.set_ylabel("tokens per second (higher is better)")
    ax.set_title(f"benchmarks/RESULTS-gpt2.md: GPT-2 small, {measured[2]}, {measured[1]}", fontsize=9, loc="left",
                 color=GREY)
    ax.legend(frameon=False, fontsize=7.5, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    plain_axes(ax)
    fig.tight_layout()
    return finish(fig, target, "gpt2_decode.svg")


# serving_throughput.svg: the load test of chapter 13, decode steps batched (max-batch 8)
# against one request at a time (max-batch 1), from benchmarks/RESULTS-serving.md

SERVING_COLUMNS = ("run", "requests/s", "tokens/s", "p50 latency s", "p99 latency s", "mean decode batch")


def draw_serving_throughput(target: pathlib.Path, benchmarks: pathlib.Path = BENCHMARKS) -> str | None:
    """None, and no figure, while the load test has not been recorded yet."""
    path = benchmarks / "RESULTS-serving.md"
    if not path.is_file():
        return None
    where = relative(path)
    runs = []
    for row in table_with(path, SERVING_COLUMNS):
        found = re.fullmatch(r"max-batch (\d+)", row["run"])
        if not found:
            raise FigureError(f"{where}: the run '{row['run']}' is not 'max-batch N'")
        runs.append((int(found[1]), *(number(row[c], f"{where}, row '{row['run']}'") for c in SERVING_COLUMNS[1:])))
    runs.sort(reverse=True)
    measured = first_line(path, r"Recorded on (\S+) .*? on (.+?) \(([^)]*)\)")

    fig, (speed, latency) = plt.subplots(1, 2, figsize=(9.4, 3.7), gridspec_kw={"width_ratios": [1.1, 1]})
    labels = [f"max-batch {batch}" for batch, *_ in runs]
    colours = [INDIGO if batch > 1 else ORANGE for batch, *_ in runs]
    tokens = [r[2] for r in runs]
    speed.bar(range(len(runs)), tokens, 0.6, color=colours)
    for i, (batch, requests, token_rate, _, _, mean_batch) in enumerate(runs):
        speed.text(i, token_rate, f"{token_rate:.1f} tokens/s\n{requests:.2f} requests/s\nmean decode batch "
                   f"{mean_batch:.2f}", ha="center", va="bottom", fontsize=7)
    speed.set_ylim(0, max(tokens) * 1.45)
    speed.set_xticks(range(len(runs)))
    speed.set_xticklabels(labels)
    speed.set_ylabel("tokens generated per second")
    width = 0.36
    for k, (column, hatch) in enumerate((("p50", None), ("p99", "///"))):
        values = [r[3 + k] for r in runs]
        xs = [i + (k - 0.5) * width for i in range(len(runs))]
        latency.bar(xs, values, width * 0.92, color=[c if hatch is None else "white" for c in colours],
                    edgecolor=colours, hatch=hatch, linewidth=1.0)
        for x, v in zip(xs, values):
            latency.text(x, v, f"{column}\n{v:.2f} s", ha="center", va="bottom", fontsize=7)
    latency.set_ylim(0, max(max(r[3], r[4]) for r in runs) * 1.3)
    latency.set_xticks(range(len(runs)))
    latency.set_xticklabels(labels)
    latency.set_ylabel("latency of a complete request (s)")
    for ax in (speed, latency):
        plain_axes(ax)
    speed.set_title(f"benchmarks/RESULTS-serving.md: {measured[2]} ({measured[3]}), {measured[1]}", fontsize=9,
                    loc="left", color=GREY)
    fig.tight_layout()
    return finish(fig, target, "serving_throughput.svg")


# serving_benchmark.svg: the serving benchmark of chapter 13 (benchmarks/serving_benchmark.py)
# at each request rate: time to first token and time per output token, median and p99, and
# the output tokens a second, from benchmarks/RESULTS-serving.md

BENCHMARK_COLUMNS = ("request rate", "output tokens/s", "TTFT median ms", "TTFT p99 ms", "TPOT median ms",
                     "TPOT p99 ms")


def draw_serving_benchmark(target: pathlib.Path, benchmarks: pathlib.Path = BENCHMARKS) -> str | None:
    """None, and no figure, while the serving benchmark has not been recorded yet."""
    path = benchmarks / "RESULTS-serving.md"
    if not path.is_file() or "## The serving benchmark" not in path.read_text(encoding="utf-8"):
        return None
    where = relative(path)
    rows = table_with(path, BENCHMARK_COLUMNS)
    labels = [row["request rate"] for row in rows]
    values = {c: [number(row[c], f"{where}, rate '{row['request rate']}'") for row in rows]
              for c in BENCHMARK_COLUMNS[1:]}
    measured = first_line(path, r"Recorded on (\S+) .*? on (.+?) \(([^)]*)\)")
    fig, (first, per_token, speed) = plt.subplots(1, 3, figsize=(10.4, 3.5))
    xs = range(len(rows))
    for ax, name, unit in ((first, "TTFT", "time to first token (ms)"), (per_token, "TPOT", "time per output token (ms)")):
        ax.plot(xs, values[f"{name} median ms"], "o-", color=INDIGO, label="median")
        ax.plot(xs, values[f"{name} p99 ms"], "s--", color=ORANGE, label="p99")
        ax.set_ylabel(unit)
        ax.set_ylim(0, max(values[f"{name} p99 ms"]) * 1.2)
        ax.legend(frameon=False, fontsize=7.5)
    speed.bar(xs, values["output tokens/s"], 0.6, color=INDIGO)
    for x, v in zip(xs, values["output tokens/s"]):
        speed.text(x, v, f"{v:.0f}", ha="center", va="bottom", fontsize=7)
    speed.set_ylabel("output tokens per second")
    speed.set_ylim(0, max(values["output tokens/s"]) * 1.2)
    for ax in (first, per_token, speed):
        ax.set_xticks(list(xs))
        ax.set_xticklabels(labels)
        ax.set_xlabel("request rate (Poisson arrivals)")
        plain_axes(ax)
    first.set_title(f"benchmarks/RESULTS-serving.md: {measured[2]} ({measured[3]}), {measured[1]}", fontsize=9,
                    loc="left", color=GREY)
    fig.tight_layout()
    return finish(fig, target, "serving_benchmark.svg")


# ---------------------------------------------------------------------------------------


def draw_dot_graph(outputs: pathlib.Path, target: pathlib.Path) -> str | None:
    """Chapter 13's graph, drawn by Graphviz from the DOT text that autograd::to_dot wrote
    (the section "dot" of book/examples/ch13_graph.cpp). None while stage 14 has no
    recorded outputs (it is not ready yet)."""
    try:
        lines = section(outputs, "ch13_graph", "dot")
    except FigureError:
        if not (outputs / "stage-14").is_dir():
            return None
        raise
    text = "\n".join(lines).strip() + "\n"
    if not text.startswith("digraph"):
        raise FigureError("ch13_graph, section dot: the DOT text does not start with 'digraph'")
    dot = shutil.which("dot")
    if dot is None:
        raise FigureError("Graphviz's dot is not installed (Debian's graphviz; scripts/install-deps installs it)")
    name = "ch13_autograd_graph.svg"
    result = subprocess.run([dot, "-Tsvg", "-o", str(target / name)], input=text, text=True,
                            capture_output=True)
    if result.returncode != 0:
        raise FigureError(f"dot could not draw ch13_graph's DOT text: {result.stderr.strip()}")
    return name


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    outputs, target = pathlib.Path(argv[1]), pathlib.Path(argv[2])
    target.mkdir(parents=True, exist_ok=True)
    try:
        drawn = [draw_strides(outputs, target), draw_broadcast(outputs, target),
                 draw_coalescing(outputs, target), draw_benchmarks(target),
                 draw_autograd_graph(outputs, target), draw_loss_curve(target),
                 draw_bucket_waste(outputs, target), draw_allocator_benchmarks(target),
                 draw_char_gpt_curve(target), draw_performance_ratios(target), draw_gpt2_decode(target)]
        graph = draw_dot_graph(outputs, target)
        if graph is None:
            print("book: stage 14 has no recorded outputs yet: ch13_autograd_graph.svg is not drawn")
        else:
            drawn.append(graph)
        serving = draw_serving_throughput(target)
        if serving is None:
            print("book: no benchmarks/RESULTS-serving.md recorded yet (benchmarks/record_serving.sh): "
                  "serving_throughput.svg is not drawn")
        else:
            drawn.append(serving)
        benchmark = draw_serving_benchmark(target)
        if benchmark is None:
            print("book: no serving benchmark in benchmarks/RESULTS-serving.md yet (benchmarks/record_serving.sh): "
                  "serving_benchmark.svg is not drawn")
        else:
            drawn.append(benchmark)
    except FigureError as error:
        print(f"figures: {error}", file=sys.stderr)
        return 1
    for stale in target.glob("*.svg"):
        if stale.name not in drawn:
            stale.unlink()
    print(f"book: drew {len(drawn)} figures into {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

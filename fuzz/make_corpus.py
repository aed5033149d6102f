#!/usr/bin/python3
"""Writes the seed corpora of the fuzz targets into fuzz/corpus/<target>/.

    /usr/bin/python3 fuzz/make_corpus.py

A fuzzer mutates its seeds, so each corpus holds a few valid inputs (the fuzzer learns the
shape of a good file from them) and the malformed ones kael must refuse (so that it starts
next to every check). The inputs that made a target fail are seeds too, under finding-*.
The files are small, written from NumPy arrays, and the same on every run: the directory
is emptied first, and the script is the one way to change it.

- safetensors: files in the Hugging Face layout (an 8-byte little-endian header length,
  the JSON header padded with spaces to a multiple of 8 bytes, then the raw little-endian
  tensors), written as the Rust library writes them.
- idx: IDX files as MNIST ships them (big-endian), plain and gzip-compressed.
- views: call sequences for fuzz_views.cpp, encoded the way its FuzzInput reads bytes
  (fuzz_input.h, over libFuzzer's FuzzedDataProvider).
"""
from __future__ import annotations

import gzip
import json
import pathlib
import shutil
import struct

import numpy as np

CORPUS = pathlib.Path(__file__).resolve().parent / "corpus"


def write(target: str, name: str, data: bytes) -> None:
    (CORPUS / target / name).write_bytes(data)


# ---- safetensors ----------------------------------------------------------------------------

DTYPE_NAMES = {np.dtype("float32"): "F32", np.dtype("float64"): "F64", np.dtype("int64"): "I64",
               np.dtype("bool"): "BOOL", np.dtype("float16"): "F16"}


def safetensors_file(tensors: dict[str, np.ndarray], metadata: dict[str, str] | None = None) -> bytes:
    """The file the Rust library writes: tensors laid out by decreasing alignment, then name."""
    order = sorted(tensors, key=lambda name: (-tensors[name].dtype.itemsize, name))
    header: dict[str, object] = {}
    if metadata:
        header["__metadata__"] = metadata
    data = b""
    for name in order:
        array = np.ascontiguousarray(tensors[name])
        raw = array.astype(array.dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": DTYPE_NAMES[array.dtype], "shape": list(array.shape),
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    return with_header(json.dumps(header, separators=(",", ":")), data)


def with_header(text: str | bytes, data: bytes = b"", pad: bool = True) -> bytes:
    encoded = text.encode("utf-8") if isinstance(text, str) else text
    if pad:
        encoded += b" " * (-len(encoded) % 8)
    return struct.pack("<Q", len(encoded)) + encoded + data


def entry(dtype: str, shape: str, offsets: str) -> str:
    return f'{{"dtype":"{dtype}","shape":{shape},"data_offsets":{offsets}}}'


def safetensors_corpus() -> None:
    rng = np.random.default_rng(7)
    every_dtype = {
        "weight": rng.standard_normal((3, 4)).astype(np.float32),
        "bias": np.array([0.5, -1.0, 2.0], dtype=np.float64),
        "step": np.array([1200], dtype=np.int64),
        "mask": np.array([[True, False], [False, True]]),
        "scalar": np.array(3.25, dtype=np.float32),
        "empty": np.zeros((2, 0, 3), dtype=np.float32),
    }
    write("safetensors", "valid-every-dtype", safetensors_file(every_dtype, {"format": "pt", "step": "1200"}))
    write("safetensors", "valid-one-tensor", safetensors_file({"a": np.arange(6, dtype=np.float32).reshape(2, 3)}))
    write("safetensors", "valid-empty", safetensors_file({}))
    # Another writer's choices: keys in no order, spaces in the JSON, no padding.
    write("safetensors", "valid-unpadded", with_header(
        ' { "b" : {"shape":[1],"data_offsets":[0,8],"dtype":"F64"}, "a" : {"data_offsets":[8,9],'
        '"dtype":"BOOL","shape":[]} } ', struct.pack("<d", 1.0) + b"\x01", pad=False))

    valid = safetensors_file({"a": np.arange(4, dtype=np.float32)})
    eight = bytes(8)
    malformed = {
        "truncated-in-header": valid[:20],
        "truncated-in-data": valid[:-3],
        "length-field-only": valid[:8],
        "header-length-huge": struct.pack("<Q", 2**64 - 1) + b"{}",
        "header-length-past-end": struct.pack("<Q", 100) + b"{}",
        "wrong-offsets": with_header('{"a":' + entry("F32", "[2]", "[0,4]") + "}", bytes(4)),
        "offsets-past-end": with_header('{"a":' + entry("F32", "[4]", "[0,16]") + "}", eight),
        "overlapping-ranges": with_header('{"a":' + entry("BOOL", "[4]", "[0,4]") + ',"b":'
                                          + entry("BOOL", "[4]", "[2,6]") + "}", bytes(6)),
        "gap-between-ranges": with_header('{"a":' + entry("BOOL", "[2]", "[0,2]") + ',"b":'
                                          + entry("BOOL", "[2]", "[4,6]") + "}", bytes(6)),
        "unused-trailing-bytes": with_header('{"a":' + entry("F32", "[2]", "[0,8]") + "}", bytes(12)),
        "bad-dtype": with_header('{"a":' + entry("F33", "[2]", "[0,8]") + "}", eight),
        "unsupported-dtype": safetensors_file({"half": np.ones(4, dtype=np.float16)}),
        "negative-shape": with_header('{"a":' + entry("F32", "[-2]", "[0,8]") + "}", eight),
        "shape-overflows": with_header('{"a":' + entry("F64", "[2305843009213693952,2]", "[0,0]") + "}"),
        "bool-byte-not-0-or-1": with_header('{"a":' + entry("BOOL", "[2]", "[0,2]") + "}", b"\x00\x02"),
        "repeated-key": with_header('{"a":' + entry("F32", "[0]", "[0,0]") + ',"a":' + entry("F32", "[0]", "[0,0]") + "}"),
        "not-an-object": with_header("[1,2,3]"),
        "not-json": with_header('{"a":{"dtype":"F32",'),
        "metadata-not-strings": with_header('{"__metadata__":{"step":1200}}'),
        "extra-field": with_header('{"a":{"dtype":"F32","shape":[0],"data_offsets":[0,0],"strides":[1]}}'),
        "invalid-utf8-key": with_header(b'{"\xff":1}'),
        "deep-nesting": with_header("[" * 1000 + "]" * 1000),
        "deep-nesting-in-shape": with_header('{"a":' + entry("F32", "[[[[2]]]]", "[0,8]") + "}", eight),
        # The findings of fuzz_safetensors: a number no double holds.
        "finding-number-overflow": with_header('{"a":' + entry("F32", "[105E5555]", "[0,0]") + "}"),
    }
    for name, data in malformed.items():
        write("safetensors", name, data)


# ---- IDX ------------------------------------------------------------------------------------

IDX_TYPES = {np.dtype("uint8"): 0x08, np.dtype("int8"): 0x09, np.dtype(">i2"): 0x0B,
             np.dtype(">i4"): 0x0C, np.dtype(">f4"): 0x0D, np.dtype(">f8"): 0x0E}


def idx_file(array: np.ndarray) -> bytes:
    header = bytes([0, 0, IDX_TYPES[array.dtype], array.ndim]) + struct.pack(f">{array.ndim}I", *array.shape)
    return header + array.tobytes()


def stable_gzip(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)  # no timestamp: the same bytes on every run


def idx_corpus() -> None:
    rng = np.random.default_rng(11)
    images = rng.integers(0, 256, size=(3, 4, 4), dtype=np.uint8)
    labels = np.array([7, 2, 1, 0, 4], dtype=np.uint8)
    valid = {
        "valid-images-uint8": images,
        "valid-labels-uint8": labels,
        "valid-mask-uint8": np.array([0, 1, 1, 0], dtype=np.uint8),
        "valid-int8": np.array([-128, -1, 0, 127], dtype=np.int8),
        "valid-int16": np.array([[1, -2], [300, -400]], dtype=">i2"),
        "valid-int32": np.array([-(2**31), 0, 2**31 - 1], dtype=">i4"),
        "valid-float32": np.array([0.5, -1.25, np.inf, np.nan], dtype=">f4"),
        "valid-float64": np.array([[1e-300, -2.5]], dtype=">f8"),
        "valid-empty": np.zeros((0, 28), dtype=np.uint8),
    }
    for name, array in valid.items():
        write("idx", name, idx_file(array))
    write("idx", "valid-images-uint8.gz", stable_gzip(idx_file(images)))
    write("idx", "valid-labels-uint8.gz", stable_gzip(idx_file(labels)))

    good = idx_file(images)
    malformed = {
        "wrong-magic": b"\x01\x00" + good[2:],
        "unknown-type-byte": good[:2] + b"\x0a" + good[3:],
        "zero-dimensions": b"\x00\x00\x08\x00",
        "truncated-magic": good[:3],
        "truncated-dimensions": good[:9],
        "truncated-data": good[:-5],
        "trailing-bytes": good + b"\x00\x01",
        "element-count-overflows": bytes([0, 0, 0x08, 4]) + struct.pack(">4I", *[2**32 - 1] * 4),
        "huge-claimed-shape": bytes([0, 0, 0x0E, 2]) + struct.pack(">2I", 60000, 60000) + bytes(16),
        "floats-for-bool": idx_file(np.array([0.5, 2.0], dtype=">f4")),
        "gzip-truncated.gz": stable_gzip(good)[:-9],
        "gzip-corrupt.gz": stable_gzip(good)[:12] + b"\xff" * 8 + stable_gzip(good)[20:],
        "gzip-trailing-bytes.gz": stable_gzip(good + b"\x00\x00\x00"),
        "gzip-of-nothing.gz": stable_gzip(b""),
    }
    for name, data in malformed.items():
        write("idx", name, data)


# ---- views ----------------------------------------------------------------------------------
# fuzz_views.cpp reads its input through FuzzInput (fuzz_input.h), which takes every number
# from the end of the input backwards, one byte at a time, most significant byte first, as
# FuzzedDataProvider does. So the encoder writes the bytes in the order they are read and
# reverses them at the end.

VIEW_CALLS = ["as_strided", "view", "reshape", "slice", "select", "narrow", "expand", "permute",
              "transpose", "squeeze", "squeeze_dim", "unsqueeze", "flatten", "unflatten", "T", "mT",
              "contiguous", "detach"]
SHAPE_CALLS = ["numel", "contiguous_strides", "offset_from_index", "index_from_linear", "wrap_dim",
               "dim_position", "infer_size", "view_strides"]
# FuzzInput::number's table of extremes, in its order.
EXTREMES = [2**63 - 1, -(2**63), (2**63 - 1) // 2, 2**62, 2**62 + 1, 2**32, 2**31, 3_037_000_500, -2, 1_000_000]
DTYPES = ["F32", "F64", "I64", "Bool"]


class CallEncoder:
    def __init__(self, dtype: str, elements: int):
        self.read_order: list[int] = []
        self.byte(DTYPES.index(dtype))  # in_range(0, 3)
        self.byte(elements)  # in_range(0, 64)

    def byte(self, value: int) -> None:
        self.read_order.append(value)

    def number(self, value: int) -> None:
        if -3 <= value <= 8:
            self.byte(2)  # the branch of small numbers, then value + 3 in [0, 11]
            self.byte(value + 3)
        elif value in EXTREMES:
            self.byte(0)
            self.byte(EXTREMES.index(value))
        else:
            self.byte(1)  # any int64: 8 bytes of value - INT64_MIN, most significant first
            self.read_order += list(struct.pack(">Q", value + 2**63))

    def numbers(self, values: list[int]) -> None:
        self.byte(len(values))
        for value in values:
            self.number(value)

    def argument(self, value: int | list[int] | None) -> None:
        if isinstance(value, list):
            self.numbers(value)
        else:
            self.number(value)

    def view(self, name: str, *arguments: int | list[int] | None) -> "CallEncoder":
        self.byte(0)  # flag: a view, not shape arithmetic
        self.byte(VIEW_CALLS.index(name))
        if name == "slice":  # dim, then start and end each behind a flag, then step
            dim, start, end, step = arguments
            self.number(dim)
            for bound in (start, end):
                self.byte(0 if bound is None else 1)
                if bound is not None:
                    self.number(bound)
            self.number(step)
        else:
            for value in arguments:
                self.argument(value)
        return self

    def shape(self, name: str, *arguments: int | list[int]) -> "CallEncoder":
        self.byte(1)  # flag: shape arithmetic
        self.byte(SHAPE_CALLS.index(name))
        for value in arguments:
            self.argument(value)
        return self

    def encode(self) -> bytes:
        return bytes(reversed(self.read_order))


def views_corpus() -> None:
    big = 2**63 - 1
    seeds = {
        "valid-regroup": CallEncoder("F32", 24).view("view", [2, 3, 4]).view("transpose", 0, 2)
                         .view("reshape", [4, -1]).view("flatten", 0, -1).view("unflatten", 0, [2, -1]),
        "valid-slices": CallEncoder("I64", 60).view("view", [3, 4, 5]).view("slice", 2, 1, None, 2)
                        .view("select", 0, -1).view("narrow", 0, 1, 2).view("T").view("contiguous"),
        "valid-expand": CallEncoder("F64", 3).view("unsqueeze", 0).view("expand", [4, -1])
                        .view("permute", [1, 0]).view("squeeze").view("detach"),
        "valid-as-strided": CallEncoder("Bool", 12).view("as_strided", [3, 2], [4, 1], 1)
                            .view("mT").view("squeeze_dim", 0),
        "valid-shape-arithmetic": CallEncoder("F32", 1).shape("infer_size", [2, -1, 3], 12)
                                  .shape("view_strides", [2, 3], [3, 1], [3, 2])
                                  .shape("contiguous_strides", [2, 0, 3]).shape("offset_from_index", [2, 3], [3, 1], 4, [1, 2])
                                  .shape("index_from_linear", 5, [2, 3]).shape("wrap_dim", -1, 3).shape("numel", [4, 5]),
        "outside-storage": CallEncoder("F32", 8).view("as_strided", [3, 3], [3, 1], 0),
        "two-inferred-sizes": CallEncoder("F32", 12).view("view", [-1, -1]),
        "expand-to-the-limit": CallEncoder("F32", 1).view("expand", [big, big]).view("reshape", [-1]),
        "overflowing-strides": CallEncoder("I64", 4).view("as_strided", [2, 2], [2**62, 2**62], 0)
                               .shape("offset_from_index", [2, 2], [big, big], 1, [1, 1]),
        "dimensions-out-of-range": CallEncoder("F64", 6).view("transpose", 0, -(2**63))
                                   .view("select", 5, 0).shape("dim_position", 0, 0),
        # The findings of fuzz_views: view_strides with strides for another number of
        # dimensions, a slice with a step near the int64 limit, and an unflatten of an empty
        # tensor with a huge stride (with the neighbours that overflowed the same way).
        "finding-view-strides-length": CallEncoder("F32", 6).shape("view_strides", [2, 3], [], [6]),
        "finding-slice-huge-step": CallEncoder("F32", 64).view("slice", 0, None, None, big),
        "finding-unflatten-huge-stride": CallEncoder("F32", 4).view("as_strided", [8, 0], [big // 2, 1], 0)
                                         .view("unflatten", 0, [2, 4]),
        "finding-empty-huge-strides": CallEncoder("F32", 4).view("as_strided", [3, 0], [big, 1], 0)
                                      .view("select", 0, 2).view("expand", [1, 3, 0]).view("unsqueeze", 0),
    }
    for name, encoder in seeds.items():
        write("views", name, encoder.encode())


def main() -> None:
    for target, make in {"safetensors": safetensors_corpus, "idx": idx_corpus, "views": views_corpus}.items():
        shutil.rmtree(CORPUS / target, ignore_errors=True)
        (CORPUS / target).mkdir(parents=True)
        make()
    files = sorted(CORPUS.rglob("*"))
    total = sum(f.stat().st_size for f in files if f.is_file())
    print(f"make_corpus: {sum(f.is_file() for f in files)} files, {total} bytes in {CORPUS}")


if __name__ == "__main__":
    main()

"""Chapter 10: strides across the boundary, run against stage 11's Python module.

kael counts strides in elements, NumPy in bytes; the first section shows both for the same
memory, each way across. The second shows what kael refuses to adopt without a copy, with
the message each refusal gives.
"""
import numpy as np

import kael


def section(name: str) -> None:
    print(f"--- section: {name} ---")


section("strides")
t = kael.zeros(2, 3)
rows = [
    ("kael.zeros(2, 3)", t.strides, "elements"),
    ("kael.zeros(2, 3).numpy()", t.numpy().strides, "bytes"),
    ("its transpose, t.T", t.T.strides, "elements"),
    ("t.T.numpy()", t.T.numpy().strides, "bytes"),
]
a = np.zeros((3, 4))  # float64
rows += [
    ("a = np.zeros((3, 4))", a.strides, "bytes"),
    ("kael.from_numpy(a)", kael.from_numpy(a).strides, "elements"),
    ("a[:, 1]", a[:, 1].strides, "bytes"),
    ("kael.from_numpy(a[:, 1])", kael.from_numpy(a[:, 1]).strides, "elements"),
]
for expression, strides, unit in rows:
    print(f"{expression:<28} strides {str(strides):<9} {unit}")

section("refusals")
read_only = np.zeros(3, dtype=np.float32)
read_only.flags.writeable = False
records = np.zeros(3, dtype=[("x", np.float32), ("tag", np.int8)])
refused = [
    ("np.arange(6.0)[::-1]", np.arange(6.0)[::-1]),
    ("np.zeros(3, np.int32)", np.zeros(3, dtype=np.int32)),
    ("np.zeros(3, np.float16)", np.zeros(3, dtype=np.float16)),
    ("a read-only array", read_only),
    ("float64 one byte into a buffer", np.frombuffer(bytearray(33), dtype=np.float64, count=4, offset=1)),
    ("one field of a record array", records["x"]),
]
for what, array in refused:
    try:
        kael.from_numpy(array)
        print(f"{what}: adopted")
    except (TypeError, ValueError) as error:
        print(f"{what}: {type(error).__name__}: {error}")

"""kael.save and kael.load: PyTorch's torch.save/torch.load for what training programs
keep (state dicts, optimizer state, numbers, strings and containers of them), written as
a safetensors file with the structure in its metadata as JSON. Nothing is pickled, so
loading a file never runs code, and any safetensors reader can open the tensors.

The file: 8 bytes of little-endian header length, the JSON header (each tensor's dtype,
shape and byte range, and "__metadata__" with "format": "kael" and "kael.structure": the
object as JSON in which each tensor is {"tensor": "<name>"}), then the tensors' bytes. A
tensor reached twice (a tied weight under both its keys) is stored once and loaded as one
tensor again. A plain safetensors file (a Hugging Face checkpoint) loads as a dict of its
tensors."""
import json
import math
import os
import struct
from collections import OrderedDict

import numpy as np

from . import _kael
from ._kael import Tensor

_DTYPES = {  # kael dtype name: (safetensors name, NumPy dtype)
    "float32": ("F32", np.float32),
    "float64": ("F64", np.float64),
    "int64": ("I64", np.int64),
    "bool": ("BOOL", np.bool_),
}
_FROM_SAFETENSORS = {code: (name, numpy_type) for name, (code, numpy_type) in _DTYPES.items()}
# Files written by others may hold types kael reads by widening, exactly (the load converts).
_WIDENED = {"F16": np.float16, "I32": np.int32, "I16": np.int16, "I8": np.int8, "U8": np.uint8}


def _dtype_name(dtype):
    return str(dtype).rsplit(".", 1)[-1]


class _Writer:
    """Turns an object into (structure, tensors): JSON-able data with tensor references."""

    def __init__(self):
        self.tensors = OrderedDict()  # name -> contiguous CPU NumPy array
        self.names = {}               # where a tensor's elements are -> name: each stored once
        self.keep = []                # the tensors named, alive until the file is written

    def encode(self, value):
        if isinstance(value, Tensor):
            return self.tensor(value)
        if value is None or isinstance(value, (bool, str)):
            return value
        if isinstance(value, int):
            return value
        if isinstance(value, float):
            return value if math.isfinite(value) else {"float": repr(value)}
        if isinstance(value, tuple):
            return {"tuple": [self.encode(item) for item in value]}
        if isinstance(value, list):
            return [self.encode(item) for item in value]
        if isinstance(value, dict):
            kind = "ordered_dict" if isinstance(value, OrderedDict) else "dict"
            return {kind: [[self.encode(key), self.encode(item)] for key, item in value.items()]}
        raise TypeError(f"kael.save cannot store an object of type {type(value).__name__}: it stores tensors, "
                        "numbers, strings, None, and lists, tuples and dicts of them (nothing is pickled)")

    def tensor(self, tensor):
        # Two handles on the same elements (a tied weight's two detached keys) are one entry.
        identity = (tensor.device.type, tensor.data_ptr(), str(tensor.dtype), tuple(tensor.shape), tuple(tensor.stride()))
        name = self.names.get(identity)
        if name is None:
            dtype = _dtype_name(tensor.dtype)
            if dtype not in _DTYPES:
                raise TypeError(f"kael.save cannot store a tensor of dtype {dtype}")
            name = f"t{len(self.tensors)}"
            self.names[identity] = name
            self.keep.append(tensor)
            # (a copy: np.ascontiguousarray would turn a 0-d array into a [1] one)
            self.tensors[name] = tensor.detach().cpu().numpy().copy(order="C")
        reference = {"tensor": name}
        if isinstance(tensor, _parameter_class()):
            reference["parameter"] = True
            reference["requires_grad"] = tensor.requires_grad
        elif tensor.requires_grad:
            reference["requires_grad"] = True
        return reference


def _parameter_class():
    from .nn import Parameter

    return Parameter


# book-region: save
def save(obj, f, pickle_module=None, pickle_protocol=None, _use_new_zipfile_serialization=True):
    """Writes `obj` to `f`, a path or a binary file object."""
    if pickle_module is not None:
        raise TypeError("kael.save does not pickle: pickle_module is not supported")
    writer = _Writer()
    structure = writer.encode(obj)
    header, offset = {}, 0
    for name, array in writer.tensors.items():
        header[name] = {"dtype": _DTYPES[_numpy_kael_name(array)][0], "shape": list(array.shape),
                        "data_offsets": [offset, offset + array.nbytes]}
        offset += array.nbytes
    header["__metadata__"] = {"format": "kael", "kael.structure": json.dumps(structure)}
    encoded = json.dumps(header, separators=(",", ":")).encode("utf-8")
    encoded += b" " * (-len(encoded) % 8)  # the data starts 8-byte aligned, as safetensors advises
    chunks = [struct.pack("<Q", len(encoded)), encoded] + [array.tobytes() for array in writer.tensors.values()]
    if hasattr(f, "write"):
        for chunk in chunks:
            f.write(chunk)
    else:
        with open(os.fspath(f), "wb") as out:
            for chunk in chunks:
                out.write(chunk)
# end-book-region: save


def _numpy_kael_name(array):
    for name, (_, numpy_type) in _DTYPES.items():
        if array.dtype == numpy_type:
            return name
    raise TypeError(f"no kael dtype for NumPy dtype {array.dtype}")


class _Reader:
    """Reads the header and tensors of a file's bytes, checking everything it relies on."""

    def __init__(self, data, where):
        self.where = where
        if len(data) < 8:
            self.fail(f"it is {len(data)} bytes long, shorter than the 8-byte header length")
        (length,) = struct.unpack("<Q", data[:8])
        if length > len(data) - 8:
            self.fail(f"its header claims {length} bytes but only {len(data) - 8} follow (a truncated file?)")
        try:
            header = json.loads(bytes(data[8:8 + length]).decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            self.fail(f"its header is not JSON ({error})")
        if not isinstance(header, dict):
            self.fail("its header is not a JSON object")
        self.metadata = header.pop("__metadata__", None) or {}
        self.entries = header
        self.body = memoryview(data)[8 + length:]
        self.loaded = {}

    def fail(self, why):
        raise RuntimeError(f"kael.load: {self.where} is not a kael checkpoint or safetensors file: {why}")

    def tensor(self, name):
        if name in self.loaded:
            return self.loaded[name]
        entry = self.entries.get(name)
        if not isinstance(entry, dict):
            self.fail(f"it refers to a tensor '{name}' that its header does not describe")
        code, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
        numpy_type = _FROM_SAFETENSORS.get(code, (None, _WIDENED.get(code)))[1]
        if numpy_type is None:
            self.fail(f"tensor '{name}' has dtype {code!r}, which kael does not read")
        if (not isinstance(shape, list) or not all(isinstance(n, int) and n >= 0 for n in shape)
                or not isinstance(offsets, list) or len(offsets) != 2
                or not all(isinstance(n, int) for n in offsets)):
            self.fail(f"tensor '{name}' has a malformed shape or data_offsets")
        begin, end = offsets
        size = int(np.prod(shape, dtype=np.int64)) * np.dtype(numpy_type).itemsize
        if not 0 <= begin <= end <= len(self.body) or end - begin != size:
            self.fail(f"tensor '{name}' needs bytes {begin}..{end} ({size} for shape {shape}) but the data holds "
                      f"{len(self.body)} (a truncated file?)")
        array = np.frombuffer(self.body[begin:end], dtype=numpy_type).reshape(shape).copy()
        if code in _WIDENED:
            array = array.astype(np.float32 if code == "F16" else np.int64)
        tensor = _kael.from_numpy(array)
        self.loaded[name] = tensor
        return tensor

    def decode(self, value):
        if isinstance(value, list):
            return [self.decode(item) for item in value]
        if not isinstance(value, dict):
            return value
        if "tensor" in value:
            tensor = self.tensor(value["tensor"])
            if value.get("parameter"):
                key = ("parameter", value["tensor"])
                if key not in self.loaded:
                    self.loaded[key] = _parameter_class()(tensor, requires_grad=value.get("requires_grad", True))
                return self.loaded[key]
            return tensor.requires_grad_(True) if value.get("requires_grad") else tensor
        if "float" in value:
            return float(value["float"])
        if "tuple" in value:
            return tuple(self.decode(item) for item in value["tuple"])
        for kind, build in (("dict", dict), ("ordered_dict", OrderedDict)):
            if kind in value:
                return build((_hashable(self.decode(k)), self.decode(v)) for k, v in value[kind])
        self.fail(f"its structure holds an entry it does not know: {sorted(value)}")


def _hashable(key):
    return tuple(key) if isinstance(key, list) else key


def load(f, map_location=None, pickle_module=None, *, weights_only=False, **pickle_load_args):
    """Reads what kael.save wrote (or a plain safetensors file, as a dict of its tensors).
    `map_location` is a device or its name, to put every tensor there."""
    if pickle_module is not None:
        raise TypeError("kael.load does not unpickle: pickle_module is not supported")
    if hasattr(f, "read"):
        data, where = f.read(), getattr(f, "name", "the file object")
    else:
        where = os.fspath(f)
        with open(where, "rb") as source:
            data = source.read()
    reader = _Reader(data, repr(where) if isinstance(where, str) else where)
    if reader.metadata.get("format") == "kael":
        try:
            structure = json.loads(reader.metadata["kael.structure"])
        except (KeyError, json.JSONDecodeError) as error:
            reader.fail(f"its kael structure is missing or not JSON ({error})")
        result = reader.decode(structure)
    else:
        result = OrderedDict((name, reader.tensor(name)) for name in reader.entries)
    if map_location is not None:
        result = _moved(result, _device_of(map_location))
    return result


def _device_of(map_location):
    if isinstance(map_location, (str, _kael.device)):
        return _kael.device(map_location) if isinstance(map_location, str) else map_location
    raise TypeError("kael.load: map_location must be a device or its name (kael does not take a dict or a function)")


def _moved(value, device):
    if isinstance(value, Tensor):
        if value.device == device:
            return value
        if isinstance(value, _parameter_class()):
            value.move_to_(device)
            return value
        return value.to(device)
    if isinstance(value, list):
        return [_moved(item, device) for item in value]
    if isinstance(value, tuple):
        return tuple(_moved(item, device) for item in value)
    if isinstance(value, dict):
        return type(value)((key, _moved(item, device)) for key, item in value.items())
    return value

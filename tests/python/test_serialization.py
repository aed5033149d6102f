"""kael.save and kael.load: what a training program keeps (state dicts, optimizer state,
numbers and containers) round-trips exactly; the file is a safetensors file any reader
opens; shared tensors stay shared; bad files raise clear errors and load nothing."""
import io
import json
import math
import struct
from collections import OrderedDict

import numpy as np
import pytest

import kael
import kael.nn as nn


def checkpoint():
    weight = nn.Parameter(kael.randn(3, 2))
    return {
        "model": OrderedDict([("a.weight", weight.detach()), ("b.weight", weight.detach()),
                              ("mask", kael.tensor([True, False])), ("ids", kael.arange(4))]),
        "model_args": {"n_layer": 2, "dropout": 0.0, "bias": False, "name": "kjv"},
        "iter_num": 250, "best_val_loss": kael.tensor(1.25), "ratios": (0.5, float("inf"), float("nan")),
        "history": [1, 2.5, None, "x"], 3: "an int key", (1, 2): "a tuple key",
        "param": weight,
    }


def test_round_trip_keeps_values_types_and_containers(tmp_path):
    saved = checkpoint()
    kael.save(saved, tmp_path / "ckpt.pt")
    loaded = kael.load(tmp_path / "ckpt.pt")
    assert isinstance(loaded["model"], OrderedDict) and list(loaded["model"]) == list(saved["model"])
    for name, tensor in saved["model"].items():
        assert loaded["model"][name].dtype == tensor.dtype and loaded["model"][name].tolist() == tensor.tolist()
    assert loaded["model_args"] == saved["model_args"] and loaded["iter_num"] == 250
    assert loaded["best_val_loss"].shape == () and loaded["best_val_loss"].item() == 1.25
    assert loaded["ratios"][:2] == (0.5, math.inf) and math.isnan(loaded["ratios"][2])
    assert loaded["history"] == [1, 2.5, None, "x"] and loaded[3] == "an int key" and loaded[(1, 2)] == "a tuple key"
    assert isinstance(loaded["param"], nn.Parameter) and loaded["param"].requires_grad


def test_a_tensor_reached_twice_is_stored_once_and_loaded_shared(tmp_path):
    kael.save(checkpoint(), tmp_path / "ckpt.pt")
    loaded = kael.load(tmp_path / "ckpt.pt")
    assert loaded["model"]["a.weight"] is loaded["model"]["b.weight"]
    (length,) = struct.unpack("<Q", (tmp_path / "ckpt.pt").read_bytes()[:8])
    header = json.loads((tmp_path / "ckpt.pt").read_bytes()[8:8 + length])
    # The 3x2 weight (under two keys and as the parameter itself) once, then mask, ids and loss.
    assert len([key for key in header if key != "__metadata__"]) == 4


def test_the_file_is_safetensors_that_torch_and_numpy_can_read(tmp_path):
    kael.save({"w": kael.arange(6.0).view(2, 3)}, tmp_path / "w.pt")
    data = (tmp_path / "w.pt").read_bytes()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length])
    assert header["__metadata__"]["format"] == "kael" and header["t0"]["dtype"] == "F32"
    begin, end = header["t0"]["data_offsets"]
    values = np.frombuffer(data[8 + length + begin:8 + length + end], dtype=np.float32).reshape(header["t0"]["shape"])
    assert values.tolist() == [[0, 1, 2], [3, 4, 5]]


def test_a_plain_safetensors_file_loads_as_a_dict_of_tensors(tmp_path):
    values = np.arange(6, dtype=np.float32)
    header = json.dumps({"x": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}}).encode()
    (tmp_path / "plain.safetensors").write_bytes(struct.pack("<Q", len(header)) + header + values.tobytes())
    loaded = kael.load(tmp_path / "plain.safetensors")
    assert list(loaded) == ["x"] and loaded["x"].tolist() == [[0, 1, 2], [3, 4, 5]]


def test_file_objects_and_map_location_work():
    buffer = io.BytesIO()
    kael.save({"x": kael.ones(2)}, buffer)
    buffer.seek(0)
    assert kael.load(buffer, map_location="cpu")["x"].device == kael.device("cpu")
    with pytest.raises(TypeError):
        kael.load(io.BytesIO(buffer.getvalue()), map_location={"cuda:0": "cpu"})


def test_objects_it_cannot_store_without_pickle_are_refused():
    with pytest.raises(TypeError, match="nothing is pickled"):
        kael.save({"f": lambda: 1}, io.BytesIO())
    with pytest.raises(TypeError):
        kael.save({"x": 1}, io.BytesIO(), pickle_module=object())


@pytest.mark.parametrize("corrupt", [
    lambda data: data[:5],                                  # shorter than the length field
    lambda data: data[:len(data) // 2],                     # cut in the header or the tensors
    lambda data: data[:-3],                                 # the last tensor's bytes cut
    lambda data: struct.pack("<Q", 10) + b"not json!!" + data[18:],
    lambda data: b"PK\x03\x04" + data[4:],                  # something else entirely
    lambda data: struct.pack("<Q", 1 << 40) + data[8:],     # a header longer than the file
])
def test_bad_files_raise_a_clear_runtime_error(tmp_path, corrupt):
    kael.save(checkpoint(), tmp_path / "good.pt")
    (tmp_path / "bad.pt").write_bytes(corrupt((tmp_path / "good.pt").read_bytes()))
    with pytest.raises(RuntimeError, match="kael.load: .* is not a kael checkpoint"):
        kael.load(tmp_path / "bad.pt")


def test_torch_cannot_be_confused_for_kael(tmp_path):
    torch = pytest.importorskip("torch")
    torch.save({"x": torch.ones(2)}, tmp_path / "torch.pt")
    with pytest.raises(RuntimeError, match="not a kael checkpoint"):
        kael.load(tmp_path / "torch.pt")

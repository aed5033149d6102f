"""Collation: the "how do examples become one batch?" part of data loading.

``default_collate`` receives a list of examples and builds one batch whose structure is
the structure of a single example: a list of (image, label) tuples becomes [images,
labels], a list of dicts becomes a dict of batches. Recursion does the work: a container
is transposed and each of its fields collated again, until the leaves (tensors, NumPy
arrays, numbers) are stacked along a new first dimension.

``default_convert`` is what the DataLoader uses when it does not batch (batch_size=None):
it only turns NumPy arrays into tensors and leaves everything else as it is.
"""
import collections.abc

import kael

try:
    import numpy as np
except ImportError:  # without NumPy there are no arrays to convert
    np = None

_UNSUPPORTED = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
                "found {}")


def _is_namedtuple(value):
    return isinstance(value, tuple) and hasattr(value, "_fields")


def _holds_text(array):
    """Arrays of strings or Python objects have no tensor form (dtype kinds U, S and O)."""
    return array.dtype.kind in "USO"


def _numpy_to_tensor(array):
    """A tensor sharing the array's memory where kael can (float32, float64, int64 and bool
    arrays without negative strides); a converted copy otherwise. kael has no int32, uint8
    or float16, so such arrays widen to int64 or float32 where PyTorch would keep them."""
    shareable = array.dtype in (np.float32, np.float64, np.int64, np.bool_) and array.dtype.isnative
    if shareable and all(stride >= 0 for stride in array.strides):
        return kael.from_numpy(array)
    return kael.tensor(array)


def _stack(tensors):
    """kael.stack along a new dimension 0, with PyTorch's error when the sizes differ."""
    first = list(tensors[0].shape)
    for i, tensor in enumerate(tensors):
        if list(tensor.shape) != first:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {first} at entry 0 "
                               f"and {list(tensor.shape)} at entry {i}")
    return kael.stack(list(tensors), 0)


def default_collate(batch):
    """Turns a list of examples into one batch with the structure of one example.

    * kael.Tensor -> kael.stack(batch) (sizes must agree, else RuntimeError)
    * NumPy array -> tensor, then stacked; NumPy scalar -> 1-d tensor of its dtype
    * int (and bool) -> int64 (bool) tensor; float -> float64 tensor, as PyTorch does
    * str, bytes -> the batch, unchanged (a tuple when inside a sequence, as in PyTorch)
    * dict (any Mapping) -> the same keys, each collated over the batch
    * namedtuple -> the same namedtuple of collated fields
    * tuple -> a *list* of collated fields (PyTorch's choice); other sequences keep
      their type. Every example must have the same length, else RuntimeError.
    """
    elem = batch[0]
    if isinstance(elem, kael.Tensor):
        return _stack(batch)
    if np is not None and isinstance(elem, np.ndarray):
        if _holds_text(elem):
            raise TypeError(_UNSUPPORTED.format(elem.dtype))
        return default_collate([_numpy_to_tensor(array) for array in batch])
    if np is not None and isinstance(elem, (np.bool_, np.number)):
        return _numpy_to_tensor(np.array(batch))
    if isinstance(elem, float):
        return kael.tensor(batch, dtype=kael.float64)
    if isinstance(elem, int):
        return kael.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        collated = {key: default_collate([example[key] for example in batch]) for key in elem}
        try:
            return type(elem)(collated)
        except TypeError:  # a mapping type that cannot be built from a dict
            return collated
    if _is_namedtuple(elem):
        return type(elem)(*(default_collate(field) for field in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        if any(len(example) != len(elem) for example in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        fields = [default_collate(field) for field in zip(*batch)]  # each field a tuple
        if isinstance(elem, tuple):
            return fields
        try:
            return type(elem)(fields)
        except TypeError:  # a sequence type that cannot be built from a list, such as range
            return fields
    raise TypeError(_UNSUPPORTED.format(type(elem)))


def default_convert(data):
    """Turns NumPy arrays and scalars into tensors, through dicts and sequences; leaves
    everything else (tensors, Python numbers, strings) unchanged. Tuples become lists."""
    if isinstance(data, kael.Tensor):
        return data
    if np is not None and isinstance(data, np.ndarray):
        return data if _holds_text(data) else _numpy_to_tensor(data)
    if np is not None and isinstance(data, (np.bool_, np.number)):
        return _numpy_to_tensor(np.asarray(data))
    if isinstance(data, collections.abc.Mapping):
        converted = {key: default_convert(value) for key, value in data.items()}
        try:
            return type(data)(converted)
        except TypeError:
            return converted
    if _is_namedtuple(data):
        return type(data)(*(default_convert(field) for field in data))
    if isinstance(data, tuple):
        return [default_convert(field) for field in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        converted = [default_convert(field) for field in data]
        try:
            return type(data)(converted)
        except TypeError:
            return converted
    return data

"""kael.utils: helpers around training that are not tensors or modules themselves.

It holds one package so far, ``kael.utils.data``, where PyTorch keeps its data loading
(``torch.utils.data``), so that ``from kael.utils.data import DataLoader`` reads the same.
"""
from . import data  # noqa: F401

__all__ = ["data"]

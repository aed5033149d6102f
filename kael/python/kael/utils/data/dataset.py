"""Datasets: the "what is example i?" part of data loading.

A map-style ``Dataset`` is anything with ``__getitem__`` and ``__len__``; subclassing
``Dataset`` only adds ``+`` (concatenation). An ``IterableDataset`` is a stream instead:
the DataLoader iterates it and never indexes it (``+`` chains two of them). ``Subset`` and ``random_split`` build
views over another dataset from a list of indices, so no example is ever copied.
"""
import bisect
import itertools
import math
import warnings

import kael

from .sampler import _reject_generator


class Dataset:
    """A map-style dataset: subclasses define ``__getitem__`` (and usually ``__len__``)."""

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A dataset read as a stream: subclasses define ``__iter__``.

    Use it when examples cannot be addressed by index (a file read line by line, data made
    on the fly). The DataLoader takes examples in the order ``__iter__`` yields them, so
    samplers and ``shuffle`` do not apply to it.
    """

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Example i is the tuple of row i of each tensor; all tensors share their first size."""

    def __init__(self, *tensors):
        assert all(t.shape[0] == tensors[0].shape[0] for t in tensors), "Size mismatch between tensors"
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]


class ChainDataset(IterableDataset):
    """Several IterableDatasets streamed one after another."""

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            assert isinstance(d, IterableDataset), "ChainDataset only supports IterableDataset"
            yield from d

    def __len__(self):
        return sum(len(d) for d in self.datasets)


class ConcatDataset(Dataset):
    """Several map-style datasets read one after another as if they were one."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        assert len(self.datasets) > 0, "datasets should not be an empty iterable"
        for d in self.datasets:
            assert not isinstance(d, IterableDataset), "ConcatDataset does not support IterableDataset"
        # cumulative_sizes[k] is the number of examples in datasets[0..k], the ends of each part.
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, index):
        if index < 0:
            if -index > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            index += len(self)
        part = bisect.bisect_right(self.cumulative_sizes, index)
        start = self.cumulative_sizes[part - 1] if part > 0 else 0
        return self.datasets[part][index - start]


class Subset(Dataset):
    """The examples of ``dataset`` at ``indices``, in that order: a view, not a copy."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, index):
        if isinstance(index, list):
            return self.dataset[[self.indices[i] for i in index]]
        return self.dataset[self.indices[index]]

    def __len__(self):
        return len(self.indices)


def _lengths_from_fractions(fractions, total):
    """Turns fractions summing to 1 into whole lengths summing to ``total``.

    Each part gets floor(fraction * total); the examples left over are handed out one at
    a time to the parts in turn (round-robin), as PyTorch 1.13 does.
    """
    lengths = []
    for i, fraction in enumerate(fractions):
        if fraction < 0 or fraction > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        lengths.append(int(math.floor(total * fraction)))
    for i in range(total - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.")
    return lengths


def random_split(dataset, lengths, generator=None):
    """Splits ``dataset`` into non-overlapping random ``Subset``s of the given lengths.

    ``lengths`` holds whole sizes summing to ``len(dataset)``, or fractions summing to 1.
    The shuffle is ``kael.randperm``, so ``kael.manual_seed`` fixes the split; it cannot
    equal PyTorch's split, whose generator draws a different stream.
    """
    _reject_generator(generator, "random_split")
    lengths = list(lengths)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        lengths = _lengths_from_fractions(lengths, len(dataset))
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    order = kael.randperm(sum(lengths)).tolist()
    ends = itertools.accumulate(lengths)
    return [Subset(dataset, order[end - length:end]) for end, length in zip(ends, lengths)]

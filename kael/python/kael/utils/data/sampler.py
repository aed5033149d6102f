"""Samplers: the "in which order?" part of data loading.

A sampler yields dataset indices; a ``BatchSampler`` groups another sampler's indices
into lists, one list per batch. Keeping the order apart from the data lets the same
dataset be read in order for evaluation and shuffled for training.

Shuffling draws from kael's global generator (``kael.randperm``, ``kael.randint``), so
``kael.manual_seed(s)`` makes every epoch's order reproducible, and each new epoch draws
a fresh order because the generator has moved on. kael's generator is not PyTorch's, so
the shuffled orders differ from PyTorch's even under the same seed.
"""
import kael


def _reject_generator(generator, where):
    """kael has no Generator objects in Python yet; say so instead of ignoring one."""
    if generator is not None:
        raise NotImplementedError(
            f"{where}: generator= is not supported, kael has no Generator objects yet; "
            "leave it None and seed kael's global generator with kael.manual_seed")


class Sampler:
    """Base class: subclasses define ``__iter__`` (yielding indices) and usually ``__len__``."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")


class SequentialSampler(Sampler):
    """Yields 0, 1, ..., len(data_source) - 1: the dataset in its own order."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """Yields indices in random order, drawn anew at each ``iter()`` (each epoch).

    Without replacement it yields whole permutations (then part of one, when
    ``num_samples`` is not a multiple of the dataset's length); with replacement it yields
    ``num_samples`` independent uniform draws, so an index can repeat.
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")
        _reject_generator(generator, "RandomSampler")

    @property
    def num_samples(self):
        # Read at each use: a dataset may grow between epochs.
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        if self.replacement:
            # In chunks, as PyTorch draws them: num_samples may be 10**10 (minGPT asks for
            # that to sample forever), far more than one tensor could hold.
            remaining = self.num_samples
            while remaining > 0:
                chunk = min(remaining, 32)
                yield from kael.randint(0, n, [chunk]).tolist()
                remaining -= chunk
            return
        for _ in range(self.num_samples // n):
            yield from kael.randperm(n).tolist()
        yield from kael.randperm(n).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups the indices of ``sampler`` into lists of ``batch_size``.

    The last list is shorter when the indices do not divide evenly, unless ``drop_last``
    drops it, which keeps every batch the same shape.
    """

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size

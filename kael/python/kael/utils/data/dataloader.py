"""DataLoader: a dataset, a sampler and a collate function wired into batches.

For a map-style dataset an epoch is: take each list of indices from the batch sampler,
read those examples, collate them into a batch. With ``batch_size=None`` nothing is
batched: each index gives one example, passed through ``default_convert``. For an
IterableDataset the examples come from iterating the dataset, ``batch_size`` at a time.

The arguments and their conflicts are PyTorch's, so a loop written for torch.utils.data
runs unchanged, with two limits: loading happens in the calling process (num_workers > 0
warns and reads the same batches there) and shuffling uses kael's global generator
(generator=None). ``pin_memory`` is accepted and does nothing: there is no page-locked
staging buffer in kael.
"""
import itertools
import warnings

from .collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler, _reject_generator


class _InfiniteConstantSampler:
    """The sampler of an IterableDataset: it has no indices, so it yields None forever."""

    def __iter__(self):
        while True:
            yield None


class DataLoader:
    """Iterates a dataset in batches; see the module's docstring for what one epoch does."""

    _frozen = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=2, persistent_workers=False,
                 pin_memory_device=""):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor != 2:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing. "
                             "let num_workers > 0 to enable multiprocessing.")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        iterable = isinstance(dataset, IterableDataset)
        if iterable:
            # A stream has no indices to reorder, so order-giving options cannot apply.
            if shuffle not in {False, None}:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, "
                                 f"but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, "
                                 f"but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified batch_sampler option, "
                                 f"but got batch_sampler={batch_sampler}")
        shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            # The batch sampler already decides batch size, order and the last batch.
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                 "and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")

        if sampler is None:
            if iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert
        if multiprocessing_context is not None and num_workers == 0:
            raise ValueError(f"multiprocessing_context can only be used with multi-process loading "
                             f"(num_workers > 0), but got num_workers={num_workers}")
        if num_workers > 0:
            # Workers only change where examples are read, not which or in what order (the
            # sampler runs in the main process either way), so the batches are the same;
            # code meant to run inside a worker cannot be honoured, so that is refused.
            if worker_init_fn is not None:
                raise NotImplementedError("worker_init_fn: kael's DataLoader has no worker processes to run it in")
            warnings.warn(f"num_workers={num_workers}: kael's DataLoader has no worker processes; it reads the "
                          "same batches in the calling process")
        _reject_generator(generator, "DataLoader")

        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.num_workers = num_workers
        self.collate_fn = collate_fn
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.generator = generator
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers
        self._iterable = iterable
        self._initialized = True

    def __setattr__(self, name, value):
        # Changing these after __init__ would leave the samplers built from them stale.
        if getattr(self, "_initialized", False) and name in self._frozen:
            raise ValueError(f"{name} attribute should not be set after {type(self).__name__} is initialized")
        super().__setattr__(name, value)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self):
        """Batches per epoch: the index sampler's length, or for an IterableDataset its
        ``len()`` divided into batches (only an estimate, as the stream decides)."""
        if self._iterable:
            length = len(self.dataset)
            if self.batch_size is not None:
                if self.drop_last:
                    return length // self.batch_size
                return (length + self.batch_size - 1) // self.batch_size
            return length
        return len(self._index_sampler)

    def __iter__(self):
        return _LoaderIterator(self, self._batches())

    def _batches(self):
        if self._iterable:
            yield from self._stream_batches()
        elif self._auto_collation:
            for indices in self.batch_sampler:
                yield self.collate_fn([self.dataset[i] for i in indices])
        else:
            for index in self.sampler:
                yield self.collate_fn(self.dataset[index])

    def _stream_batches(self):
        examples = iter(self.dataset)
        if not self._auto_collation:
            for example in examples:
                yield self.collate_fn(example)
            return
        while True:
            batch = list(itertools.islice(examples, self.batch_size))
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                return
            yield self.collate_fn(batch)


class _LoaderIterator:
    """One epoch's iterator; like PyTorch's it also knows its length."""

    def __init__(self, loader, batches):
        self._loader = loader
        self._batches = batches

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._batches)

    def __len__(self):
        return len(self._loader)

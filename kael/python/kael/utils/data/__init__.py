"""kael.utils.data: datasets, samplers and the DataLoader, spelled as torch.utils.data.

A training loop asks for batches; this package splits that into three small jobs, each
replaceable on its own:

* a *dataset* answers "what is example i?" (``dataset[i]``, ``len(dataset)``), or, for an
  ``IterableDataset``, simply yields examples one after another;
* a *sampler* answers "in which order?" by yielding indices (in order, or shuffled with
  kael's random generator, so ``kael.manual_seed`` makes the order reproducible);
* ``default_collate`` answers "how do examples become one batch?" by stacking them.

``DataLoader`` wires the three together. Everything runs in the calling process: kael has
no worker processes (``num_workers`` must be 0) and no Generator objects (``generator``
must be None) yet.
"""
from .collate import default_collate, default_convert
from .dataloader import DataLoader
from .dataset import ChainDataset, ConcatDataset, Dataset, IterableDataset, Subset, TensorDataset, random_split
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ConcatDataset", "ChainDataset", "Subset",
           "random_split", "Sampler", "SequentialSampler", "RandomSampler", "BatchSampler", "DataLoader",
           "default_collate", "default_convert"]

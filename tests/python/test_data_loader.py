"""kael.utils.data against torch.utils.data: the same datasets read by both DataLoaders give
the same batches in order, the same batch counts and the same collated values; shuffled
orders (kael's generator, not PyTorch's) are permutations that kael.manual_seed fixes and
that change from epoch to epoch; and argument conflicts raise PyTorch's exception types.
Skipped where torch is not installed."""
import collections

import numpy as np
import pytest

import kael
import kael.utils.data as kdata

torch = pytest.importorskip("torch")
tdata = torch.utils.data

Point = collections.namedtuple("Point", ["x", "y"])


def plain(value):
    """Tensors of either library as (dtype name, shape, values), recursively: comparable."""
    if isinstance(value, (kael.Tensor, torch.Tensor)):
        return str(value.dtype).split(".")[-1], list(value.shape), value.tolist()
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value).__name__, [plain(item) for item in value]
    return value


def arrays(n=10):
    rng = np.random.default_rng(7)
    return rng.standard_normal((n, 3)).astype(np.float32), np.arange(n, dtype=np.int64)


def tensor_datasets(n=10):
    x, y = arrays(n)
    return (kdata.TensorDataset(kael.from_numpy(x), kael.from_numpy(y)),
            tdata.TensorDataset(torch.from_numpy(x), torch.from_numpy(y)))


@pytest.mark.parametrize("batch_size", [1, 3, 4, 10, 11])
@pytest.mark.parametrize("drop_last", [False, True])
def test_sequential_batches_equal_torch(batch_size, drop_last):
    ours, theirs = tensor_datasets()
    k_loader = kdata.DataLoader(ours, batch_size=batch_size, drop_last=drop_last)
    t_loader = tdata.DataLoader(theirs, batch_size=batch_size, drop_last=drop_last)
    assert len(k_loader) == len(t_loader)
    k_batches, t_batches = list(k_loader), list(t_loader)
    assert len(k_batches) == len(t_batches) == len(t_loader)
    for k, t in zip(k_batches, t_batches):
        assert isinstance(k, list) and len(k) == 2
        for k_part, t_part in zip(k, t):
            assert list(k_part.shape) == list(t_part.shape)
            np.testing.assert_array_equal(k_part.numpy(), t_part.numpy())


def test_batch_size_none_converts_single_examples_like_torch():
    class Pairs(tdata.Dataset):  # a torch Dataset is fine for kael: only indexing is used
        def __getitem__(self, i):
            return np.full(2, i, dtype=np.float64), i, "s%d" % i

        def __len__(self):
            return 4

    k = list(kdata.DataLoader(Pairs(), batch_size=None))
    t = list(tdata.DataLoader(Pairs(), batch_size=None))
    assert [plain(item) for item in k] == [plain(item) for item in t]
    assert len(kdata.DataLoader(Pairs(), batch_size=None)) == 4


def test_shuffled_order_is_a_reproducible_permutation_that_changes_each_epoch():
    ours, _ = tensor_datasets(20)
    loader = kdata.DataLoader(ours, batch_size=6, shuffle=True)
    first = [label for _, labels in loader for label in labels.tolist()]
    second = [label for _, labels in loader for label in labels.tolist()]
    assert sorted(first) == sorted(second) == list(range(20))
    assert first != second and first != list(range(20))
    kael.manual_seed(0)
    assert [label for _, labels in loader for label in labels.tolist()] == first


@pytest.mark.parametrize("n", [1, 7, 12])
@pytest.mark.parametrize("batch_size", [1, 3, 5, 12, 13])
@pytest.mark.parametrize("drop_last", [False, True])
def test_batch_counts_and_sizes_equal_torch_when_shuffled(n, batch_size, drop_last):
    ours, theirs = tensor_datasets(n)
    k_loader = kdata.DataLoader(ours, batch_size=batch_size, shuffle=True, drop_last=drop_last)
    t_loader = tdata.DataLoader(theirs, batch_size=batch_size, shuffle=True, drop_last=drop_last)
    assert len(k_loader) == len(t_loader)
    assert [len(y) for _, y in k_loader] == [len(y) for _, y in t_loader]
    assert len(iter(k_loader)) == len(k_loader)


def test_samplers_given_by_the_caller():
    ours, theirs = tensor_datasets(6)
    order, batches = [4, 0, 5, 1], [[3, 1], [0], [5, 2, 4]]
    for sampler, batch_sampler in [(order, None), (None, batches)]:
        k = kdata.DataLoader(ours, batch_size=1 if batch_sampler else 2, sampler=sampler, batch_sampler=batch_sampler)
        t = tdata.DataLoader(theirs, batch_size=1 if batch_sampler else 2, sampler=sampler,
                             batch_sampler=batch_sampler)
        assert len(k) == len(t)
        assert [y.tolist() for _, y in k] == [y.tolist() for _, y in t]


def test_random_sampler_options():
    ours, _ = tensor_datasets(5)
    drawn = list(kdata.RandomSampler(ours, replacement=True, num_samples=40))
    assert len(drawn) == 40 and set(drawn) <= set(range(5)) and len(set(drawn)) > 1
    more = list(kdata.RandomSampler(ours, num_samples=12))  # two full permutations and a part of one
    assert len(more) == len(kdata.RandomSampler(ours, num_samples=12)) == 12
    assert sorted(more[:5]) == sorted(more[5:10]) == list(range(5)) and len(set(more[10:])) == 2
    assert list(kdata.SequentialSampler(ours)) == [0, 1, 2, 3, 4]
    assert list(kdata.BatchSampler(range(7), 3, False)) == list(tdata.BatchSampler(range(7), 3, False))
    assert len(kdata.BatchSampler(range(7), 3, True)) == len(tdata.BatchSampler(range(7), 3, True)) == 2


COLLATE_BATCHES = {
    "tuples of tensors": lambda lib: [(lib.tensor([1.0, 2.0]), lib.tensor(3)), (lib.tensor([4.0, 5.0]), lib.tensor(6))],
    "dicts": lambda lib: [{"a": lib.tensor([1.0]), "b": 2, "c": "x"}, {"a": lib.tensor([3.0]), "b": 4, "c": "y"}],
    "ints": lambda lib: [1, 2, 3],
    "bools": lambda lib: [True, False],
    "floats": lambda lib: [0.5, 1.25, -2.0],
    "numpy arrays": lambda lib: [np.arange(6, dtype=np.float32).reshape(2, 3), np.ones((2, 3), np.float32)],
    "numpy int64 and float64": lambda lib: [(np.arange(2), np.zeros(2)), (np.arange(2, 4), np.ones(2))],
    "numpy scalars": lambda lib: [np.float64(1.5), np.float64(2.5)],
    "strings": lambda lib: ["a", "bc"],
    "nested lists": lambda lib: [[1, [2.0, "u"]], [3, [4.0, "v"]]],
    "namedtuples": lambda lib: [Point(1, 2.0), Point(3, 4.0)],
}


@pytest.mark.parametrize("name", COLLATE_BATCHES)
def test_default_collate_equals_torch(name):
    k = kdata.default_collate(COLLATE_BATCHES[name](kael))
    t = tdata.default_collate(COLLATE_BATCHES[name](torch))
    assert plain(k) == plain(t)  # container types included


def test_default_collate_errors_like_torch():
    for lib, collate in [(kael, kdata.default_collate), (torch, tdata.default_collate)]:
        with pytest.raises(RuntimeError, match=r"\[2\] at entry 0 and \[3\] at entry 1"):
            collate([lib.zeros(2), lib.zeros(3)])
        with pytest.raises(RuntimeError, match="equal size"):
            collate([[1, 2], [3]])
        with pytest.raises(TypeError):
            collate([object(), object()])
        with pytest.raises(TypeError):
            collate([np.array(["text"]), np.array(["more"])])


def make_conflict(name, lib, dataset):
    """DataLoader arguments that PyTorch refuses, built for either library."""
    data = lib.utils.data if lib is torch else kdata
    sequential = data.SequentialSampler(dataset)
    batches = data.BatchSampler(sequential, 2, False)
    return {
        "sampler with shuffle": dict(sampler=sequential, shuffle=True),
        "batch_sampler with batch_size": dict(batch_sampler=batches, batch_size=2),
        "batch_sampler with shuffle": dict(batch_sampler=batches, shuffle=True),
        "batch_sampler with sampler": dict(batch_sampler=batches, sampler=sequential),
        "batch_sampler with drop_last": dict(batch_sampler=batches, drop_last=True),
        "batch_size None with drop_last": dict(batch_size=None, drop_last=True),
        "negative num_workers": dict(num_workers=-1),
        "negative timeout": dict(timeout=-1),
        "prefetch_factor without workers": dict(prefetch_factor=4),
        "persistent_workers without workers": dict(persistent_workers=True),
        "batch_size 0": dict(batch_size=0),
        "drop_last not a bool": dict(drop_last=1),
        "multiprocessing_context without workers": dict(multiprocessing_context="spawn"),
    }[name]


CONFLICTS = ["sampler with shuffle", "batch_sampler with batch_size", "batch_sampler with shuffle",
             "batch_sampler with sampler", "batch_sampler with drop_last", "batch_size None with drop_last",
             "negative num_workers", "negative timeout", "prefetch_factor without workers",
             "persistent_workers without workers", "batch_size 0", "drop_last not a bool",
             "multiprocessing_context without workers"]


def raised(function):
    try:
        function()
    except Exception as error:  # noqa: BLE001  (the type is what is compared)
        return type(error)
    return None


@pytest.mark.parametrize("name", CONFLICTS)
def test_argument_conflicts_raise_what_torch_raises(name):
    ours, theirs = tensor_datasets()
    expected = raised(lambda: tdata.DataLoader(theirs, **make_conflict(name, torch, theirs)))
    assert expected is not None
    assert raised(lambda: kdata.DataLoader(ours, **make_conflict(name, kael, ours))) is expected


def test_sampler_argument_errors_raise_what_torch_raises():
    ours, theirs = tensor_datasets(3)
    for kwargs in [dict(replacement=1), dict(num_samples=0), dict(num_samples=2.5)]:
        expected = raised(lambda: tdata.RandomSampler(theirs, **kwargs))
        assert expected is not None and raised(lambda: kdata.RandomSampler(ours, **kwargs)) is expected


def test_iterable_dataset_batches_equal_torch():
    def stream(base):
        class Counting(base):
            def __iter__(self):
                return iter(range(10))

            def __len__(self):
                return 10
        return Counting()

    for batch_size, drop_last in [(3, False), (3, True), (None, False), (5, True)]:
        k = kdata.DataLoader(stream(kdata.IterableDataset), batch_size=batch_size, drop_last=drop_last)
        t = tdata.DataLoader(stream(tdata.IterableDataset), batch_size=batch_size, drop_last=drop_last)
        assert len(k) == len(t)
        assert [plain(b) for b in k] == [plain(b) for b in t]
    for kwargs in [dict(shuffle=True), dict(sampler=[0, 1]), dict(batch_sampler=[[0]])]:
        expected = raised(lambda: tdata.DataLoader(stream(tdata.IterableDataset), **kwargs))
        assert expected is ValueError
        assert raised(lambda: kdata.DataLoader(stream(kdata.IterableDataset), **kwargs)) is expected
    assert list(stream(kdata.IterableDataset) + stream(kdata.IterableDataset)) == list(range(10)) * 2


def test_unsupported_features_say_so():
    ours, _ = tensor_datasets()
    with pytest.warns(UserWarning, match="num_workers"):
        workers = kdata.DataLoader(ours, batch_size=3, num_workers=2)
    assert [b[0].tolist() for b in workers] == [b[0].tolist() for b in kdata.DataLoader(ours, batch_size=3)]
    with pytest.raises(NotImplementedError, match="worker_init_fn"):
        kdata.DataLoader(ours, num_workers=2, worker_init_fn=print)
    with pytest.raises(NotImplementedError, match="generator"):
        kdata.DataLoader(ours, shuffle=True, generator=object())
    with pytest.raises(NotImplementedError, match="generator"):
        kdata.RandomSampler(ours, generator=object())
    with pytest.raises(NotImplementedError, match="generator"):
        kdata.random_split(ours, [5, 5], generator=object())
    assert len(list(kdata.DataLoader(ours, batch_size=4, pin_memory=True))) == 3  # a no-op on the CPU


def test_attributes_are_frozen_after_init_like_torch():
    ours, theirs = tensor_datasets()
    for loader in (kdata.DataLoader(ours), tdata.DataLoader(theirs)):
        with pytest.raises(ValueError):
            loader.batch_size = 5
        loader.collate_fn = lambda batch: batch  # others stay settable


@pytest.mark.parametrize("n, lengths", [(10, [3, 7]), (10, [0.5, 0.5]), (11, [0.3, 0.3, 0.4]), (3, [0.1, 0.9]),
                                        (7, [0.25, 0.25, 0.25, 0.25])])
def test_random_split_lengths_equal_torch_and_parts_cover_the_dataset(n, lengths):
    ours, theirs = tensor_datasets(n)
    k_parts, t_parts = kdata.random_split(ours, lengths), tdata.random_split(theirs, lengths)
    assert [len(p) for p in k_parts] == [len(p) for p in t_parts]
    labels = [part[i][1].item() for part in k_parts for i in range(len(part))]
    assert sorted(labels) == list(range(n))
    assert all(isinstance(part, kdata.Subset) for part in k_parts)
    kael.manual_seed(0)
    assert [p.indices for p in kdata.random_split(ours, lengths)] == [p.indices for p in k_parts]


def test_random_split_errors_and_warnings_like_torch():
    ours, theirs = tensor_datasets()
    with pytest.warns(UserWarning, match="index 1 is 0"):
        assert [len(p) for p in tdata.random_split(theirs, [0.05, 0.05, 0.9])] == [1, 0, 9]
    with pytest.warns(UserWarning, match="index 1 is 0"):
        assert [len(p) for p in kdata.random_split(ours, [0.05, 0.05, 0.9])] == [1, 0, 9]
    for lengths in ([3, 3], [1.2, -0.2], [0.5, 0.4]):
        expected = raised(lambda: tdata.random_split(theirs, lengths))
        assert expected is ValueError and raised(lambda: kdata.random_split(ours, lengths)) is expected


def test_subset_and_concat_read_through_to_their_datasets():
    ours, theirs = tensor_datasets(6)
    k, t = kdata.Subset(ours, [5, 2, 3]), tdata.Subset(theirs, [5, 2, 3])
    assert len(k) == len(t) == 3 and k[1][1].item() == t[1][1].item() == 2
    k_both, t_both = ours + k, theirs + t
    assert isinstance(k_both, kdata.ConcatDataset) and len(k_both) == len(t_both) == 9
    assert [k_both[i][1].item() for i in range(-9, 9)] == [t_both[i][1].item() for i in range(-9, 9)]
    with pytest.raises(ValueError):
        k_both[-10]
    with pytest.raises(AssertionError):
        kdata.TensorDataset(kael.zeros([3]), kael.zeros([4]))

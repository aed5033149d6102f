"""kael.nn's Module API against torch.nn on the same models: containers, apply,
named_modules, buffers, tied weights in named_parameters and state_dict, and
load_state_dict's strict and non-strict reports and errors."""
import numpy as np
import pytest

import kael
import kael.nn as knn

torch = pytest.importorskip("torch")
tnn = torch.nn


def tiny_gpt(nn, lib):
    """A model shaped like nanoGPT's: a ModuleDict with a ModuleList, a tied head, and
    buffers, built from whichever library `nn`/`lib` name."""

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln = nn.LayerNorm(4)
            self.fc = nn.Linear(4, 4, bias=False)
            self.register_buffer("mask", lib.ones(2, 2))
            self.register_buffer("cache", lib.zeros(3), persistent=False)

        def forward(self, x):
            return x + self.fc(self.ln(x))

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.transformer = nn.ModuleDict(dict(wte=nn.Embedding(10, 4), h=nn.ModuleList([Block(), Block()]),
                                                  ln_f=nn.LayerNorm(4)))
            self.lm_head = nn.Linear(4, 10, bias=False)
            self.transformer.wte.weight = self.lm_head.weight
            self.scales = nn.ParameterList([nn.Parameter(lib.ones(2)), lib.zeros(3)])
            self.extra = nn.ParameterDict({"a": nn.Parameter(lib.ones(1))})

        def forward(self, idx):
            x = self.transformer.wte(idx)
            for block in self.transformer.h:
                x = block(x)
            return self.lm_head(self.transformer.ln_f(x))

    return Model()


@pytest.fixture
def models():
    return tiny_gpt(knn, kael), tiny_gpt(tnn, torch)


def names(pairs):
    return [name for name, _ in pairs]


def test_parameter_names_and_order_match_torch_with_the_tied_weight_listed_once(models):
    k, t = models
    assert names(k.named_parameters()) == names(t.named_parameters())
    assert "lm_head.weight" not in names(k.named_parameters())
    assert names(k.named_parameters(prefix="model")) == names(t.named_parameters(prefix="model"))


def test_state_dict_keys_match_torch_with_both_names_of_the_tied_weight(models):
    k, t = models
    assert list(k.state_dict()) == list(t.state_dict())
    assert "lm_head.weight" in k.state_dict() and "transformer.h.0.cache" not in k.state_dict()
    assert names(k.named_buffers()) == names(t.named_buffers())


def test_named_modules_children_and_apply_visit_in_torchs_order(models):
    k, t = models
    assert names(k.named_modules()) == names(t.named_modules())
    assert names(k.named_modules(prefix="root")) == names(t.named_modules(prefix="root"))
    assert names(k.named_children()) == names(t.named_children())
    seen_k, seen_t = [], []
    assert k.apply(lambda m: seen_k.append(type(m).__name__)) is k
    t.apply(lambda m: seen_t.append(type(m).__name__))
    assert seen_k == seen_t


def test_containers_index_slice_and_mutate_as_torch(models):
    k, t = models
    for lib_nn, model in ((knn, k), (tnn, t)):
        blocks = model.transformer.h
        assert len(blocks) == 2 and blocks[-1] is blocks[1] and len(blocks[:1]) == 1
        blocks.append(lib_nn.Identity())
        del blocks[0]
        assert [type(b).__name__ for b in blocks] == ["Block", "Identity"]
        assert list(model.transformer.keys()) == ["wte", "h", "ln_f"] and "h" in model.transformer
        assert len(model.scales) == 2 and isinstance(model.scales[1], lib_nn.Parameter)
        assert list(model.extra.keys()) == ["a"]
    assert names(k.named_parameters()) == names(t.named_parameters())
    with pytest.raises(IndexError):
        k.transformer.h[5]
    seq = knn.Sequential(knn.Linear(2, 3), knn.ReLU(), knn.Linear(3, 1))
    assert isinstance(seq[1:], knn.Sequential) and len(seq[1:]) == 2 and isinstance(seq[-1], knn.Linear)


def test_load_state_dict_strict_reports_as_torch_and_loads_nothing_on_error(models):
    k, t = models
    for model, lib in ((k, kael), (t, torch)):
        state = model.state_dict()
        state.pop("transformer.ln_f.bias")
        state["surplus"] = lib.zeros(1)
        with pytest.raises(RuntimeError) as error:
            model.load_state_dict(state)
        assert "Missing key(s) in state_dict: \"transformer.ln_f.bias\"" in str(error.value)
        assert "Unexpected key(s) in state_dict: \"surplus\"" in str(error.value)
        result = model.load_state_dict(state, strict=False)
        assert result.missing_keys == ["transformer.ln_f.bias"] and result.unexpected_keys == ["surplus"]
    before = k.transformer.ln_f.weight.tolist()
    state = k.state_dict()
    state = {name: value.clone() + 1 for name, value in state.items()}
    state["transformer.h.0.fc.weight"] = kael.zeros(3, 3)
    with pytest.raises(RuntimeError, match="size mismatch for transformer.h.0.fc.weight"):
        k.load_state_dict(state, strict=False)
    assert k.transformer.ln_f.weight.tolist() == before  # nothing half-loaded


def test_loading_torchs_values_gives_torchs_outputs(models):
    k, t = models
    k.load_state_dict({name: kael.tensor(value.numpy()) for name, value in t.state_dict().items()})
    idx = np.array([[1, 2, 3]])
    np.testing.assert_allclose(k(kael.tensor(idx)).detach().numpy(), t(torch.tensor(idx)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def test_registration_errors_are_torchs():
    for nn, lib in ((knn, kael), (tnn, torch)):
        module = nn.Module()
        with pytest.raises(KeyError):
            module.register_buffer("a.b", lib.zeros(1))
        with pytest.raises(TypeError):
            module.register_buffer("b", 3)
        with pytest.raises(TypeError):
            module.register_parameter("w", lib.zeros(1))
        module.w = nn.Parameter(lib.zeros(1))
        with pytest.raises(TypeError):
            module.w = lib.zeros(1)
        module.w = None
        assert module.w is None and list(module.parameters()) == []
        with pytest.raises(ValueError):
            module.train("yes")

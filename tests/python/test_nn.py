"""kael.nn and kael.optim from Python: modules subclassed in Python, registration by
attribute assignment, the C++ initialisers and optimizers, and training that learns."""
import math

import numpy as np
import pytest

import kael
import kael.nn as nn
import kael.nn.functional as F


class TwoLayers(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(4, 8)
        self.out = nn.Linear(8, 3)
        self.temperature = nn.Parameter(kael.ones(1))
        self.register_buffer("calls", kael.zeros(1))
        self.note = "not registered"

    def forward(self, x):
        return self.out(self.hidden(x).relu()) / self.temperature


def test_attribute_assignment_registers_parameters_and_modules():
    model = TwoLayers()
    assert [name for name, _ in model.named_parameters()] == [
        "temperature", "hidden.weight", "hidden.bias", "out.weight", "out.bias"]
    assert [name for name, _ in model.named_children()] == ["hidden", "out"]
    # PyTorch's order: a module's own parameters, its own buffers, then each child's.
    assert list(model.state_dict()) == ["temperature", "calls", "hidden.weight", "hidden.bias", "out.weight", "out.bias"]
    assert isinstance(model.hidden.weight, nn.Parameter) and model.hidden.weight.requires_grad
    assert model.hidden.weight is model.hidden.weight  # one object per parameter
    assert model.note == "not registered"
    del model.out
    assert "out.weight" not in dict(model.named_parameters())
    with pytest.raises(AttributeError):
        model.missing
    assert "Linear(in_features=4, out_features=8, bias=True)" in repr(TwoLayers())


def test_a_parameter_shares_its_datas_storage():
    data = kael.zeros(3)
    p = nn.Parameter(data)
    p.detach()[0] = 5  # not through autograd
    assert data[0].item() == 5.0 and p.requires_grad and not data.requires_grad
    assert p.add_(0) is p if not p.requires_grad else True  # leaves that require grad refuse in-place ops


def test_layers_draw_their_weights_as_the_cpp_modules_do():
    kael.manual_seed(3)
    layer = nn.Linear(5, 2)
    bound = 1 / math.sqrt(5)
    w = layer.weight.detach().numpy()
    assert w.shape == (2, 5) and np.all(np.abs(w) <= bound + 1e-7)
    kael.manual_seed(3)
    again = nn.Linear(5, 2)
    assert again.weight.tolist() == layer.weight.tolist()  # the same generator, the same order
    assert nn.Embedding(10, 3).weight.shape == (10, 3)
    norm = nn.LayerNorm(4)
    assert norm.weight.tolist() == [1.0] * 4 and norm.bias.tolist() == [0.0] * 4


def test_train_and_eval_switch_dropout():
    model = nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.5))
    x = kael.ones(50, 3)
    model.eval()
    assert not model[1].training
    assert kael.allclose(model(x), model[0](x))
    model.train()
    assert (model(x) == 0).any().item()


def test_an_mlp_learns_with_adam_and_clipping():
    kael.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2))
    optimizer = kael.optim.Adam(model.parameters(), lr=0.05)
    x = kael.randn(64, 2)
    y = (x[:, 0] * x[:, 1] > 0).long()  # XOR of the signs: not linearly separable
    first = None
    for _ in range(200):
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        optimizer.step()
        first = first if first is not None else loss.item()
    assert loss.item() < 0.5 * first
    accuracy = (model(x).argmax(1) == y).float().mean().item()
    assert accuracy > 0.9


def test_optimizers_take_pytorchs_arguments():
    p = nn.Parameter(kael.tensor([1.0, -1.0]))
    sgd = kael.optim.SGD([p], lr=0.1, momentum=0.9)
    (p * p).sum().backward()
    sgd.step()
    assert np.allclose(p.detach().numpy(), [0.8, -0.8])
    assert sgd.param_groups[0]["lr"] == 0.1
    sgd.param_groups[0]["lr"] = 0.01
    assert sgd.param_groups[0]["lr"] == 0.01
    assert "momentum_buffer" in sgd.state_dict()["state"][0]
    with pytest.raises(ValueError):
        kael.optim.Adam([p], lr=0.1, betas=(1.5, 0.9))
    with pytest.raises(TypeError):
        kael.optim.Adam([1.0])


def test_load_state_dict_copies_into_the_same_tensors():
    source, target = TwoLayers(), TwoLayers()
    weight = target.hidden.weight
    target.load_state_dict(source.state_dict())
    assert target.hidden.weight is weight and target.hidden.weight.tolist() == source.hidden.weight.tolist()
    with pytest.raises(RuntimeError, match="Missing key"):
        target.load_state_dict({"hidden.weight": source.hidden.weight})
    bad = source.state_dict()
    bad["hidden.weight"] = kael.zeros(2, 2)
    with pytest.raises(RuntimeError, match="size mismatch"):
        target.load_state_dict(bad)


def test_module_to_moves_in_place_so_optimizers_keep_working():
    model = TwoLayers()
    optimizer = kael.optim.SGD(model.parameters(), lr=0.1)
    weight = model.hidden.weight
    model.to(kael.float64)
    assert model.hidden.weight is weight and weight.dtype == kael.float64
    loss = model(kael.randn(2, 4, dtype=kael.float64)).sum()
    loss.backward()
    before = weight.detach().clone()
    optimizer.step()
    assert not kael.allclose(weight.detach(), before)

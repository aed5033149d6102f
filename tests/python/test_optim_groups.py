"""kael.optim with parameter groups against torch.optim: trajectories with per-group
options, learning rates written into param_groups between steps, state dicts in
PyTorch's layout (saved with kael.save and resumed), and PyTorch's errors."""
import numpy as np
import pytest

import kael

torch = pytest.importorskip("torch")


def leaves(lib, seed=0):
    rng = np.random.default_rng(seed)
    return [lib.tensor(rng.standard_normal(shape).astype(np.float32), requires_grad=True)
            for shape in ((3, 4), (4,), (2, 3))]


def loss_of(lib, params, step):
    a, b, c = params
    return ((a * (step + 1)).tanh().sum() + (b * b).sum() * 0.5 + (c.exp() * 0.1).sum())


OPTIMIZERS = {
    "SGD": (dict(lr=0.1, momentum=0.9), dict(lr=0.01, weight_decay=0.1, nesterov=True, momentum=0.5)),
    "Adam": (dict(lr=0.05, betas=(0.8, 0.99)), dict(weight_decay=0.2, amsgrad=True)),
    "AdamW": (dict(lr=0.05, weight_decay=0.1), dict(weight_decay=0.0, eps=1e-6)),
}


def build(lib, name, params):
    defaults, second = OPTIMIZERS[name]
    groups = [{"params": params[:2]}, dict(params=params[2:], **second)]
    return getattr(lib.optim, name)(groups, **defaults)


def run(lib, optimizer, params, steps, first=0):
    for step in range(first, first + steps):
        optimizer.zero_grad()
        loss_of(lib, params, step).backward()
        optimizer.param_groups[0]["lr"] *= 0.9  # a schedule written by hand, as nanoGPT does
        optimizer.step()


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_groups_follow_torchs_trajectory(name):
    k_params, t_params = leaves(kael), leaves(torch)
    k_opt, t_opt = build(kael, name, k_params), build(torch, name, t_params)
    run(kael, k_opt, k_params, 12)
    run(torch, t_opt, t_params, 12)
    for k, t in zip(k_params, t_params):
        np.testing.assert_allclose(k.detach().numpy(), t.detach().numpy(), rtol=2e-5, atol=2e-6)
    for k_group, t_group in zip(k_opt.param_groups, t_opt.param_groups):
        for option in ("lr", "weight_decay"):
            assert k_group[option] == pytest.approx(t_group[option], rel=1e-12)


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_state_dict_has_torchs_layout_and_resumes_through_save_and_load(name, tmp_path):
    k_params, t_params = leaves(kael), leaves(torch)
    k_opt, t_opt = build(kael, name, k_params), build(torch, name, t_params)
    run(kael, k_opt, k_params, 5)
    run(torch, t_opt, t_params, 5)
    k_state, t_state = k_opt.state_dict(), t_opt.state_dict()
    assert sorted(k_state["state"]) == sorted(t_state["state"])
    assert [g["params"] for g in k_state["param_groups"]] == [g["params"] for g in t_state["param_groups"]]
    assert set(k_state["state"][0]) == set(t_state["state"][0])
    kael.save({"optimizer": k_state, "params": k_params}, tmp_path / "ckpt.pt")
    saved = kael.load(tmp_path / "ckpt.pt")
    resumed_params = [p.detach().clone().requires_grad_(True) for p in saved["params"]]
    resumed = build(kael, name, resumed_params)
    resumed.load_state_dict(saved["optimizer"])
    assert resumed.param_groups[0]["lr"] == pytest.approx(k_opt.param_groups[0]["lr"])
    run(kael, resumed, resumed_params, 4, first=5)
    run(kael, k_opt, k_params, 4, first=5)
    for a, b in zip(resumed_params, k_params):
        assert a.tolist() == b.tolist()  # to the bit: the run that stopped and the one that did not


def test_bad_groups_raise_torchs_errors():
    for lib in (kael, torch):
        a, b, c = leaves(lib)
        with pytest.raises(ValueError):
            lib.optim.SGD([], lr=0.1)
        with pytest.raises(ValueError):
            lib.optim.SGD([{"params": [a]}, {"params": [a, b]}], lr=0.1)
        with pytest.raises(TypeError):
            lib.optim.SGD([{"params": {a, b}}], lr=0.1)
        with pytest.raises(TypeError):
            lib.optim.SGD(a, lr=0.1)
        with pytest.raises(ValueError):
            lib.optim.SGD([(a * 2)], lr=0.1)
        with pytest.raises(ValueError):
            lib.optim.Adam([a], lr=-1.0)
        with pytest.raises(ValueError):
            lib.optim.Adam([a], betas=(1.0, 0.9))
        with pytest.raises(TypeError):
            lib.optim.AdamW([a], learning_rate=0.1)
        optimizer = lib.optim.SGD([{"params": [a]}, {"params": [b]}], lr=0.1)
        with pytest.raises(ValueError):
            optimizer.load_state_dict(lib.optim.SGD([a], lr=0.1).state_dict())
        with pytest.raises(ValueError):
            optimizer.add_param_group({"params": [a]})
        optimizer.add_param_group({"params": [c], "lr": 0.5})
        assert optimizer.param_groups[2]["lr"] == 0.5 and optimizer.param_groups[2]["momentum"] == 0


def test_a_refused_state_dict_changes_nothing():
    params = leaves(kael)
    optimizer = build(kael, "Adam", params)
    run(kael, optimizer, params, 2)
    before = {i: {n: v.clone().tolist() for n, v in s.items()} for i, s in optimizer.state_dict()["state"].items()}
    bad = optimizer.state_dict()
    bad = {"state": {i: dict(s) for i, s in bad["state"].items()}, "param_groups": bad["param_groups"]}
    bad["state"][2]["exp_avg"] = kael.zeros(5)  # wrong shape, in the second group
    with pytest.raises(ValueError):
        optimizer.load_state_dict(bad)
    after = {i: {n: v.tolist() for n, v in s.items()} for i, s in optimizer.state_dict()["state"].items()}
    assert after == before


def test_changing_another_option_reaches_the_engine():
    k_params, t_params = leaves(kael), leaves(torch)
    k_opt, t_opt = kael.optim.AdamW(k_params, lr=0.01), torch.optim.AdamW(t_params, lr=0.01)
    for optimizer, params, lib in ((k_opt, k_params, kael), (t_opt, t_params, torch)):
        run(lib, optimizer, params, 2)
        optimizer.param_groups[0]["weight_decay"] = 0.5
        optimizer.param_groups[0]["betas"] = (0.5, 0.9)
        run(lib, optimizer, params, 2, first=2)
    for k, t in zip(k_params, t_params):
        np.testing.assert_allclose(k.detach().numpy(), t.detach().numpy(), rtol=2e-5, atol=2e-6)
    k_opt.param_groups[0]["lr"] = -1.0
    with pytest.raises(ValueError):
        k_opt.step()


def test_a_python_optimizer_subclasses_optimizer_as_in_torch():
    class PlainSGD(kael.optim.Optimizer):
        def __init__(self, params, lr):
            super().__init__(params, dict(lr=lr))

        @kael.no_grad()
        def step(self, closure=None):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        p.sub_(p.grad * group["lr"])
                        self.state[p]["steps"] = self.state[p].get("steps", 0) + 1

    p = kael.tensor([1.0, 2.0], requires_grad=True)
    optimizer = PlainSGD([p], lr=0.5)
    (p * p).sum().backward()
    optimizer.step()
    assert p.tolist() == [0.0, 0.0] and optimizer.state_dict()["state"] == {0: {"steps": 1}}

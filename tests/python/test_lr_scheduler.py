"""kael.optim.lr_scheduler against torch.optim.lr_scheduler: each scheduler, built with the
same arguments over an SGD with two param groups of different lr, writes the same lr
sequence as PyTorch's (to 1e-12) for 30 steps; a state_dict saved halfway and loaded into
a new scheduler resumes the same sequence; resuming with last_epoch and the argument
errors behave as PyTorch's. Each comparison runs over kael.optim.SGD and over a bare
stand-in that only has param_groups, the one thing the schedulers rely on. Skipped where
torch is not installed."""
import copy

import pytest

import kael
from kael.optim import lr_scheduler as ksched

torch = pytest.importorskip("torch")
tsched = torch.optim.lr_scheduler

STEPS = 30


class StandIn:
    """The least a scheduler needs from an optimizer: param_groups (and the defaults)."""

    def __init__(self, groups, **defaults):
        self.defaults = defaults
        self.param_groups = [{**defaults, **group} for group in groups]


def kael_sgd(kind):
    groups = [{"params": [kael.zeros([2]).requires_grad_()]},
              {"params": [kael.zeros([3]).requires_grad_()], "lr": 0.5}]
    if kind == "kael.optim.SGD":
        return kael.optim.SGD(groups, lr=0.1, momentum=0.9)
    return StandIn(groups, lr=0.1, momentum=0.9, dampening=0, weight_decay=0, nesterov=False)


def torch_sgd():
    return torch.optim.SGD([{"params": [torch.zeros(2, requires_grad=True)]},
                            {"params": [torch.zeros(3, requires_grad=True)], "lr": 0.5}], lr=0.1, momentum=0.9)


@pytest.fixture(params=["kael.optim.SGD", "stand-in"])
def make_optimizer(request):
    return lambda: kael_sgd(request.param)


class Warmup:
    """A callable object: its __dict__ is what LambdaLR's state_dict keeps of it."""

    def __init__(self, steps):
        self.steps = steps

    def __call__(self, epoch):
        return min(1.0, (epoch + 1) / self.steps)


# Each case builds a scheduler from a module (ksched or tsched) and an optimizer.
CASES = {
    "LambdaLR": lambda m, o: m.LambdaLR(o, lambda epoch: 0.95 ** epoch),
    "LambdaLR per group": lambda m, o: m.LambdaLR(o, [Warmup(6), lambda epoch: 1.0 / (epoch + 1)]),
    "MultiplicativeLR": lambda m, o: m.MultiplicativeLR(o, lambda epoch: 0.9 if epoch % 2 else 0.97),
    "StepLR": lambda m, o: m.StepLR(o, step_size=7, gamma=0.5),
    "MultiStepLR": lambda m, o: m.MultiStepLR(o, milestones=[3, 8, 8, 20], gamma=0.3),
    "ConstantLR": lambda m, o: m.ConstantLR(o, factor=0.25, total_iters=6),
    "LinearLR": lambda m, o: m.LinearLR(o, start_factor=0.1, end_factor=0.9, total_iters=12),
    "LinearLR decreasing": lambda m, o: m.LinearLR(o, start_factor=1.0, end_factor=0.05, total_iters=25),
    "ExponentialLR": lambda m, o: m.ExponentialLR(o, gamma=0.87),
    "CosineAnnealingLR": lambda m, o: m.CosineAnnealingLR(o, T_max=10, eta_min=0.001),
    "SequentialLR": lambda m, o: m.SequentialLR(
        o, [m.LinearLR(o, start_factor=0.2, total_iters=5), m.CosineAnnealingLR(o, T_max=12),
            m.ExponentialLR(o, gamma=0.9)], milestones=[5, 17]),
    "OneCycleLR cos": lambda m, o: m.OneCycleLR(o, max_lr=[1.0, 0.3], total_steps=STEPS),
    "OneCycleLR linear three phase": lambda m, o: m.OneCycleLR(
        o, max_lr=0.8, epochs=3, steps_per_epoch=10, pct_start=0.25, anneal_strategy="linear", three_phase=True,
        base_momentum=0.8, max_momentum=0.9),
    "two chained": lambda m, o: [m.ExponentialLR(o, gamma=0.9), m.MultiStepLR(o, milestones=[4, 9], gamma=0.5)],
}


def as_list(scheduler):
    return scheduler if isinstance(scheduler, list) else [scheduler]


def schedule(scheduler, optimizer, steps, torch_side=False):
    """The lr of each group and each scheduler's get_last_lr() after each of ``steps`` steps."""
    schedulers = as_list(scheduler)
    record = []
    for _ in range(steps):
        if torch_side:
            optimizer.step()  # PyTorch warns when the scheduler steps first
        for s in schedulers:
            s.step()
        record.append(([group["lr"] for group in optimizer.param_groups],
                       [s.get_last_lr() for s in schedulers],
                       [group.get("momentum") for group in optimizer.param_groups]))
    return record


def assert_close(ours, theirs):
    assert len(ours) == len(theirs)
    for (k_lrs, k_last, k_mom), (t_lrs, t_last, t_mom) in zip(ours, theirs):
        assert k_lrs == pytest.approx(t_lrs, rel=0, abs=1e-12)
        for k, t in zip(k_last, t_last):
            assert k == pytest.approx(t, rel=0, abs=1e-12)
        assert k_mom == pytest.approx(t_mom, rel=0, abs=1e-12)


@pytest.mark.filterwarnings("ignore:The epoch parameter")  # torch's SequentialLR steps its schedulers with one
@pytest.mark.parametrize("name", CASES)
def test_lr_sequence_equals_torch(name, make_optimizer):
    ours, theirs = make_optimizer(), torch_sgd()
    k_sched, t_sched = CASES[name](ksched, ours), CASES[name](tsched, theirs)
    first = [group["lr"] for group in ours.param_groups]
    assert first == pytest.approx([group["lr"] for group in theirs.param_groups], rel=0, abs=1e-12)
    assert [g["initial_lr"] for g in ours.param_groups] == [g["initial_lr"] for g in theirs.param_groups]
    assert_close(schedule(k_sched, ours, STEPS), schedule(t_sched, theirs, STEPS, torch_side=True))


@pytest.mark.parametrize("name", CASES)
def test_state_dict_round_trip_resumes_the_sequence(name, make_optimizer):
    reference = make_optimizer()
    k_sched = CASES[name](ksched, reference)
    schedule(k_sched, reference, 12)
    saved = [copy.deepcopy(s.state_dict()) for s in as_list(k_sched)]
    # What the optimizer's own state_dict would carry: each group's options, lr included.
    saved_groups = [{key: value for key, value in group.items() if key != "params"}
                    for group in reference.param_groups]
    expected = schedule(k_sched, reference, STEPS - 12)

    resumed = make_optimizer()
    restored = CASES[name](ksched, resumed)
    for group, saved_group in zip(resumed.param_groups, saved_groups):
        group.update(saved_group)
    for s, state in zip(as_list(restored), saved):
        assert "optimizer" not in state
        s.load_state_dict(state)
    assert schedule(restored, resumed, STEPS - 12) == expected


def test_lambda_state_keeps_callable_objects_only():
    ours, theirs = kael_sgd("stand-in"), torch_sgd()
    k = ksched.LambdaLR(ours, [Warmup(4), lambda epoch: 1.0]).state_dict()
    t = tsched.LambdaLR(theirs, [Warmup(4), lambda epoch: 1.0]).state_dict()
    assert k["lr_lambdas"] == t["lr_lambdas"] == [{"steps": 4}, None]
    other = Warmup(9)
    ksched.LambdaLR(kael_sgd("stand-in"), [other, lambda epoch: 1.0]).load_state_dict(k)
    assert other.steps == 4


RESUMED = {
    "StepLR": lambda m, o, e: m.StepLR(o, step_size=4, gamma=0.5, last_epoch=e),
    "CosineAnnealingLR": lambda m, o, e: m.CosineAnnealingLR(o, T_max=8, eta_min=0.01, last_epoch=e),
    "ExponentialLR": lambda m, o, e: m.ExponentialLR(o, gamma=0.8, last_epoch=e),
    "OneCycleLR": lambda m, o, e: m.OneCycleLR(o, max_lr=1.0, total_steps=40, last_epoch=e),
}


@pytest.mark.parametrize("name", RESUMED)
def test_last_epoch_resumes_like_torch(name, make_optimizer):
    ours, theirs = make_optimizer(), torch_sgd()
    for optimizer in (ours, theirs):  # what a first scheduler leaves in the groups
        RESUMED[name](ksched if optimizer is ours else tsched, optimizer, -1)
    k_sched, t_sched = RESUMED[name](ksched, ours, 6), RESUMED[name](tsched, theirs, 6)
    assert k_sched.last_epoch == t_sched.last_epoch == 7
    assert_close(schedule(k_sched, ours, 10), schedule(t_sched, theirs, 10, torch_side=True))


def test_resuming_without_initial_lr_raises_key_error(make_optimizer):
    with pytest.raises(KeyError, match="initial_lr"):
        tsched.StepLR(torch_sgd(), step_size=3, last_epoch=4)
    with pytest.raises(KeyError, match="initial_lr"):
        ksched.StepLR(make_optimizer(), step_size=3, last_epoch=4)


PLATEAU_METRICS = [1.0, 0.9, 0.9, 0.91, 0.9, 0.89995, 0.8, 0.8, 0.8, 0.8, 0.85, 0.7, 0.7, 0.7, 0.7, 0.7,
                   0.7, 0.69, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7]
PLATEAU = {
    "min rel": dict(patience=2),
    "min abs cooldown": dict(mode="min", threshold=0.05, threshold_mode="abs", patience=1, cooldown=2, factor=0.5),
    "max rel min_lr": dict(mode="max", patience=0, factor=0.3, min_lr=[0.01, 0.2]),
    "max abs eps": dict(mode="max", threshold_mode="abs", patience=1, eps=0.02, factor=0.9),
}


@pytest.mark.parametrize("name", PLATEAU)
def test_reduce_lr_on_plateau_equals_torch(name, make_optimizer):
    ours, theirs = make_optimizer(), torch_sgd()
    k_sched = ksched.ReduceLROnPlateau(ours, **PLATEAU[name])
    t_sched = tsched.ReduceLROnPlateau(theirs, **PLATEAU[name])
    for i, metric in enumerate(PLATEAU_METRICS):
        k_sched.step(kael.tensor(metric) if i % 2 else metric)
        t_sched.step(metric)
        assert [g["lr"] for g in ours.param_groups] == pytest.approx([g["lr"] for g in theirs.param_groups],
                                                                     rel=0, abs=1e-12)
        assert k_sched.get_last_lr() == [g["lr"] for g in ours.param_groups]
        if i == 10:
            state = copy.deepcopy(k_sched.state_dict())
            lrs = [g["lr"] for g in ours.param_groups]
    resumed = make_optimizer()
    for group, lr in zip(resumed.param_groups, lrs):
        group["lr"] = lr
    again = ksched.ReduceLROnPlateau(resumed)
    again.load_state_dict(state)
    for metric in PLATEAU_METRICS[11:]:
        again.step(metric)
    assert [g["lr"] for g in resumed.param_groups] == [g["lr"] for g in ours.param_groups]


@pytest.mark.parametrize("kind", ["kael.optim.Adam", "stand-in"])
def test_one_cycle_cycles_adam_betas_like_torch(kind):
    params = [kael.zeros([2]).requires_grad_()]
    if kind == "kael.optim.Adam":
        ours = kael.optim.Adam(params, lr=0.1, betas=(0.9, 0.99))
    else:
        ours = StandIn([{"params": params}], lr=0.1, betas=(0.9, 0.99), eps=1e-8, weight_decay=0)
    theirs = torch.optim.Adam([torch.zeros(2, requires_grad=True)], lr=0.1, betas=(0.9, 0.99))
    k_sched = ksched.OneCycleLR(ours, max_lr=0.5, total_steps=20)
    t_sched = tsched.OneCycleLR(theirs, max_lr=0.5, total_steps=20)
    for _ in range(19):
        theirs.step()
        k_sched.step()
        t_sched.step()
        assert ours.param_groups[0]["lr"] == pytest.approx(theirs.param_groups[0]["lr"], rel=0, abs=1e-12)
        assert ours.param_groups[0]["betas"] == pytest.approx(theirs.param_groups[0]["betas"], rel=0, abs=1e-12)


def raised(function):
    try:
        function()
    except Exception as error:  # noqa: BLE001  (the type is what is compared)
        return type(error)
    return None


def step_times(scheduler, times):
    for _ in range(times):
        scheduler.step()


ERRORS = {
    "not an optimizer": lambda m, o: m.StepLR(object(), step_size=2),
    "ConstantLR factor": lambda m, o: m.ConstantLR(o, factor=1.5),
    "LinearLR start_factor": lambda m, o: m.LinearLR(o, start_factor=-0.1),
    "LinearLR end_factor": lambda m, o: m.LinearLR(o, end_factor=1.5),
    "LambdaLR count": lambda m, o: m.LambdaLR(o, [lambda e: 1.0]),
    "SequentialLR milestones": lambda m, o: m.SequentialLR(o, [m.StepLR(o, 2)], milestones=[3]),
    "OneCycleLR no steps": lambda m, o: m.OneCycleLR(o, max_lr=1.0),
    "OneCycleLR pct_start int": lambda m, o: m.OneCycleLR(o, max_lr=1.0, total_steps=10, pct_start=0),
    "OneCycleLR anneal": lambda m, o: m.OneCycleLR(o, max_lr=1.0, total_steps=10, anneal_strategy="exp"),
    "OneCycleLR max_lr count": lambda m, o: m.OneCycleLR(o, max_lr=[1.0], total_steps=10),
    "OneCycleLR past the end": lambda m, o: step_times(m.OneCycleLR(o, max_lr=1.0, total_steps=3), 4),
    "Plateau factor": lambda m, o: m.ReduceLROnPlateau(o, factor=1.0),
    "Plateau mode": lambda m, o: m.ReduceLROnPlateau(o, mode="median"),
    "Plateau threshold_mode": lambda m, o: m.ReduceLROnPlateau(o, threshold_mode="log"),
    "Plateau min_lr count": lambda m, o: m.ReduceLROnPlateau(o, min_lr=[0.1]),
}


@pytest.mark.filterwarnings("ignore:Detected call of")
@pytest.mark.parametrize("name", ERRORS)
def test_errors_are_torch_errors(name, make_optimizer):
    ours, theirs = make_optimizer(), torch_sgd()
    expected = raised(lambda: ERRORS[name](tsched, theirs))
    assert expected is not None
    assert raised(lambda: ERRORS[name](ksched, ours)) is expected


CLOSED_FORMS = ["StepLR", "MultiStepLR", "ConstantLR", "LinearLR", "ExponentialLR", "CosineAnnealingLR"]


@pytest.mark.filterwarnings("ignore:Detected call of")
@pytest.mark.parametrize("name", CLOSED_FORMS)
def test_step_with_an_epoch_uses_the_closed_form_like_torch(name, make_optimizer):
    ours, theirs = make_optimizer(), torch_sgd()
    k_sched, t_sched = CASES[name](ksched, ours), CASES[name](tsched, theirs)
    for epoch in (4, 9, 2, 15):
        with pytest.warns(UserWarning, match="epoch"):
            k_sched.step(epoch)
        with pytest.warns(UserWarning, match="epoch"):
            t_sched.step(epoch)
        assert k_sched.last_epoch == t_sched.last_epoch == epoch
        assert k_sched.get_last_lr() == pytest.approx(t_sched.get_last_lr(), rel=0, abs=1e-12)


def test_one_cycle_needs_a_momentum_option_to_cycle():
    with pytest.raises(ValueError, match="momentum"):
        tsched.OneCycleLR(torch.optim.Adagrad([torch.zeros(1, requires_grad=True)]), max_lr=1.0, total_steps=5)
    with pytest.raises(ValueError, match="momentum"):
        ksched.OneCycleLR(StandIn([{"params": []}], lr=0.1), max_lr=1.0, total_steps=5)
    ksched.OneCycleLR(StandIn([{"params": []}], lr=0.1), max_lr=1.0, total_steps=5, cycle_momentum=False)


def test_base_class_names():
    assert ksched._LRScheduler is ksched.LRScheduler
    assert issubclass(ksched.StepLR, ksched.LRScheduler)


def test_kael_sgd_steps_with_the_lr_the_scheduler_wrote():
    weight = kael.zeros([2]).requires_grad_()
    optimizer = kael.optim.SGD([weight], lr=1.0)
    scheduler = ksched.LambdaLR(optimizer, lambda epoch: 0.5 ** epoch)
    expected = 0.0
    for epoch in range(4):
        (weight * kael.tensor([1.0, 2.0])).sum().backward()
        optimizer.step()
        optimizer.zero_grad()
        expected -= 0.5 ** epoch
        assert weight.tolist() == pytest.approx([expected, 2 * expected], rel=1e-6)
        scheduler.step()

"""Optimizer with PyTorch's parameter groups, over the C++ optimizers.

A PyTorch program hands its optimizer a list of parameters, or a list of dicts ("groups"),
each with its own options, and changes `optimizer.param_groups[i]["lr"]` between steps.
`Optimizer` keeps those groups as plain dicts, exactly as PyTorch does, so schedulers and
user code read and write them. A subclass that is written in Python implements step()
with `self.param_groups` and `self.state`, as a PyTorch optimizer does; SGD, Adam and
AdamW instead give each group one C++ optimizer (`_Engine`), which does the arithmetic in
one fused pass per parameter. Before each step, the group's current options are handed
to its engine, so a change to a dict is never silently ignored.
"""
from collections import defaultdict

from .. import _kael
from .._kael import Tensor


class _RequiredParameter:
    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


class Optimizer:
    """The base of every optimizer: parameter groups, per-parameter state, zero_grad and
    PyTorch's state-dict layout ({"state": {index: {...}}, "param_groups": [...]})."""

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._state = defaultdict(dict)
        self.param_groups = []
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            f"but got {type(params).__module__}.{type(params).__name__}")
        groups = list(params)
        if len(groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group):
        """Adds a group: its parameters, and options that default to the optimizer's."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        else:
            params = list(params)
        for param in params:
            if not isinstance(param, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {type(param).__name__}")
            if not param.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        group = dict(param_group, params=params)
        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            group.setdefault(name, default)
        if len({id(p) for p in params}) != len(params):
            raise ValueError("optimizer contains a parameter group with duplicate parameters")
        taken = {id(p) for existing in self.param_groups for p in existing["params"]}
        if any(id(p) in taken for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self._check_options(group)
        self.param_groups.append(group)

    def _check_options(self, group):
        """Raises ValueError for an option out of range; each optimizer knows its own."""

    @property
    def state(self):
        """{parameter: {name: value}}: what a step keeps per parameter, as PyTorch's `state`."""
        return self._state

    def zero_grad(self, set_to_none=True):
        for group in self.param_groups:
            for param in group["params"]:
                if param.grad is None:
                    continue
                if set_to_none:
                    param.grad = None
                else:
                    param.grad.detach_()
                    param.grad.zero_()

    def step(self, closure=None):
        raise NotImplementedError(f"{type(self).__name__} does not define step()")

    # ---- state dicts, in PyTorch's layout --------------------------------------------------------
    def _indexed_params(self):
        """Each parameter with its index in the state dict: 0, 1, ... across the groups."""
        return [param for group in self.param_groups for param in group["params"]]

    def _saved_state(self):
        """{index: {name: value}} for the parameters that have state."""
        index_of = {id(p): i for i, p in enumerate(self._indexed_params())}
        return {index_of[id(param)]: dict(values) for param, values in self.state.items() if id(param) in index_of}

    def state_dict(self):
        groups, start = [], 0
        for group in self.param_groups:
            saved = {name: value for name, value in group.items() if name != "params"}
            saved["params"] = list(range(start, start + len(group["params"])))
            start += len(group["params"])
            groups.append(saved)
        return {"state": self._saved_state(), "param_groups": groups}

    def _check_loadable(self, state_dict):
        if not isinstance(state_dict, dict) or "state" not in state_dict or "param_groups" not in state_dict:
            raise ValueError("an optimizer state dict is a dict with the keys 'state' and 'param_groups'")
        saved_groups = state_dict["param_groups"]
        if len(saved_groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for group, saved in zip(self.param_groups, saved_groups):
            if len(group["params"]) != len(saved["params"]):
                raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                                 "optimizer's group")

    def load_state_dict(self, state_dict):
        self._check_loadable(state_dict)
        by_saved_index = {}
        for group, saved in zip(self.param_groups, state_dict["param_groups"]):
            by_saved_index.update(zip(saved["params"], group["params"]))
        state = defaultdict(dict)
        for index, values in state_dict["state"].items():
            param = by_saved_index.get(int(index))
            if param is None:
                continue
            state[param] = {name: _as_state_of(param, value) for name, value in values.items()}
        self._state = state
        for group, saved in zip(self.param_groups, state_dict["param_groups"]):
            group.update({name: value for name, value in saved.items() if name != "params"})

    def __repr__(self):
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines.extend(f"    {name}: {group[name]}" for name in sorted(group) if name != "params")
        lines.append(")")
        return "\n".join(lines)


def _as_state_of(param, value):
    """A loaded state buffer on its parameter's device, in its dtype if floating (as PyTorch)."""
    if isinstance(value, Tensor) and value.is_floating_point():
        return value.to(param.dtype).to(param.device)
    return value


class _Engine(Optimizer):
    """An optimizer whose arithmetic is a C++ optimizer per parameter group.

    `_engine_class` is the C++ class; `_engine_options` lists the options it takes after
    the parameters, in its constructor's order. The engine's own state dict carries the
    state and the options ("state.<i>.<name>", "param_groups.0.<option>"), and is the one
    road between the Python dicts and the C++ objects."""

    _engine_class = None
    _engine_options = ()

    def __init__(self, params, defaults):
        self._engines = []
        self._given = []  # per group: the options its engine was last given
        super().__init__(params, defaults)

    def add_param_group(self, param_group):
        super().add_param_group(param_group)
        group = self.param_groups[-1]
        options = {name: _engine_value(group[name]) for name in self._engine_options}
        self._engines.append(self._engine_class(group["params"], *options.values()) if group["params"] else None)
        self._given.append(options)

    @property
    def state(self):
        """{parameter: {name: tensor}}, read from the engines (the tensors are theirs)."""
        state = defaultdict(dict)
        for group, engine in zip(self.param_groups, self._engines):
            if engine is None:
                continue
            for key, value in engine.state_dict().items():
                part, index, name = key.split(".", 2)
                if part == "state":
                    state[group["params"][int(index)]][name] = value
        return state

    # book-region: sync-options
    def _sync_options(self):
        """Hands each group's changed options to its engine: the learning rate directly,
        any other option through the engine's state dict. What each engine was last given
        is remembered, so a step whose dicts did not change touches no engine."""
        for group, engine, given in zip(self.param_groups, self._engines, self._given):
            wanted = {name: _engine_value(group[name]) for name in self._engine_options}
            if engine is None or wanted == given:
                continue
            self._check_options(group)
            if wanted["lr"] != given["lr"]:
                engine.lr = wanted["lr"]
            changed = [name for name in self._engine_options[1:] if wanted[name] != given[name]]
            if changed:
                saved = engine.state_dict()
                for name in changed:
                    key = f"param_groups.0.{name}"
                    saved[key] = _kael.tensor(wanted[name], dtype=saved[key].dtype)
                engine.load_state_dict(saved)
            given.update(wanted)
    # end-book-region: sync-options

    def step(self, closure=None):
        loss = None
        if closure is not None:
            from .. import enable_grad

            with enable_grad():
                loss = closure()
        self._sync_options()
        for engine in self._engines:
            if engine is not None:
                engine.step()
        return loss

    def zero_grad(self, set_to_none=True):
        for engine in self._engines:
            if engine is not None:
                engine.zero_grad(set_to_none)

    def _saved_state(self):
        saved, start = {}, 0
        for group, engine in zip(self.param_groups, self._engines):
            if engine is not None:
                for key, value in engine.state_dict().items():
                    part, index, name = key.split(".", 2)
                    if part == "state":
                        saved.setdefault(start + int(index), {})[name] = value
            start += len(group["params"])
        return saved

    def load_state_dict(self, state_dict):
        """Loads PyTorch's layout into the engines. Every group is checked before any is
        changed: a refused state dict leaves the optimizer as it was."""
        self._check_loadable(state_dict)
        flat_dicts = []
        for group, engine, saved in zip(self.param_groups, self._engines, state_dict["param_groups"]):
            if engine is None:
                flat_dicts.append(None)
                continue
            current = engine.state_dict()
            flat = {}
            for local, index in enumerate(saved["params"]):
                for name, value in state_dict["state"].get(index, state_dict["state"].get(str(index), {})).items():
                    flat[f"state.{local}.{name}"] = value if isinstance(value, Tensor) else _kael.tensor(value)
            for name in self._engine_options:
                key = f"param_groups.0.{name}"
                if name not in saved:
                    raise ValueError(f"loaded state dict's parameter group lacks the option '{name}'")
                flat[key] = _kael.tensor(_engine_value(saved[name]), dtype=current[key].dtype)
            for key, value in current.items():  # options the engine keeps beyond PyTorch's
                if key.startswith("param_groups.0.") and key not in flat and not key.endswith(".params"):
                    flat[key] = value
            flat["param_groups.0.params"] = _kael.arange(len(saved["params"]), dtype=_kael.int64)
            flat_dicts.append(flat)
        backups = [None if engine is None else {k: v.clone() for k, v in engine.state_dict().items()}
                   for engine in self._engines]
        try:
            for engine, flat in zip(self._engines, flat_dicts):
                if engine is not None:
                    engine.load_state_dict(flat)
        except Exception:
            for engine, backup in zip(self._engines, backups):
                if engine is not None:
                    engine.load_state_dict(backup)
            raise
        for group, saved, given in zip(self.param_groups, state_dict["param_groups"], self._given):
            group.update({name: value for name, value in saved.items() if name != "params"})
            given.update({name: _engine_value(group[name]) for name in self._engine_options})


def _engine_value(value):
    """An option as the C++ constructor and state dict take it (betas as a pair)."""
    if isinstance(value, Tensor):
        value = value.item() if value.numel() == 1 else tuple(value.tolist())
    return tuple(value) if isinstance(value, list) else value

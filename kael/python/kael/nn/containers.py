"""The containers of kael.nn, as torch.nn has them: Sequential, ModuleList and ModuleDict
hold modules, ParameterList and ParameterDict hold parameters. Each registers what it
holds under its index or key, so state-dict keys read "h.0.attn.weight" as in PyTorch."""
import operator
from collections import OrderedDict

from .._kael import Tensor
from .module import Module, Parameter, _type_name


def _absolute_index(container, index):
    """`index` as a position in range, or IndexError as a list raises it."""
    index = operator.index(index)
    if not -len(container) <= index < len(container):
        raise IndexError(f"index {index} is out of range")
    return index % len(container)


class ModuleList(Module):
    """A list of modules, registered as children "0", "1", ..."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return type(self)(list(self._modules.values())[index])
        return self._modules[str(_absolute_index(self, index))]

    def __setitem__(self, index, module):
        self.add_module(str(_absolute_index(self, index)), module)

    def __delitem__(self, index):
        items = list(self._modules.values())
        if isinstance(index, slice):
            del items[index]
        else:
            del items[_absolute_index(self, index)]
        self._modules.clear()  # renumbered, so the names stay 0, 1, ...
        for position, module in enumerate(items):
            self.add_module(str(position), module)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        return ModuleList(list(self) + list(other))

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        if isinstance(modules, Module) and not isinstance(modules, ModuleList) or isinstance(modules, (str, bytes)):
            raise TypeError("ModuleList.extend should be called with an iterable, but got " + _type_name(modules))
        for module in modules:
            self.append(module)
        return self

    def insert(self, index, module):
        items = list(self._modules.values())
        items.insert(index, module)
        self._modules.clear()
        for position, item in enumerate(items):
            self.add_module(str(position), item)

    def pop(self, index=-1):
        module = self[index]
        del self[index]
        return module


class Sequential(ModuleList):
    """Runs its modules in order, the output of each the input of the next. Built from
    modules (named "0", "1", ...) or from one OrderedDict of names to modules."""

    def __init__(self, *modules):
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], OrderedDict):
            for name, module in modules[0].items():
                self.add_module(name, module)
        else:
            for module in modules:
                self.append(module)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return Sequential(OrderedDict(list(self._modules.items())[index]))
        return list(self._modules.values())[_absolute_index(self, index)]

    def forward(self, input):
        for module in self:
            input = module(input)
        return input


class ModuleDict(Module):
    """An ordered dict of modules, registered under their keys."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def clear(self):
        self._modules.clear()

    def pop(self, key):
        module = self[key]
        del self[key]
        return module

    def update(self, modules):
        """Adds the modules of a mapping or of an iterable of (key, module) pairs."""
        if hasattr(modules, "items"):
            pairs = modules.items()
        else:
            pairs = []
            for position, pair in enumerate(modules):
                if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                    raise ValueError(f"ModuleDict update sequence element #{position} should be a pair, "
                                     f"got {_type_name(pair)}")
                pairs.append(pair)
        for key, module in pairs:
            self[key] = module


def _as_parameter(value):
    """A plain tensor put into a ParameterList or ParameterDict becomes a Parameter, as in PyTorch."""
    return Parameter(value) if isinstance(value, Tensor) and not isinstance(value, Parameter) else value


class ParameterList(Module):
    """A list of parameters, registered as "0", "1", ..."""

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return ParameterList([self[i] for i in range(len(self))[index]])
        return getattr(self, str(_absolute_index(self, index)))

    def __setitem__(self, index, value):
        setattr(self, str(_absolute_index(self, index)), _as_parameter(value))

    def __len__(self):
        return self._size

    def __iter__(self):
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, values):
        return self.extend(values)

    def append(self, value):
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values):
        if isinstance(values, (Tensor, str, bytes)) or not hasattr(values, "__iter__"):
            raise TypeError("ParameterList.extend should be called with an iterable, but got " + _type_name(values))
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        return "\n".join(f"({i}): Parameter containing: [{p.dtype} of size {'x'.join(map(str, p.shape))}]"
                         for i, p in enumerate(self) if isinstance(p, Tensor))


class ParameterDict(Module):
    """An ordered dict of parameters, registered under their keys."""

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = OrderedDict()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        if key not in self._keys:
            raise KeyError(key)
        return getattr(self, key)

    def __setitem__(self, key, value):
        if not isinstance(key, str):
            raise TypeError(f"ParameterDict keys must be strings, got {_type_name(key)}")
        self._keys[key] = None
        setattr(self, key, _as_parameter(value))

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, key)

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __contains__(self, key):
        return key in self._keys

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((key, self[key]) for key in self._keys)

    def values(self):
        return (self[key] for key in self._keys)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def pop(self, key):
        value = self[key]
        del self[key]
        return value

    def clear(self):
        for key in list(self._keys):
            del self[key]

    def update(self, parameters):
        pairs = parameters.items() if hasattr(parameters, "items") else parameters
        for key, value in pairs:
            self[key] = value

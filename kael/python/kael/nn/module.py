"""Module and Parameter: PyTorch's registration by attribute assignment, in Python."""
from collections import OrderedDict

from .. import _kael
from .._kael import Tensor


# book-region: parameter
class Parameter(Tensor):
    """A tensor a Module registers as a parameter: a leaf that requires grad, over the
    storage of `data` (as torch.nn.Parameter, it does not copy)."""

    def __init__(self, data, requires_grad=True):
        super().__init__(data)
        _kael._remember(self)  # results that hand back this impl hand back this object
        self.requires_grad_(requires_grad)

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)
# end-book-region: parameter


class Module:
    """The base of every layer and model. Assigning a Parameter or a Module to an
    attribute registers it; parameters(), state_dict(), to() and train() walk the tree."""

    def __init__(self):
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "training", True)

    # ---- registration ------------------------------------------------------------------------
    # book-region: registration
    def __setattr__(self, name, value):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign to a Module's attributes before Module.__init__() is called")
        for table in (self._parameters, self._buffers, self._modules):
            table.pop(name, None)
        if isinstance(value, Parameter):
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        else:
            object.__setattr__(self, name, value)
            return
        self.__dict__.pop(name, None)

    def __getattr__(self, name):  # only reached when ordinary lookup fails
        for table in ("_parameters", "_buffers", "_modules"):
            entries = self.__dict__.get(table)
            if entries is not None and name in entries:
                return entries[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
    # end-book-region: registration

    def __delattr__(self, name):
        for table in (self._parameters, self._buffers, self._modules):
            if name in table:
                del table[name]
                return
        object.__delattr__(self, name)

    def register_parameter(self, name, parameter):
        if parameter is None:
            self._parameters[name] = None
        else:
            setattr(self, name, parameter if isinstance(parameter, Parameter) else Parameter(parameter))

    def register_buffer(self, name, tensor):
        """A tensor of the module's state that is not trained (saved and moved with it)."""
        if not isinstance(tensor, Tensor):
            raise TypeError(f"a buffer must be a kael.Tensor, got {type(tensor).__name__}")
        self._buffers[name] = tensor

    def add_module(self, name, module):
        setattr(self, name, module)

    # ---- running ---------------------------------------------------------------------------------
    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} does not define forward()")

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def train(self, mode=True):
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self):
        return self.train(False)

    # ---- walking the tree ----------------------------------------------------------------------
    def named_modules(self, prefix=""):
        seen = set()
        stack = [(prefix, self)]
        while stack:
            name, module = stack.pop(0)
            if id(module) in seen:
                continue
            seen.add(id(module))
            yield name, module
            for child_name, child in module._modules.items():
                stack.append((f"{name}.{child_name}" if name else child_name, child))

    def modules(self):
        return (module for _, module in self.named_modules())

    def named_children(self):
        return iter(self._modules.items())

    def children(self):
        return iter(self._modules.values())

    def named_parameters(self, prefix="", recurse=True):
        """Each parameter once, as PyTorch lists them: a module's own, then its children's."""
        seen = set()
        modules = self.named_modules(prefix) if recurse else [(prefix, self)]
        for module_name, module in modules:
            for name, parameter in module._parameters.items():
                if parameter is None or id(parameter) in seen:
                    continue
                seen.add(id(parameter))
                yield (f"{module_name}.{name}" if module_name else name), parameter

    def parameters(self, recurse=True):
        return (parameter for _, parameter in self.named_parameters(recurse=recurse))

    def named_buffers(self, prefix=""):
        for module_name, module in self.named_modules(prefix):
            for name, buffer in module._buffers.items():
                yield (f"{module_name}.{name}" if module_name else name), buffer

    def buffers(self):
        return (buffer for _, buffer in self.named_buffers())

    def zero_grad(self, set_to_none=True):
        for parameter in self.parameters():
            if set_to_none:
                parameter.grad = None
            elif parameter.grad is not None:
                parameter.grad.zero_()

    # ---- moving and saving -----------------------------------------------------------------------
    def to(self, target):
        """Moves (a device) or converts (a dtype) every parameter and buffer in place: the
        impls change, so an optimizer built before the move keeps working, as in C++."""
        if isinstance(target, str):
            target = _kael.device(target)
        for tensor in list(self.parameters()) + list(self.buffers()):
            tensor.move_to_(target)
        return self

    def cpu(self):
        return self.to("cpu")

    def cuda(self):
        return self.to("cuda")

    def state_dict(self):
        """The parameters and buffers by dotted name, as PyTorch names them."""
        state = OrderedDict()
        for name, tensor in list(self.named_parameters()) + list(self.named_buffers()):
            state[name] = tensor.detach()
        return state

    def load_state_dict(self, state_dict, strict=True):
        """Copies the values of `state_dict` into the module's own tensors (no new impls)."""
        own = OrderedDict(list(self.named_parameters()) + list(self.named_buffers()))
        missing = [name for name in own if name not in state_dict]
        unexpected = [name for name in state_dict if name not in own]
        if strict and (missing or unexpected):
            raise KeyError(f"load_state_dict: missing keys {missing}, unexpected keys {unexpected}")
        with _kael_no_grad():
            for name, tensor in own.items():
                if name not in state_dict:
                    continue
                source = state_dict[name]
                if tuple(source.shape) != tuple(tensor.shape):
                    raise ValueError(f"load_state_dict: '{name}' has shape {tuple(source.shape)} in the state dict "
                                     f"but {tuple(tensor.shape)} in the module")
                tensor.copy_(source)
        return missing, unexpected

    # ---- printing --------------------------------------------------------------------------------
    def extra_repr(self):
        return ""

    def __repr__(self):
        lines = [f"({name}): " + repr(module).replace("\n", "\n  ") for name, module in self._modules.items()]
        extra = self.extra_repr()
        if not lines:
            return f"{type(self).__name__}({extra})"
        body = "\n  ".join(([extra] if extra else []) + lines)
        return f"{type(self).__name__}(\n  {body}\n)"


def _kael_no_grad():
    from .. import no_grad

    return no_grad()

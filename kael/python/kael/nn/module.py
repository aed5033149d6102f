"""Module and Parameter: PyTorch's registration by attribute assignment, in Python.

The tree is walked as PyTorch walks it (depth first, a module's own entries before its
children's), so parameter order, state-dict keys and error messages are PyTorch's: a
program written for torch.nn finds the names it expects.
"""
from collections import OrderedDict, namedtuple

from .. import _kael
from .._kael import Tensor


# book-region: parameter
class Parameter(Tensor):
    """A tensor a Module registers as a parameter: a leaf that requires grad, over the
    storage of `data` (as torch.nn.Parameter, it does not copy)."""

    def __init__(self, data=None, requires_grad=True):
        super().__init__(_kael.empty(0) if data is None else data)
        _kael._remember(self)  # results that hand back this impl hand back this object
        self.requires_grad_(requires_grad)

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)
# end-book-region: parameter


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict returns: the keys it missed and the keys it did not know."""

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()


def _type_name(value):
    kind = type(value)
    return kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"


def _check_entry_name(kind, name, module):
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {_type_name(name)}")
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')
    if "." in name:
        raise KeyError(f'{kind} name can\'t contain "."')
    tables = (module._parameters, module._buffers, module._modules)
    if hasattr(module, name) and not any(name in table for table in tables):
        raise KeyError(f"attribute '{name}' already exists")


class Module:
    """The base of every layer and model. Assigning a Parameter or a Module to an
    attribute registers it; parameters(), state_dict(), to() and train() walk the tree."""

    def __init__(self):
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers", set())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "training", True)

    # ---- registration ------------------------------------------------------------------------
    # book-region: registration
    def __setattr__(self, name, value):
        if "_parameters" not in self.__dict__:
            if isinstance(value, (Parameter, Module)):
                raise AttributeError("cannot assign parameters or modules before Module.__init__() is called")
            object.__setattr__(self, name, value)
            return
        if isinstance(value, Parameter):
            self._forget(name)
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            self._forget(name)
            self._modules[name] = value
        elif name in self._parameters:
            if value is not None:  # only a Parameter or None may replace a parameter
                raise TypeError(f"cannot assign '{_type_name(value)}' as parameter '{name}' "
                                "(kael.nn.Parameter or None expected)")
            self._parameters[name] = None
        elif name in self._modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_type_name(value)}' as child module '{name}' "
                                "(kael.nn.Module or None expected)")
            self._modules[name] = None
        elif name in self._buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_type_name(value)}' as buffer '{name}' "
                                "(kael.Tensor or None expected)")
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):  # only reached when ordinary lookup fails
        for table in ("_parameters", "_buffers", "_modules"):
            entries = self.__dict__.get(table)
            if entries is not None and name in entries:
                return entries[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
    # end-book-region: registration

    def _forget(self, name):
        """Removes `name` from every table and the instance dict, before it is registered anew."""
        self.__dict__.pop(name, None)
        for table in (self._parameters, self._buffers, self._modules):
            table.pop(name, None)
        self._non_persistent_buffers.discard(name)

    def __delattr__(self, name):
        for table in (self._parameters, self._buffers, self._modules):
            if name in table:
                del table[name]
                self._non_persistent_buffers.discard(name)
                return
        object.__delattr__(self, name)

    def register_parameter(self, name, param):
        """Registers `param` (a Parameter, or None for an absent one such as a bias turned off)."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_entry_name("parameter", name, self)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_type_name(param)}' object to parameter '{name}' "
                            "(kael.nn.Parameter or None required)")
        if param is not None and param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be created "
                             "explicitly. To express '{name}' as a function of another Tensor, compute the value in "
                             "the forward() method.")
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """A tensor of the module's state that is not trained: moved with the module, and
        saved in its state dict unless `persistent` is False."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_entry_name("buffer", name, self)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_type_name(tensor)}' object to buffer '{name}' "
                            "(kael.Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers.discard(name)
        else:
            self._non_persistent_buffers.add(name)

    def add_module(self, name, module):
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_type_name(module)} is not a Module subclass")
        _check_entry_name("module", name, self)
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target):
        """The module at dotted path `target` ("" is this module); AttributeError naming the
        missing step otherwise."""
        module = self
        for step in target.split(".") if target else []:
            child = module._modules.get(step)
            if child is None:
                raise AttributeError(f"{type(module).__name__} has no attribute `{step}`")
            module = child
        return module

    def get_parameter(self, target):
        return self._get_entry(target, "_parameters", "parameter")

    def get_buffer(self, target):
        return self._get_entry(target, "_buffers", "buffer")

    def _get_entry(self, target, table, kind):
        """The parameter or buffer at dotted path `target`; AttributeError naming what is missing."""
        owner, _, name = target.rpartition(".")
        module = self.get_submodule(owner)
        entries = getattr(module, table)
        if name not in entries:
            raise AttributeError(f"{type(module).__name__} has no {kind} `{name}`")
        return entries[name]

    # ---- running ---------------------------------------------------------------------------------
    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"Module [{type(self).__name__}] is missing the required \"forward\" function")

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for parameter in self.parameters():
            parameter.requires_grad_(requires_grad)
        return self

    def apply(self, fn):
        """Calls `fn` on every child module (recursively), then on this one; returns self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ---- walking the tree ----------------------------------------------------------------------
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """This module and every module below it, depth first, each once (unless
        `remove_duplicate` is False), named by its dotted path after `prefix`."""
        if memo is None:
            memo = set()
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, child in self._modules.items():
            if child is None:
                continue
            yield from child.named_modules(memo, f"{prefix}.{name}" if prefix else name, remove_duplicate)

    def modules(self):
        return (module for _, module in self.named_modules())

    def named_children(self):
        seen = set()
        for name, child in self._modules.items():
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                yield name, child

    def children(self):
        return (child for _, child in self.named_children())

    def _named_entries(self, table, prefix, recurse, remove_duplicate):
        seen = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for module_name, module in modules:
            for name, entry in getattr(module, table).items():
                if entry is None or (remove_duplicate and id(entry) in seen):
                    continue
                seen.add(id(entry))
                yield (f"{module_name}.{name}" if module_name else name), entry

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """Each parameter once, under the first name that reaches it (a tied weight is listed
        under the module that comes first), as PyTorch lists them."""
        return self._named_entries("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        return (parameter for _, parameter in self.named_parameters(recurse=recurse))

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_entries("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        return (buffer for _, buffer in self.named_buffers(recurse=recurse))

    def zero_grad(self, set_to_none=True):
        for parameter in self.parameters():
            if set_to_none:
                parameter.grad = None
            elif parameter.grad is not None:
                parameter.grad.detach_()
                parameter.grad.zero_()

    # ---- moving and converting -------------------------------------------------------------------
    def to(self, *args, **kwargs):
        """Moves every parameter and buffer to a device, and converts the floating ones to a
        dtype: module.to(device), .to(dtype), .to(device, dtype), .to(tensor), or keywords
        device=, dtype=, non_blocking= (accepted; kael's copies are synchronous). The tensors
        change in place, so an optimizer built before the move keeps working."""
        device, dtype = _kael_to_arguments(args, kwargs)
        for tensor in list(self.parameters()) + list(self.buffers()):
            if dtype is not None and tensor.is_floating_point() and tensor.dtype != dtype:
                tensor.move_to_(dtype)
            if device is not None and tensor.device != device:
                tensor.move_to_(device)
        return self

    def cpu(self):
        return self.to("cpu")

    def cuda(self, device=None):
        return self.to("cuda" if device is None else device)

    def float(self):
        return self.to(dtype=_kael.float32)

    def double(self):
        return self.to(dtype=_kael.float64)

    def half(self):
        raise NotImplementedError("Module.half(): kael has no float16 dtype yet (reduced precision is stage 15)")

    def bfloat16(self):
        raise NotImplementedError("Module.bfloat16(): kael has no bfloat16 dtype yet (reduced precision is stage 15)")

    # ---- saving and loading ----------------------------------------------------------------------
    # book-region: state-dict
    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """The parameters and persistent buffers by dotted name, as PyTorch names them: every
        name a tensor is reachable by, so a tied weight appears under each of its names."""
        if args:  # PyTorch's deprecated positional form: (destination, prefix, keep_vars)
            destination, prefix, keep_vars = (list(args) + [destination, prefix, keep_vars][len(args):])[:3]
        if destination is None:
            destination = OrderedDict()
        for name, parameter in self._parameters.items():
            if parameter is not None:
                destination[prefix + name] = parameter if keep_vars else parameter.detach()
        for name, buffer in self._buffers.items():
            if buffer is not None and name not in self._non_persistent_buffers:
                destination[prefix + name] = buffer if keep_vars else buffer.detach()
        for name, child in self._modules.items():
            if child is not None:
                child.state_dict(destination=destination, prefix=f"{prefix}{name}.", keep_vars=keep_vars)
        return destination
    # end-book-region: state-dict

    def _local_state(self):
        state = OrderedDict((name, p) for name, p in self._parameters.items() if p is not None)
        state.update((name, b) for name, b in self._buffers.items()
                     if b is not None and name not in self._non_persistent_buffers)
        return state

    def load_state_dict(self, state_dict, strict=True):
        """Copies the values of `state_dict` into the module's own tensors. Missing and
        unexpected keys are returned (strict=False) or raised as a RuntimeError (strict);
        a shape mismatch is always an error. Everything is checked before anything is
        copied: a refused state dict leaves the module as it was."""
        if not hasattr(state_dict, "keys") or not hasattr(state_dict, "__getitem__"):
            raise TypeError(f"Expected state_dict to be dict-like, got {_type_name(state_dict)}.")
        missing, unexpected, errors, copies = [], [], [], []
        visited = set()

        def visit(module, prefix):
            local = module._local_state()
            for name, tensor in local.items():
                key = prefix + name
                if key not in state_dict:
                    missing.append(key)
                    continue
                source = state_dict[key]
                if not isinstance(source, Tensor):
                    errors.append(f'While copying the parameter named "{key}", expected kael.Tensor or Tensor-like '
                                  f"object from checkpoint but received {_type_name(source)}")
                elif tuple(source.shape) != tuple(tensor.shape):
                    errors.append(f"size mismatch for {key}: copying a param with shape {_shape_text(source)} from "
                                  f"checkpoint, the shape in current model is {_shape_text(tensor)}.")
                elif (id(tensor), id(source)) not in visited:
                    visited.add((id(tensor), id(source)))
                    copies.append((tensor, source))
            for key in state_dict.keys():
                if key.startswith(prefix):
                    first = key[len(prefix):].split(".", 1)[0]
                    if first not in module._modules and first not in local and key not in unexpected:
                        unexpected.append(key)
            for name, child in module._modules.items():
                if child is not None:
                    visit(child, f"{prefix}{name}.")

        visit(self, "")
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(type(self).__name__,
                                                                                  "\n\t".join(errors)))
        with _kael_no_grad():
            for tensor, source in copies:
                tensor.copy_(source)
        return _IncompatibleKeys(missing, unexpected)

    # ---- printing --------------------------------------------------------------------------------
    def extra_repr(self):
        return ""

    def _get_name(self):
        return type(self).__name__

    def __repr__(self):
        lines = [f"({name}): " + repr(module).replace("\n", "\n  ") for name, module in self._modules.items()]
        extra = self.extra_repr()
        if not lines:
            return f"{self._get_name()}({extra})"
        body = "\n  ".join(([extra] if extra else []) + lines)
        return f"{self._get_name()}(\n  {body}\n)"

    def __dir__(self):
        return sorted(set(object.__dir__(self)) | set(self._parameters) | set(self._buffers) | set(self._modules))


def _shape_text(tensor):
    return "torch.Size([" + ", ".join(str(n) for n in tensor.shape) + "])"


def _kael_to_arguments(args, kwargs):
    """The (device, dtype) of a Module.to or Tensor.to call, in any of PyTorch's forms."""
    unknown = set(kwargs) - {"device", "dtype", "non_blocking", "copy", "memory_format"}
    if unknown:
        raise TypeError(f"to() got an unexpected keyword argument '{sorted(unknown)[0]}'")
    device, dtype = kwargs.get("device"), kwargs.get("dtype")
    for arg in args:
        if isinstance(arg, _kael.dtype):
            dtype = arg
        elif isinstance(arg, Tensor):
            device, dtype = arg.device, arg.dtype
        elif isinstance(arg, (str, _kael.device)):
            device = arg
        elif isinstance(arg, bool):  # non_blocking given by position
            continue
        else:
            raise TypeError(f"to() received an invalid combination of arguments: {_type_name(arg)}")
    if isinstance(device, str):
        device = _kael.device(device)
    return device, dtype


def _kael_no_grad():
    from .. import no_grad

    return no_grad()

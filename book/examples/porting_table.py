"""The porting guide's table (book/docs/porting.md), made from the bindings themselves:
every public name of kael's PyTorch-shaped namespaces, whether PyTorch has it under the
same path, and which parameters one side has that the other lacks. Rebuilt with the book,
so the table cannot drift from the code.

Signatures come from inspect where Python defines the function, and otherwise from the
first line of the docstring, where pybind11 (kael) and PyTorch's C++ functions both write
"name(arg, arg=default, *, ...) -> result"; pybind11 lists each overload on its own line."""
import inspect
import re

import torch

import kael

NAMESPACES = [  # (kael's, PyTorch's, how the table names it)
    (kael, torch, "kael"),
    (kael.Tensor, torch.Tensor, "kael.Tensor"),
    (kael.nn, torch.nn, "kael.nn"),
    (kael.nn.functional, torch.nn.functional, "kael.nn.functional"),
    (kael.nn.init, torch.nn.init, "kael.nn.init"),
    (kael.nn.utils, torch.nn.utils, "kael.nn.utils"),
    (kael.optim, torch.optim, "kael.optim"),
    (kael.optim.lr_scheduler, torch.optim.lr_scheduler, "kael.optim.lr_scheduler"),
    (kael.utils.data, torch.utils.data, "kael.utils.data"),
    (kael.cuda, torch.cuda, "kael.cuda"),
    (kael.distributed, torch.distributed, "kael.distributed"),
]
# kael-only helpers that are not part of the PyTorch-shaped surface.
SKIP = {"cuda_is_available", "cuda_is_built", "cuda_synchronize", "move_to_", "text", "sample_next", "autograd",
        "return_types", "Node", "serialization", "required", "GPT", "generate", "load_gpt2", "strides"}
IGNORED_PARAMETERS = {"self", "out", "layout", "memory_format", "pin_memory", "names", "_stacklevel"}


def parameters_from_text(text, name):
    """The parameter names of every "name(...) -> result" signature line in `text` (the
    arrow tells a signature from an example in the docstring), or None without one."""
    found, signatures = [], 0
    for line in (text or "").splitlines():
        line = re.sub(r"^\s*\d+\.\s*", "", line.strip())
        if not line.startswith(name + "(") or "->" not in line:
            continue
        signatures += 1
        inside, depth, current, parts = line[len(name) + 1:], 0, "", []
        for char in inside:
            if char in "([{":
                depth += 1
            elif char in ")]}":
                if depth == 0:
                    break
                depth -= 1
            if char == "," and depth == 0:
                parts.append(current)
                current = ""
            else:
                current += char
        parts.append(current)
        for part in parts:
            part = part.strip().lstrip("*")
            match = re.match(r"(\w+)", part)
            if match and match[1] not in found and match[1] not in ("args", "kwargs"):
                found.append(match[1])
    return found if signatures else None


def parameters_of(obj, name):
    """The parameter names of a function, method or class (its constructor), or None."""
    target = obj.__init__ if inspect.isclass(obj) else obj
    try:
        signature = inspect.signature(target)
        names = [p.name for p in signature.parameters.values()
                 if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        if names or not (getattr(target, "__doc__", None) or "").lstrip().startswith(name + "("):
            return names
    except (TypeError, ValueError):
        pass
    names = parameters_from_text(getattr(target, "__doc__", None), "__init__" if inspect.isclass(obj) else name)
    if names is None and inspect.isclass(obj):
        names = parameters_from_text(obj.__doc__, name)
    return names


def public_names(namespace):
    names = [n for n in dir(namespace) if not n.startswith("_") and n not in SKIP]
    if inspect.ismodule(namespace):
        names = [n for n in names if not inspect.ismodule(getattr(namespace, n))]
    return sorted(names, key=str.lower)


def difference(kael_object, torch_object, name):
    if not callable(kael_object):
        return "a value" if not callable(torch_object) else "a value in kael"
    ours, theirs = parameters_of(kael_object, name), parameters_of(torch_object, name)
    if ours is None or theirs is None:
        return "(signature not readable)"
    ours = [p for p in ours if p not in IGNORED_PARAMETERS]
    theirs = [p for p in theirs if p not in IGNORED_PARAMETERS]
    missing = [p for p in theirs if p not in ours]
    extra = [p for p in ours if p not in theirs]
    notes = []
    if missing:
        notes.append("lacks " + ", ".join(f"`{p}`" for p in missing))
    if extra:
        notes.append("adds " + ", ".join(f"`{p}`" for p in extra))
    return "; ".join(notes) if notes else "same parameters"


def main():
    totals = {"same": 0, "differs": 0, "kael only": 0}
    print(f"Compared with PyTorch {torch.__version__.split('a')[0].split('+')[0]}, the version Debian packages.\n")
    print("| kael | in PyTorch | parameters |")
    print("|---|---|---|")
    for kael_space, torch_space, label in NAMESPACES:
        for name in public_names(kael_space):
            kael_object = getattr(kael_space, name)
            if not hasattr(torch_space, name):
                totals["kael only"] += 1
                print(f"| `{label}.{name}` | no | kael only |")
                continue
            note = difference(kael_object, getattr(torch_space, name), name)
            totals["same" if note in ("same parameters", "a value") else "differs"] += 1
            print(f"| `{label}.{name}` | yes | {note} |")
    print(f"\n{sum(totals.values())} names: {totals['same']} with PyTorch's parameters, {totals['differs']} "
          f"that differ as listed, {totals['kael only']} that PyTorch does not have. Parameters every kael "
          f"function leaves out are not listed: {', '.join(f'`{p}`' for p in sorted(IGNORED_PARAMETERS - {'self'}))}.")


if __name__ == "__main__":
    main()

"""Copies a PyTorch program to DEST with only its import lines changed, so that it runs
on kael: `import torch` becomes `import kael as torch`, `import torch.nn as nn` becomes
`import kael.nn as nn`, `from torch.x import y` becomes `from kael.x import y`. Any other
line that names torch is left as it is; that is the point of the exercise.

    port.py SOURCE.py DEST.py

It prints each line it changed, so the diff a user would make by hand is on the screen.
"""
import re
import sys

IMPORT = re.compile(r"^(\s*)import torch(\.[\w.]+)?(\s+as\s+\w+)?\s*(#.*)?$")
FROM_IMPORT = re.compile(r"^(\s*)from torch(\.[\w.]+)?(\s+import\s+.*)$")


def port_line(line):
    match = IMPORT.match(line)
    if match:
        indent, submodule, alias, _ = match.groups()
        # `import torch.nn` binds the name torch; keep that meaning with an explicit alias.
        alias = alias or (" as torch" if not submodule else "")
        if submodule and not alias:
            return f"{indent}import kael{submodule}\n{indent}import kael as torch\n"
        return f"{indent}import kael{submodule or ''}{alias}\n"
    match = FROM_IMPORT.match(line)
    if match:
        indent, submodule, rest = match.groups()
        return f"{indent}from kael{submodule or ''}{rest}\n"
    return line


def main():
    source, dest = sys.argv[1], sys.argv[2]
    with open(source, encoding="utf-8") as f:
        lines = f.readlines()
    ported = [port_line(line) for line in lines]
    for number, (before, after) in enumerate(zip(lines, ported), start=1):
        if before != after:
            print(f"{dest}:{number}: {before.strip()}  ->  {after.strip()}".replace("\n", "; "))
    with open(dest, "w", encoding="utf-8") as f:
        f.writelines(ported)


if __name__ == "__main__":
    main()

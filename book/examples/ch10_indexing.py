"""Chapter 10: what each kind of index gives, run against stage 11's Python module.

For every expression the program prints the result's shape, and whether it is a view or a
copy, found out the honest way: the result is written to, and the program looks whether
the original changed.
"""
import kael

EXPRESSIONS = [
    "t[1]",
    "t[:, 1]",
    "t[..., 2]",
    "t[None]",
    "t[0, :, ::2]",
    "t[kael.tensor([1, 0])]",
    "t[t > 20]",
    "t[:, [0, 2], [1, 3]]",
    "t[[0, 1], :, [1, 2]]",
    "t[[[0], [1]], [0, 2]]",
]


def view_or_copy(expression: str) -> tuple[tuple[int, ...], str]:
    t = kael.arange(24).view(2, 3, 4)
    result = eval(expression, {"t": t, "kael": kael})  # noqa: S307 (the fixed list above)
    shape = result.shape
    result.fill_(-1)
    return shape, "a view" if (t == -1).any().item() else "a copy"


print("t = kael.arange(24).view(2, 3, 4)\n")
for expression in EXPRESSIONS:
    shape, kind = view_or_copy(expression)
    print(f"{expression:<24} shape {str(shape):<14} {kind}")
t = kael.arange(24).view(2, 3, 4)
print("\nt[[0, 1], :, [1, 2]].tolist():", t[[0, 1], :, [1, 2]].tolist())

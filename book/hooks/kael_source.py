"""Pulling code and test names out of kael's sources for the book.

Three kinds of reference resolve here, and each either resolves exactly or raises
ReferenceError with a message that says what is missing:

  symbol   a function, method, class, struct, enum or macro, found by brace matching
  region   the lines between "// book-region: NAME" and "// end-book-region: NAME"
  test     a GoogleTest case "Suite.Name" defined under tests/ or exercises/

Code is read as the final stage sees it (stage markers removed, old lines dropped), or as
an earlier stage saw it when a stage number is given; tests can be listed as of a stage too.
"""
from __future__ import annotations

import dataclasses
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts" / "lib"))
import kael_stages  # noqa: E402


class ReferenceError(Exception):
    """A reference in the book that does not resolve."""


@dataclasses.dataclass(frozen=True)
class Snippet:
    path: str
    first_line: int  # 1-based, in the rendered text
    text: str


def read_source(root: pathlib.Path, path: str, stage: int | None = None) -> str:
    full = root / path
    if not full.is_file():
        raise ReferenceError(f"file {path} does not exist")
    manifest = kael_stages.Manifest.load(root)
    text = full.read_text(encoding="utf-8")
    try:
        introduced = manifest.introduced_in(path)
    except kael_stages.StageError:
        introduced = 0
    if stage is not None:
        if introduced == 0:
            raise ReferenceError(f"{path} belongs to no stage, so stage={stage} means nothing")
        if introduced > stage:
            raise ReferenceError(f"{path} does not exist at stage {stage} (stage {introduced} adds it)")
    try:
        return kael_stages.render(path, text, stage or manifest.last,
                                  introduced=max(introduced, 1), last=manifest.last)
    except kael_stages.StageError as error:
        raise ReferenceError(str(error)) from error


# ---------------------------------------------------------------------------------------
# Regions

REGION_START = re.compile(r"^\s*(//|#) book-region: ([\w.-]+)\s*$")
REGION_END = re.compile(r"^\s*(//|#) end-book-region: ([\w.-]+)\s*$")


def extract_region(path: str, text: str, name: str) -> Snippet:
    lines = text.split("\n")
    starts = [i for i, line in enumerate(lines) if (m := REGION_START.match(line)) and m.group(2) == name]
    ends = [i for i, line in enumerate(lines) if (m := REGION_END.match(line)) and m.group(2) == name]
    if not starts or not ends:
        raise ReferenceError(f"region {name!r} not found in {path}")
    if len(starts) > 1 or len(ends) > 1 or ends[0] <= starts[0]:
        raise ReferenceError(f"region {name!r} in {path} is malformed (needs one start before one end)")
    body = [line for line in lines[starts[0] + 1:ends[0]]
            if not REGION_START.match(line) and not REGION_END.match(line)]
    return Snippet(path, starts[0] + 2, _dedent("\n".join(body)))


def strip_region_markers(text: str) -> str:
    return "\n".join(line for line in text.split("\n")
                     if not REGION_START.match(line) and not REGION_END.match(line))


# ---------------------------------------------------------------------------------------
# Symbols

_TYPE_KINDS = ("enum class", "enum struct", "enum", "class", "struct", "union")


def extract_symbol(path: str, text: str, symbol: str) -> Snippet:
    """The full definition of `symbol` in C++ source `text`, with its leading comments.

    symbol is one of:
      "class Name", "struct Name", "enum class Name", ...   a type definition
      "#define NAME"                                         a macro, with continuations
      "name", "Class::name", "ns::name"                      a function or method definition
      "name(const Shape& shape"                              ... disambiguated by the start of
                                                             its parameter list
    """
    text = strip_region_markers(text)
    lines = text.split("\n")
    symbol = symbol.strip()
    if symbol.startswith("#define "):
        return _extract_macro(path, lines, symbol[len("#define "):].strip())
    for kind in _TYPE_KINDS:
        if symbol.startswith(kind + " "):
            return _extract_type(path, text, lines, kind, symbol[len(kind) + 1:].strip())
    return _extract_function(path, text, lines, symbol)


def _extract_macro(path: str, lines: list[str], name: str) -> Snippet:
    pattern = re.compile(rf"^\s*#\s*define\s+{re.escape(name)}\b")
    hits = [i for i, line in enumerate(lines) if pattern.match(line)]
    if len(hits) != 1:
        raise ReferenceError(f"macro {name} {'not found' if not hits else 'defined more than once'} in {path}")
    start = end = hits[0]
    while lines[end].rstrip().endswith("\\"):
        end += 1
    return _snippet_with_comments(path, lines, start, end)


def _extract_type(path: str, text: str, lines: list[str], kind: str, name: str) -> Snippet:
    # The type may follow a template header on the same line: "template <...> struct X {".
    pattern = re.compile(rf"^[ \t]*(template\s*<[^;{{]*>\s*)?{re.escape(kind)}\s+(\[\[[^\]]*\]\]\s*)?"
                         rf"{re.escape(name)}\b[^;{{]*\{{", re.M)
    hits = list(pattern.finditer(text))
    if not hits:
        raise ReferenceError(f"{kind} {name} not found in {path}")
    if len(hits) > 1:
        raise ReferenceError(f"{kind} {name} is defined more than once in {path}")
    open_brace = hits[0].end() - 1
    close = _match_brace(text, open_brace, path, f"{kind} {name}")
    end_offset = close + 1
    if text[end_offset:end_offset + 1] == ";":
        end_offset += 1
    start_line = text.count("\n", 0, hits[0].start())
    end_line = text.count("\n", 0, end_offset)
    start_line = _include_template_header(lines, start_line)
    return _snippet_with_comments(path, lines, start_line, end_line)


# What may follow a function's parameter list before its body: qualifiers, a trailing
# return type, a requires clause.
_FUNCTION_TAIL = re.compile(
    r"(?:\s*(?:const|noexcept(?:\([^)]*\))?|override|final|&&|&|->\s*[\w:<>,*&\s]+?(?=\s*[{:])"
    r"|requires\b[^{;]*))*\s*")


def _extract_function(path: str, text: str, lines: list[str], symbol: str) -> Snippet:
    # "Type::operator()" names a call operator: its own parentheses are part of the name.
    if "operator()" in symbol:
        head, _, rest = symbol.partition("operator()")
        name, parameters = head + "operator()", rest.lstrip("(")
    else:
        name, _, parameters = symbol.partition("(")
    name = name.strip()
    if not re.fullmatch(r"(~?[A-Za-z_]\w*::)*(~?[A-Za-z_]\w*|operator\S+)", name):
        raise ReferenceError(f"cannot read symbol {symbol!r}; write a function name, Class::method, "
                             "'class Name', 'struct Name', 'enum class Name' or '#define NAME'")
    pattern = re.compile(rf"(?<![\w:.>]){re.escape(name)}\s*\(")
    definitions = []
    for match in pattern.finditer(text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        # Whether this is a definition is decided by what follows the parameter list (a
        # body), not by what precedes the name: calls and declarations have no body there.
        close_paren = _match_paren(text, match.end() - 1)
        if close_paren is None:
            continue
        after = text[close_paren + 1:]
        body = _definition_body_start(after)
        if body is None:
            continue
        if parameters and not _normalize(text[match.end():close_paren + 1]).startswith(_normalize(parameters)):
            continue
        open_brace = close_paren + 1 + body
        definitions.append((line_start, open_brace))
    if not definitions:
        raise ReferenceError(f"function {symbol} not found in {path}")
    if len(definitions) > 1:
        where = ", ".join(str(text.count("\n", 0, start) + 1) for start, _ in definitions)
        raise ReferenceError(f"{symbol} has {len(definitions)} definitions in {path} (lines {where}); "
                             "add the start of the parameter list, e.g. \"name(const Shape& shape\"")
    line_start, open_brace = definitions[0]
    close = _match_brace(text, open_brace, path, symbol)
    start_line = _include_template_header(lines, text.count("\n", 0, line_start))
    end_line = text.count("\n", 0, close)
    return _snippet_with_comments(path, lines, start_line, end_line)


def _definition_body_start(after: str) -> int | None:
    """Offset of the '{' that opens a function body right after its parameter list, or
    None when the parameter list belongs to a declaration or a call."""
    tail = _FUNCTION_TAIL.match(after)
    position = tail.end() if tail else 0
    if position < len(after) and after[position] == ":" and after[position:position + 2] != "::":
        # A constructor's member initializer list: skip to the body brace.
        depth = 0
        i = position + 1
        while i < len(after):
            c = after[i]
            if c in "({":
                if c == "{" and depth == 0 and re.search(r"[)}]\s*$", after[position:i]):
                    return i
                depth += 1
            elif c in ")}":
                depth -= 1
            elif c == ";" and depth == 0:
                return None
            i += 1
        return None
    if position < len(after) and after[position] == "{":
        return position
    return None


def _match_paren(text: str, open_index: int) -> int | None:
    depth = 0
    for i in range(open_index, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    return None


def _match_brace(text: str, open_index: int, path: str, what: str) -> int:
    """The index of the brace closing the one at open_index, skipping strings, character
    literals and comments."""
    depth = 0
    i = open_index
    while i < len(text):
        c = text[i]
        if c == "/" and text.startswith("//", i):
            i = text.find("\n", i)
            if i < 0:
                break
            continue
        if c == "/" and text.startswith("/*", i):
            i = text.find("*/", i) + 2
            continue
        if c in "\"'":
            i = _skip_literal(text, i)
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ReferenceError(f"unbalanced braces after {what} in {path}")


def _skip_literal(text: str, i: int) -> int:
    quote = text[i]
    if quote == "'" and i > 0 and (text[i - 1].isalnum()):
        return i + 1  # a digit separator such as 0x7fff'ffff
    j = i + 1
    while j < len(text) and text[j] != quote:
        j += 2 if text[j] == "\\" else 1
    return j + 1


def _include_template_header(lines: list[str], start: int) -> int:
    while start > 0 and re.match(r"^\s*template\s*<", lines[start - 1]):
        start -= 1
    return start


def _snippet_with_comments(path: str, lines: list[str], start: int, end: int) -> Snippet:
    """Lines start..end (0-based, inclusive), extended upwards over the comment block that
    documents them."""
    while start > 0 and re.match(r"^\s*//", lines[start - 1]) and not re.match(
            r"^\s*//\s*(-{3,}|NOLINT)", lines[start - 1]):
        start -= 1
    return Snippet(path, start + 1, _dedent("\n".join(lines[start:end + 1])))


def _normalize(code: str) -> str:
    return re.sub(r"\s+", " ", code).strip()


def _dedent(code: str) -> str:
    lines = code.split("\n")
    indents = [len(line) - len(line.lstrip()) for line in lines if line.strip()]
    cut = min(indents, default=0)
    return "\n".join(line[cut:] for line in lines).strip("\n")


# ---------------------------------------------------------------------------------------
# Tests

TEST_DEFINITION = re.compile(r"^\s*TEST(?:_F)?\(\s*(\w+)\s*,\s*(\w+)\s*\)", re.M)
# CTest tests declared in CMake, such as the package and example output checks.
CTEST_DEFINITION = re.compile(r"^\s*add_test\(\s*NAME\s+(\w+)\.(\w+)\b", re.M)
# pytest functions of the Python suites (chapter 10), cited as file.function:
# test_numpy.test_from_numpy_shares_the_arrays_memory is tests/python/test_numpy.py's.
PYTEST_DEFINITION = re.compile(r"^def (test_\w+)\(", re.M)


@dataclasses.dataclass(frozen=True)
class TestCase:
    suite: str
    name: str
    path: str
    line: int

    @property
    def full_name(self) -> str:
        return f"{self.suite}.{self.name}"


def find_tests(root: pathlib.Path, stage: int | None = None) -> dict[str, TestCase]:
    """Every GoogleTest case in tests/ and exercises/, and every CTest test that CMake
    files under tests/ and examples/ declare with add_test(NAME Suite.Name ...).

    With a stage, only the tests that exist at that stage: files the stage has, read as the
    stage has them (a line number is then one in that stage's file)."""
    manifest = kael_stages.Manifest.load(root)
    tests: dict[str, TestCase] = {}
    sources = [("tests/**/*.cpp", TEST_DEFINITION), ("exercises/**/test.cpp", TEST_DEFINITION),
               ("tests/**/CMakeLists.txt", CTEST_DEFINITION), ("examples/**/CMakeLists.txt", CTEST_DEFINITION),
               ("tests/python/test_*.py", PYTEST_DEFINITION)]
    for pattern, definition in sources:
        for file in sorted(root.glob(pattern)):
            text = file.read_text(encoding="utf-8")
            relative = file.relative_to(root).as_posix()
            if stage is not None:
                text = _text_at_stage(manifest, relative, text, stage)
                if text is None:
                    continue
            for match in definition.finditer(text):
                suite, name = (file.stem, match.group(1)) if definition is PYTEST_DEFINITION else match.groups()
                case = TestCase(suite, name, relative, text.count("\n", 0, match.start()) + 1)
                tests.setdefault(case.full_name, case)
            if definition is PYTEST_DEFINITION:  # tests/CMakeLists.txt runs each file as Python.<file>
                tests.setdefault(f"Python.{file.stem}", TestCase("Python", file.stem, relative, 1))
    return tests


def is_pytest(case: TestCase) -> bool:
    return case.path.endswith(".py")


def _text_at_stage(manifest: kael_stages.Manifest, path: str, text: str, stage: int) -> str | None:
    """A test file as `stage` has it, or None where the stage does not have the file."""
    try:
        introduced = manifest.introduced_in(path)
    except kael_stages.StageError:
        return None  # not part of any stage yet: scripts/check-stages reports it
    if introduced == 0 or introduced > stage:
        return None
    try:
        return kael_stages.render(path, text, stage, introduced=introduced, last=manifest.last)
    except kael_stages.StageError as error:
        raise ReferenceError(str(error)) from error


def extract_test(root: pathlib.Path, case: TestCase) -> str:
    text = (root / case.path).read_text(encoding="utf-8")
    lines = text.split("\n")
    start = case.line - 1
    offset = sum(len(line) + 1 for line in lines[:start])
    if is_pytest(case) and case.suite == "Python":  # the CTest entry of a whole file
        return f"# ctest -R Python.{case.name} runs every test of {case.path}"
    if is_pytest(case):  # the function: its def line and every indented line after it
        end = start + 1
        while end < len(lines) and (not lines[end].strip() or lines[end].startswith((" ", "\t"))):
            end += 1
        return "\n".join(lines[start:end]).rstrip()
    if case.path.endswith("CMakeLists.txt"):
        close = _match_paren(text, text.find("(", offset))
        if close is None:
            raise ReferenceError(f"unbalanced parentheses after add_test({case.full_name} in {case.path}")
        return _dedent("\n".join(lines[start:text.count("\n", 0, close) + 1]))
    open_brace = text.find("{", offset)
    close = _match_brace(text, open_brace, case.path, case.full_name)
    end_line = text.count("\n", 0, close)
    return _dedent("\n".join(lines[start:end_line + 1]))

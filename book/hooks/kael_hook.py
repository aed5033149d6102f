"""The MkDocs hook that ties the book to the source.

In a page's Markdown:

    {{ code("kael/src/tensor.cpp", "Tensor::clone") }}          a symbol, final code
    {{ code("kael/src/factory.cpp", "full", stage=3) }}          the same, as of stage 3
    {{ code("kael/include/kael/error.h", region="check-macros") }}  a named region
    {{ code("examples/hello_tensor.cpp") }}                      a whole file
    {{ test("Storage.AlignedTo64Bytes") }}                       a test name, linked to its source
    {{ output("printing") }}                                     what book/examples/printing.cpp
    {{ output("errors", section="bool") }}                       printed when scripts/book ran it
    {{ stage_table() }}                                          the stages and their tags
    {{ include("benchmarks/RESULTS.md") }}                       a Markdown file a script wrote

A backslash in front of the braces shows a call literally, for pages that document them.

Every reference must resolve. One that does not is logged as an error naming the page and
the reference, and the build fails (with or without --strict).
"""
from __future__ import annotations

import ast
import html
import logging
import os
import pathlib
import re
import sys

from mkdocs.exceptions import PluginError

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import kael_source  # noqa: E402

log = logging.getLogger("mkdocs.hooks.kael")

ROOT = pathlib.Path(__file__).resolve().parents[2]
GENERATED = "generated"
# A backslash before the braces (\{{ code(...) }}) shows the call literally instead.
CALL = re.compile(r"(?<!\\)\{\{\s*(code|test|output|stage_table|include)\((.*?)\)\s*\}\}", re.S)
LANGUAGE = {".cpp": "cpp", ".h": "cpp", ".cu": "cuda", ".py": "python", ".cmake": "cmake",
            ".txt": "cmake", ".toml": "toml", ".sh": "bash", "": "bash"}

_errors: list[str] = []


def outputs_dir() -> pathlib.Path:
    return pathlib.Path(os.environ.get("KAEL_BOOK_OUTPUTS", ROOT / "build" / "book" / "outputs"))


def parse_arguments(text: str) -> tuple[list, dict]:
    """Parses the argument list of a call such as code("a", "b", stage=3) safely."""
    try:
        call = ast.parse(f"f({text})", mode="eval").body
    except SyntaxError as error:
        raise kael_source.ReferenceError(f"cannot parse arguments ({text}): {error.msg}") from None
    try:
        args = [ast.literal_eval(a) for a in call.args]
        kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
    except ValueError:
        raise kael_source.ReferenceError(f"arguments must be literals: ({text})") from None
    return args, kwargs


# ---------------------------------------------------------------------------------------
# Rendering each kind of reference


def render_code(args: list, kwargs: dict) -> str:
    if len(args) not in (1, 2):
        raise kael_source.ReferenceError('code() takes a path and optionally a symbol: code("path", "symbol")')
    path = args[0]
    stage = kwargs.pop("stage", None)
    region = kwargs.pop("region", None)
    title = kwargs.pop("title", None)
    if kwargs:
        raise kael_source.ReferenceError(f"code() got unknown arguments {sorted(kwargs)}")
    text = kael_source.read_source(ROOT, path, stage)
    if region is not None:
        snippet = kael_source.extract_region(path, text, region)
    elif len(args) == 2:
        snippet = kael_source.extract_symbol(path, text, args[1])
    else:
        snippet = kael_source.Snippet(path, 1, kael_source.strip_region_markers(text).strip("\n"))
    language = LANGUAGE.get(pathlib.PurePosixPath(path).suffix, "")
    if pathlib.PurePosixPath(path).name == "CMakeLists.txt":
        language = "cmake"
    caption = title or (path if stage is None else f"{path} (stage {stage})")
    return f'```{language} title="{caption}"\n{snippet.text}\n```'


def render_test(args: list, kwargs: dict, page_path: str, tests: dict) -> str:
    if len(args) != 1 or kwargs:
        raise kael_source.ReferenceError('test() takes one name: test("Suite.Name")')
    name = args[0]
    case = tests.get(name)
    if case is None:
        raise kael_source.ReferenceError(f"test {name} is not defined under tests/ or exercises/")
    target = f"{GENERATED}/tests/{test_page_name(case.path)}"
    link = os.path.relpath(target, os.path.dirname(page_path)).replace(os.sep, "/")
    return f"[`{name}`]({link}#{anchor(name)})"


def render_output(args: list, kwargs: dict) -> str:
    if len(args) != 1:
        raise kael_source.ReferenceError('output() takes a program name: output("printing")')
    name = args[0]
    section = kwargs.pop("section", None)
    if kwargs:
        raise kael_source.ReferenceError(f"output() got unknown arguments {sorted(kwargs)}")
    file = outputs_dir() / f"{name}.txt"
    if not file.is_file():
        raise kael_source.ReferenceError(f"no output recorded for book/examples/{name}.cpp "
                                         f"(run scripts/book, which builds and runs it)")
    text = file.read_text(encoding="utf-8")
    if section is not None:
        sections = split_sections(text)
        if section not in sections:
            raise kael_source.ReferenceError(f"book/examples/{name}.cpp printed no section {section!r}")
        text = sections[section]
    return f'```text title="output of {program_path(name)}"\n{text.rstrip()}\n```'


def program_path(name: str) -> str:
    book_program = f"book/examples/{name}.cpp"
    return book_program if (ROOT / book_program).is_file() else f"examples/{name}.cpp"


def split_sections(text: str) -> dict[str, str]:
    sections: dict[str, list[str]] = {}
    current = None
    for line in text.split("\n"):
        marker = re.fullmatch(r"--- section: ([\w.-]+) ---", line)
        if marker:
            current = marker.group(1)
            sections[current] = []
        elif current is not None:
            sections[current].append(line)
    return {name: "\n".join(lines).strip("\n") for name, lines in sections.items()}


def render_include(args: list, kwargs: dict) -> str:
    """A Markdown file written by a script (benchmark results), inserted as it is."""
    if len(args) != 1 or kwargs:
        raise kael_source.ReferenceError('include() takes one path: include("benchmarks/RESULTS.md")')
    file = ROOT / args[0]
    if not file.is_file():
        raise kael_source.ReferenceError(f"file {args[0]} does not exist")
    return file.read_text(encoding="utf-8").strip()


def render_stage_table(page_path: str) -> str:
    manifest = kael_source.kael_stages.Manifest.load(ROOT)
    rows = ["| stage | tag | chapter | what the stage adds |", "|---|---|---|---|"]
    for stage in manifest.stages:
        page = f"{stage.page}"
        if (ROOT / "book" / "docs" / page).is_file():
            link = os.path.relpath(page, os.path.dirname(page_path)).replace(os.sep, "/")
            chapter = f"[{stage.chapter:02d} {stage.title}]({link})"
        else:
            chapter = f"{stage.chapter:02d} {stage.title} (to come)"
        tag = f"`{stage.tag}`" if stage.ready else f"{stage.tag} (not yet tagged)"
        rows.append(f"| {stage.number} | {tag} | {chapter} | {stage.summary} |")
    return "\n".join(rows)


# ---------------------------------------------------------------------------------------
# Generated pages: one per test file, each test under its own anchor


def test_page_name(path: str) -> str:
    return path.replace("/", "__").replace(".cpp", ".md").replace(".txt", ".md")


def anchor(name: str) -> str:
    return name.replace(".", "-").lower()


def write_test_pages(docs_dir: pathlib.Path, tests: dict) -> None:
    by_file: dict[str, list] = {}
    for case in tests.values():
        by_file.setdefault(case.path, []).append(case)
    target = docs_dir / GENERATED / "tests"
    target.mkdir(parents=True, exist_ok=True)
    wanted = set()
    for path, cases in sorted(by_file.items()):
        parts = [f"# {path}\n",
                 f"Every test case in `{path}`, in file order, as the book cites them.\n"]
        for case in sorted(cases, key=lambda c: c.line):
            code = kael_source.extract_test(ROOT, case)
            language = "cmake" if path.endswith("CMakeLists.txt") else "cpp"
            parts.append(f'## {case.full_name} {{#{anchor(case.full_name)}}}\n\n'
                         f'```{language} title="{path}:{case.line}"\n{code}\n```\n')
        name = test_page_name(path)
        wanted.add(name)
        write_if_changed(target / name, "\n".join(parts))
    for stale in target.glob("*.md"):
        if stale.name not in wanted:
            stale.unlink()


def write_if_changed(path: pathlib.Path, text: str) -> None:
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


# ---------------------------------------------------------------------------------------
# MkDocs events

_tests: dict = {}


def on_pre_build(config, **kwargs):
    global _tests
    _errors.clear()
    _tests = kael_source.find_tests(ROOT)
    write_test_pages(pathlib.Path(config["docs_dir"]), _tests)


def on_page_markdown(markdown, page, config, files, **kwargs):
    page_path = page.file.src_uri if hasattr(page.file, "src_uri") else page.file.src_path

    def replace(match: re.Match) -> str:
        kind, raw = match.group(1), match.group(2)
        try:
            args, kwargs_ = parse_arguments(raw)
            if kind == "code":
                return render_code(args, kwargs_)
            if kind == "test":
                return render_test(args, kwargs_, page_path, _tests)
            if kind == "output":
                return render_output(args, kwargs_)
            if kind == "include":
                return render_include(args, kwargs_)
            return render_stage_table(page_path)
        except kael_source.ReferenceError as error:
            line = markdown.count("\n", 0, match.start()) + 1
            message = f"{page_path}:{line}: {kind}({raw}) does not resolve: {error}"
            _errors.append(message)
            log.error(message)
            return f'!!! failure "unresolved reference"\n    {html.escape(message)}'

    return CALL.sub(replace, markdown).replace("\\{{", "{{")


def on_post_build(config, **kwargs):
    if _errors:
        raise PluginError(f"{len(_errors)} book reference(s) did not resolve; the first: {_errors[0]}")

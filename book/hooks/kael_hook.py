"""The MkDocs hook that ties the book to the source.

In a page's Markdown:

    {{ code("kael/src/core/tensor.cpp", "Tensor::clone") }}          a symbol, at the page's stage
    {{ code("kael/src/core/factory.cpp", "full", stage=3) }}          the same, as of stage 3
    {{ code("book/examples/adr_runtime_dtype.cpp", region="dispatch-call") }}  a named region
    {{ code("examples/hello_tensor.cpp") }}                      a whole file
    {{ test("Storage.AlignedTo64Bytes") }}                       a test name, linked to its source
    {{ test("test_numpy.test_numpy_shares_the_tensors_memory") }}  a pytest function (file.function)
    {{ output("printing") }}                                     what book/examples/printing.cpp
    {{ output("errors", section="bool") }}                       printed when scripts/book ran it
    {{ stage_table() }}                                          the stages and their tags
    {{ include("benchmarks/RESULTS.md") }}                       a Markdown file a script wrote
    {{ include("exercises/02-core/allclose/README.md", level=2) }}  the same, its headings
                                                                 moved so the first is ##
    {{ api_reference() }}                                        links to the API reference
                                                                 of the headers the chapter adds
    {{ api_reference(changed=["kael/device.h"]) }}               and of headers it changes
    {{ count_tests(suite="AutogradInplace") }}                   how many tests, at the page's
    {{ count_tests(file="tests/test_view.cpp") }}                stage, a suite or a file has
    {{ cell("benchmarks/RESULTS.md", row="softmax", column="kael / libtorch") }}
                                                                 one cell of a results table
    {{ measured("softmax-row-max-before") }}                     a one-off measurement kept in
                                                                 book/measurements.toml

A number in the prose is one of the last three, never typed: the source and the recorded
results files say what it is, so it cannot go stale.

A backslash in front of the braces shows a call literally, for pages that document them.

Each chapter shows the stage it describes (chapter NN, stage NN + 1; chapters/stages.toml
names the pages), because a reader of chapter 02 has checked out that stage's tag: code,
tests and outputs default to the chapter's stage. An explicit stage= later than the
chapter's shows a later addition and says so in the listing's title; without it, a symbol,
region, test or output the chapter's stage lacks fails the build. Every other page (design
records, index, glossary) describes main, the final library.

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
import xml.etree.ElementTree as ElementTree

from mkdocs.exceptions import PluginError

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import kael_source  # noqa: E402

log = logging.getLogger("mkdocs.hooks.kael")

ROOT = pathlib.Path(__file__).resolve().parents[2]
GENERATED = "generated"
# A backslash before the braces (\{{ code(...) }}) shows the call literally instead.
CALL = re.compile(r"(?<!\\)\{\{\s*(code|test|output|stage_table|include|api_reference|count_tests|cell|measured)"
                  r"\((.*?)\)\s*\}\}", re.S)
LANGUAGE = {".cpp": "cpp", ".h": "cpp", ".cu": "cuda", ".py": "python", ".cmake": "cmake",
            ".txt": "cmake", ".toml": "toml", ".sh": "bash", "": "bash"}

_errors: list[str] = []


def outputs_dir() -> pathlib.Path:
    """Where scripts/book recorded the programs' outputs: one folder per build they ran
    against, stage-N/ for a chapter's programs and main/ for the others."""
    return pathlib.Path(os.environ.get("KAEL_BOOK_OUTPUTS", ROOT / "build" / "book" / "outputs"))


def output_folder(stage: int | None) -> str:
    return "main" if stage is None else f"stage-{stage}"


def manifest() -> kael_source.kael_stages.Manifest:
    return kael_source.kael_stages.Manifest.load(ROOT)


def page_stage(page_path: str) -> int | None:
    """The stage a page describes: a chapter's own stage, or None (main) for other pages."""
    for stage in manifest().stages:
        if stage.page == page_path:
            return stage.number
    return None


def stage_name(stage: int) -> str:
    return f"stage {stage}, chapter {stage - 1:02d}"


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


def render_code(args: list, kwargs: dict, page: int | None = None) -> str:
    """A listing, as of the stage of the page it is on (`page`; None for main) unless an
    explicit stage= says otherwise."""
    if len(args) not in (1, 2):
        raise kael_source.ReferenceError('code() takes a path and optionally a symbol: code("path", "symbol")')
    path = args[0]
    symbol = args[1] if len(args) == 2 else None
    explicit = kwargs.pop("stage", None)
    region = kwargs.pop("region", None)
    title = kwargs.pop("title", None)
    if kwargs:
        raise kael_source.ReferenceError(f"code() got unknown arguments {sorted(kwargs)}")
    if explicit is not None:
        snippet = extract(path, symbol, region, explicit)
        note = code_stage_note(path, symbol, region, explicit, page, snippet)
    else:
        # The book's own tooling (scripts, book programs) belongs to no stage: it is shown
        # as it is.
        stage = page if page is not None and stage_of_file(path) != 0 else None
        snippet = extract_at_page_stage(path, symbol, region, stage)
        note = ""
    language = LANGUAGE.get(pathlib.PurePosixPath(path).suffix, "")
    if pathlib.PurePosixPath(path).name == "CMakeLists.txt":
        language = "cmake"
    caption = title or f"{path}{note}"
    return f'```{language} title="{caption}"\n{snippet.text}\n```'


def extract(path: str, symbol: str | None, region: str | None, stage: int | None) -> kael_source.Snippet:
    """A symbol, a region or a whole file, as of `stage` (None: the final code)."""
    text = kael_source.read_source(ROOT, path, stage)
    if region is not None:
        return kael_source.extract_region(path, text, region)
    if symbol is not None:
        return kael_source.extract_symbol(path, text, symbol)
    return kael_source.Snippet(path, 1, kael_source.strip_region_markers(text).strip("\n"))


def stage_of_file(path: str) -> int:
    """The stage that introduces a file; 0 for tooling and for files no stage lists."""
    try:
        return manifest().introduced_in(path)
    except kael_source.kael_stages.StageError:
        return 0


def extract_at_page_stage(path: str, symbol: str | None, region: str | None,
                          stage: int | None) -> kael_source.Snippet:
    """extract() at a chapter's own stage. What that stage lacks is an error rather than a
    silent fall back to main, and the error names the stage that adds it."""
    try:
        return extract(path, symbol, region, stage)
    except kael_source.ReferenceError as error:
        if stage is None:
            raise
        later = first_stage_with(path, symbol, region, stage + 1)
        if later is None:
            raise  # no stage has it: a plain broken reference
        raise kael_source.ReferenceError(
            f"not at stage {stage}, this chapter's stage: {error}; stage {later} adds it: "
            f"write stage={later} to show it as a later addition") from None


def first_stage_with(path: str, symbol: str | None, region: str | None, start: int) -> int | None:
    for stage in range(start, manifest().last + 1):
        try:
            extract(path, symbol, region, stage)
            return stage
        except kael_source.ReferenceError:
            continue
    return None


def code_stage_note(path: str, symbol: str | None, region: str | None, stage: int,
                    page: int | None, snippet: kael_source.Snippet) -> str:
    """The title suffix of a listing with an explicit stage. One later than the page's is a
    later addition and must be labelled as one; so the label stays true, a stage= that
    changes nothing is an error."""
    if page is None or stage < page:
        return f" (stage {stage})"
    if stage == page:
        return ""
    try:
        at_page = extract(path, symbol, region, page)
    except kael_source.ReferenceError:
        return f" (added in {stage_name(stage)})"
    if at_page.text == snippet.text:
        raise kael_source.ReferenceError(f"stage={stage} is not needed: the listing is the same at "
                                         f"stage {page}, this chapter's stage")
    return f" (as changed in {stage_name(stage)})"


def render_test(args: list, kwargs: dict, page_path: str, tests: dict, page: int | None = None) -> str:
    """A test's name, linked to its source. A reader runs the tests a chapter cites at the
    chapter's tag, so each must exist at the chapter's stage, unless stage= marks it as a
    later one."""
    explicit = kwargs.pop("stage", None)
    if len(args) != 1 or kwargs:
        raise kael_source.ReferenceError('test() takes one name and optionally a stage: test("Suite.Name")')
    name = args[0]
    case = tests.get(name)
    if case is None:
        raise kael_source.ReferenceError(f"test {name} is not defined under tests/ or exercises/")
    note = ""
    if explicit is not None:
        if name not in tests_at(explicit):
            raise kael_source.ReferenceError(f"test {name} does not exist at stage {explicit}")
        if page is not None and explicit > page:
            if name in tests_at(page):
                raise kael_source.ReferenceError(f"stage={explicit} is not needed: test {name} "
                                                 f"exists at stage {page}, this chapter's stage")
            note = f" (added in {stage_name(explicit)})"
    elif page is not None and name not in tests_at(page):
        later = next((s for s in range(page + 1, manifest().last + 1) if name in tests_at(s)), None)
        hint = f"; stage {later} adds it: write stage={later} to cite it as a later test" if later else ""
        raise kael_source.ReferenceError(f"test {name} does not exist at stage {page}, "
                                         f"this chapter's stage{hint}")
    target = f"{GENERATED}/tests/{test_page_name(case.path)}"
    link = os.path.relpath(target, os.path.dirname(page_path)).replace(os.sep, "/")
    return f"[`{name}`]({link}#{anchor(name)}){note}"


_tests_by_stage: dict[int, set[str]] = {}


def tests_at(stage: int) -> set[str]:
    """The names of the tests that exist at a stage (computed once per build)."""
    if stage not in _tests_by_stage:
        _tests_by_stage[stage] = set(kael_source.find_tests(ROOT, stage))
    return _tests_by_stage[stage]


def render_output(args: list, kwargs: dict, page: int | None = None) -> str:
    """What a program printed when run against the page's stage (main for pages that are
    not chapters), or against an explicit stage=."""
    if len(args) != 1:
        raise kael_source.ReferenceError('output() takes a program name: output("printing")')
    name = args[0]
    section = kwargs.pop("section", None)
    explicit = kwargs.pop("stage", None)
    raw = kwargs.pop("raw", False)  # Markdown the program wrote (a table), inserted as it is
    if kwargs:
        raise kael_source.ReferenceError(f"output() got unknown arguments {sorted(kwargs)}")
    stage = explicit if explicit is not None else page
    file = outputs_dir() / output_folder(stage) / f"{name}.txt"
    if not file.is_file():
        raise kael_source.ReferenceError(missing_output(name, stage))
    note = ""
    if explicit is not None and explicit != page:
        note = f" (run against {stage_name(explicit)})" if page is not None and explicit > page \
            else f" (run against stage {explicit})"
    text = file.read_text(encoding="utf-8")
    if section is not None:
        sections = split_sections(text)
        if section not in sections:
            raise kael_source.ReferenceError(f"{program_path(name)} printed no section {section!r}")
        text = sections[section]
    if raw:
        return text.rstrip() + f"\n\n<small>Written by `{program_path(name)}`{note} when the book was built.</small>"
    return f'```text title="output of {program_path(name)}{note}"\n{text.rstrip()}\n```'


def missing_output(name: str, stage: int | None) -> str:
    """Why no output is recorded: most often the program runs against another stage."""
    where = "main" if stage is None else f"stage {stage}"
    path = program_path(name)
    if not (ROOT / path).is_file():
        return f"no program book/examples/{name}.cpp or .py"
    runs_at = kael_source.kael_stages.program_stage(manifest(), path)
    if runs_at != stage:
        runs_where = "main" if runs_at is None else f"stage {runs_at}"
        hint = f"; write stage={runs_at} to show it as a later run" if runs_at is not None else ""
        return (f"{path} runs against {runs_where}, not {where} (a chNN_ program runs against "
                f"stage NN + 1, other book programs against main){hint}")
    return f"no output of {path} recorded for {where} (run scripts/book, which builds and runs it)"


def program_path(name: str) -> str:
    for book_program in (f"book/examples/{name}.cpp", f"book/examples/{name}.py"):
        if (ROOT / book_program).is_file():
            return book_program
    return f"examples/{name}.cpp"


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


def render_count_tests(args: list, kwargs: dict, page: int | None) -> str:
    """How many tests a suite or a test file has at the page's stage (or stage=)."""
    suite = kwargs.pop("suite", None)
    file = kwargs.pop("file", None)
    stage = kwargs.pop("stage", page)
    if args or kwargs or (suite is None) == (file is None):
        raise kael_source.ReferenceError('count_tests() takes suite="Name" or file="tests/test_x.cpp", '
                                         'and optionally stage=N')
    cases = kael_source.find_tests(ROOT, stage)
    count = sum(1 for case in cases.values()
                if (suite is not None and case.full_name.split(".")[0] == suite) or case.path == file)
    if count == 0:
        where = "main" if stage is None else f"stage {stage}"
        raise kael_source.ReferenceError(f"no test of {suite or file} exists at {where}")
    return str(count)


def render_cell(args: list, kwargs: dict) -> str:
    """One cell of a Markdown table in a results file: the row whose first cell contains
    `row` (exactly one must), the column whose header is `column`."""
    row = kwargs.pop("row", None)
    column = kwargs.pop("column", None)
    if len(args) != 1 or row is None or column is None or kwargs:
        raise kael_source.ReferenceError('cell() takes a path, row= and column=: '
                                         'cell("benchmarks/RESULTS.md", row="softmax", column="kael")')
    file = ROOT / args[0]
    if not file.is_file():
        raise kael_source.ReferenceError(f"file {args[0]} does not exist")
    header, matches = None, []
    for line in file.read_text(encoding="utf-8").splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = cells
        elif not all(set(c) <= set("-: ") for c in cells) and row in cells[0] and column in header:
            matches.append(cells[header.index(column)])
    if len(matches) != 1:
        raise kael_source.ReferenceError(f"{len(matches)} rows of {args[0]} contain {row!r} in a table with a "
                                         f"column {column!r}; exactly one must")
    return matches[0].replace("**", "")


_measurements: dict | None = None


def render_measured(args: list, kwargs: dict) -> str:
    """A measurement made once and kept, with how it was made, in book/measurements.toml."""
    global _measurements
    if len(args) != 1 or kwargs:
        raise kael_source.ReferenceError('measured() takes one name: measured("softmax-row-max-before")')
    if _measurements is None:
        import tomllib
        _measurements = tomllib.loads((ROOT / "book" / "measurements.toml").read_text(encoding="utf-8"))
    entry = _measurements.get(args[0])
    if entry is None:
        raise kael_source.ReferenceError(f"book/measurements.toml has no measurement {args[0]!r}")
    for key in ("value", "what", "command", "date", "machine"):
        if key not in entry:
            raise kael_source.ReferenceError(f"measurement {args[0]!r} in book/measurements.toml lacks {key}")
    unit = entry.get("unit", "")
    return f"{entry['value']} {unit}".strip()


def render_include(args: list, kwargs: dict) -> str:
    """A Markdown file inserted as it is: benchmark results a script wrote, or an exercise's
    task. level=N moves every heading so that the file's first one has level N, for a file
    that starts with its own title (#) placed under the page's title."""
    level = kwargs.pop("level", None)
    if len(args) != 1 or kwargs:
        raise kael_source.ReferenceError('include() takes one path and optionally level=N: '
                                         'include("benchmarks/RESULTS.md")')
    file = ROOT / args[0]
    if not file.is_file():
        raise kael_source.ReferenceError(f"file {args[0]} does not exist")
    text = file.read_text(encoding="utf-8").strip()
    return text if level is None else shift_headings(text, level)


def shift_headings(text: str, level: int) -> str:
    """Moves the ATX headings of a Markdown text (those outside code fences) so that the
    first has the given level; the others keep their level relative to it."""
    lines, fence, shift = text.split("\n"), None, None
    for i, line in enumerate(lines):
        opening = re.match(r"\s*(`{3,}|~{3,})", line)
        if opening:
            if fence is None:
                fence = opening.group(1)
            elif line.strip().startswith(fence):
                fence = None
            continue
        heading = re.match(r"(#{1,6}) ", line)
        if fence is None and heading:
            if shift is None:
                shift = level - len(heading.group(1))
            new = len(heading.group(1)) + shift
            if not 1 <= new <= 6:
                raise kael_source.ReferenceError(f"level={level} moves a heading to level {new}")
            lines[i] = "#" * new + line[len(heading.group(1)):]
    return "\n".join(lines)


def changed_headers(names: object, stage: int) -> list[str]:
    """The public headers that `changed=[...]` names ("kael/device.h"), each checked: it
    exists before the page's stage, and the stage really changes it (its text at the stage
    differs from its text at the stage before)."""
    if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
        raise kael_source.ReferenceError('changed= takes a list of header names: changed=["kael/device.h"]')
    headers = []
    for name in names:
        path = f"kael/include/{name}"
        if not (ROOT / path).is_file():
            raise kael_source.ReferenceError(f"changed= names {name}, which is not a public header ({path})")
        introduced = manifest().introduced_in(path)
        if introduced >= stage:
            raise kael_source.ReferenceError(f"changed= names {name}, which stage {introduced} adds: "
                                             f"{'it is listed as added' if introduced == stage else 'it does not exist yet'}")
        before = kael_source.read_source(ROOT, path, stage - 1)
        if kael_source.read_source(ROOT, path, stage) == before:
            raise kael_source.ReferenceError(f"changed= names {name}, which stage {stage} does not change")
        headers.append(path)
    return headers


def render_api_reference(args: list, kwargs: dict, page_path: str, stage: int | None,
                         docs_dir: pathlib.Path) -> str:
    """One line linking the Doxygen page of every public header the page's stage adds, and
    of the existing headers it changes that `changed=[...]` names. The pages' names come from
    Doxygen's tag file, so a header without one fails the build."""
    changed = kwargs.pop("changed", [])
    if args or kwargs:
        raise kael_source.ReferenceError('api_reference() takes no arguments but changed=["kael/x.h", ...]')
    if stage is None:
        raise kael_source.ReferenceError("api_reference() belongs on a chapter page")
    headers = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "kael" / "include").rglob("*.h")
                     if manifest().introduced_in(p.relative_to(ROOT).as_posix()) == stage)
    changes = changed_headers(changed, stage)
    if not headers and not changes:
        raise kael_source.ReferenceError(f"stage {stage} adds no public header; name the ones it changes "
                                         f'with changed=["kael/x.h", ...]')
    tag = docs_dir / "api" / "kael.tag"
    if not tag.is_file():
        raise kael_source.ReferenceError(f"no API reference in {docs_dir / 'api'} "
                                         f"(scripts/book runs Doxygen and copies it there)")
    pages = {}
    for compound in ElementTree.parse(tag).getroot().iter("compound"):
        if compound.get("kind") == "file":
            full = f"{compound.findtext('path')}{compound.findtext('name')}"
            pages[full.replace(os.sep, "/")] = compound.findtext("filename")

    def linked(paths: list[str]) -> str:
        links = []
        for header in paths:
            page = next((f for full, f in pages.items() if full.endswith("/" + header)), None)
            if page is None:
                raise kael_source.ReferenceError(f"the API reference has no page for {header}")
            link = os.path.relpath(f"api/{page}", os.path.dirname(page_path)).replace(os.sep, "/")
            links.append(f"[`{header.removeprefix('kael/include/')}`]({link})")
        return ", ".join(links)

    index = os.path.relpath("api/index.html", os.path.dirname(page_path)).replace(os.sep, "/")
    every = f"([all headers, by stage]({index}#stage-{stage}))"
    if not changes:
        return f"**API reference** for the headers this chapter adds: {linked(headers)} {every}."
    if not headers:
        return (f"**API reference** for the headers this chapter changes (it adds none): "
                f"{linked(changes)} {every}.")
    return (f"**API reference** for the headers this chapter adds: {linked(headers)}; and for those it "
            f"changes: {linked(changes)} {every}.")


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
            language = "cmake" if path.endswith("CMakeLists.txt") else "python" if path.endswith(".py") else "cpp"
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
    global _tests, _measurements
    _errors.clear()
    _measurements = None
    _tests_by_stage.clear()
    _tests = kael_source.find_tests(ROOT)
    write_test_pages(pathlib.Path(config["docs_dir"]), _tests)


def on_page_markdown(markdown, page, config, files, **kwargs):
    page_path = page.file.src_uri if hasattr(page.file, "src_uri") else page.file.src_path
    stage = page_stage(page_path)

    def replace(match: re.Match) -> str:
        kind, raw = match.group(1), match.group(2)
        try:
            args, kwargs_ = parse_arguments(raw)
            if kind == "code":
                return render_code(args, kwargs_, stage)
            if kind == "test":
                return render_test(args, kwargs_, page_path, _tests, stage)
            if kind == "output":
                return render_output(args, kwargs_, stage)
            if kind == "include":
                return render_include(args, kwargs_)
            if kind == "count_tests":
                return render_count_tests(args, kwargs_, stage)
            if kind == "cell":
                return render_cell(args, kwargs_)
            if kind == "measured":
                return render_measured(args, kwargs_)
            if kind == "api_reference":
                return render_api_reference(args, kwargs_, page_path, stage,
                                            pathlib.Path(config["docs_dir"]))
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

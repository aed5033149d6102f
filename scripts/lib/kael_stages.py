"""The stage manifest and the stage markers: how every stage's tree is derived from main.

main holds the final library. A file enters the tree at the stage that the manifest
(chapters/stages.toml) says introduces it, and inside a file, whole-line markers decide
which lines exist at which stage (shown here in quotes, so that this text is not itself
read as markers):

    "//> stage 9" ... "//< stage 9"   the lines between exist from stage 9 on
    "//> until 9" ... "//< until 9"   the lines between exist only before stage 9; each is
                                      written commented out, after "//| ", so the final
                                      build ignores it

CMake, Python and TOML files use "#" instead of "//". The parser is strict: every
malformed, unbalanced or pointless marker is an error that names the file and line.
"""
from __future__ import annotations

import dataclasses
import hashlib
import pathlib
import re
import subprocess
import tomllib

MANIFEST = pathlib.PurePosixPath("chapters/stages.toml")


class StageError(Exception):
    """A problem in the manifest or in a file's markers, located by file and line."""

    def __init__(self, path: str, line: int | None, message: str):
        self.path, self.line, self.message = path, line, message
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {message}")


# ---------------------------------------------------------------------------------------
# The manifest


@dataclasses.dataclass(frozen=True)
class Stage:
    number: int
    slug: str
    title: str
    page: str
    summary: str
    ready: bool
    files: tuple[str, ...]

    @property
    def tag(self) -> str:
        return f"chapter-{self.number:02d}-{self.slug}"

    @property
    def chapter(self) -> int:
        """The book chapter that describes this stage: stage N is chapter N - 1."""
        return self.number - 1


@dataclasses.dataclass(frozen=True)
class Manifest:
    stages: tuple[Stage, ...]
    tooling: tuple[str, ...]

    @staticmethod
    def parse(text: str) -> "Manifest":
        where = str(MANIFEST)
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise StageError(where, None, f"invalid TOML: {error}") from error
        stages = []
        for position, entry in enumerate(data.get("stage", []), start=1):
            try:
                stage = Stage(
                    number=int(entry["number"]),
                    slug=str(entry["slug"]),
                    title=str(entry["title"]),
                    page=str(entry["page"]),
                    summary=str(entry["summary"]),
                    ready=bool(entry["ready"]),
                    files=tuple(entry.get("files", [])),
                )
            except KeyError as missing:
                raise StageError(where, None, f"stage entry {position} lacks {missing}") from None
            if stage.number != position:
                raise StageError(where, None, f"stage entry {position} has number {stage.number}; "
                                 "stages must be numbered 1, 2, 3, ... in order")
            if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", stage.slug):
                raise StageError(where, None, f"stage {stage.number} has an invalid slug {stage.slug!r}")
            stages.append(stage)
        if not stages:
            raise StageError(where, None, "the manifest lists no stages")
        ready = [s.ready for s in stages]
        if ready[0] is False or ready != sorted(ready, reverse=True):
            raise StageError(where, None, "ready stages must form an unbroken run from stage 1")
        tooling = tuple(data.get("tooling", {}).get("paths", []))
        return Manifest(tuple(stages), tooling)

    @staticmethod
    def load(root: pathlib.Path) -> "Manifest":
        return Manifest.parse((root / MANIFEST).read_text(encoding="utf-8"))

    @property
    def last(self) -> int:
        return len(self.stages)

    @property
    def ready_stages(self) -> tuple[Stage, ...]:
        return tuple(s for s in self.stages if s.ready)

    def stage(self, number: int) -> Stage:
        if not 1 <= number <= self.last:
            raise StageError(str(MANIFEST), None, f"there is no stage {number} (stages are 1..{self.last})")
        return self.stages[number - 1]

    def is_tooling(self, path: str) -> bool:
        """True for the project's machinery: a file [tooling] covers and no stage claims more
        specifically (stage 13 names scripts/lib/gpt2_reference.py inside tooling's scripts/lib/)."""
        tooling = [_specificity(entry) for entry in self.tooling if _covers(entry, path)]
        staged = [_specificity(entry) for s in self.stages for entry in s.files if _covers(entry, path)]
        return bool(tooling) and (not staged or max(tooling) > max(staged))

    def introduced_in(self, path: str) -> int:
        """The stage that introduces a file. Raises StageError unless exactly one does.

        The most specific entry decides: a file named exactly wins over a folder that holds
        it, and a deeper folder over a shallower one, so a later stage can add one file to a
        folder an earlier stage introduced (stage 8 adds kael/src/autograd/move.cpp). Two
        entries of the same specificity for one file are a mistake.
        """
        owners = [(_specificity(entry), s.number) for s in self.stages for entry in s.files if _covers(entry, path)]
        owners += [(_specificity(entry), 0) for entry in self.tooling if _covers(entry, path)]
        if not owners:
            raise StageError(path, None, f"no stage introduces this file; add it to a stage's files "
                             f"in {MANIFEST}, or to [tooling]")
        best = max(rank for rank, _ in owners)
        winners = [number for rank, number in owners if rank == best]
        if len(winners) > 1:
            names = ", ".join("tooling" if n == 0 else f"stage {n}" for n in winners)
            raise StageError(path, None, f"listed more than once in {MANIFEST} ({names})")
        return winners[0]


def _specificity(entry: str) -> tuple[int, int]:
    """How closely an entry names a file: exact paths first, then deeper folders."""
    return (0 if entry.endswith("/") else 1, entry.count("/"))


def _covers(entry: str, path: str) -> bool:
    return path.startswith(entry) if entry.endswith("/") else path == entry


# ---------------------------------------------------------------------------------------
# Markers

_COMMENT_BY_SUFFIX = {".h": "//", ".hpp": "//", ".cpp": "//", ".cc": "//", ".cu": "//",
                      ".cuh": "//", ".cmake": "#", ".py": "#", ".toml": "#", ".in": "#",
                      ".sh": "#"}


def comment_prefix(path: str) -> str | None:
    """The comment that introduces markers in this file, or None where markers are not allowed."""
    name = pathlib.PurePosixPath(path).name
    if name == "CMakeLists.txt":
        return "#"
    suffix = pathlib.PurePosixPath(path).suffix
    if suffix in _COMMENT_BY_SUFFIX:
        return _COMMENT_BY_SUFFIX[suffix]
    if suffix == "" and path.startswith("scripts/"):
        return "#"  # shell and Python scripts without an extension
    return None


@dataclasses.dataclass(frozen=True)
class _Block:
    kind: str  # "stage" or "until"
    number: int
    line: int


class _Patterns:
    def __init__(self, prefix: str):
        p = re.escape(prefix)
        self.marker = re.compile(rf"^\s*{p}([<>]) (stage|until) ([0-9]+)\s*$")
        self.old_line = re.compile(rf"^(\s*){p}\|(.*)$")
        # Anything that looks like an attempt at a marker but is not one exactly.
        self.suspicious = re.compile(rf"^\s*{p}(\s*[<>]\s*(stage|until)\b|[<>|])")


_PATTERNS: dict[str, _Patterns] = {}


def _patterns(prefix: str) -> _Patterns:
    if prefix not in _PATTERNS:
        _PATTERNS[prefix] = _Patterns(prefix)
    return _PATTERNS[prefix]


def render(path: str, text: str, stage: int, *, introduced: int = 1, last: int = 14) -> str:
    """The text of a file as it exists at `stage`, markers removed and old lines restored.

    Raises StageError for any malformed or unbalanced marker. `introduced` is the stage
    that introduces the file (a block for an earlier stage would be pointless), and
    `last` is the final stage number.
    """
    prefix = comment_prefix(path)
    lines = text.split("\n")
    if prefix is None:
        return text
    pat = _patterns(prefix)
    out: list[str] = []
    stack: list[_Block] = []

    def present() -> bool:
        return all(stage >= b.number if b.kind == "stage" else stage < b.number for b in stack)

    for number, line in enumerate(lines, start=1):
        marker = pat.marker.match(line)
        if marker:
            direction, kind, value = marker.group(1), marker.group(2), int(marker.group(3))
            if direction == ">":
                _check_open(path, number, kind, value, stack, introduced, last, prefix)
                stack.append(_Block(kind, value, number))
            else:
                if not stack:
                    raise StageError(path, number, f"closing marker '{kind} {value}' has no open block")
                top = stack[-1]
                if (top.kind, top.number) != (kind, value):
                    raise StageError(path, number, f"closing marker '{kind} {value}' does not match "
                                     f"'{top.kind} {top.number}' opened at line {top.line}")
                if _is_empty(lines, top.line, number):
                    raise StageError(path, top.line, f"block '{kind} {value}' is empty")
                stack.pop()
            continue
        if pat.suspicious.match(line):
            if not pat.old_line.match(line):
                raise StageError(path, number, f"malformed marker {line.strip()!r}; markers are "
                                 f"'{prefix}> stage N', '{prefix}< stage N', '{prefix}> until N', "
                                 f"'{prefix}< until N' and '{prefix}| old line'")
        old = pat.old_line.match(line)
        inside_until = bool(stack) and stack[-1].kind == "until"
        if old:
            if not inside_until:
                raise StageError(path, number, f"'{prefix}|' line outside an until block")
            indent, rest = old.group(1), old.group(2)
            if rest and not rest.startswith(" "):
                raise StageError(path, number, f"'{prefix}|' must be followed by a space")
            if present():
                out.append(indent + rest[1:] if rest else "")
            continue
        if inside_until:
            raise StageError(path, number, f"every line inside an until block starts with "
                             f"'{prefix}| ' (the old code, commented out)")
        if present():
            out.append(line)
    if stack:
        top = stack[-1]
        raise StageError(path, top.line, f"block '{top.kind} {top.number}' is never closed")
    return "\n".join(out)


def _check_open(path, number, kind, value, stack, introduced, last, prefix):
    if not 1 <= value <= last:
        raise StageError(path, number, f"stage {value} does not exist (stages are 1..{last})")
    if stack and stack[-1].kind == "until":
        raise StageError(path, number, "markers cannot nest inside an until block")
    floor = max([b.number for b in stack if b.kind == "stage"] + [introduced])
    if kind == "stage" and value <= floor:
        raise StageError(path, number, f"'stage {value}' block has no effect: its lines already "
                         f"exist from stage {floor} on")
    if kind == "until" and value <= floor:
        raise StageError(path, number, f"'until {value}' block is never present: the enclosing "
                         f"code starts at stage {floor}")


def _is_empty(lines: list[str], open_line: int, close_line: int) -> bool:
    return close_line == open_line + 1


def strip_to_final(path: str, text: str, last: int = 14) -> str:
    """The file as the final stage sees it: markers and old lines removed."""
    return render(path, text, last, last=last)


# ---------------------------------------------------------------------------------------
# Sources: the working tree, or a committed revision


@dataclasses.dataclass(frozen=True)
class SourceFile:
    path: str
    executable: bool


class Source:
    """Where file contents come from: the working tree (rev None) or a git revision."""

    def __init__(self, root: pathlib.Path, rev: str | None = None):
        self.root, self.rev = root, rev

    def _git(self, *args: str, stdin: bytes | None = None) -> bytes:
        return subprocess.run(["git", *args], cwd=self.root, input=stdin, check=True,
                              capture_output=True).stdout

    def files(self) -> list[SourceFile]:
        if self.rev is None:
            # Tracked files plus new ones that are not ignored, so a file still to be added
            # is already checked.
            names = self._git("ls-files", "-z", "--cached", "--others", "--exclude-standard")
            result = []
            for name in sorted(set(names.decode().split("\0")) - {""}):
                full = self.root / name
                if full.is_file():
                    result.append(SourceFile(name, bool(full.stat().st_mode & 0o111)))
            return result
        listing = self._git("ls-tree", "-r", "-z", self.rev).decode().split("\0")
        result = []
        for entry in filter(None, listing):
            meta, name = entry.split("\t", 1)
            mode, kind, _ = meta.split()
            if kind == "blob":
                result.append(SourceFile(name, mode == "100755"))
        return sorted(result, key=lambda f: f.path)

    def read_bytes(self, path: str) -> bytes:
        if self.rev is None:
            return (self.root / path).read_bytes()
        return self._git("show", f"{self.rev}:{path}")

    def read(self, path: str) -> str:
        return self.read_bytes(path).decode("utf-8")


# ---------------------------------------------------------------------------------------
# Stage trees


def check_all(root: pathlib.Path, source: Source | None = None) -> list[StageError]:
    """Every problem with the manifest and the markers, for the whole source."""
    source = source or Source(root)
    manifest = Manifest.parse(source.read(str(MANIFEST)))
    problems: list[StageError] = []
    paths = {f.path for f in source.files()}
    for stage in manifest.stages:
        for entry in stage.files:
            if not any(_covers(entry, p) for p in paths):
                problems.append(StageError(str(MANIFEST), None,
                                           f"stage {stage.number} lists {entry!r}, which does not exist"))
    for path in sorted(paths):
        try:
            introduced = manifest.introduced_in(path)
            if introduced == 0 or comment_prefix(path) is None:
                continue
            render(path, source.read(path), manifest.last, introduced=introduced, last=manifest.last)
        except StageError as error:
            problems.append(error)
        except UnicodeDecodeError:
            continue
    return problems


def stage_tree(root: pathlib.Path, number: int, source: Source | None = None) -> dict[str, tuple[bytes, bool]]:
    """The files of stage `number`: path -> (content, executable)."""
    source = source or Source(root)
    manifest = Manifest.parse(source.read(str(MANIFEST)))
    stage = manifest.stage(number)
    tree: dict[str, tuple[bytes, bool]] = {}
    for f in source.files():
        introduced = manifest.introduced_in(f.path)
        if introduced == 0 or introduced > number:
            continue
        prefix = comment_prefix(f.path)
        if prefix is None:
            content = source.read_bytes(f.path)
        else:
            content = render(f.path, source.read(f.path), number, introduced=introduced,
                             last=manifest.last).encode("utf-8")
        tree[f.path] = (content, f.executable)
    tree["README.md"] = (stage_readme(manifest, stage).encode("utf-8"), False)
    tree[".gitignore"] = (b"/build/\n", False)
    return tree


def stage_readme(manifest: Manifest, stage: Stage) -> str:
    rows = "\n".join(f"| {s.number} | `{s.tag}` | {s.chapter:02d} {s.title} |"
                     for s in manifest.stages if s.number <= stage.number)
    has_exercises = any(e.startswith("exercises/") for s in manifest.stages
                        if s.number <= stage.number for e in s.files)
    exercises = ""
    if has_exercises:
        exercises = """
## Exercises

Each exercise under `exercises/` has a task text (`README.md`), a stub for you to fill in
(`exercise.cpp`), its tests, and a reference solution. Run one against your stub with

    scripts/exercise <name>          for example: scripts/exercise parse-version

and compare with the reference solution with `scripts/exercise --solution <name>`.
"""
    return f"""# kael, stage {stage.number}: {stage.title}

This is `{stage.tag}`: kael as it stands at the end of book chapter
{stage.chapter:02d}, "{stage.title}". kael is a deep learning framework in C++20 that is also a
book; this tree was generated from the main branch by `scripts/tag-chapters`, with the code
that later chapters add left out.

What this stage adds: {stage.summary}

The chapter is `book/docs/{stage.page}` on the main branch.

## Build and test

Needs CMake 3.25 or newer, g++ 12 and GoogleTest (on Debian 12:
`apt-get install cmake g++ libgtest-dev libgmock-dev`).

    cmake -S . -B build -DKAEL_WARNINGS_AS_ERRORS=ON
    cmake --build build -j 2
    ctest --test-dir build --output-on-failure
{exercises}
## The stages so far

| stage | tag | book chapter |
|---|---|---|
{rows}
"""


def write_tree(tree: dict[str, tuple[bytes, bool]], target: pathlib.Path) -> tuple[int, int]:
    """Writes a stage tree into `target`, touching only files whose content changed (so an
    incremental build there recompiles only what changed) and removing files that an
    earlier write left but this tree lacks. Returns (written, removed)."""
    record = target / ".kael-stage-files"
    previous = set(record.read_text().split("\n")) - {""} if record.exists() else set()
    written = removed = 0
    for path, (content, executable) in sorted(tree.items()):
        full = target / path
        if not full.exists() or full.read_bytes() != content:
            full.parent.mkdir(parents=True, exist_ok=True)
            full.write_bytes(content)
            written += 1
        mode = 0o755 if executable else 0o644
        if full.stat().st_mode & 0o777 != mode:
            full.chmod(mode)
    for path in sorted(previous - set(tree)):
        full = target / path
        if full.exists():
            full.unlink()
            removed += 1
    record.write_text("\n".join(sorted(tree)) + "\n")
    return written, removed


# ---------------------------------------------------------------------------------------
# The book's programs: which build runs each one

BOOK_PROGRAMS = "book/examples"
_CHAPTER_PROGRAM = re.compile(r"ch([0-9]{2})_\w+")


def program_stage(manifest: Manifest, path: str) -> int | None:
    """The stage whose build runs a program whose output the book shows; None for main.

    A chapter must show what a reader at its tag gets, so book/examples/chNN_<topic>.cpp
    (or .py, run with the stage's Python module) runs against stage NN + 1, the stage chapter NN describes, and a program of the
    library's own examples/ against the stage that introduces it. The other book programs
    (the design records') run against main, as the pages that show them describe main.
    """
    name = pathlib.PurePosixPath(path).stem
    if path.startswith(BOOK_PROGRAMS + "/"):
        chapter = _CHAPTER_PROGRAM.fullmatch(name)
        return manifest.stage(int(chapter.group(1)) + 1).number if chapter else None
    return manifest.introduced_in(path)


def shown_examples(root: pathlib.Path) -> set[str]:
    """The programs of examples/ whose output a page shows with {{ output("name") }}. The
    others (a training run of a minute, say) are built and tested by CMake, not run here."""
    shown = set()
    for page in (root / "book" / "docs").rglob("*.md"):
        shown.update(re.findall(r'output\(\s*"([^"]+)"', page.read_text(encoding="utf-8")))
    return shown


def book_programs(root: pathlib.Path, stage: int | None) -> list[str]:
    """The programs run against `stage` (None: main), as paths relative to the root."""
    manifest = Manifest.load(root)
    shown = shown_examples(root)
    candidates = sorted(root.glob(f"{BOOK_PROGRAMS}/*.cpp")) + sorted(root.glob(f"{BOOK_PROGRAMS}/*.py")) + sorted(
        c for c in root.glob("examples/*.cpp") if c.stem in shown)
    paths = [c.relative_to(root).as_posix() for c in candidates]
    return [p for p in paths if program_stage(manifest, p) == stage]


# ---------------------------------------------------------------------------------------
# Proofs: what scripts/prove-stages --record leaves in chapters/proofs/stage-N
#
# A stage's proof is its build, its tests and its chapter's programs, run on the stage's
# own tree. Proving every stage takes longer than CI's budget, so the full proof is run
# before a change is committed (scripts/prove-stages --record) and leaves, per stage, the
# digest of what it proved and the outputs the book shows. CI then checks that every
# digest still matches (a stage whose tree changed must be proven again) and proves a few
# stages itself (ci_stages); the book takes the other chapters' outputs from the record.

PROOFS = pathlib.PurePosixPath("chapters/proofs")
BOOK_PROGRAMS_BUILD = "book/examples/CMakeLists.txt"


def proof_digest(root: pathlib.Path, number: int, source: Source | None = None) -> str:
    """The SHA-256 of everything the proof of stage `number` depends on: every file of its
    tree (path, mode and content) and the book programs its chapter runs."""
    source = source or Source(root)
    digest = hashlib.sha256()

    def add(path: str, content: bytes, executable: bool) -> None:
        digest.update(f"{path}\0{'x' if executable else '-'}\0".encode())
        digest.update(hashlib.sha256(content).digest())

    for path, (content, executable) in sorted(stage_tree(root, number, source).items()):
        add(path, content, executable)
    for path in [BOOK_PROGRAMS_BUILD] + book_programs(root, number):
        if path.startswith("book/"):  # examples/ programs are in the tree already
            add(path, source.read_bytes(path), False)
        else:
            add(path, b"", False)  # which programs run is part of the proof too
    return digest.hexdigest()


def proof_dir(number: int) -> pathlib.PurePosixPath:
    return PROOFS / f"stage-{number}"


def stale_proofs(root: pathlib.Path, numbers: list[int] | None = None) -> list[str]:
    """One line for each ready stage (or each of `numbers`) whose recorded proof is missing
    or was made for another tree than the stage has now."""
    manifest = Manifest.load(root)
    problems = []
    for n in numbers or [s.number for s in manifest.ready_stages]:
        recorded = root / proof_dir(n) / "tree.sha256"
        if not recorded.exists():
            problems.append(f"stage {n} has no recorded proof ({recorded.relative_to(root)} is missing)")
        elif recorded.read_text().strip() != proof_digest(root, n):
            problems.append(f"stage {n} changed since its proof was recorded")
    return problems


def ci_chapters(root: pathlib.Path) -> list[int]:
    """The chapter CI replays: one ready chapter picked by HEAD's hash, so that over many
    commits every chapter is replayed. (While stages were still being written, CI also
    replayed the newest; with every stage complete and its proof recorded, one replay per
    run keeps CI within its budget: a late chapter's pair of stages costs some ten minutes
    to build from an empty cache.)"""
    chapters = [s.chapter for s in Manifest.load(root).ready_stages]
    head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    return [chapters[int(head[:8] or "0", 16) % len(chapters)]]


def ci_stages(root: pathlib.Path) -> list[int]:
    """The stages CI proves itself: the two the replayed chapter goes from and to (chapter N
    starts at stage N and ends at stage N + 1), so the replay finds its objects in the
    cache. Every other stage's proof is the recorded one, checked by its digest."""
    ready = {s.number for s in Manifest.load(root).ready_stages}
    picked = {n for c in ci_chapters(root) for n in (c, c + 1)}
    return sorted(picked & ready)


if __name__ == "__main__":
    import sys

    root = pathlib.Path(__file__).resolve().parent.parent.parent
    if sys.argv[1:] == ["ready-stages"]:
        print(" ".join(str(s.number) for s in Manifest.load(root).ready_stages))
    elif sys.argv[1:] == ["ci-stages"]:
        print(" ".join(str(n) for n in ci_stages(root)))
    elif sys.argv[1:] == ["ci-chapters"]:
        print(" ".join(f"{c:02d}" for c in ci_chapters(root)))
    elif len(sys.argv) == 3 and sys.argv[1] == "proof-digest":
        print(proof_digest(root, int(sys.argv[2])))
    elif sys.argv[1:2] == ["check-proofs"]:
        # "check-proofs" for every ready stage, or "check-proofs N ...".
        problems = stale_proofs(root, [int(n) for n in sys.argv[2:]] or None)
        for problem in problems:
            print(f"{problem}: run scripts/prove-stages --record", file=sys.stderr)
        sys.exit(1 if problems else 0)
    elif len(sys.argv) == 3 and sys.argv[1] == "book-programs":
        # "book-programs N" or "book-programs main": one path per line.
        which = sys.argv[2]
        for path in book_programs(root, None if which == "main" else int(which)):
            print(path)  # none at all for a stage whose chapter runs no program
    else:
        sys.exit("usage: kael_stages.py ready-stages | ci-stages | ci-chapters | book-programs N|main\n"
                 "       | proof-digest N | check-proofs [N ...]")

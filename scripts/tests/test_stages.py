"""Tests of the stage markers, the manifest, and the tools built on them."""
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "lib"))
import kael_stages  # noqa: E402
from kael_stages import StageError, render  # noqa: E402

CODE = """\
int a;
//> stage 5
int b;
//> until 9
//| int c_old;
//|     int indented;
//|
//< until 9
//> stage 9
int c;
//< stage 9
//< stage 5
"""


def test_lines_appear_from_their_stage_and_old_lines_until_theirs():
    assert render("x.cpp", CODE, 4) == "int a;\n"
    assert render("x.cpp", CODE, 5) == "int a;\nint b;\nint c_old;\n    int indented;\n\n"
    assert render("x.cpp", CODE, 9) == "int a;\nint b;\nint c;\n"
    assert render("x.cpp", CODE, 14) == render("x.cpp", CODE, 9)


def test_cmake_files_use_hash_markers():
    text = "a()\n#> stage 2\nb()\n#< stage 2\n"
    assert render("CMakeLists.txt", text, 1) == "a()\n"
    assert render("sub/CMakeLists.txt", text, 2) == text.replace("#> stage 2\n", "").replace("#< stage 2\n", "")


@pytest.mark.parametrize("text, line, message", [
    ("//> stage 3\nx\n", 1, "never closed"),
    ("x\n//< stage 3\n", 2, "has no open block"),
    ("//> stage 3\nx\n//< stage 4\n", 3, "does not match 'stage 3' opened at line 1"),
    ("//> stage 15\nx\n//< stage 15\n", 1, "stage 15 does not exist"),
    ("//>stage 3\nx\n", 1, "malformed marker"),
    ("//> Stage 3\nx\n", 1, "malformed marker"),
    ("//> stage\n", 1, "malformed marker"),
    ("//| old\n", 1, "outside an until block"),
    ("//> until 4\nx\n//< until 4\n", 2, "starts with '//| '"),
    ("//> until 4\n//|x\n//< until 4\n", 2, "followed by a space"),
    ("//> stage 5\n//> stage 4\nx\n//< stage 4\n//< stage 5\n", 2, "has no effect"),
    ("//> stage 5\n//> until 5\n//| x\n//< until 5\n//< stage 5\n", 2, "never present"),
    ("//> stage 5\n//< stage 5\n", 1, "is empty"),
    ("//> until 6\n//> stage 7\n", 2, "cannot nest inside an until block"),
])
def test_bad_markers_fail_with_file_and_line(text, line, message):
    with pytest.raises(StageError) as caught:
        render("kael/x.cpp", text, 14)
    assert caught.value.path == "kael/x.cpp" and caught.value.line == line
    assert message in caught.value.message
    assert str(caught.value).startswith(f"kael/x.cpp:{line}: ")


def test_block_for_a_stage_before_the_file_exists_is_pointless():
    with pytest.raises(StageError, match="no effect"):
        render("x.cpp", "//> stage 3\nx\n//< stage 3\n", 14, introduced=3)


def test_files_without_a_comment_syntax_are_copied_verbatim():
    assert render("notes.md", "//> stage 99 is just text\n", 1) == "//> stage 99 is just text\n"


def test_manifest_rules():
    good = kael_stages.Manifest.load(ROOT)
    assert [s.number for s in good.stages] == list(range(1, 15))
    assert good.stage(3).tag == "chapter-03-core"
    assert good.introduced_in("kael/include/kael/tensor.h") == 3
    assert good.introduced_in("book/mkdocs.yml") == 0
    with pytest.raises(StageError, match="no stage introduces"):
        good.introduced_in("kael/src/unknown.cpp")
    broken = (ROOT / "chapters/stages.toml").read_text().replace("number = 2", "number = 7", 1)
    with pytest.raises(StageError, match="numbered 1, 2, 3"):
        kael_stages.Manifest.parse(broken)


def test_repository_markers_are_consistent():
    assert kael_stages.check_all(ROOT) == []


def test_stage_trees_grow_and_leave_later_code_out(tmp_path):
    one = kael_stages.stage_tree(ROOT, 1)
    three = kael_stages.stage_tree(ROOT, 3)
    assert "kael/include/kael/error.h" in one and "kael/include/kael/shape.h" not in one
    assert set(one) < set(three)
    error_h = three["kael/include/kael/error.h"][0].decode()
    assert "using ValueError = Error;" in error_h and "//" + "|" not in error_h
    assert not any(b"//> stage" in content or b"#> stage" in content for content, _ in three.values())
    # Writing stage 3 over stage 1 rewrites only what differs; going back removes files.
    written, removed = kael_stages.write_tree(three, tmp_path)
    assert (written, removed) == (len(three), 0)
    assert kael_stages.write_tree(three, tmp_path) == (0, 0)
    written, removed = kael_stages.write_tree(one, tmp_path)
    assert removed == len(set(three) - set(one)) and not (tmp_path / "kael/src/core/shape.cpp").exists()


def test_tag_chapters_is_idempotent_and_leaves_main_alone(tmp_path):
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--no-local", str(ROOT), str(clone)], check=True)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=clone, capture_output=True, text=True).stdout
    first = subprocess.run([str(clone / "scripts/tag-chapters")], cwd=clone, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    second = subprocess.run([str(clone / "scripts/tag-chapters")], cwd=clone, capture_output=True, text=True)
    assert second.returncode == 0 and "(created)" not in second.stdout and "(updated)" not in second.stdout
    assert subprocess.run(["git", "rev-parse", "HEAD"], cwd=clone, capture_output=True, text=True).stdout == head
    ready = kael_stages.Manifest.load(ROOT).ready_stages
    for stage in ready:
        listing = subprocess.run(["git", "ls-tree", "-r", "--name-only", stage.tag], cwd=clone,
                                 capture_output=True, text=True, check=True).stdout.split()
        committed = kael_stages.stage_tree(clone, stage.number, kael_stages.Source(clone, "HEAD"))
        assert sorted(listing) == sorted(committed)


class EditedSource(kael_stages.Source):
    """The working tree with a line appended to one file."""

    def __init__(self, root: pathlib.Path, path: str):
        super().__init__(root)
        self.path = path

    def read_bytes(self, path: str) -> bytes:
        content = super().read_bytes(path)
        return content + b"// an edit\n" if path == self.path else content


@pytest.mark.parametrize("path", ["kael/src/core/shape.cpp", "book/examples/ch02_core.cpp"])
def test_a_proof_digest_changes_with_its_stage_and_not_with_later_code(path):
    manifest = kael_stages.Manifest.load(ROOT)
    if path.startswith("book/"):  # a chapter's program belongs to that chapter's stage only
        changed = {kael_stages.program_stage(manifest, path)}
    else:  # a library file is in its stage's tree and every later one
        changed = set(range(manifest.introduced_in(path), manifest.last + 1))
    edited = EditedSource(ROOT, path)
    for n in range(1, manifest.last + 1):
        same = kael_stages.proof_digest(ROOT, n) == kael_stages.proof_digest(ROOT, n, edited)
        assert same == (n not in changed), f"stage {n}"

"""Tests of the hook's include(level=N), which puts exercise tasks on the exercises page,
and of api_reference(), which links a chapter to the API reference of its headers."""
import pathlib
import sys

import pytest

HOOKS = pathlib.Path(__file__).resolve().parents[1] / "hooks"
ROOT = HOOKS.parents[1]
sys.path.insert(0, str(HOOKS))
import kael_hook  # noqa: E402
from kael_source import ReferenceError  # noqa: E402

TASK = """# Exercise 01.1: a task

Intro.

## Task

```cpp
# not a heading: inside a fence
```

### Detail
"""


def test_level_moves_every_heading_by_the_same_amount_outside_fences():
    shifted = kael_hook.shift_headings(TASK, 2)
    assert "## Exercise 01.1: a task" in shifted
    assert "\n### Task\n" in shifted
    assert "\n#### Detail" in shifted
    assert "\n# not a heading: inside a fence\n" in shifted


def test_level_refuses_a_heading_deeper_than_six():
    with pytest.raises(ReferenceError, match="level 7"):
        kael_hook.shift_headings("# a\n\n###### b\n", 2)


def test_every_exercise_task_can_be_included_under_the_page_title():
    for readme in sorted(ROOT.glob("exercises/*/*/README.md")):
        text = kael_hook.render_include([readme.relative_to(ROOT).as_posix()], {"level": 2})
        assert text.startswith("## Exercise "), readme
        assert "\n# " not in text, readme


def test_include_without_level_is_unchanged():
    path = next(ROOT.glob("exercises/*/*/README.md")).relative_to(ROOT).as_posix()
    assert kael_hook.render_include([path], {}) == (ROOT / path).read_text(encoding="utf-8").strip()


def write_tag(docs: pathlib.Path, headers: list[str]) -> None:
    (docs / "api").mkdir(parents=True)
    compounds = "".join(
        f'<compound kind="file"><name>{pathlib.PurePosixPath(h).name}</name>'
        f'<path>{ROOT}/{pathlib.PurePosixPath(h).parent}/</path>'
        f'<filename>{pathlib.PurePosixPath(h).stem}_8h.html</filename></compound>'
        for h in headers)
    (docs / "api" / "kael.tag").write_text(f"<tagfile>{compounds}</tagfile>")


def test_api_reference_links_the_headers_of_the_chapters_stage(tmp_path):
    write_tag(tmp_path, ["kael/include/kael/shape.h", "kael/include/kael/checked_math.h",
                         "kael/include/kael/error.h"])
    line = kael_hook.render_api_reference([], {}, "chapters/01-shapes-and-strides.md", 2, tmp_path)
    assert "[`kael/shape.h`](../api/shape_8h.html)" in line
    assert "[`kael/checked_math.h`](../api/checked_math_8h.html)" in line
    assert "error.h" not in line  # stage 1's header belongs to chapter 00
    assert "(../api/index.html#stage-2)" in line


def test_api_reference_fails_for_a_header_without_a_page(tmp_path):
    write_tag(tmp_path, ["kael/include/kael/shape.h"])
    with pytest.raises(ReferenceError, match="checked_math.h"):
        kael_hook.render_api_reference([], {}, "chapters/01-shapes-and-strides.md", 2, tmp_path)


def test_api_reference_needs_the_generated_reference_and_a_chapter(tmp_path):
    with pytest.raises(ReferenceError, match="scripts/book"):
        kael_hook.render_api_reference([], {}, "chapters/01-shapes-and-strides.md", 2, tmp_path)
    with pytest.raises(ReferenceError, match="chapter page"):
        kael_hook.render_api_reference([], {}, "glossary.md", None, tmp_path)

"""Tests of scripts/exercise: every name --list prints is one the script accepts, and every
exercise on disk is listed. A stand-in cmake records what would be built, so these tests
build nothing."""
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "exercise"

FAKE_CMAKE = """#!/bin/sh
# Records its arguments; for --build, writes the target as a program that says its name.
echo "$*" >> "$CMAKE_LOG"
if [ "$1" = "--build" ]; then
  mkdir -p "$2/exercises"
  printf '#!/bin/sh\\necho ran %s\\n' "$4" > "$2/exercises/$4"
  chmod +x "$2/exercises/$4"
fi
"""


@pytest.fixture
def run(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "cmake").write_text(FAKE_CMAKE)
    (bin_dir / "cmake").chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}",
               KAEL_EXERCISES_BUILD=str(tmp_path / "build"), CMAKE_LOG=str(tmp_path / "cmake.log"))

    def run(*args):
        return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, env=env,
                              timeout=60)
    return run


def listed() -> list[str]:
    return subprocess.run([str(SCRIPT), "--list"], capture_output=True, text=True,
                          check=True).stdout.split()


def test_list_shows_every_exercise_directory_once():
    on_disk = sorted(p.parent.name for p in ROOT.glob("exercises/*/*/test.cpp"))
    assert sorted(listed()) == on_disk
    assert len(set(listed())) == len(listed())


@pytest.mark.parametrize("name", listed())
def test_every_listed_name_is_accepted(run, name):
    result = run(name)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"ran exercise_{name}"
    assert run("--solution", name).stdout.strip() == f"ran exercise_{name}_solution"


def test_the_path_under_exercises_is_accepted_too(run):
    name = listed()[0]
    chapter = next(ROOT.glob(f"exercises/*/{name}/")).parent.name
    for spelling in (f"{chapter}/{name}", f"exercises/{chapter}/{name}/"):
        assert run(spelling).stdout.strip() == f"ran exercise_{name}"


def test_an_unknown_name_is_refused_before_anything_is_built(run, tmp_path):
    result = run("no-such-exercise")
    assert result.returncode == 2
    assert "scripts/exercise --list" in result.stderr
    assert not (tmp_path / "cmake.log").exists()


def test_bench_only_where_there_is_a_benchmark(run):
    with_bench = [n for n in listed() if list(ROOT.glob(f"exercises/*/{n}/bench.cpp"))]
    without = [n for n in listed() if n not in with_bench]
    assert with_bench and without
    assert run("--bench", with_bench[0]).stdout.strip() == f"ran exercise_{with_bench[0]}_bench"
    refused = run("--bench", without[0])
    assert refused.returncode == 2 and "no benchmark" in refused.stderr

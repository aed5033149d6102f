"""Tests of the book hook: snippets equal the source, and every broken reference fails."""
import pathlib
import subprocess
import sys
import textwrap

import pytest

HOOKS = pathlib.Path(__file__).resolve().parents[1] / "hooks"
ROOT = HOOKS.parents[1]
sys.path.insert(0, str(HOOKS))
import kael_hook  # noqa: E402
import kael_source  # noqa: E402
from kael_source import ReferenceError  # noqa: E402

SAMPLE = textwrap.dedent("""\
    #include <vector>

    namespace demo {

    // Adds one.
    // Twice documented.
    int add_one(int x) { return x + 1; }

    /// A widget.
    struct Widget {
        int size = 0;
        int area() const {
            return size * size;  // not a brace: '}'
        }
    };

    enum class Color { Red, Green };

    Widget::Widget(int s) : size(s), other{2} {
        call(add_one(s));
    }

    template <typename T>
    T twice(T value) {
        return value + value;
    }

    int overloaded(int x) { return x; }
    int overloaded(double x) { return 2; }

    int declared_only(int x);

    template <typename F> decltype(auto) apply(F&& f) {
        return f();
    }

    bool is_empty() const noexcept { return true; }

    int caller(int x) {
        if (add_one(x)) {
            return twice(x);
        }
        return 0;
    }

    #define SQUARE(x) \\
        ((x) * (x))
    }  // namespace demo
    """)


# ---- symbols --------------------------------------------------------------------------

def test_function_with_its_comments():
    snippet = kael_source.extract_symbol("demo.cpp", SAMPLE, "add_one")
    assert snippet.text == "// Adds one.\n// Twice documented.\nint add_one(int x) { return x + 1; }"
    assert snippet.first_line == 5


def test_struct_is_brace_matched_across_braces_in_strings_and_comments():
    snippet = kael_source.extract_symbol("demo.cpp", SAMPLE, "struct Widget")
    assert snippet.text.startswith("/// A widget.\nstruct Widget {")
    assert snippet.text.endswith("    }\n};")


def test_template_type_on_one_line():
    text = "namespace x {\ntemplate <typename T, int N> struct Block {\n    T v[N];\n};\n}\n"
    assert kael_source.extract_symbol("x.h", text, "struct Block").text == \
        "template <typename T, int N> struct Block {\n    T v[N];\n};"


def test_enum_class():
    assert kael_source.extract_symbol("demo.cpp", SAMPLE, "enum class Color").text == \
        "enum class Color { Red, Green };"


def test_method_defined_in_a_class_and_a_constructor_with_initializers():
    assert "return size * size;" in kael_source.extract_symbol("demo.cpp", SAMPLE, "area").text
    ctor = kael_source.extract_symbol("demo.cpp", SAMPLE, "Widget::Widget").text
    assert ctor.startswith("Widget::Widget(int s) : size(s), other{2} {")
    assert ctor.endswith("}")


def test_template_header_is_included():
    assert kael_source.extract_symbol("demo.cpp", SAMPLE, "twice").text.startswith(
        "template <typename T>\nT twice(T value) {")


def test_template_and_qualifiers_on_one_line():
    assert kael_source.extract_symbol("demo.cpp", SAMPLE, "apply").text.startswith(
        "template <typename F> decltype(auto) apply(F&& f) {")
    assert kael_source.extract_symbol("demo.cpp", SAMPLE, "is_empty").text == \
        "bool is_empty() const noexcept { return true; }"


def test_calls_followed_by_a_brace_are_not_definitions():
    # "if (add_one(x)) {" calls add_one; only the real definition may match.
    assert kael_source.extract_symbol("demo.cpp", SAMPLE, "add_one").first_line == 5


def test_overloads_need_a_parameter_hint():
    with pytest.raises(ReferenceError, match="2 definitions"):
        kael_source.extract_symbol("demo.cpp", SAMPLE, "overloaded")
    assert "2;" in kael_source.extract_symbol("demo.cpp", SAMPLE, "overloaded(double").text


def test_declarations_and_calls_are_not_definitions():
    with pytest.raises(ReferenceError, match="not found"):
        kael_source.extract_symbol("demo.cpp", SAMPLE, "declared_only")
    with pytest.raises(ReferenceError, match="not found"):
        kael_source.extract_symbol("demo.cpp", SAMPLE, "call")


def test_macro_with_continuation_lines():
    assert kael_source.extract_symbol("demo.cpp", SAMPLE, "#define SQUARE").text == \
        "#define SQUARE(x) \\\n    ((x) * (x))"


def test_renamed_symbol_fails():
    renamed = SAMPLE.replace("add_one(int x)", "add_two(int x)")
    with pytest.raises(ReferenceError, match="function add_one not found in demo.cpp"):
        kael_source.extract_symbol("demo.cpp", renamed, "add_one")
    with pytest.raises(ReferenceError, match="struct Gadget not found"):
        kael_source.extract_symbol("demo.cpp", SAMPLE, "struct Gadget")


# ---- regions --------------------------------------------------------------------------

def test_region_is_the_lines_between_its_markers():
    text = "a\n    // book-region: middle\n    b\n      c\n    // end-book-region: middle\nd"
    assert kael_source.extract_region("x.cpp", text, "middle").text == "b\n  c"
    with pytest.raises(ReferenceError, match="region 'other' not found"):
        kael_source.extract_region("x.cpp", text, "other")


# ---- the real sources ------------------------------------------------------------------

def test_resolved_snippet_equals_the_source_text():
    """A snippet from the real source is exactly the lines of the file it claims to be: the
    file as the stage has it (stage markers removed), which is what a tag holds."""
    path = "kael/src/core/tensor_impl.cpp"
    rendered = kael_source.read_source(ROOT, path)
    snippet = kael_source.extract_symbol(path, rendered, "TensorImpl::validate")
    lines = rendered.split("\n")
    original = "\n".join(lines[snippet.first_line - 1:snippet.first_line - 1 + snippet.text.count("\n") + 1])
    assert snippet.text == original
    assert snippet.text.startswith("void TensorImpl::validate() const {")


def test_stage_option_shows_the_older_code():
    final = kael_source.read_source(ROOT, "kael/include/kael/error.h")
    stage3 = kael_source.read_source(ROOT, "kael/include/kael/error.h", stage=3)
    assert "class ValueError : public Error" in final
    assert "using ValueError = Error;" in stage3 and "class ValueError" not in stage3
    with pytest.raises(ReferenceError, match="does not exist at stage 1"):
        kael_source.read_source(ROOT, "kael/include/kael/shape.h", stage=1)


def test_call_operators_are_found():
    text = "struct Deleter {\n    void operator()(int* p) const noexcept { delete p; }\n};\n"
    assert kael_source.extract_symbol("x.h", text, "operator()").text.startswith("void operator()(int* p)")
    # At stage 3 the deleter frees the block itself; from stage 9 on it hands it to the cache.
    real = kael_source.read_source(ROOT, "kael/src/core/storage.cpp", stage=3)
    assert "free_block" in kael_source.extract_symbol("kael/src/core/storage.cpp", real,
                                                      "Storage::BlockDeleter::operator()").text


def test_ctest_tests_declared_in_cmake_are_citable():
    tests = kael_source.find_tests(ROOT)
    case = tests["Package.FindPackageConsumerBuildsAndRuns"]
    assert case.path == "tests/CMakeLists.txt"
    code = kael_source.extract_test(ROOT, case)
    assert code.startswith("add_test(NAME Package.FindPackageConsumerBuildsAndRuns") and code.endswith(")")
    assert "Example.HelloTensorPrintsTheChapterLine" in tests


def test_every_cited_style_of_test_is_found():
    tests = kael_source.find_tests(ROOT)
    case = tests["Storage.AlignedTo64Bytes"]
    assert case.path == "tests/test_storage.cpp"
    code = kael_source.extract_test(ROOT, case)
    assert code.startswith("TEST(Storage, AlignedTo64Bytes) {") and code.endswith("}")
    assert "exercise.Float16.KnownValues" not in tests and "Float16.KnownValues" in tests


# ---- the hook as MkDocs runs it ---------------------------------------------------------

class FakeFile:
    def __init__(self, path):
        self.src_uri = self.src_path = path


class FakePage:
    def __init__(self, path):
        self.file = FakeFile(path)


def render(markdown, page="chapters/02-memory-model.md"):
    kael_hook._errors.clear()
    kael_hook._tests_by_stage.clear()
    kael_hook._tests = kael_source.find_tests(ROOT)
    return kael_hook.on_page_markdown(markdown, FakePage(page), {}, None)


def test_code_call_becomes_a_titled_fence():
    out = render('{{ code("kael/include/kael/dtype.h", "enum class DType") }}')
    assert out.startswith('```cpp title="kael/include/kael/dtype.h"\n')
    assert "enum class DType { F32, F64, I64, Bool };" in out
    assert not kael_hook._errors


def test_test_call_links_to_the_generated_test_page():
    out = render('See {{ test("Storage.AlignedTo64Bytes") }}.')
    assert out == ("See [`Storage.AlignedTo64Bytes`](../generated/tests/tests__test_storage.md"
                   "#storage-alignedto64bytes).")


def test_renamed_test_fails_naming_page_and_reference():
    render('Some text.\n\n{{ test("Storage.AlignedTo32Bytes") }}')
    assert kael_hook._errors == [
        'chapters/02-memory-model.md:3: test("Storage.AlignedTo32Bytes") does not resolve: '
        "test Storage.AlignedTo32Bytes is not defined under tests/ or exercises/"]


def test_escaped_call_is_shown_literally():
    assert render(r'\{{ test("No.Such") }}') == '{{ test("No.Such") }}'
    assert not kael_hook._errors


def test_output_sections(tmp_path, monkeypatch):
    (tmp_path / "stage-3").mkdir()
    (tmp_path / "stage-3" / "demo.txt").write_text("--- section: one ---\nfirst\n--- section: two ---\nsecond\n")
    monkeypatch.setenv("KAEL_BOOK_OUTPUTS", str(tmp_path))
    assert "second" in render('{{ output("demo", section="two") }}')
    render('{{ output("demo", section="three") }}')
    assert "printed no section 'three'" in kael_hook._errors[0]
    render('{{ output("missing") }}')
    assert "no program book/examples/missing.cpp or .py" in kael_hook._errors[0]


def test_raw_output_is_inserted_as_markdown(tmp_path, monkeypatch):
    (tmp_path / "stage-3").mkdir()
    (tmp_path / "stage-3" / "demo.txt").write_text("| a | b |\n|---|---|\n| 1 | 2 |\n")
    monkeypatch.setenv("KAEL_BOOK_OUTPUTS", str(tmp_path))
    raw = render('{{ output("demo", raw=True) }}')
    assert "| 1 | 2 |" in raw and "```" not in raw
    assert "```text" in render('{{ output("demo") }}')


# ---- stages: each chapter shows its own stage -------------------------------------------

CHAPTER_00 = "chapters/00-getting-started.md"
CHAPTER_02 = "chapters/02-memory-model.md"  # describes stage 3
DESIGN_RECORD = "adr/0001-runtime-dtype.md"


def test_each_chapter_page_has_its_stage_and_other_pages_have_main():
    assert kael_hook.page_stage(CHAPTER_00) == 1
    assert kael_hook.page_stage(CHAPTER_02) == 3
    assert kael_hook.page_stage("chapters/05-operations.md") == 6
    for page in (DESIGN_RECORD, "index.md", "glossary.md", "contributing.md", "exercises.md"):
        assert kael_hook.page_stage(page) is None


def test_a_listing_defaults_to_the_stage_of_its_page():
    call = '{{ code("kael/include/kael/error.h") }}'
    chapter = render(call, CHAPTER_02)
    assert "using ValueError = Error;" in chapter and "class ValueError" not in chapter
    assert chapter.startswith('```cpp title="kael/include/kael/error.h"\n')
    final = render(call, DESIGN_RECORD)
    assert "class ValueError : public Error" in final
    assert not kael_hook._errors


def test_a_listing_of_the_books_tooling_is_shown_as_it_is():
    out = render('{{ code("scripts/stage") }}', CHAPTER_02)
    assert (ROOT / "scripts" / "stage").read_text().strip("\n") in out
    assert not kael_hook._errors


def test_a_symbol_missing_at_the_chapters_stage_fails_and_names_the_stage_that_adds_it():
    render('{{ code("kael/include/kael/error.h", "class IndexError") }}', CHAPTER_02)
    assert len(kael_hook._errors) == 1
    assert "not at stage 3, this chapter's stage: class IndexError not found" in kael_hook._errors[0]
    assert "stage 10 adds it: write stage=10" in kael_hook._errors[0]
    render('{{ code("kael/include/kael/scalar.h", "class Scalar") }}', CHAPTER_02)
    assert "scalar.h does not exist at stage 3" in kael_hook._errors[0]
    assert "write stage=5" in kael_hook._errors[0]


def test_a_region_missing_at_the_chapters_stage_fails(tmp_path, monkeypatch):
    """A region fenced by a later stage's markers is absent at the earlier stage."""
    (tmp_path / "chapters").mkdir()
    (tmp_path / "chapters" / "stages.toml").write_text(
        (ROOT / "chapters" / "stages.toml").read_text())
    (tmp_path / "kael" / "src").mkdir(parents=True)
    (tmp_path / "kael" / "src" / "core").mkdir(parents=True, exist_ok=True)
    (tmp_path / "kael" / "src" / "core" / "version.cpp").write_text(
        "int a;\n//> stage 4\n// book-region: later\nint b;\n// end-book-region: later\n//< stage 4\n")
    monkeypatch.setattr(kael_hook, "ROOT", tmp_path)
    render('{{ code("kael/src/core/version.cpp", region="later") }}', CHAPTER_02)
    assert "not at stage 3, this chapter's stage: region 'later' not found" in kael_hook._errors[0]
    assert "stage 4 adds it" in kael_hook._errors[0]
    assert "int b;" in render('{{ code("kael/src/core/version.cpp", region="later") }}', "chapters/03-views.md")
    assert not kael_hook._errors


def test_a_later_stage_is_labelled_in_the_title():
    added = render('{{ code("kael/include/kael/error.h", "class IndexError", stage=10) }}', CHAPTER_02)
    assert added.startswith('```cpp title="kael/include/kael/error.h (added in stage 10, chapter 09)"\n')
    changed = render('{{ code("kael/include/kael/error.h", stage=10) }}', CHAPTER_02)
    assert 'title="kael/include/kael/error.h (as changed in stage 10, chapter 09)"' in changed
    earlier = render('{{ code("kael/include/kael/error.h", stage=1) }}', CHAPTER_02)
    assert 'title="kael/include/kael/error.h (stage 1)"' in earlier
    assert not kael_hook._errors


def test_a_later_stage_that_changes_nothing_is_an_error():
    # The label "added in stage 5" would be false: the enum is the same at stage 3.
    render('{{ code("kael/include/kael/dtype.h", "enum class DType", stage=5) }}', CHAPTER_02)
    assert "stage=5 is not needed: the listing is the same at stage 3" in kael_hook._errors[0]


def test_a_cited_test_must_exist_at_the_chapters_stage():
    render('{{ test("Scalar.IntegersAreKeptExactly") }}', CHAPTER_02)
    assert kael_hook._errors[0].endswith(
        "test Scalar.IntegersAreKeptExactly does not exist at stage 3, this chapter's stage; "
        "stage 5 adds it: write stage=5 to cite it as a later test")
    out = render('{{ test("Scalar.IntegersAreKeptExactly", stage=5) }}', CHAPTER_02)
    assert out.endswith("#scalar-integersarekeptexactly) (added in stage 5, chapter 04)")
    assert not kael_hook._errors
    render('{{ test("Storage.AlignedTo64Bytes", stage=5) }}', CHAPTER_02)
    assert "stage=5 is not needed" in kael_hook._errors[0]
    # Pages that are not chapters cite main's tests.
    render('{{ test("Scalar.IntegersAreKeptExactly") }}', DESIGN_RECORD)
    assert not kael_hook._errors


def test_tests_can_be_listed_as_of_a_stage():
    at_3 = kael_source.find_tests(ROOT, stage=3)
    assert "Storage.AlignedTo64Bytes" in at_3 and "Scalar.IntegersAreKeptExactly" not in at_3
    assert "Scalar.IntegersAreKeptExactly" in kael_source.find_tests(ROOT, stage=5)


def test_outputs_come_from_the_folder_of_the_pages_stage(tmp_path, monkeypatch):
    for folder, text in (("stage-3", "as at stage 3"), ("stage-4", "as at stage 4"), ("main", "as on main")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "demo.txt").write_text(text + "\n")
    monkeypatch.setenv("KAEL_BOOK_OUTPUTS", str(tmp_path))
    assert "as at stage 3" in render('{{ output("demo") }}', CHAPTER_02)
    assert "as on main" in render('{{ output("demo") }}', DESIGN_RECORD)
    later = render('{{ output("demo", stage=4) }}', CHAPTER_02)
    assert 'title="output of examples/demo.cpp (run against stage 4, chapter 03)"' in later
    assert "as at stage 4" in later
    assert not kael_hook._errors


def test_a_program_of_another_chapter_is_not_shown_silently(tmp_path, monkeypatch):
    monkeypatch.setenv("KAEL_BOOK_OUTPUTS", str(tmp_path))
    render('{{ output("ch05_nn") }}', CHAPTER_02)
    assert ("book/examples/ch05_nn.cpp runs against stage 6, not stage 3" in kael_hook._errors[0]
            and "write stage=6" in kael_hook._errors[0])


def test_each_book_program_runs_against_its_chapters_stage():
    manifest = kael_source.kael_stages.Manifest.load(ROOT)
    program_stage = kael_source.kael_stages.program_stage
    assert program_stage(manifest, "book/examples/ch00_errors.cpp") == 1
    assert program_stage(manifest, "book/examples/ch05_nn.cpp") == 6
    assert program_stage(manifest, "examples/hello_tensor.cpp") == 3
    assert program_stage(manifest, "book/examples/adr_shared_handle.cpp") is None
    at_3 = kael_source.kael_stages.book_programs(ROOT, 3)
    assert "examples/hello_tensor.cpp" in at_3 and "book/examples/ch02_core.cpp" in at_3
    assert all(p.startswith("book/examples/ch02_") or p.startswith("examples/") for p in at_3)


def test_broken_reference_fails_the_mkdocs_build(tmp_path):
    """End to end: a page citing a renamed test makes `mkdocs build` exit non-zero, with or
    without --strict, and the log names the page and the reference."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text('# Demo\n\n{{ code("kael/src/core/storage.cpp", "Storage::renamed") }}\n')
    (tmp_path / "mkdocs.yml").write_text(textwrap.dedent(f"""\
        site_name: demo
        docs_dir: docs
        site_dir: {tmp_path / 'site'}
        hooks: [{HOOKS / 'kael_hook.py'}]
        """))
    result = subprocess.run(["mkdocs", "build", "-f", str(tmp_path / "mkdocs.yml")],
                            capture_output=True, text=True)
    assert result.returncode != 0
    assert 'index.md:3: code("kael/src/core/storage.cpp", "Storage::renamed") does not resolve' in result.stderr


# ---- numbers: counts, table cells, measurements -------------------------------------------------


def test_test_counts_follow_the_stage():
    files = kael_source.find_tests(ROOT, 2)
    shape_tests = sum(1 for case in files.values() if case.path == "tests/test_shape.cpp")
    assert render('{{ count_tests(file="tests/test_shape.cpp") }}', "chapters/01-shapes-and-strides.md") == str(shape_tests)
    suite = sum(1 for case in files.values() if case.full_name.startswith("CheckedMath."))
    assert render('{{ count_tests(suite="CheckedMath") }}', "chapters/01-shapes-and-strides.md") == str(suite)
    render('{{ count_tests(suite="Storage") }}', "chapters/01-shapes-and-strides.md")  # stage 2 has none
    assert "no test of Storage exists at stage 2" in kael_hook._errors[0]


def with_manifest(root):
    (root / "chapters").mkdir()
    (root / "chapters" / "stages.toml").write_text((ROOT / "chapters" / "stages.toml").read_text())


def test_a_cell_is_found_by_its_row_and_column(tmp_path, monkeypatch):
    with_manifest(tmp_path)
    (tmp_path / "results.md").write_text("Intro\n\n| workload | kael | torch |\n|---|---:|---:|\n"
                                         "| softmax rows | **0.9** | 1.0 |\n| exp | 0.7 | 1.0 |\n")
    monkeypatch.setattr(kael_hook, "ROOT", tmp_path)
    assert render('{{ cell("results.md", row="softmax", column="kael") }}') == "0.9"
    assert render('{{ cell("results.md", row="exp", column="torch") }}') == "1.0"
    render('{{ cell("results.md", row="gelu", column="kael") }}')
    assert "0 rows of results.md contain 'gelu'" in kael_hook._errors[0]


def test_a_measurement_needs_its_provenance(tmp_path, monkeypatch):
    with_manifest(tmp_path)
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "measurements.toml").write_text(
        '[loop]\nvalue = "16"\nunit = "ms"\nwhat = "a loop"\ncommand = "bench"\ndate = "2026-12-02"\nmachine = "m"\n'
        '[bare]\nvalue = "3"\n')
    monkeypatch.setattr(kael_hook, "ROOT", tmp_path)
    kael_hook._measurements = None
    assert render('{{ measured("loop") }}') == "16 ms"
    render('{{ measured("bare") }}')
    assert "lacks what" in kael_hook._errors[0]
    render('{{ measured("missing") }}')
    assert "has no measurement 'missing'" in kael_hook._errors[0]
    kael_hook._measurements = None


# ---- the API reference ------------------------------------------------------------------


def fake_api_reference(docs: pathlib.Path) -> None:
    """A Doxygen tag file with a page for every public header, as scripts/book makes it."""
    (docs / "api").mkdir(parents=True)
    compounds = "".join(
        f'<compound kind="file"><name>{h.name}</name><path>{h.parent}/</path>'
        f'<filename>{h.stem}_8h.html</filename></compound>'
        for h in sorted((ROOT / "kael" / "include").rglob("*.h")))
    (docs / "api" / "kael.tag").write_text(f"<tagfile>{compounds}</tagfile>")


def render_in(markdown, page, docs):
    kael_hook._errors.clear()
    return kael_hook.on_page_markdown(markdown, FakePage(page), {"docs_dir": str(docs)}, None)


def test_the_api_reference_links_the_headers_a_stage_adds_and_those_it_names_as_changed(tmp_path):
    fake_api_reference(tmp_path)
    adds = render_in("{{ api_reference() }}", "chapters/08-caching-allocator.md", tmp_path)
    assert adds.startswith("**API reference** for the headers this chapter adds: [`kael/allocator.h`]")
    assert not kael_hook._errors
    # Stage 10 adds no public header: without changed= there is nothing to link.
    render_in("{{ api_reference() }}", "chapters/09-cuda-backend.md", tmp_path)
    assert "stage 10 adds no public header" in kael_hook._errors[0]
    changes = render_in('{{ api_reference(changed=["kael/error.h"]) }}', "chapters/09-cuda-backend.md", tmp_path)
    assert changes.startswith("**API reference** for the headers this chapter changes (it adds none): [`kael/error.h`]")
    assert not kael_hook._errors
    both = render_in('{{ api_reference(changed=["kael/random.h"]) }}', "chapters/11-small-gpt.md", tmp_path)
    assert "; and for those it changes: [`kael/random.h`]" in both and "[`kael/nn/gpt.h`]" in both


def test_a_header_named_as_changed_must_exist_before_the_stage_and_change_there(tmp_path):
    fake_api_reference(tmp_path)
    render_in('{{ api_reference(changed=["kael/shape.h"]) }}', "chapters/09-cuda-backend.md", tmp_path)
    assert "which stage 10 does not change" in kael_hook._errors[0]
    render_in('{{ api_reference(changed=["kael/nn/gpt.h"]) }}', "chapters/11-small-gpt.md", tmp_path)
    assert "which stage 12 adds: it is listed as added" in kael_hook._errors[0]
    render_in('{{ api_reference(changed=["kael/nosuch.h"]) }}', "chapters/09-cuda-backend.md", tmp_path)
    assert "not a public header" in kael_hook._errors[0]
    render_in('{{ api_reference(changed="kael/error.h") }}', "chapters/09-cuda-backend.md", tmp_path)
    assert "takes a list of header names" in kael_hook._errors[0]

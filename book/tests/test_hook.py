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
    """A snippet from the real source is exactly the lines of the file it claims to be."""
    path = "kael/src/tensor_impl.cpp"
    snippet = kael_source.extract_symbol(path, kael_source.read_source(ROOT, path), "TensorImpl::validate")
    lines = (ROOT / path).read_text().split("\n")
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
    real = kael_source.read_source(ROOT, "kael/src/storage.cpp")
    assert "free_block" in kael_source.extract_symbol("kael/src/storage.cpp", real,
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
    (tmp_path / "demo.txt").write_text("--- section: one ---\nfirst\n--- section: two ---\nsecond\n")
    monkeypatch.setenv("KAEL_BOOK_OUTPUTS", str(tmp_path))
    assert "second" in render('{{ output("demo", section="two") }}')
    render('{{ output("demo", section="three") }}')
    assert "printed no section 'three'" in kael_hook._errors[0]
    render('{{ output("missing") }}')
    assert "no output recorded" in kael_hook._errors[0]


def test_broken_reference_fails_the_mkdocs_build(tmp_path):
    """End to end: a page citing a renamed test makes `mkdocs build` exit non-zero, with or
    without --strict, and the log names the page and the reference."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text('# Demo\n\n{{ code("kael/src/storage.cpp", "Storage::renamed") }}\n')
    (tmp_path / "mkdocs.yml").write_text(textwrap.dedent(f"""\
        site_name: demo
        docs_dir: docs
        site_dir: {tmp_path / 'site'}
        hooks: [{HOOKS / 'kael_hook.py'}]
        """))
    result = subprocess.run(["mkdocs", "build", "-f", str(tmp_path / "mkdocs.yml")],
                            capture_output=True, text=True)
    assert result.returncode != 0
    assert 'index.md:3: code("kael/src/storage.cpp", "Storage::renamed") does not resolve' in result.stderr

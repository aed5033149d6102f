"""GPT-2 from Python (chapter 12): kael.nn.load_gpt2, kael.nn.generate with its callback,
kael.text's tokenizer and streaming decoder, and the thread count. The model is a tiny
random GPT-2 that scripts/make-tiny-gpt2 writes with PyTorch, so the module skips where
PyTorch is missing; the tokenizer tests need GPT-2's vocabulary (scripts/fetch-gpt2-vocab)."""
import json
import pathlib
import subprocess
import sys

import pytest

import kael

ROOT = pathlib.Path(__file__).resolve().parents[2]
VOCAB = ROOT / "build" / "data" / "gpt2-vocab"

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("tiny-gpt2")
    subprocess.run([sys.executable, str(ROOT / "scripts" / "make-tiny-gpt2"), str(directory), "--layout", "prefixed",
                    "--seed", "3", "--reference"], check=True, capture_output=True)
    return directory


@pytest.fixture(scope="module")
def reference(model_dir):
    return json.loads((model_dir / "reference.json").read_text())


def test_greedy_generation_is_the_references(model_dir, reference):
    model = kael.nn.load_gpt2(model_dir)
    result = kael.nn.generate(model, reference["prompt"], max_new_tokens=len(reference["greedy"]), temperature=0.0)
    assert result["tokens"] == reference["greedy"]
    assert result["reason"] == "max_new_tokens"
    assert result["decode_steps"] == len(reference["greedy"]) - 1
    uncached = kael.nn.generate(model, reference["prompt"], max_new_tokens=4, temperature=0.0, use_cache=False)
    assert uncached["tokens"] == reference["greedy"][:4]


def test_the_model_logits_are_the_references(model_dir, reference):
    model = kael.nn.load_gpt2(model_dir)
    with kael.no_grad():
        logits = model(kael.tensor([reference["prompt"]]))
    expected = kael.tensor(reference["logits"])
    assert (logits[0] - expected).abs().max().item() < 1e-4


def test_the_callback_sees_every_token_and_can_stop(model_dir, reference):
    model = kael.nn.load_gpt2(model_dir)
    seen = []
    result = kael.nn.generate(model, reference["prompt"], max_new_tokens=5, temperature=0.0, on_token=seen.append)
    assert seen == result["tokens"] == reference["greedy"][:5]
    stopped = kael.nn.generate(model, reference["prompt"], max_new_tokens=5, temperature=0.0,
                               on_token=lambda token: False)
    assert stopped["reason"] == "callback"
    assert len(stopped["tokens"]) == 1


def test_an_exception_in_the_callback_reaches_the_caller(model_dir, reference):
    model = kael.nn.load_gpt2(model_dir)

    def fail(token):
        raise KeyError(f"no room for {token}")

    with pytest.raises(KeyError, match="no room for"):
        kael.nn.generate(model, reference["prompt"], max_new_tokens=3, on_token=fail)


def test_the_same_seed_samples_the_same_tokens(model_dir, reference):
    model = kael.nn.load_gpt2(model_dir)
    runs = []
    for _ in range(2):
        kael.manual_seed(7)
        runs.append(kael.nn.generate(model, reference["prompt"], max_new_tokens=8, temperature=1.0, top_k=20)["tokens"])
    assert runs[0] == runs[1]


def test_bad_requests_are_python_errors(model_dir, tmp_path):
    model = kael.nn.load_gpt2(model_dir)
    with pytest.raises(ValueError, match="prompt"):
        kael.nn.generate(model, [])
    with pytest.raises(ValueError):
        kael.nn.generate(model, [1, 2], temperature=-1.0)
    with pytest.raises((ValueError, RuntimeError)):
        kael.nn.load_gpt2(tmp_path / "no-such-model")
    with pytest.raises(ValueError):
        kael.set_num_threads(0)


def test_the_thread_count_is_kael_s():
    before = kael.get_num_threads()
    kael.set_num_threads(1)
    assert kael.get_num_threads() == 1
    kael.set_num_threads(before)
    assert kael.get_num_threads() == before


@pytest.mark.skipif(not (VOCAB / "encoder.json").is_file(), reason="GPT-2's vocabulary is not fetched")
def test_the_tokenizer_gives_gpt2s_ids_and_streams_whole_characters():
    tokenizer = kael.text.GPT2Tokenizer.from_directory(VOCAB)
    assert tokenizer.vocab_size == 50257
    assert tokenizer.end_of_text == 50256
    assert tokenizer.encode("Hello world") == [15496, 995]
    assert tokenizer.encode("<|endoftext|>", allow_special=True) == [50256]
    text = "naïve 東京 🙂"
    ids = tokenizer.encode(text)
    assert tokenizer.decode(ids) == text
    decoder = kael.text.StreamingDecoder(tokenizer)
    pieces = [decoder.push(token) for token in ids] + [decoder.finish()]
    assert "".join(pieces) == text
    assert all("\ufffd" not in piece for piece in pieces)

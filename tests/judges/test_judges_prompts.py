"""Prompt templates, TOML user templates, model resolution."""

from __future__ import annotations

import hashlib
import sys

import pytest

from benchcheck.errors import InputError, JudgeUnavailable, UsageError
from benchcheck.judges import resolve
from benchcheck.judges.prompts import (
    BINARY_FRAMINGS,
    BUILTIN_PROMPTS,
    PromptTemplate,
    load_prompt_file,
    select_prompts,
)


def test_four_binary_framings_name_their_roles():
    roles = {
        "nli": ("Premise", "Hypothesis"),
        "document": ("Document", "Statement"),
        "grounding": ("Grounding", "Generated text"),
        "evidence": ("Evidence", "Claim"),
    }
    assert set(BINARY_FRAMINGS) == set(roles)
    hashes = set()
    for name, (a, b) in roles.items():
        r = BUILTIN_PROMPTS[name].render({"text_a": "AAA", "text_b": "BBB"})
        assert r.user.startswith("AAA\n") and f"the {a.lower()}." in r.user
        assert f"{b}: BBB" in r.user
        assert r.verbalisers == ("0", "1") and r.labels == ("0", "1")
        hashes.add(BUILTIN_PROMPTS[name].template_hash)
    assert len(hashes) == 4
    # the four framings of one example share system message + grounding as a prefix
    rendered = [BUILTIN_PROMPTS[n].render({"text_a": "G" * 50, "text_b": "x"}) for n in roles]
    assert len({(r.system, r.user[:51]) for r in rendered}) == 1


def test_template_hash_is_stable_and_content_based():
    t = PromptTemplate(name="x", user="{text}")
    body = '[%s, "{text}", ["0", "1"], ["0", "1"]]' % ('"' + t.system + '"')
    assert t.template_hash == hashlib.sha256(body.encode()).hexdigest()[:16]
    assert PromptTemplate(name="y", user="{text}").template_hash == t.template_hash  # name-free


def test_template_validation():
    with pytest.raises(UsageError, match="unknown field"):
        PromptTemplate(name="x", user="{premise}")
    with pytest.raises(UsageError, match="2 labels but 3 verbalisers"):
        PromptTemplate(name="x", user="{text}", verbalisers=("a", "b", "c"))
    with pytest.raises(UsageError, match="needs the field 'text_b'"):
        BUILTIN_PROMPTS["nli"].render({"text_a": "a"})


def test_toml_prompts(tmp_path):
    p = tmp_path / "p.toml"
    p.write_text(
        '[prompts.yn]\nuser = "{text_a} => {text_b}?"\nsystem = ""\n'
        'labels = ["0", "1"]\nverbalisers = ["no", "yes"]\n'
        '[prompts.three]\nuser = "{text}"\nlabels = ["a", "b", "c"]\n'
    )
    got = load_prompt_file(p)
    assert got["yn"].system is None and got["yn"].verbalisers == ("no", "yes")
    assert got["three"].verbalisers == ("a", "b", "c")
    assert [t.name for t in select_prompts("all", extra=got)] == ["yn", "three"]
    assert [t.name for t in select_prompts("nli,yn", extra=got)] == ["nli", "yn"]
    bad = tmp_path / "bad.toml"
    bad.write_text("[prompts.x]\nuser = 3\n")
    with pytest.raises(InputError, match="bad.toml: prompt 'x' needs a 'user' string"):
        load_prompt_file(bad)
    bad.write_text("[prompts\n")
    with pytest.raises(InputError, match="invalid TOML"):
        load_prompt_file(bad)


@pytest.fixture
def fake_bundle(tmp_path, monkeypatch):
    """Three fake part packages on sys.path and a bundle entry pointing at them."""
    data = [b"alpha-" * 1000, b"beta-" * 999, b"gamma"]
    for i, blob in enumerate(data, 1):
        pkg = tmp_path / "site" / f"fakepart{i}"
        pkg.mkdir(parents=True)
        (pkg / "blob.bin").write_bytes(blob)
        (pkg / "__init__.py").write_text(
            "import os\ndef get_part_path():\n"
            "    return os.path.join(os.path.dirname(__file__), 'blob.bin')\n"
        )
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    whole = b"".join(data)
    bundle = resolve.Bundle(
        "fake.gguf",
        ("fakepart1", "fakepart2", "fakepart3"),
        len(whole),
        hashlib.sha256(whole).hexdigest(),
        None,
    )
    monkeypatch.setitem(resolve.BUNDLES, "fake-model", bundle)
    monkeypatch.setenv("BENCHCHECK_MODELS_DIR", str(tmp_path / "models"))
    yield whole
    for i in (1, 2, 3):
        sys.modules.pop(f"fakepart{i}", None)


def test_bundle_is_assembled_verified_then_served_from_cache(fake_bundle, tmp_path, monkeypatch):
    first = resolve.resolve_model("fake-model")
    assert first.source == "bundle" and first.path.read_bytes() == fake_bundle
    assert first.sha256 == hashlib.sha256(fake_bundle).hexdigest()
    assert resolve.resolve_model("fake-model").source == "cache"
    assert resolve.resolve_model(str(first.path)).source == "path"
    # a corrupted cached copy is not trusted: reassembled from the parts
    first.path.write_bytes(b"x" * len(fake_bundle))
    assert resolve.resolve_model("fake-model").source == "bundle"
    # wrong parts: sha256 mismatch is refused and leaves no file behind
    bundle = resolve.BUNDLES["fake-model"]
    monkeypatch.setitem(
        resolve.BUNDLES,
        "fake-model",
        resolve.Bundle(bundle.filename, bundle.modules, bundle.size, "0" * 64, None),
    )
    first.path.unlink()
    with pytest.raises(JudgeUnavailable, match="sha256"):
        resolve.resolve_model("fake-model")
    assert not list((tmp_path / "models").glob("fake.gguf*"))


def test_unknown_model_and_missing_bundle(monkeypatch, tmp_path):
    monkeypatch.setenv("BENCHCHECK_MODELS_DIR", str(tmp_path))
    with pytest.raises(JudgeUnavailable, match="not a file, not a known name"):
        resolve.resolve_model("no-such-model")
    monkeypatch.setitem(
        resolve.BUNDLES,
        "ghost",
        resolve.Bundle("g.gguf", ("no_such_part_pkg1",), 1, "0" * 64, None),
    )
    with pytest.raises(JudgeUnavailable, match="requirements/offline-models.txt"):
        resolve.resolve_model("ghost")


def test_offline_bundle_hashes_match_the_design_notes():
    assert resolve.BUNDLES["qwen2.5-coder-1.5b-instruct"].sha256.startswith("cc324af0")
    assert resolve.BUNDLES["qwen2.5-coder-0.5b-instruct"].sha256.startswith("1d961463")
    assert resolve.BUNDLES["gemma-3-270m"].sha256.startswith("a5fd3b62")

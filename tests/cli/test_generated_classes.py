"""Generators for issue 37's classes that ``test_generated_sweep.py`` does not draw yet.

Each class below has named cases in ``_replay.py``; here hypothesis draws more members of
it from a small grammar (names, values, placements) and checks what *holding* means for
the class, against an oracle written here (not the code under test):

- expert file names vs gold columns: two experts' files named after gold or key columns
  (case, Unicode and prefix variants, in subfolders): the key's columns survive, each file
  is one ``expert_`` column holding its answers, or one ``error:`` line naming a file;
- the judge cache: one stored row's probabilities drawn from numbers at and past the
  edges, other JSON types, other lengths, or a damaged page of the file: a row is used only
  when every probability is a JSON number in [0, 1]; otherwise one line naming the cache
  with how to remove it, nothing written and the server not asked;
- prompt templates: a template of literal text, plain placeholders and drawn hostile
  pieces (format specs, conversions, attribute and index access, nested fields, huge
  widths, lone braces, unknown fields): accepted exactly when :class:`string.Formatter`
  finds only plain ``{text_a}`` / ``{text_b}`` (the server then gets it filled in),
  else one line naming the file and the prompt;
- outputs inside input globs: a glob of ``--corpus`` and an output path drawn over the
  corpus folder: after an accepted run :func:`glob.glob` matches no file it wrote; a
  refused file output is one ``glob.glob`` would match;
- the smaller class: a lock naming a live or gone process, here or elsewhere (kept exactly
  when its owner may be running); bidirectional and other invisible characters in an id
  printed in the terminal table (never raw); ``diff --fail-on`` with non-finite numbers.

Default draws keep the file to a few seconds; ``BENCHCHECK_SWEEP=N`` with ``-m sweep`` runs
N random draws per generator (the ``_big`` tests).
"""

from __future__ import annotations

import glob
import json
import logging
import math
import os
import re
import shutil
import sqlite3
import string
import subprocess
import sys
from pathlib import Path

import pytest
from _replay import HERE, rows, snapshot
from _sweep import build_workspace
from hypothesis import given
from hypothesis import strategies as st
from test_generated_sweep import BIG, _copy, _run, _settings

#: draws per generator in the README's test command
FEW = 4
_big = pytest.mark.skipif(
    not BIG, reason="the big sweep: BENCHCHECK_SWEEP=N python -m pytest -m sweep"
)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_workspace(tmp_path_factory.mktemp("classes") / "ws")


def _one_error(err: str) -> str:
    """The one ``error:`` line of ``err`` (progress lines may come before it), its last."""
    lines = [x for x in err.splitlines() if x.strip()]
    errors = [x for x in lines if x.startswith("error:")]
    assert "Traceback" not in err, err[-1500:]
    assert len(errors) == 1 and lines[-1] == errors[0], lines[-5:]
    return errors[0]


# ----------------------------------------------------------------------------- expert names

#: gold and key columns, and the names the import gives expert columns
_RESERVED = ("id", "label", "review_id", "error", "status", "gold", "reconciled", "llm_label",
             "stratum", "line", "p_0", "confidence", "content_hash", "text_a", "expert",
             "expert_a", "expert_b", "expert_id", "n_members", "disagree", "x")  # fmt: skip


@st.composite
def expert_names(draw: st.DrawFn) -> str:
    """A file stem: a reserved name, its case, a Unicode twin, a prefix or a suffix."""
    name = draw(st.sampled_from(_RESERVED))
    change = draw(st.sampled_from(["", "", "upper", "title", "wide", "accent", "expert_",
                                   "suffix", "space", "dot"]))  # fmt: skip
    if change == "upper":
        name = name.upper()
    elif change == "title":
        name = name.title()
    elif change == "wide":  # full-width letters: NFKC makes them the name again
        name = "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in name)
    elif change == "accent":
        name = name[:1] + "\u0301" + name[1:]
    elif change == "expert_":
        name = "expert_" + name
    elif change == "suffix":
        name += draw(st.sampled_from(["_1", "_0", "_", "-1"]))
    elif change == "space":
        name = f" {name}"
    elif change == "dot":
        name += ".v2"
    return name


@st.composite
def expert_placements(draw: st.DrawFn) -> tuple[str, str]:
    """Where expert_a.csv and expert_b.csv go: two drawn names, maybe in subfolders."""
    a, b = draw(expert_names()), draw(expert_names() | st.just(""))
    b = b or a  # the same stem twice (then in two folders)
    folders = draw(st.sampled_from([("", ""), ("a/", "b/"), ("a/", ""), ("", "b/")]))
    if a == b and folders[0] == folders[1]:
        folders = ("a/", "b/")
    return f"{folders[0]}{a}.csv", f"{folders[1]}{b}.csv"


def _expert_names(workspace: Path, names: tuple[str, str]) -> None:
    ws, tmp = _copy(workspace)
    with tmp:
        review = ws / "review"
        answers = [(review / n).read_bytes() for n in ("expert_a.csv", "expert_b.csv")]
        for n in ("expert_a.csv", "expert_b.csv"):
            (review / n).unlink()
        for data, name in zip(answers, names, strict=True):
            (review / name).parent.mkdir(exist_ok=True)
            (review / name).write_bytes(data)
        key_file = review / "key.jsonl"
        argv = ["review", "import", *(f"review/{n}" for n in names), "--key", "review/key.jsonl"]
        before = snapshot(ws)
        r = _run(ws, [*argv, "-o", "g.jsonl"])
        if r.rc != 0:
            line = _one_error(r.err)
            assert r.rc == 2, (r.rc, line)
            assert any(Path(n).name in line or n in line for n in names), line
            assert snapshot(ws) == before, "written on an error"
            return
        assert "Traceback" not in r.err
        key = {x["id"]: x for x in rows(key_file)}
        gold = rows(ws / "g.jsonl")
        ref = {x["id"]: x for x in rows(ws / "gold.jsonl")}  # expert_a.csv + expert_b.csv
        assert len(gold) == len(key)
        experts = [c for c in gold[0] if c.startswith("expert_")]
        assert len(experts) == 2, (names, experts)
        answers = sorted(
            tuple(str(x.get(c)) for x in sorted(gold, key=lambda x: x["id"])) for c in experts
        )
        wanted = sorted(
            tuple(str(ref[i][c]) for i in sorted(ref)) for c in ("expert_a", "expert_b")
        )
        assert answers == wanted, (names, experts)
        for row in gold:
            orig = key[row["id"]]
            for col in ("id", "label", "review_id", "llm_label", "stratum"):
                assert row[col] == orig[col], (names, col, row[col], orig[col])
            for col in ("gold", "status", "error"):
                assert row[col] == ref[row["id"]][col], (names, col, row[col])


@given(names=expert_placements())
@_settings(FEW)
def test_expert_names(workspace: Path, names: tuple[str, str]) -> None:
    """Two experts' files named like gold/key columns: both kept, the key's columns too."""
    _expert_names(workspace, names)


@pytest.mark.sweep
@_big
@given(names=expert_placements())
@_settings(BIG or 1)
def test_expert_names_big(workspace: Path, names: tuple[str, str]) -> None:
    _expert_names(workspace, names)


# ----------------------------------------------------------------------------- judge cache

_JUDGE = ["judge", "pair.jsonl", "--text-a", "grounding", "--text-b", "generated_text",
          "--judge", "openai:m", "--cache", "c.sqlite"]  # fmt: skip


@pytest.fixture(scope="module")
def server():  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(HERE.parent / "judges"))
    from judges_fault_server import FaultServer

    with FaultServer() as s:
        yield s


@pytest.fixture(scope="module")
def cached(workspace: Path, server, tmp_path_factory: pytest.TempPathFactory) -> Path:  # type: ignore[no-untyped-def]
    """The workspace with a judge cache filled by one run (every row in the main file)."""
    ws = tmp_path_factory.mktemp("cached") / "ws"
    shutil.copytree(workspace, ws, symlinks=True)
    r = _run(ws, [*_JUDGE, "--base-url", server.base_url, "-o", "jj.parquet"])
    assert r.rc == 0, r.err[-800:]
    (ws / "jj.parquet").unlink()
    db = sqlite3.connect(ws / "c.sqlite")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return ws


#: JSON texts a stored probability may be (valid ones too)
_PROBS = ("0.5", "0", "1", "0.0", "1.0", "-0.0", "1e-320", "0.25", "5.0", "-4.0", "NaN",
          "Infinity", "-Infinity", "1e999", "-1e999", "1.0000001", "-1e-9", '"0.5"', "null",
          "true", "false", "[]", "{}", "9" * 5000, "2", "-1")  # fmt: skip
_FINE = {"0.5", "0", "1", "0.0", "1.0", "-0.0", "1e-320", "0.25"}


@st.composite
def cache_damage(draw: st.DrawFn) -> tuple[str, int, tuple[str, ...] | tuple[int, int, int]]:
    """("probs", row, values) or ("page", offset, length, byte) or ("payload", row, text)."""
    kind = draw(st.sampled_from(["probs", "probs", "page", "payload"]))
    row = draw(st.integers(0, 10_000))
    if kind == "probs":
        n = draw(st.sampled_from([2, 2, 2, 1, 3]))
        return kind, row, tuple(draw(st.sampled_from(_PROBS)) for _ in range(n))
    if kind == "page":
        return kind, row, (draw(st.integers(0, 16)), draw(st.integers(1, 4096)),
                           draw(st.integers(0, 255)))  # fmt: skip
    text = draw(st.sampled_from(['[0.5, 0.5]', '"x"', "null", "", "{", '{"probs": [0.5, 0.5]}',
                                 "1" * 5000, "[" * 5000]))  # fmt: skip
    return kind, row, (text,)


def _cache(cached: Path, server, damage) -> None:  # type: ignore[no-untyped-def]
    kind, row, what = damage
    ws, tmp = _copy(cached)
    with tmp:
        path = ws / "c.sqlite"
        db = sqlite3.connect(path)
        rowids = [r[0] for r in db.execute("SELECT rowid FROM judgements ORDER BY rowid")]
        rowid = rowids[row % len(rowids)]
        fine = False
        if kind == "probs":
            (payload,) = db.execute("SELECT payload FROM judgements WHERE rowid = ?", (rowid,))
            data = json.loads(payload[0])
            text = json.dumps(data).replace(json.dumps(data["probs"]), "[" + ", ".join(what) + "]")
            db.execute("UPDATE judgements SET payload = ? WHERE rowid = ?", (text, rowid))
            fine = len(what) == len(data["labels"]) and all(v in _FINE for v in what)
        elif kind == "payload":
            db.execute("UPDATE judgements SET payload = ? WHERE rowid = ?", (what[0], rowid))
        db.commit()
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.close()
        if kind == "page":  # garble part of one page (the first holds the schema)
            page, length, byte = what
            data = bytearray(path.read_bytes())
            start = min(page * 4096 + row % 4096, len(data) - 1)
            data[start : start + length] = bytes([byte]) * len(data[start : start + length])
            path.write_bytes(bytes(data))
        asked = len(server.requests)
        before = snapshot(ws)
        shutdown: list[logging.LogRecord] = []  # what asyncio would print at shutdown
        catch = logging.Handler(logging.ERROR)
        catch.emit = shutdown.append  # type: ignore[method-assign]
        logging.getLogger("asyncio").addHandler(catch)
        try:
            r = _run(ws, [*_JUDGE, "--base-url", server.base_url, "-o", "jj.parquet"])
        finally:
            logging.getLogger("asyncio").removeHandler(catch)
        assert not shutdown, (damage, [x.getMessage() for x in shutdown])
        if r.rc == 0:
            assert kind == "page" or fine, f"{damage}: a damaged row was used"
            import polars as pl

            out = pl.read_parquet(ws / "jj.parquet")
            for col in (c for c in out.columns if c.startswith("p_")):
                values = out[col].drop_nulls().to_list()
                assert all(0.0 <= v <= 1.0 for v in values), (damage, col, values[:5])
            return
        line = _one_error(r.err)
        assert r.rc == 2, (r.rc, line)
        assert not fine, f"{damage}: a valid row refused: {line}"
        assert "c.sqlite" in line and "remove it" in line, line
        if kind == "page":  # rows lost with the page are asked again and stored as they come
            after = {k: v for k, v in snapshot(ws).items() if not k.startswith("c.sqlite")}
            assert after == {k: v for k, v in before.items() if not k.startswith("c.sqlite")}
        else:
            assert snapshot(ws) == before, "written on an error"
            assert len(server.requests) == asked, "the damaged cache was partly used"


@given(damage=cache_damage())
@_settings(FEW)
def test_judge_cache_rows(cached: Path, server, damage) -> None:  # type: ignore[no-untyped-def]
    """One cached row given drawn probabilities or payload, or a page garbled."""
    _cache(cached, server, damage)


@pytest.mark.sweep
@_big
@given(damage=cache_damage())
@_settings(BIG or 1)
def test_judge_cache_rows_big(cached: Path, server, damage) -> None:  # type: ignore[no-untyped-def]
    _cache(cached, server, damage)


# ----------------------------------------------------------------------------- prompt templates

_FIELDS = ("text_a", "text_b")
_HOSTILE = ("{text_a:d}", "{text_a:>99999999999999999999}", "{text_a!r:{text_b}}",
            "{text_a:>3000000000}", "{text_a!r}", "{text_a!s}", "{text_a!a}", "{text_a!x}",
            "{text_a.__class__}", "{text_a[0]}", "{text_a[x]}", "{}", "{0}", "{1}", "{ }",
            "{text_a:{text_b}}", "{text_a:}", "{text_a!}", "{premise}", "{TEXT_A}",
            "{text_a }", "{", "}", "{{", "}}", "{{text_a}}", "{{{text_a}}}", "{text_a:{}}",
            "{text_a:%}", "{text_a:,}", "{text_a:=^9}", "{text_\u0430}", "{text}",
            "{text_a:{text_b:{text_a}}}", "{:}", "{!r}", "{text_a[0]!r:>2}")  # fmt: skip


@st.composite
def templates(draw: st.DrawFn) -> str:
    """Literal text, plain placeholders and hostile pieces, in a drawn order."""
    pieces = draw(st.lists(
        st.sampled_from(["A: ", " and ", "\n", "é", "%s", "$x"])
        | st.sampled_from([f"{{{f}}}" for f in _FIELDS])
        | st.sampled_from(_HOSTILE),
        min_size=1, max_size=6,
    ))  # fmt: skip
    return "".join(pieces)


def _plain(user: str) -> bool:
    """The oracle: only plain ``{text_a}`` / ``{text_b}`` fields (``{text}`` is another task's)."""
    try:
        parts = list(string.Formatter().parse(user))
    except ValueError:
        return False
    return all(
        f is None or (f in _FIELDS and not spec and conv is None) for _, f, spec, conv in parts
    )


def _prompt(workspace: Path, server, user: str) -> None:  # type: ignore[no-untyped-def]
    ws, tmp = _copy(workspace)
    with tmp:
        (ws / "p.toml").write_text(f"[prompts.mine]\nuser = {json.dumps(user)}\n")
        argv = [*_JUDGE[:-2], "--prompt-file", "p.toml", "--prompts", "mine", "--no-cache"]
        before = snapshot(ws)
        asked = len(server.requests)
        r = _run(ws, [*argv, "--base-url", server.base_url, "-o", "jj.parquet"])
        if not _plain(user):
            line = _one_error(r.err)
            assert r.rc == 2, (user, r.rc, line)
            # {text} is plain but a field of classification examples, not of pairs
            lacks = "'mine' needs the field 'text'" in line and "{text}" in user
            assert lacks or ("p.toml" in line and "mine" in line), (user, line)
            assert snapshot(ws) == before, "written on an error"
            assert len(server.requests) == asked, "a refused template was sent"
            return
        assert r.rc == 0, (user, r.err[-500:])
        sent = server.requests[asked]["messages"][-1]["content"]
        pair = rows(ws / "pair.jsonl")
        filled = [user.format(text_a=p["grounding"], text_b=p["generated_text"]) for p in pair]
        assert sent in filled, (user, sent[:200])


@given(user=templates())
@_settings(FEW)
def test_prompt_templates(workspace: Path, server, user: str) -> None:  # type: ignore[no-untyped-def]
    """A drawn --prompt-file template: used as written exactly when it is plain."""
    _prompt(workspace, server, user)


@pytest.mark.sweep
@_big
@given(user=templates())
@_settings(BIG or 1)
def test_prompt_templates_big(workspace: Path, server, user: str) -> None:  # type: ignore[no-untyped-def]
    _prompt(workspace, server, user)


# ----------------------------------------------------------------------------- outputs in globs

_GLOBS = ("corp/*.jsonl", "corp/**/*.jsonl", "corp/*.json*", "corp/[a-z]*", "corp/*/*.jsonl",
          "./corp/../corp/*.jsonl", "corp/**/*.json*", "corp/?.jsonl", "corp/**",
          "corp/*", "corp/sub/*.jsonl", "corp/**/b.jsonl")  # fmt: skip
_PLACES = ("corp/", "corp/sub/", "corp/sub/new/", "corp/new/", "", "./corp/../corp/", "other/")
_FILE_NAMES = ("out.jsonl", "out.json", "x.json", "o.jsonl", "a.jsonl", "out.txt", "b.jsonl")


@st.composite
def glob_cases(draw: st.DrawFn) -> tuple[str, ...]:
    """A command reading ``--corpus GLOB`` with an output drawn over the corpus folder."""
    pattern = draw(st.sampled_from(_GLOBS))
    place = draw(st.sampled_from(_PLACES))
    if draw(st.booleans()):
        out = place + draw(st.sampled_from(_FILE_NAMES))
        return ("leakage", "--test", "test_items.jsonl", "--corpus", pattern, "--json", out)
    if draw(st.booleans()):
        out = place + draw(st.sampled_from(_FILE_NAMES))
        return ("audit", "ner", "--no-judge", "--corpus", pattern, "-o", "rep", "--json", out)
    out = place + draw(st.sampled_from(("rep", "report", "a.jsonl")))
    return ("audit", "ner", "--no-judge", "--corpus", pattern, "-o", out)


def _corp(ws: Path) -> None:
    import polars as pl

    texts = pl.read_parquet(ws / "corpus.parquet")["text"].to_list()
    (ws / "corp" / "sub").mkdir(parents=True)
    (ws / "other").mkdir()
    for name, part in (("corp/a.jsonl", texts[::2]), ("corp/sub/b.jsonl", texts[1::2])):
        (ws / name).write_text("".join(json.dumps({"text": t}) + "\n" for t in part))


def _matched(ws: Path, pattern: str) -> set[str]:
    old = os.getcwd()
    os.chdir(ws)
    try:
        return {os.path.realpath(p) for p in glob.glob(pattern, recursive=True)}
    finally:
        os.chdir(old)


def _glob(workspace: Path, argv: tuple[str, ...]) -> None:
    ws, tmp = _copy(workspace)
    with tmp:
        _corp(ws)
        pattern = argv[argv.index("--corpus") + 1]
        out = argv[-1]
        before = snapshot(ws)
        read = _matched(ws, pattern)
        r = _run(ws, list(argv))
        if r.rc == 0:
            assert "Traceback" not in r.err
            written = {os.path.realpath(ws / k) for k in set(snapshot(ws)) - set(before)}
            inside = (_matched(ws, pattern) - read) & written
            assert not inside, (argv, sorted(inside))
            return
        line = _one_error(r.err)
        assert r.rc == 2, (argv, line)
        assert snapshot(ws) == before, "written on an error"
        if "input pattern" in line and argv[-2] == "--json" and not Path(out).name.startswith("."):
            target = ws / out
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("{}\n")
            # the file, or a folder above it (the reader takes a matched folder whole)
            ways = {os.path.realpath(p) for p in (target, *target.parents)}
            assert ways & _matched(ws, pattern), (argv, line)


@given(argv=glob_cases())
@_settings(FEW)
def test_outputs_inside_globs(workspace: Path, argv: tuple[str, ...]) -> None:
    """An output placed where a --corpus glob may read it: refused, or never matched."""
    _glob(workspace, argv)


@pytest.mark.sweep
@_big
@given(argv=glob_cases())
@_settings(BIG or 1)
def test_outputs_inside_globs_big(workspace: Path, argv: tuple[str, ...]) -> None:
    _glob(workspace, argv)


# ----------------------------------------------------------------------------- smaller: locks


@pytest.fixture(scope="module")
def live_pid():  # type: ignore[no-untyped-def]
    """An unrelated live process (a sleeping child) and a gone one's id."""
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    try:
        yield live.pid, int(gone.stdout)
    finally:
        live.kill()
        live.wait()


@st.composite
def locks(draw: st.DrawFn) -> tuple[str, str, str]:
    """Who a lock names: a live or gone process, its start time, where it runs."""
    return (
        draw(st.sampled_from(["live", "gone"])),
        draw(st.sampled_from(["true", "-", "missing", "wrong"])),
        draw(st.sampled_from(["here", "missing", "elsewhere", "other-boot"])),
    )


def _lock(workspace: Path, live_pid: tuple[int, int], case: tuple[str, str, str]) -> None:
    from benchcheck.io.output import _start_time, _where

    who, started, where = case
    pid = live_pid[0] if who == "live" else live_pid[1]
    words = [str(pid)]
    if started != "missing" or where != "missing":
        words.append({"true": _start_time(pid) or "-", "-": "-", "missing": "-",
                      "wrong": "1"}[started])  # fmt: skip
    if where != "missing":
        here = _where()
        words.append({"here": here, "elsewhere": "elsewhere|boot|pid:[1]",
                      "other-boot": here.split("|")[0] + "|another-boot|" + here.split("|")[2]
                      }[where])  # fmt: skip
    text = " ".join(words) + "\n"
    # the oracle: a lock is kept when its owner may be running
    if where in ("elsewhere", "other-boot"):
        kept = True
    else:
        kept = who == "live" and started != "wrong"
    ws, tmp = _copy(workspace)
    with tmp:
        lock = ws / ".x.jsonl.lock"
        lock.write_text(text)
        before = snapshot(ws)
        r = _run(ws, ["flag", "j.parquet", "--data", "data.jsonl", "-o", "x.jsonl"])
        if kept:
            line = _one_error(r.err)
            assert r.rc == 2 and f"process {pid}" in line, (case, line)
            assert snapshot(ws) == before and lock.read_text() == text, case
        else:
            assert r.rc == 0, (case, r.err[-500:])
            assert (ws / "x.jsonl").is_file() and not lock.exists(), case


@given(case=locks())
@_settings(FEW)
def test_locks(workspace: Path, live_pid: tuple[int, int], case: tuple[str, str, str]) -> None:
    """A lock written by a drawn owner: kept (and the run refused) exactly when it may run."""
    _lock(workspace, live_pid, case)


@pytest.mark.sweep
@_big
@given(case=locks())
@_settings(BIG or 1)
def test_locks_big(workspace: Path, live_pid: tuple[int, int], case: tuple[str, str, str]) -> None:
    _lock(workspace, live_pid, case)


# ----------------------------------------------------------------------------- smaller: bidi

#: bidirectional controls, zero-width and other invisible or control characters
_INVISIBLE = ("\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068",
              "\u2069", "\u200e", "\u200f", "\u061c", "\u200b", "\u200d", "\ufeff", "\u2028",
              "\u2029", "\x1b", "\x07", "\x7f", "\x9b", "\x00", "\r", "\ue000", "\U000e0041",
              "\u00ad", "\u0378")  # fmt: skip


@st.composite
def bidi_ids(draw: st.DrawFn) -> str:
    """The id e046 with drawn invisible characters inserted at drawn places."""
    text = "e046gnp.exe"
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(_INVISIBLE)) + text[at:]
    return text


def _bidi(workspace: Path, evil: str) -> None:
    import polars as pl

    ws, tmp = _copy(workspace)
    with tmp:
        data = rows(ws / "data.jsonl")
        for x in data:
            if x["id"] == "e046":
                x["id"] = evil
        (ws / "d.jsonl").write_text("".join(json.dumps(x) + "\n" for x in data))
        j = pl.read_parquet(ws / "j.parquet").with_columns(pl.col("id").replace("e046", evil))
        j.write_parquet(ws / "j2.parquet")
        r = _run(ws, ["flag", "j2.parquet", "--data", "d.jsonl", "--top", "60"])
        shown = r.out + r.err
        raw = sorted({c for c in evil if c in _INVISIBLE and c in shown})
        assert not raw, (evil, [f"U+{ord(c):04X}" for c in raw])
        if r.rc != 0:
            line = _one_error(r.err)
            assert r.rc == 2, line
            return


@given(evil=bidi_ids())
@_settings(FEW)
def test_bidi_ids_shown(workspace: Path, evil: str) -> None:
    """An id holding bidirectional controls or other invisible characters: never printed raw."""
    _bidi(workspace, evil)


@pytest.mark.sweep
@_big
@given(evil=bidi_ids())
@_settings(BIG or 1)
def test_bidi_ids_shown_big(workspace: Path, evil: str) -> None:
    _bidi(workspace, evil)


# ----------------------------------------------------------------------------- smaller: fail-on

_NUMBERS = ("0.5", "1", "0", "-1", "1e-300", "1e308", "1e400", "-1e400", "1E999", "inf", "-inf",
            "Infinity", "nan", "NaN", "+inf", "1_0", "٣", "0x10", "1e308e1", ".5", "5.",
            "9" * 400, "-0")  # fmt: skip
_NAMES = ("flag_rate", "change(flag_rate)", "leakage_ratio", "x")
_OPS = (">", ">=", "<", "<=", "==", "!=")


@st.composite
def gates(draw: st.DrawFn) -> list[tuple[str, str, str]]:
    return draw(st.lists(st.tuples(st.sampled_from(_NAMES), st.sampled_from(_OPS),
                                   st.sampled_from(_NUMBERS)), min_size=1, max_size=3))  # fmt: skip


@pytest.fixture(scope="module")
def audited(workspace: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    ws = tmp_path_factory.mktemp("audited") / "ws"
    shutil.copytree(workspace, ws, symlinks=True)
    r = _run(ws, ["audit", "--no-judge", "-o", "aud"])
    assert r.rc == 0, r.err[-500:]
    return ws


def _number(v: str) -> bool:
    """A number as a gate writes it: ASCII digits, a point, an exponent (not ``1_0``, ``٣``)."""
    return re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", v, re.ASCII) is not None


def _fail_on(audited: Path, parts: list[tuple[str, str, str]]) -> None:
    text = ", ".join(f"{n}{o}{v}" for n, o, v in parts)

    def finite(v: str) -> bool:
        try:
            return math.isfinite(float(v))
        except ValueError:
            return True  # not a number at all: another refusal, checked below

    before = snapshot(audited)
    r = _run(audited, ["diff", "aud/results.json", "aud/results.json", "--fail-on", text])
    assert snapshot(audited) == before
    bad = [v for _, _, v in parts if not finite(v)]
    if bad:  # the first part refused may be one that is not a number at all
        bad += [v for _, _, v in parts if not _number(v)]
        line = _one_error(r.err)
        # "not finite", or (inf, nan) not read as a number at all: named either way
        assert r.rc == 2 and "--fail-on" in line, (text, line)
        assert "not finite" in line or "cannot read" in line, (text, line)
        assert any(v in line for v in bad), (text, line)
        return
    assert "Traceback" not in r.err + r.out, r.err[-800:]
    assert r.rc in (0, 1, 2), (text, r.rc, r.err[-300:])
    if r.rc == 2:
        assert "--fail-on" in _one_error(r.err), (text, r.err)


@given(parts=gates())
@_settings(FEW)
def test_fail_on_numbers(audited: Path, parts: list[tuple[str, str, str]]) -> None:
    """diff --fail-on with drawn gates: a non-finite number is refused, naming it."""
    _fail_on(audited, parts)


@pytest.mark.sweep
@_big
@given(parts=gates())
@_settings(BIG or 1)
def test_fail_on_numbers_big(audited: Path, parts: list[tuple[str, str, str]]) -> None:
    _fail_on(audited, parts)

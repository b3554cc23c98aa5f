"""A generated sweep (hypothesis): every reader and every option, inputs built, not listed.

``_sweep.py``'s table lists valid invocations of every command. Here hypothesis spoils one
of a command's inputs, or sets one of its options, from what the input or option *is*:

- a table or JSON-lines input gets a record mutated field by field (a value of another
  JSON type, an extreme number, a Unicode edge case, a hostile name), a key dropped,
  renamed or given twice, bytes flipped, inserted (BOM, NUL, CR, U+2028, a raw surrogate,
  an escape sequence) or the file cut short; a Parquet input a value or a column; any
  input may become a FIFO, a link loop, a link to ``/dev/zero``, a folder or nothing;
- an option gets a value of its declared type at the edges (negative, zero, huge, NaN,
  infinite, not a number) or, for text, a hostile name (``../x``, an absolute path, 10,000
  characters, control characters, ``@/dev/zero``, a glob);
- a Label Studio or Argilla review export gets, at one JSON path its schema describes, a
  value of a JSON type the schema refuses, a required key deleted, or a rule broken (two
  choices, offsets past the text): refused with that path named.

Each example runs the command in process in a fresh copy of the workspace and checks the
contract: exit 0 with every output complete and parseable, or exit 2 (74 where the system
failed a write) with one ``error:`` line (naming the spoilt file, for a spoilt input) and
nothing written; never a traceback, never a changed input, never a file outside the copy.

The default profile runs a bounded number of examples (derandomised: the same every run)
inside the README's test command; ``BENCHCHECK_SWEEP=N`` with ``-m sweep`` runs N random
examples per test (``.ci/run`` fixes ``--hypothesis-seed`` so its draw reproduces). Failing
examples it found are kept as named regression tests in ``_replay.py``.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from _replay import deadline, snapshot
from _sweep import _SUFFIX, COMMANDS, Command, Slot, build_workspace
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

#: Examples per test in the README's run (two tests: inputs and options); about a minute each.
DEFAULT_EXAMPLES = 40
BIG = int(os.environ.get("BENCHCHECK_SWEEP", "0") or 0)

#: The commands a sweep runs (judge needs a server: its reader is the table reader anyway).
SWEPT = tuple(c for c in COMMANDS if c.name != "judge")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_workspace(tmp_path_factory.mktemp("generated") / "ws")


# ----------------------------------------------------------------------------- values

#: Unicode and byte edge cases a reader meets in real files (and in hostile ones).
EDGE_TEXT = [
    "",
    " ",
    "\u00a0",
    "\ufeff",
    "\u2028",
    "\u202e",
    "\x00",
    "\x1b[2J",
    "\r",
    "\n",
    "🙂",
    "e\u0301",
    "..",
    "../../evil",
    "/etc/passwd",
    "=1+1",
    "NaN",
    "null",
    "a" * 10_000,
]
EDGE_NUMBERS = [0, -1, 1, 2**31, -(2**63), 2**64, 1e308, -1e-308, 0.5, 1.0000001]
HOSTILE_NAMES = [
    "../x",
    "../../evil",
    "/tmp/abs-evil",
    ".",
    "..",
    "",
    "-",
    "a" * 5_000,
    "tr\x1bain",
    "@/dev/zero",
    "/dev/zero",
    "*",
    "[",
    "x=../../y",
    "=",
    "con",
    "a/b",
    "\ud800".encode("utf-8", "surrogatepass").decode("utf-8", "replace"),
]
INSERTS = [
    b"\x00",
    b"\xef\xbb\xbf",
    b"\xff\xfe",
    b"\r",
    "\u2028".encode(),
    b"\xed\xa0\x80",  # a surrogate encoded as UTF-8: not UTF-8
    b"\\ud800",
    b'"',
    b"\n\n",
    b"\x1b]0;x\x07",
    b"{",
    b"]",
    b",",
]

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from(EDGE_NUMBERS),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(EDGE_TEXT),
    st.text(max_size=12),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


# ----------------------------------------------------------------------------- mutations


@dataclass(frozen=True)
class Mutation:
    """One change to one input: ``kind`` and its parameters (shown when an example fails)."""

    kind: str
    at: float = 0.0
    key: int = 0
    value: object = None
    data: bytes = b""

    def apply(self, path: Path) -> None:
        """Change the file (or folder entry) at ``path`` in place."""
        if self.kind in SPECIAL:
            SPECIAL[self.kind](path)
            return
        raw = path.read_bytes()
        suffix = path.suffix.lower()
        if self.kind == "flip":
            k = int(self.at * (len(raw) - 1))
            raw = raw[:k] + bytes([raw[k] ^ (self.key or 1)]) + raw[k + 1 :]
        elif self.kind == "truncate":
            raw = raw[: int(self.at * len(raw))]
        elif self.kind == "insert":
            k = int(self.at * len(raw))
            raw = raw[:k] + self.data + raw[k:]
        elif suffix == ".parquet":
            raw = _parquet(path, self)
        elif suffix in (".jsonl", ".json") and self.kind == "huge":
            raw = _huge(raw, self)
        elif suffix in (".jsonl", ".json"):
            raw = _jsonl(raw, self)
        path.write_bytes(raw)


def _fifo(path: Path) -> None:
    _remove(path)
    os.mkfifo(path)


def _loop(path: Path) -> None:
    _remove(path)
    other = path.with_name(path.name + ".loop")
    path.symlink_to(other.name)
    other.symlink_to(path.name)


def _zero(path: Path) -> None:
    _remove(path)
    path.symlink_to("/dev/zero")


def _folder(path: Path) -> None:
    _remove(path)
    path.mkdir()


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


SPECIAL = {"fifo": _fifo, "loop": _loop, "zero": _zero, "folder": _folder, "missing": _remove}


def _jsonl(raw: bytes, m: Mutation) -> bytes:
    """A record of JSON lines (or a JSON document's first object) changed by ``m``."""
    lines = raw.split(b"\n")
    filled = [k for k, line in enumerate(lines) if line.strip()]
    if not filled:
        return raw
    k = filled[int(m.at * (len(filled) - 1))]
    try:
        row = json.loads(lines[k])
    except ValueError:
        return raw
    if not isinstance(row, dict) or not row:
        return raw
    keys = list(row)
    key = keys[m.key % len(keys)]
    text = lines[k].decode("utf-8")
    if m.kind == "value":
        row[key] = m.value
    elif m.kind == "drop":
        del row[key]
    elif m.kind == "rename":
        row[f"{key}_"] = row.pop(key)
    if m.kind == "dupkey":  # the key again, with another value, at the end of the object
        extra = json.dumps({key: m.value}, allow_nan=True)[1:-1]
        lines[k] = (text.rstrip().rstrip("}") + ", " + extra + "}").encode("utf-8")
    else:
        lines[k] = json.dumps(row, allow_nan=True, ensure_ascii=False).encode("utf-8", "replace")
    return b"\n".join(lines)


#: A value the JSON writer cannot hold (a 5,000-digit integer): a marker replaced in the text.
HUGE_MARK = "\x00huge-integer\x00"


def _huge(raw: bytes, m: Mutation) -> bytes:
    """Set one key of one record to an integer of ``m.value`` digits (past Python's limit)."""
    text = _jsonl(raw, Mutation("value", m.at, m.key, HUGE_MARK)).decode("utf-8")
    digits = "-" * (m.key % 2) + "9" * int(m.value)  # type: ignore[call-overload]
    return text.replace(json.dumps(HUGE_MARK), digits, 1).encode("utf-8")


def _parquet(path: Path, m: Mutation) -> bytes:
    import polars as pl

    frame = pl.read_parquet(path)
    col = frame.columns[m.key % frame.width]
    if m.kind == "drop":
        frame = frame.drop(col)
    elif m.kind == "value":
        k = int(m.at * (frame.height - 1))
        values = frame[col].to_list()
        values[k] = m.value
        try:
            series = pl.Series(col, values, strict=False)
            if series.dtype == pl.Object:
                raise TypeError(series.dtype)
        except Exception:  # noqa: BLE001 - a value polars cannot hold: store it as text
            series = pl.Series(col, [str(v) for v in values])
        frame = frame.with_columns(series)
    elif m.kind == "rename":
        frame = frame.rename({col: col + "_"})
    buf = io.BytesIO()
    try:
        frame.write_parquet(buf)
    except Exception:  # noqa: BLE001 - a type Parquet cannot store (an empty struct): as text
        frame = frame.with_columns(frame[col].cast(pl.String, strict=False))
        buf = io.BytesIO()
        frame.write_parquet(buf)
    return buf.getvalue()


fractions = st.floats(min_value=0, max_value=1)
mutations = st.one_of(
    st.builds(Mutation, st.just("flip"), fractions, st.integers(1, 255)),
    st.builds(Mutation, st.just("truncate"), fractions),
    st.builds(Mutation, st.just("insert"), fractions, data=st.sampled_from(INSERTS)),
    st.builds(Mutation, st.just("value"), fractions, st.integers(0, 20), json_values),
    st.builds(Mutation, st.sampled_from(["drop", "rename"]), fractions, st.integers(0, 20)),
    st.builds(Mutation, st.just("dupkey"), fractions, st.integers(0, 20), json_scalars),
    st.builds(Mutation, st.sampled_from(sorted(SPECIAL))),
)


# ----------------------------------------------------------------------------- running


@dataclass
class Outcome:
    rc: int
    out: str
    err: str


def _argv(cmd: Command, outputs: dict[str, str]) -> list[str]:
    names = {s.name: s.source for s in cmd.slots}
    names.update(outputs)
    names["server"] = "http://127.0.0.1:9/v1"
    return [a.format(**names) for a in cmd.argv]


def _outputs(cmd: Command) -> dict[str, str]:
    return {name: f"new_{name}{_SUFFIX[name]}" for name in cmd.outputs}


def _run(ws: Path, argv: list[str]) -> Outcome:
    from benchcheck.cli import main

    out, err = io.StringIO(), io.StringIO()
    old = Path.cwd()
    os.chdir(ws)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), deadline(120):
            rc = main(argv)
    finally:
        os.chdir(old)
    return Outcome(rc, out.getvalue(), err.getvalue())


def _complete(path: Path) -> bool:
    """Whether an output is a complete file of its kind (or a folder of such files)."""
    import polars as pl

    if path.is_dir():
        return all(_complete(p) for p in path.rglob("*") if p.is_file() and p.suffix)
    data = path.read_bytes()
    suffix = path.suffix.lower()
    try:
        if suffix == ".json":
            json.loads(data)
        elif suffix == ".jsonl":
            for line in data.splitlines():
                json.loads(line)
        elif suffix == ".parquet":
            pl.read_parquet(path)
        elif suffix in (".html",):
            return data.rstrip().endswith(b"</html>")
    except ValueError:
        return False
    return True


def check_contract(
    ws: Path, argv: list[str], outputs: dict[str, str], names: tuple[str, ...]
) -> Outcome:
    """Run ``argv`` in ``ws``; assert the issue's contract. ``names``: what a refusal names."""
    inputs = {
        k: v for k, v in snapshot(ws).items() if not any(k.startswith(o) for o in outputs.values())
    }
    outside = sorted(p.name for p in ws.parent.iterdir())
    r = _run(ws, argv)
    after = snapshot(ws)
    assert "Traceback" not in r.err + r.out, r.err[-1500:]
    assert sorted(p.name for p in ws.parent.iterdir()) == outside, "written outside the copy"
    changed = [k for k, v in inputs.items() if after.get(k, 0) != v]
    assert not changed, f"inputs changed: {changed[:5]}"
    if r.rc == 0:
        for out in outputs.values():
            if (ws / out).exists():
                assert _complete(ws / out), f"{out} is not complete"
        return r
    assert r.rc in (2, 74), f"exit {r.rc}: {r.err[-800:]!r}"
    lines = [x for x in r.err.splitlines() if x.strip() and not x.startswith("warning:")]
    assert len(lines) == 1 and lines[0].startswith("error:"), lines
    assert not names or any(n in lines[0] for n in names), (names, lines[0])
    new = sorted(set(after) - set(inputs))
    assert not new, f"written on an error: {new[:5]}"
    return r


def _copy(workspace: Path) -> tuple[Path, tempfile.TemporaryDirectory[str]]:
    tmp = tempfile.TemporaryDirectory(prefix="bc-gen-")
    ws = Path(tmp.name) / "ws"
    shutil.copytree(workspace, ws, symlinks=True)
    return ws, tmp


# ----------------------------------------------------------------------------- tests

_SLOTS = [(cmd, slot) for cmd in SWEPT for slot in cmd.slots]


def _settings(n: int) -> settings:
    return settings(
        max_examples=n,
        deadline=None,
        derandomize=not BIG,
        database=None,
        # no shrinking: a run is seconds, and the example as drawn is readable (Mutation)
        phases=[Phase.explicit, Phase.reuse, Phase.generate],
        report_multiple_bugs=False,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


def _spoil(workspace: Path, pick: tuple[Command, Slot], mutation: Mutation) -> None:
    cmd, slot = pick
    ws, tmp = _copy(workspace)
    with tmp:
        target = ws / slot.source / slot.inner if slot.inner else ws / slot.source
        mutation.apply(target)
        outputs = _outputs(cmd)
        # a refusal names the spoilt file, or the file it no longer joins (the other input)
        spoilt = (target.name, target.parent.name) if slot.inner else (target.name,)
        others = tuple(Path(s.source).name for s in cmd.slots)
        check_contract(ws, _argv(cmd, outputs), outputs, (*spoilt, *others))


def _option_values(param: object) -> st.SearchStrategy[str]:
    kind = type(getattr(param, "type", None)).__name__
    if kind in ("IntParamType", "IntRange"):
        numbers = st.one_of(st.sampled_from(EDGE_NUMBERS), st.integers(-(2**40), 2**40))
        return st.one_of(numbers.map(lambda v: str(int(v) if math.isfinite(v) else 0)),
                         st.sampled_from(["1e9", "nan", "", "9" * 30]))  # fmt: skip
    if kind in ("FloatParamType", "FloatRange"):
        return st.one_of(
            st.floats(allow_nan=True, allow_infinity=True).map(repr),
            st.sampled_from(["nan", "inf", "-inf", "-1", "1e308", "x"]),
        )
    choices = getattr(getattr(param, "type", None), "choices", None)
    if choices:
        return st.sampled_from([*choices, "bogus"])
    return st.one_of(st.sampled_from(HOSTILE_NAMES), st.text(max_size=20))


def _options() -> list[tuple[Command, object]]:
    """Every (command, option) pair the option sweep sets: options taking a value."""
    import typer.main

    from benchcheck.cli import app

    root = typer.main.get_command(app)
    pairs = []
    for cmd in SWEPT:
        click_cmd = root
        for part in cmd.argv[0 : 2 if cmd.name.startswith("review ") else 1]:
            click_cmd = click_cmd.commands[part]  # type: ignore[attr-defined]
        pairs += [
            (cmd, p)
            for p in click_cmd.params
            if getattr(p, "opts", None)
            and p.opts[0].startswith("-")
            and not getattr(p, "is_flag", False)
            # (outputs go where they are told: a path out of the folder is the user's choice)
            and p.name not in ("json_out", "output", "to_review", "force", "base_url", "cache")
            and p.name != "address"
        ]
    return pairs


OPTIONS = _options()


@st.composite
def option_cases(draw: st.DrawFn) -> tuple[Command, str, str]:
    """A command and one of its options set to a value at the edge of its type."""
    cmd, param = draw(st.sampled_from(OPTIONS))
    return cmd, param.opts[-1], draw(_option_values(param))  # type: ignore[attr-defined]


@given(pick=st.sampled_from(_SLOTS), mutation=mutations)
@_settings(DEFAULT_EXAMPLES)
def test_spoilt_inputs(workspace: Path, pick: tuple[Command, Slot], mutation: Mutation) -> None:
    _spoil(workspace, pick, mutation)


def _option(workspace: Path, case: tuple[Command, str, str]) -> None:
    cmd, flag, value = case
    ws, tmp = _copy(workspace)
    with tmp:
        outputs = _outputs(cmd)
        check_contract(ws, [*_argv(cmd, outputs), flag, value], outputs, ())


@given(case=option_cases())
@_settings(DEFAULT_EXAMPLES)
def test_option_values(workspace: Path, case: tuple[Command, str, str]) -> None:
    _option(workspace, case)


@pytest.mark.sweep
@pytest.mark.skipif(not BIG, reason="the big sweep: BENCHCHECK_SWEEP=N python -m pytest -m sweep")
@given(pick=st.sampled_from(_SLOTS), mutation=mutations)
@_settings(BIG or 1)
def test_spoilt_inputs_big(workspace: Path, pick: tuple[Command, Slot], mutation: Mutation) -> None:
    _spoil(workspace, pick, mutation)


@pytest.mark.sweep
@pytest.mark.skipif(not BIG, reason="the big sweep: BENCHCHECK_SWEEP=N python -m pytest -m sweep")
@given(case=option_cases())
@_settings(BIG or 1)
def test_option_values_big(workspace: Path, case: tuple[Command, str, str]) -> None:
    _option(workspace, case)


# ----------------------------------------------------------------------------- hostile names

#: Names that would leave the folder if a command made a path of them.
WALK_NAMES = ("../../evil", "/tmp/bc-evil-abs", "..", "tr\x1bain/x")


def _text_options(cmd: Command) -> list[str]:
    """Flags of ``cmd``'s free-text options: not files, not outputs, not choices."""
    from benchcheck.cli._options import READS

    return [
        p.opts[-1]  # type: ignore[attr-defined]
        for c, p in OPTIONS
        if c is cmd
        and type(getattr(p, "type", None)).__name__ == "StringParamType"
        and p.name not in READS  # type: ignore[attr-defined]
        and p.name not in ("fail_on", "scheme", "fmt")  # type: ignore[attr-defined]
    ]


def _walk(workspace: Path, cmd: Command, name: str) -> None:
    """Run ``cmd`` with every free-text option and every NAME= set to ``name``."""
    ws, tmp = _copy(workspace)
    with tmp:
        outputs = _outputs(cmd)
        argv = _argv(cmd, outputs)
        renamed = [
            f"{name}={a.partition('=')[2]}" if "=" in a and not a.startswith("-") else a
            for a in argv
        ]
        extra = [x for flag in _text_options(cmd) for x in (flag, name)]
        check_contract(ws, [*renamed, *extra], outputs, ())
        assert not Path("/tmp/bc-evil-abs").exists()


WRITERS = [c for c in SWEPT if c.outputs]


@pytest.mark.parametrize("cmd", WRITERS, ids=[c.name for c in WRITERS])
def test_hostile_names_walk(workspace: Path, cmd: Command) -> None:
    """Every writing command, its names and free-text options hostile: nothing leaves."""
    _walk(workspace, cmd, WALK_NAMES[0])


@pytest.mark.sweep
@pytest.mark.skipif(not BIG, reason="the big sweep: BENCHCHECK_SWEEP=N python -m pytest -m sweep")
@pytest.mark.parametrize("name", WALK_NAMES[1:])
@pytest.mark.parametrize("cmd", WRITERS, ids=[c.name for c in WRITERS])
def test_hostile_names_walk_big(workspace: Path, cmd: Command, name: str) -> None:
    _walk(workspace, cmd, name)


# ----------------------------------------------------------------------------- links in outputs


#: Every command that writes a folder (convert too: with --force it replaces the folder it
#: owns, issue 37 item 10), and ``items --to-review`` (the review writer behind ``items``).
def _two_targets(cmd: Command) -> Command:
    """``adjust`` with two targets: its output holds a folder per target."""
    if cmd.name != "adjust":
        return cmd
    return Command(cmd.name, (*cmd.argv, "--target", "0.1"), cmd.slots, cmd.outputs)


FOLDER_WRITERS = [
    _two_targets(c) for c in SWEPT if "out_dir" in c.outputs
] + [
    Command(
        "items --to-review",
        ("items", "data.jsonl", "--predictions", "a=pa.jsonl", "--predictions", "b=pb.jsonl",
         "--to-review", "{out_dir}"),
        (),
        {"out_dir": "dir"},
    ),
]  # fmt: skip
#: Where a planted link points: a folder or a file outside the output, an input, the
#: workspace itself, nothing (dangling).
LINK_TARGETS = ("folder", "file", "input-file", "input-folder", "workspace", "dangling")
_EARLIER: dict[str, Path] = {}


def _earlier_run(workspace: Path, cmd: Command) -> Path:
    """A copy of the workspace holding ``cmd``'s output of an earlier run (made once)."""
    if cmd.name not in _EARLIER:
        ws = Path(tempfile.mkdtemp(prefix="bc-links-")) / "ws"
        shutil.copytree(workspace, ws, symlinks=True)
        r = _run(ws, _argv(cmd, _outputs(cmd)))
        assert r.rc == 0, r.err[-800:]
        _EARLIER[cmd.name] = ws
    return _EARLIER[cmd.name]


@st.composite
def link_cases(draw: st.DrawFn) -> tuple[Command, int, str, bool]:
    """A folder writer, which path of its earlier output becomes a link, to what, --force."""
    return (
        draw(st.sampled_from(FOLDER_WRITERS)),
        draw(st.integers(0, 10_000)),
        draw(st.sampled_from(LINK_TARGETS)),
        draw(st.booleans()),
    )


def _plant(ws: Path, victim: Path, to: str) -> Path:
    """Replace ``victim`` by a link to a target of kind ``to``; return the target."""
    (ws / "sentinel").mkdir(exist_ok=True)
    (ws / "sentinel" / "keep.txt").write_text("keep\n")
    (ws / "sentinel.txt").write_text("keep\n")
    target = {
        "folder": ws / "sentinel",
        "file": ws / "sentinel.txt",
        "input-file": ws / "data.jsonl",
        "input-folder": ws / "ner",
        "workspace": ws,
        "dangling": ws / "nowhere",
    }[to]
    if victim.is_dir() and not victim.is_symlink():
        shutil.rmtree(victim)
    else:
        victim.unlink()
    victim.symlink_to(target)
    return target


def _links(workspace: Path, case: tuple[Command, int, str, bool]) -> None:
    """Plant a link inside the earlier output and run again: nothing written through it."""
    cmd, pick, to, force = case
    ws, tmp = _copy(_earlier_run(workspace, cmd))
    with tmp:
        outputs = _outputs(cmd)
        out = ws / outputs["out_dir"]
        entries = sorted(p for p in out.rglob("*") if not p.name.startswith("."))
        folders = [p for p in entries if p.is_dir()]
        # half the draws a folder (a link there redirects every file below it)
        pool = folders if folders and pick % 2 else entries
        victim = pool[pick // 2 % len(pool)]
        _plant(ws, victim, to)
        before = snapshot(ws)
        kept = {k: v for k, v in before.items() if not k.startswith(outputs["out_dir"])}
        outside = sorted(p.name for p in ws.parent.iterdir())
        r = _run(ws, [*_argv(cmd, outputs), *(["--force"] if force else [])])
        after = snapshot(ws)
        assert "Traceback" not in r.err + r.out, r.err[-1500:]
        assert sorted(p.name for p in ws.parent.iterdir()) == outside, "written outside the copy"
        changed = [k for k, v in kept.items() if after.get(k, 0) != v]
        assert not changed, f"written through the link {victim.relative_to(ws)}: {changed[:5]}"
        assert not (ws / "nowhere").exists(), "a dangling link was followed"
        if r.rc == 0:
            return
        assert r.rc == 2, f"exit {r.rc}: {r.err[-800:]!r}"
        lines = [x for x in r.err.splitlines() if x.strip() and not x.startswith("warning:")]
        assert len(lines) == 1 and lines[0].startswith("error:"), lines
        assert after == before, "written on an error"


@given(case=link_cases())
@_settings(DEFAULT_EXAMPLES // 2)
def test_links_inside_outputs(workspace: Path, case: tuple[Command, int, str, bool]) -> None:
    _links(workspace, case)


_CONVERT = next(c for c in FOLDER_WRITERS if c.name == "convert")


@pytest.mark.parametrize("force", [False, True], ids=["no-force", "force"])
@pytest.mark.parametrize("to", LINK_TARGETS)
@pytest.mark.parametrize("pick", [0, 1], ids=["a-file", "a-folder"])
def test_convert_force_never_writes_through_a_link(
    workspace: Path, pick: int, to: str, force: bool
) -> None:
    """convert --force replaces its folder, never what a link inside it points to."""
    _links(workspace, (_CONVERT, pick, to, force))


@pytest.mark.sweep
@pytest.mark.skipif(not BIG, reason="the big sweep: BENCHCHECK_SWEEP=N python -m pytest -m sweep")
@given(case=link_cases())
@_settings(BIG or 1)
def test_links_inside_outputs_big(workspace: Path, case: tuple[Command, int, str, bool]) -> None:
    _links(workspace, case)


# ----------------------------------------------------------------------------- huge integers

#: Every JSON or JSON-lines input of the swept commands.
_JSON_SLOTS = [
    (cmd, slot)
    for cmd, slot in _SLOTS
    if Path(slot.inner or slot.source).suffix in (".json", ".jsonl")
]
huge_integers = st.builds(
    Mutation,
    st.just("huge"),
    fractions,
    st.integers(0, 20),
    st.sampled_from([4301, 5000, 20_000]),
)


@given(pick=st.sampled_from(_JSON_SLOTS), mutation=huge_integers)
@_settings(DEFAULT_EXAMPLES // 2)
def test_huge_integers(workspace: Path, pick: tuple[Command, Slot], mutation: Mutation) -> None:
    """Any key of any record of any JSON input holding an integer past Python's limit."""
    _spoil(workspace, pick, mutation)


@pytest.mark.sweep
@pytest.mark.skipif(not BIG, reason="the big sweep: BENCHCHECK_SWEEP=N python -m pytest -m sweep")
@given(pick=st.sampled_from(_JSON_SLOTS), mutation=huge_integers)
@_settings(BIG or 1)
def test_huge_integers_big(workspace: Path, pick: tuple[Command, Slot], mutation: Mutation) -> None:
    _spoil(workspace, pick, mutation)


# ----------------------------------------------------------------------------- review exports

#: _exports name → the format whose schema it follows (benchcheck.io.review_exports)
EXPORT_FORMATS = {
    "ls item": "label studio item",
    "ls-min item": "label studio item min",
    "argilla item": "argilla item",
    "ls span": "label studio span",
    "ls-min span": "label studio span min",
}
#: values of every JSON type: a position gets those its schema refuses
EXPORT_VALUES = (None, True, False, 0, -1, 2.5, "", "10", [], ["0", "1"], [1], {}, {"a": 1})


@dataclass(frozen=True)
class ExportSpoil:
    """One change to a valid export: at JSON path ``steps``, set ``value`` or delete the key."""

    export: str
    steps: tuple[str | int, ...]
    kind: str  # "type" (a value its schema refuses), "missing" (a required key), "rule"
    value: object = None
    #: the JSON path the refusal must name (where the change is, or the object it breaks)
    names: str = ""


def _json_path(steps: tuple[str | int, ...]) -> str:
    return "$" + "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in steps)


def _export_spoils(ws: Path) -> list[ExportSpoil]:
    """Every change the export schemas make wrong (a value of a refused JSON type, a required
    key deleted) at every position of the valid exports, and the rules a schema cannot say
    (one choice; ``0 <= start < end <=`` the text's length) at every choice and region."""
    from _exports import load
    from jsonschema import Draft202012Validator

    from benchcheck.io.review_exports import export_schema

    out: list[ExportSpoil] = []
    for export, fmt in EXPORT_FORMATS.items():
        schema = export_schema(fmt)
        defs = schema["$defs"]

        def resolve(node: dict, defs: dict = defs) -> dict:
            while "$ref" in node:
                node = defs[node["$ref"].split("/")[-1]]
            return node

        def valid(value: object, node: dict, defs: dict = defs) -> bool:
            return Draft202012Validator({**node, "$defs": defs}).is_valid(value)

        def walk(value: object, node: dict, steps: tuple, export: str = export) -> None:
            node = resolve(node)
            here = _json_path(steps)
            if steps:  # (the root: a refusal that names no path, the readers' own test)
                for bad in EXPORT_VALUES:
                    if not valid(bad, node):
                        out.append(ExportSpoil(export, steps, "type", bad, here))
            member = next((m for m in node.get("anyOf", ()) if valid(value, m)), None)
            node = resolve(member) if member is not None else node
            if node.get("title") == "Choices":
                for bad in (["0", "1"], []):
                    at = (*steps, "choices")
                    out.append(ExportSpoil(export, at, "rule", bad, _json_path(at)))
            if node.get("title") == "SpanRegion" and isinstance(value, dict):
                for key, bad in (("start", -1), ("end", 10**6), ("end", value["start"])):
                    out.append(ExportSpoil(export, (*steps, key), "rule", bad, here))
            if isinstance(value, dict) and node.get("type") == "object":
                for key in node.get("required", ()):
                    out.append(ExportSpoil(export, (*steps, key), "missing", None, here))
                for key, sub in node.get("properties", {}).items():
                    if key in value:
                        walk(value[key], sub, (*steps, key))
            if isinstance(value, list) and node.get("type") == "array":
                for k, item in enumerate(value):
                    walk(item, node.get("items", {}), (*steps, k))

        walk(load(ws, export), schema, ())
    return out


@pytest.fixture(scope="module")
def exports_workspace(workspace: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sweep's review package and every valid export of it (``_exports``), alone."""
    from _exports import write_exports

    ws = tmp_path_factory.mktemp("exports") / "ws"
    ws.mkdir()
    shutil.copytree(workspace / "review", ws / "review")
    write_exports(ws)
    _SPOILS[:] = _export_spoils(ws)
    return ws


#: filled by the fixture (the spoils come from the exports it writes) before any draw
_SPOILS: list[ExportSpoil] = []
export_spoils = st.deferred(lambda: st.sampled_from(_SPOILS))


def _spoil_export(workspace: Path, spoil: ExportSpoil) -> None:
    """Import the spoilt export: exit 2, one line naming the file and the JSON path, no output."""
    from _exports import EXPORTS, import_argv, load, save

    ws, tmp = _copy(workspace)
    with tmp:
        value = load(ws, spoil.export)
        holder = value
        for s in spoil.steps[:-1]:
            holder = holder[s]
        if spoil.kind == "missing":
            del holder[spoil.steps[-1]]
        else:
            holder[spoil.steps[-1]] = spoil.value
        save(ws, spoil.export, value)
        out = {"out_jsonl": "new_out_jsonl.jsonl"}
        argv = list(import_argv(spoil.export, out["out_jsonl"]))
        r = check_contract(ws, argv, out, (Path(EXPORTS[spoil.export][0]).name,))
        assert r.rc == 2, f"{spoil}: accepted"
        line = r.err.strip().splitlines()[-1]
        at = line.find(spoil.names + ":")
        if at < 0:  # a change inside the object the refusal names (a key of it, an element)
            at = max(line.find(spoil.names + "."), line.find(spoil.names + "["))
        assert at >= 0, (spoil, line)


def test_every_export_and_kind_of_change_is_drawn(exports_workspace: Path) -> None:
    """The schemas reach every format, and give each kind of change."""
    kinds = {(s.export, s.kind) for s in _SPOILS}
    assert {e for e, _ in kinds} == set(EXPORT_FORMATS)
    assert {k for _, k in kinds} == {"type", "missing", "rule"}
    paths = {s.names for s in _SPOILS}
    assert "$[3].annotations[0].result[0].value.choices" in paths  # the example
    assert "$[1].annotations[0].result[0].value" in paths  # a region's offsets


@given(spoil=export_spoils)
@_settings(DEFAULT_EXAMPLES // 2)
def test_crafted_exports(exports_workspace: Path, spoil: ExportSpoil) -> None:
    """A valid Label Studio / Argilla export with one JSON path's type or value made wrong."""
    _spoil_export(exports_workspace, spoil)


@pytest.mark.sweep
@pytest.mark.skipif(not BIG, reason="the big sweep: BENCHCHECK_SWEEP=N python -m pytest -m sweep")
@given(spoil=export_spoils)
@_settings(BIG or 1)
def test_crafted_exports_big(exports_workspace: Path, spoil: ExportSpoil) -> None:
    _spoil_export(exports_workspace, spoil)


# ----------------------------------------------------------------------------- silently wrong

#: Decimal digits of several scripts (ASCII first), the characters ``int()`` also takes.
_DIGITS = ["0123456789", "٠١٢٣٤٥٦٧٨٩", "۰۱۲۳۴۵۶۷۸۹", "０１２３４５６７８９", "०१२३४५६७८९"]


@st.composite
def pubtator_offsets(draw: st.DrawFn) -> tuple[str, str]:
    """A mention's two offset fields: digits of any script, maybe an underscore or a sign."""

    def field(value: int) -> str:
        digits = draw(st.sampled_from(_DIGITS))
        text = "".join(digits[int(c)] for c in str(value))
        if len(text) > 1 and draw(st.booleans()):
            text = text[:1] + "_" + text[1:]
        return draw(st.sampled_from(["", "", "+", " "])) + text

    return field(8), field(13)


def _pubtator_paths(offsets: tuple[str, str]) -> None:
    from benchcheck.errors import InputError
    from benchcheck.io import pubtator

    a = "1|t|Aspirin helps here.\n1\t0\t7\tAspirin\tChemical\n1\t{}\t{}\thelps\tChemical\n"
    b = "2|t|Ibuprofen too.\n2\t0\t9\tIbuprofen\tChemical\n2\tCID\tD1\tD2\n"
    got = []
    with tempfile.TemporaryDirectory() as tmp:
        for sep in ("\n", ""):  # the vectorised path, then the line-by-line one
            path = Path(tmp, "p.txt")
            path.write_text(a.format(*offsets) + sep + b, encoding="utf-8")
            try:
                read = pubtator.records(path)
                got.append((read.span_start.tolist(), read.span_end.tolist()))
            except InputError as exc:
                got.append(str(exc))
    assert got[0] == got[1], got
    plain = all(pubtator.OFFSET.fullmatch(f) for f in offsets)
    assert (got[0] == ([0, 8, 0], [7, 13, 9])) if plain else "ASCII digits" in got[0], got


@given(offsets=pubtator_offsets())
@_settings(DEFAULT_EXAMPLES)
def test_pubtator_offsets_one_rule(offsets: tuple[str, str]) -> None:
    """Both PubTator paths give one answer for an offset in any script (issue 37, item 9)."""
    _pubtator_paths(offsets)

"""A persistent judgement cache in SQLite: resumable, never pays twice.

Keyed by (judge identity incl. weights hash, template hash, example content hash). Each
result is committed as it arrives (WAL journal, so a killed process loses at most the
result in flight and readers never block writers); a restarted run reads what is stored
and recomputes nothing. Rows are insert-only (``INSERT OR IGNORE``): a key is written once.

A cache path that is a folder, a file that is not SQLite (or is damaged, on any page, when
it is opened or read), an SQLite file of another program (tables, but not benchcheck's) or
a file that cannot be written is an :class:`~benchcheck.errors.InputError` naming the path
and how to remove it, never an sqlite traceback. Every row is checked by one rule
(:func:`check_score`) both ways: an impossible score offered for storing is refused
(:class:`~benchcheck.errors.JudgeError`), and a stored row that breaks it (a probability
NaN, infinite or outside [0, 1], labels and probabilities of different lengths, a
log-probability NaN or +inf, a negative token count or time) is a damaged cache.

>>> import tempfile, os
>>> from benchcheck.judges.base import JudgeScore
>>> d = tempfile.mkdtemp()
>>> c = JudgeCache(os.path.join(d, "c.sqlite"))
>>> k = c.key("llama-cpp|m|abc|", "t1", example_hash({"text_a": "a", "text_b": "b"}))
>>> c.put(k, JudgeScore(("0", "1"), (0.3, 0.7), (-1.2, -0.4), 10, 0.1))
True
>>> c.get_many([k])[k].probs
(0.3, 0.7)
>>> c.put(k, JudgeScore(("0", "1"), (0.5, 0.5), (-1.0, -1.0), 10, 0.1))
False
>>> len(c)
1
>>> c.close()
"""

from __future__ import annotations

import hashlib
import json
import math
import sqlite3
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

from benchcheck.errors import InputError, JudgeError
from benchcheck.judges.base import JudgeScore

_COLUMNS = ("key", "judge", "template_hash", "example_hash", "payload", "created")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS judgements (
    key TEXT PRIMARY KEY,
    judge TEXT NOT NULL,
    template_hash TEXT NOT NULL,
    example_hash TEXT NOT NULL,
    payload TEXT NOT NULL,
    created REAL NOT NULL
)
"""


def default_cache_path() -> Path:
    """``<user cache dir>/benchcheck/judgements.sqlite`` (platformdirs)."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("benchcheck")) / "judgements.sqlite"


def example_hash(fields: Mapping[str, str]) -> str:
    """sha256 over the example's text fields (names and values), 32 hex digits.

    The id is *not* part of it: the same content under another id is the same question.
    """
    body = json.dumps(sorted(fields.items()), ensure_ascii=False)
    return hashlib.sha256(body.encode("utf-8")).hexdigest()[:32]


def check_score(score: JudgeScore) -> str | None:
    """Return what makes ``score`` impossible, or None: the rule of every cached row.

    Probabilities finite in [0, 1], one per label; log-probabilities ``None``, ``-inf`` or
    finite (a raw logit may be positive, so only NaN and +inf are refused); labels distinct
    strings; token count and seconds finite and ≥ 0.

    >>> check_score(JudgeScore(("0", "1"), (0.3, 0.7), (-1.2, -0.4), 10, 0.1)) is None
    True
    >>> check_score(JudgeScore(("0", "1"), (5.0, -4.0), (None, None), 10, 0.1))
    'probabilities (5.0, -4.0) are not all in [0, 1]'
    """
    if any(isinstance(p, bool | str | bytes) for p in score.probs):  # float() takes them
        return f"probabilities {score.probs!r} are not numbers"
    try:
        probs = [float(p) for p in score.probs]
    except (TypeError, ValueError):
        return f"probabilities {score.probs!r} are not numbers"
    if not all(0.0 <= p <= 1.0 for p in probs):  # NaN compares False
        return f"probabilities {score.probs!r} are not all in [0, 1]"
    labels = score.labels
    if not all(isinstance(lab, str) for lab in labels) or len(set(labels)) != len(labels):
        return f"labels {list(labels)!r} are not distinct strings"
    if len(probs) != len(labels) or len(score.logprobs) != len(labels):
        return f"{len(labels)} labels but {len(probs)} probabilities"
    for lp in score.logprobs:
        if lp is not None and (not isinstance(lp, int | float) or math.isnan(lp) or lp == math.inf):
            return f"log-probability {lp!r} is not a number below +inf"
    for what, value in (("token count", score.n_prompt_tokens), ("seconds", score.seconds)):
        if not isinstance(value, int | float) or not (0 <= value < math.inf):
            return f"{what} {value!r} is not a finite number ≥ 0"
    return None


def _damaged(path: Path, why: str) -> InputError:
    return InputError(
        f"the judge cache is damaged ({why}): remove it (rm '{path}'; its judgements will be "
        "recomputed) or pass another {cache}",
        path=path,
    )


class JudgeCache:
    """SQLite-backed store of :class:`JudgeScore` by key; safe across processes."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if self.path.is_dir():
            raise InputError(
                "is a folder; the judge cache is one SQLite file (e.g. "
                f"{self.path / 'judgements.sqlite'})",
                path=self.path,
            )
        if self.path.parent.exists() and not self.path.parent.is_dir():
            raise InputError(f"{self.path.parent} is a file, not a folder", path=self.path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(
                f"cannot create the cache folder: {exc.strerror}", path=self.path
            ) from None
        try:
            self._db = sqlite3.connect(str(self.path), timeout=60.0, isolation_level=None)
        except sqlite3.Error as exc:
            raise InputError(f"cannot open the judge cache ({exc})", path=self.path) from None
        try:
            self._open()
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise InputError(self._explain(exc), path=self.path) from None
        except InputError:
            self._db.close()
            raise

    def _open(self) -> None:
        tables = {
            name
            for (name,) in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")
        }
        if tables and "judgements" not in tables:
            raise InputError(
                f"an SQLite file of another program (tables {sorted(tables)[:5]}), not a "
                "benchcheck judge cache; pass another {cache}",
                path=self.path,
            )
        if "judgements" in tables:
            cols = tuple(r[1] for r in self._db.execute("PRAGMA table_info(judgements)"))
            if cols != _COLUMNS:
                raise InputError(
                    f"its 'judgements' table has columns {list(cols)}, not a benchcheck judge "
                    "cache's; pass another {cache}",
                    path=self.path,
                )
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(_SCHEMA)

    @staticmethod
    def _explain(exc: sqlite3.DatabaseError) -> str:
        text = str(exc)
        if any(w in text for w in ("not a database", "malformed", "unsupported file format")):
            return (
                f"not a readable judge cache ({text}); it may be damaged or not SQLite: remove "
                "it (its judgements will be recomputed) or pass another {cache}"
            )
        if "readonly" in text or "read-only" in text:
            return "the judge cache cannot be written (read-only); pass another {cache}"
        if "locked" in text:
            return "the judge cache is locked by another process for over 60 s; try again"
        if text.startswith("Could not decode"):  # a damaged page: the message holds its bytes
            return (
                "not a readable judge cache (a stored text is not UTF-8); it may be damaged: "
                "remove it (its judgements will be recomputed) or pass another {cache}"
            )
        return f"cannot use the judge cache ({text})"

    @staticmethod
    def key(judge_key: str, template_hash: str, ex_hash: str) -> str:
        """Return the row key: sha256 of the three parts."""
        raw = "\x1f".join((judge_key, template_hash, ex_hash)).encode("utf-8")
        return hashlib.sha256(raw).hexdigest()

    def get_many(self, keys: Iterable[str]) -> dict[str, JudgeScore]:
        """Return the stored scores among ``keys``."""
        out: dict[str, JudgeScore] = {}
        keys = list(keys)
        for i in range(0, len(keys), 500):
            chunk = keys[i : i + 500]
            marks = ",".join("?" * len(chunk))
            try:
                rows = self._db.execute(
                    f"SELECT key, payload FROM judgements WHERE key IN ({marks})", chunk
                ).fetchall()
            except sqlite3.DatabaseError as exc:
                raise InputError(self._explain(exc), path=self.path) from None
            for key, payload in rows:
                out[key] = self._row(key, payload)
        return out

    def _row(self, key: object, payload: object) -> JudgeScore:
        """Read one stored row back, checked as :meth:`put` checks it (:func:`check_score`)."""
        try:
            if not isinstance(payload, str | bytes):
                raise TypeError(type(payload).__name__)
            data = json.loads(payload)
            if not isinstance(data, dict):
                raise TypeError(type(data).__name__)
            for field in ("labels", "probs", "logprobs"):  # "01" would read as (0.0, 1.0)
                if not isinstance(data.get(field), list):
                    raise TypeError(f"{field} is not a list")
            # JSON numbers only: float() reads false, true and "0.5" as numbers
            numbers = [*data["probs"], *(x for x in data["logprobs"] if x is not None)]
            numbers += [data.get("n_prompt_tokens"), data.get("seconds")]
            if not all(isinstance(x, int | float) and not isinstance(x, bool) for x in numbers):
                raise TypeError("a number is not a JSON number")
            score = JudgeScore.from_json(data)
        except (ValueError, TypeError, KeyError, RecursionError) as exc:
            # (a huge integer is a ValueError too: int-to-string limit)
            why = f"a stored judgement cannot be read back ({type(exc).__name__})"
            raise _damaged(self.path, why) from None
        wrong = check_score(score)
        if wrong is not None:
            raise _damaged(self.path, f"a stored judgement has {wrong}")
        return score

    def put(
        self,
        key: str,
        score: JudgeScore,
        *,
        judge: str = "",
        template_hash: str = "",
        ex_hash: str = "",
    ) -> bool:
        """Store one score and commit; False when the key was already stored.

        An impossible score (a probability that is NaN, infinite or outside [0, 1]) is
        refused with :class:`~benchcheck.errors.JudgeError`: the cache never holds one.
        """
        wrong = check_score(score)
        if wrong is not None:
            raise JudgeError(f"refusing to cache an impossible score: {wrong}")
        try:
            cur = self._db.execute(
                "INSERT OR IGNORE INTO judgements VALUES (?, ?, ?, ?, ?, ?)",
                (
                    key,
                    judge,
                    template_hash,
                    ex_hash,
                    json.dumps(score.to_json()),  # a log-probability may be -inf
                    time.time(),
                ),
            )
        except sqlite3.DatabaseError as exc:
            raise InputError(self._explain(exc), path=self.path) from None
        return cur.rowcount == 1

    def __len__(self) -> int:
        try:
            return int(self._db.execute("SELECT COUNT(*) FROM judgements").fetchone()[0])
        except sqlite3.DatabaseError as exc:
            raise InputError(self._explain(exc), path=self.path) from None

    def close(self) -> None:
        """Close the connection."""
        self._db.close()

    def __enter__(self) -> JudgeCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

"""A persistent judgement cache in SQLite: resumable, never pays twice.

Keyed by (judge identity incl. weights hash, template hash, example content hash). Each
result is committed as it arrives (WAL journal, so a killed process loses at most the
result in flight and readers never block writers); a restarted run reads what is stored
and recomputes nothing. Rows are insert-only (``INSERT OR IGNORE``): a key is written once.

A cache path that is a folder, a file that is not SQLite (or is damaged), an SQLite file of
another program (tables, but not benchcheck's) or a file that cannot be written is an
:class:`~benchcheck.errors.InputError` naming the path, never an sqlite traceback; a stored
score that cannot be read back, or an impossible score offered for storing (NaN, outside
[0, 1]), is refused the same way.

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
        if "not a database" in text or "malformed" in text:
            return (
                f"not a readable judge cache ({text}); it may be damaged or not SQLite: move "
                "it away (judgements will be recomputed) or pass another {cache}"
            )
        if "readonly" in text or "read-only" in text:
            return "the judge cache cannot be written (read-only); pass another {cache}"
        if "locked" in text:
            return "the judge cache is locked by another process for over 60 s; try again"
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
            rows = self._db.execute(
                f"SELECT key, payload FROM judgements WHERE key IN ({marks})", chunk
            )
            try:
                for key, payload in rows:
                    out[key] = JudgeScore.from_json(json.loads(payload))
            except sqlite3.DatabaseError as exc:
                raise InputError(self._explain(exc), path=self.path) from None
            except (ValueError, TypeError, KeyError) as exc:
                raise InputError(
                    f"a stored judgement cannot be read back ({type(exc).__name__}); the cache "
                    "is damaged: move it away (judgements will be recomputed) or pass another "
                    "{cache}",
                    path=self.path,
                ) from None
        return out

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
        try:
            possible = all(0 <= float(p) <= 1 for p in score.probs)  # NaN compares False
        except (TypeError, ValueError):
            possible = False
        if not possible:
            raise JudgeError(f"refusing to cache an impossible score: probabilities {score.probs}")
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
        return int(self._db.execute("SELECT COUNT(*) FROM judgements").fetchone()[0])

    def close(self) -> None:
        """Close the connection."""
        self._db.close()

    def __enter__(self) -> JudgeCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

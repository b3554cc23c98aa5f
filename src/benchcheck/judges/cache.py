"""A persistent judgement cache in SQLite: resumable, never pays twice.

Keyed by (judge identity incl. weights hash, template hash, example content hash). Each
result is committed as it arrives (WAL journal, so a killed process loses at most the
result in flight and readers never block writers); a restarted run reads what is stored
and recomputes nothing. Rows are insert-only (``INSERT OR IGNORE``): a key is written once.

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

from benchcheck.judges.base import JudgeScore

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
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(self.path), timeout=60.0, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(_SCHEMA)

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
            for key, payload in rows:
                out[key] = JudgeScore.from_json(json.loads(payload))
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
        """Store one score and commit; False when the key was already stored."""
        cur = self._db.execute(
            "INSERT OR IGNORE INTO judgements VALUES (?, ?, ?, ?, ?, ?)",
            (key, judge, template_hash, ex_hash, json.dumps(score.to_json()), time.time()),
        )
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

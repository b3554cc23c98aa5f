"""The shell blocks of README.md and docs/*.md, read once for the documentation tests.

One reader for tests/docs/test_doc_commands.py (every ``benchcheck`` line parses) and
tests/docs/test_doc_commands_run.py (every block runs). A block is a fenced ``sh``,
``bash`` or ``console`` block (an unnamed fence counts as ``sh``), also one indented under a
list item. Each line is one of:

* ``benchcheck`` — a command (its words after ``benchcheck``, joined back with
  :func:`shlex.join`; ``\\`` continuations joined, a ``#`` comment dropped);
* ``set`` — a shell variable ``VAR=value``;
* ``cp`` — a copy (``cp SRC DST``);
* ``output`` — in a ``console`` block, a line without the ``$ `` prompt: what the command
  printed;
* ``other`` — anything else (``curl``, ``python``, ...), not run by the tests.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL = ("sh", "bash", "console")


class Block:
    """One shell block: its document, first line, language and lines ``(where, kind, text)``."""

    def __init__(self, doc: str, line: int, lang: str = "sh") -> None:
        self.doc, self.line, self.lang = doc, line, lang
        self.lines: list[tuple[str, str, str]] = []

    @property
    def name(self) -> str:
        return f"{self.doc}:{self.line}"

    def commands(self) -> list[str]:
        return [text for _, kind, text in self.lines if kind == "benchcheck"]


def _uncomment(text: str) -> str:
    """A shell line without its comment: ``#`` that starts a word (``a.jsonl#label`` stays)."""
    return re.sub(r"(^|\s)#.*$", "", text)


def _kind(text: str) -> tuple[str, str]:
    """Return the kind of a shell line and its text (a command's words after ``benchcheck``)."""
    first = text.split()[0]
    words = (
        shlex.split(_uncomment(text)) if first in ("benchcheck", "cp") or "=" in first else [first]
    )
    if words and words[0] == "benchcheck":
        return "benchcheck", shlex.join(words[1:])
    if words and re.fullmatch(r"[A-Za-z_]\w*=\S*", words[0]) and len(words) == 1:
        return "set", words[0]
    if words and words[0] == "cp":
        return "cp", shlex.join(words[1:])
    return "other", text


def doc_blocks(docs: list[Path] | None = None) -> list[Block]:
    """Every shell block of ``docs`` (default: README.md, docs/*.md) with a ``benchcheck`` line."""
    blocks: list[Block] = []
    for path in DOCS if docs is None else docs:
        doc = str(path.relative_to(ROOT))
        lines = path.read_text(encoding="utf-8").splitlines()
        block: Block | None = None
        lang: str | None = None
        k = 0
        while k < len(lines):
            line = lines[k].strip()
            if line.startswith("```"):  # also a block indented under a list item
                if lang is None:
                    lang = line[3:].strip() or "sh"
                    block = Block(doc, k + 1, lang) if lang in SHELL else None
                else:
                    if block is not None and block.commands():
                        blocks.append(block)
                    lang, block = None, None
                k += 1
                continue
            if block is None or not line or line.startswith("#"):
                k += 1
                continue
            where = f"{doc}:{k + 1}"
            if lang == "console" and not line.startswith("$ "):
                block.lines.append((where, "output", lines[k]))
                k += 1
                continue
            text = line.removeprefix("$ ")
            while text.rstrip().endswith("\\") and k + 1 < len(lines):
                k += 1
                text = text.rstrip()[:-1] + " " + lines[k].strip()
            block.lines.append((where, *_kind(text)))
            k += 1
    return blocks


def doc_commands(docs: list[Path] | None = None) -> list[tuple[str, list[str]]]:
    """``(document:line, argv)`` of every ``benchcheck`` line in a shell block of ``docs``."""
    return [
        (where, shlex.split(text))
        for block in doc_blocks(docs)
        for where, kind, text in block.lines
        if kind == "benchcheck"
    ]

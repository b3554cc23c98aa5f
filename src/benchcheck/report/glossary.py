"""The glossary: the words the terminal and the report use without explaining them in place.

One source for three readers: ``docs/glossary.md`` is generated from :data:`ENTRIES`
(``python -m benchcheck.report.glossary docs/glossary.md``; a test keeps it current), the
report's footer lists the entries whose word its page uses and links the first use to the
entry (:func:`link_terms`), and the terminal names the words a command printed in a
footer line that points at ``benchcheck glossary`` (:func:`terms_in`).

A meaning is one line of text in which ```code``` marks an option or a module; each
entry has the pattern that finds its word in a text (case-sensitive, whole words).

>>> [e.term for e in terms_in("interval: mid-p, MOVER across the strata; AP 0.4")]
['mid-p', 'MOVER', 'stratum', 'AP']
>>> html, used = link_terms("<p>a mid-p interval</p><p>mid-p again</p>")
>>> html
'<p>a <a class="term" href="#g-mid-p">mid-p</a> interval</p><p>mid-p again</p>'
>>> [e.term for e in used]
['mid-p']
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

__all__ = ["ENTRIES", "Entry", "anchor", "find", "link_terms", "markdown", "plain", "terms_in"]


@dataclass(frozen=True)
class Entry:
    """A word, its one-line meaning (```code``` marks options), the pattern that finds it."""

    term: str
    meaning: str
    pattern: str

    @property
    def regex(self) -> re.Pattern[str]:
        """The compiled :attr:`pattern`."""
        return re.compile(self.pattern)


ENTRIES: tuple[Entry, ...] = (
    Entry(
        "error score",
        "The probability that an example's label is wrong, given the detector and the "
        "estimated base rate of errors (`--posterior`); a flag is an example whose error score "
        "is at least `--min-error-score`.",
        r"\berror[ _]scores?\b",
    ),
    Entry(
        "bayes-platt",
        "The default `--posterior`: Bayes' rule with the base rate of errors π estimated by EM, "
        "the detector first recalibrated jointly with π (a temperature and a prior shift, "
        "Platt-style), so an under- or over-confident detector does not drive π to 0 or to the "
        "disagreement rate (`benchcheck.labels.posterior`).",
        r"\bbayes[-_]platt\b",
    ),
    Entry(
        "poisson-binomial",
        "The distribution of a sum of independent yes/no events with different probabilities. "
        "The expected number of wrong labels is the sum of the error scores; its interval comes "
        "from this distribution (exact by convolution, or its normal approximation for large "
        "data).",
        r"\b[Pp]oisson[-_ ][Bb]inomial\b",
    ),
    Entry(
        "mid-p",
        "A confidence interval for a proportion that counts half the probability of the "
        "observed count (Lancaster 1961): closer to the nominal level than the exact "
        "(Clopper-Pearson) interval, which never falls below it but is wider. "
        "`error-rate --method midp` (default) or `exact`.",
        r"\b[Mm]id-?p\b",
    ),
    Entry(
        "MOVER",
        '"Method of variance estimates recovery" (Zou & Donner 2008): combines the per-stratum '
        "intervals of a stratified error-rate estimate into one interval for the weighted "
        "total, without the normal approximation of the textbook stratified interval "
        "(`benchcheck.stats.stratified`).",
        r"\bMOVER\b",
    ),
    Entry(
        "stratum",
        "A part of the data sampled on its own for review: the flagged (disputed) examples and "
        "the undisputed rest (`--audit-sample`).",
        r"\b[Ss]trat(?:um|a)\b",
    ),
    Entry(
        "noisy-or",
        "Combines two detectors' probabilities that a span is wrong as 1 − (1 − p₁)(1 − p₂): the "
        "label is right only if neither detector's evidence holds, the two taken as independent "
        "(the NER detector with its consistency member).",
        r"\b[Nn]oisy[-_ ][Oo][Rr]\b",
    ),
    Entry(
        "AP",
        "Average precision of a ranking of flags against the known errors: the mean, over the "
        "true errors, of the precision among the flags ranked at or above each. 1 is a perfect "
        "ranking; a random ranking scores the error rate.",
        r"\bAP\b",
    ),
    Entry(
        "P@k",
        "Precision at k: the share of true errors among the k highest error scores.",
        r"\bP@(?:k|\d+)\b",
    ),
    Entry(
        "ECE",
        "Expected calibration error: the mean gap between the error score and the observed "
        "error rate over score bins, weighted by the bins' sizes.",
        r"\bECE\b",
    ),
    Entry(
        "Eq. N",
        "An equation of the paper a metric implements; each metric's card (`docs/metrics/` in "
        "the source, and the metric's tooltip in the report) gives the formula.",
        r"\bEq\. ?\d+",
    ),
    Entry(
        "↑ / ↓",
        'Which direction of a metric is "better" in its dimension; for difficulty, better '
        "means harder (a benchmark that still separates models). `entity_ambiguity_degree` is "
        "↓: Eq. 5 as written, 1 − e*/n, falls as ambiguity grows.",
        r"[↑↓]",
    ),
    Entry(
        "—",
        "A value not defined for this input (too few examples, no entity, no model); the "
        "notes say why.",
        r"^\s*—\s*$",
    ),
    Entry(
        "U+XXXX",
        "An invisible or direction-changing character found in the data, shown by its code "
        "point so that it cannot hide or reorder the text around it.",
        r"\bU\+[0-9A-F]{4,6}\b",
    ),
)

_BY_TERM = {e.term.casefold(): e for e in ENTRIES}


def find(term: str) -> Entry | None:
    """Return the entry of ``term`` (any case), or None.

    >>> find("mover").term
    'MOVER'
    """
    return _BY_TERM.get(term.strip().casefold())


def anchor(entry: Entry) -> str:
    """Return the id of ``entry``'s row in the report's footer (letters, digits and ``-`` only).

    >>> [anchor(e) for e in (find("P@k"), find("↑ / ↓"), find("Eq. N"))]
    ['g-p-k', 'g-arrows', 'g-eq-n']
    """
    special = {"↑ / ↓": "arrows", "—": "dash", "U+XXXX": "codepoint"}
    slug = special.get(entry.term) or re.sub(r"[^a-z0-9]+", "-", entry.term.lower()).strip("-")
    return "g-" + slug


def plain(meaning: str) -> str:
    """Return a meaning without its code marks (for the terminal).

    >>> plain("the `--posterior` option")
    'the --posterior option'
    """
    return meaning.replace("`", "")


def terms_in(text: str) -> list[Entry]:
    """Return the entries whose word occurs in ``text``, in the order of first use."""
    seen: list[tuple[int, int, Entry]] = []
    lines = text.splitlines()
    for k, entry in enumerate(ENTRIES):
        regex = entry.regex
        hit = next((m for line in lines if (m := regex.search(line))), None)
        if hit is not None:
            seen.append((text.find(hit.group()), k, entry))
    return [e for _, _, e in sorted(seen, key=lambda t: (t[0], t[1]))]


#: Elements whose text is no use of a word: not shown, the glossary itself, or the data's
#: own text (every dataset text is shown inside ``<bdi>``: a token "AP" is no precision).
_HIDDEN = frozenset({"head", "script", "style", "title", "footer", "bdi"})
#: Elements whose text is shown but cannot hold a link (a link inside a link, a chart's
#: SVG text, a sortable column's heading, a control).
_NO_LINK = frozenset({"a", "svg", "th", "button", "select", "option", "summary", "textarea"})
_TAG = re.compile(r"(<[^>]*>)")
_NAME = re.compile(r"</?\s*([A-Za-z][A-Za-z0-9-]*)")
_VOID = frozenset({"br", "hr", "img", "meta", "link", "input", "wbr", "col", "source"})


def link_terms(page: str) -> tuple[str, list[Entry]]:
    """Link each glossary word's first linkable use in ``page`` to its footer entry.

    ``page`` is HTML this package built (well nested, every text escaped). Text inside
    ``head``, ``script``, ``style``, ``title`` and ``footer`` is no use; inside a link, an
    SVG chart, a table heading or a control a word counts as used but is not linked (the
    next use outside them is). Returns the page and the entries used, in page order.
    """
    pieces = _TAG.split(page)
    stack: list[str] = []
    used: dict[str, Entry] = {}
    linked: set[str] = set()
    out: list[str] = []
    for piece in pieces:
        if piece.startswith("<"):
            _track(piece, stack)
            out.append(piece)
            continue
        if not piece or _HIDDEN.intersection(stack):
            out.append(piece)
            continue
        linkable = not _NO_LINK.intersection(stack)
        out.append(_link_text(piece, used, linked if linkable else None))
    return "".join(out), list(used.values())


def _track(tag: str, stack: list[str]) -> None:
    m = _NAME.match(tag)
    if m is None or tag.startswith(("<!", "<?")):
        return
    name = m.group(1).lower()
    if tag.startswith("</"):
        if name in stack:
            del stack[len(stack) - 1 - stack[::-1].index(name) :]
    elif not tag.endswith("/>") and name not in _VOID:
        stack.append(name)


def _link_text(text: str, used: dict[str, Entry], linked: set[str] | None) -> str:
    """Record the words of one text node; link the first use of each not yet linked."""
    for entry in ENTRIES:
        if entry.regex.search(text):
            used.setdefault(entry.term, entry)
    if linked is None:
        return text
    hits: list[tuple[int, int, Entry]] = []
    for entry in ENTRIES:
        if entry.term in linked:
            continue
        m = entry.regex.search(text)
        if m is not None:
            hits.append((m.start(), m.end(), entry))
    out, at = [], 0
    for start, end, entry in sorted(hits, key=lambda h: h[0]):
        if start < at:  # overlaps a word linked just before: the next text links it
            continue
        word = text[start:end]
        out += [
            text[at:start],
            f'<a class="term" href="#{anchor(entry)}">{word}</a>',
        ]
        linked.add(entry.term)
        at = end
    return "".join(out) + text[at:]


def html_meaning(meaning: str) -> str:
    """Render a meaning as HTML: escaped, its ```code``` marks as ``<code>``.

    >>> html_meaning("see `--posterior` & <b>")
    'see <code>--posterior</code> &amp; &lt;b&gt;'
    """
    parts = escape(meaning, quote=False).split("`")
    return "".join(f"<code>{p}</code>" if k % 2 else p for k, p in enumerate(parts))


def html_footer(entries: Sequence[Entry]) -> str:
    """Render the footer's definition list: each entry used, its id the links' target."""
    rows = "".join(
        f'<dt id="{anchor(e)}">{escape(e.term)}</dt><dd>{html_meaning(e.meaning)}</dd>'
        for e in entries
    )
    return f'<dl class="defs glossary" aria-label="glossary">{rows}</dl>'


def markdown() -> str:
    """``docs/glossary.md``, generated from :data:`ENTRIES`."""
    head = (
        "# Glossary\n\n"
        "Words the terminal output and the report use without explaining them where they "
        "appear. The report's footer lists the ones its page uses (each first use links to "
        "its entry); a command's terminal output ends with a line naming the ones it printed, "
        "and `benchcheck glossary TERM` prints an entry. Generated from "
        "`src/benchcheck/report/glossary.py` (`python -m benchcheck.report.glossary "
        "docs/glossary.md`).\n\n"
        "| term | meaning |\n| --- | --- |\n"
    )
    bar = "\\|"  # a "|" in a meaning would end the table's cell
    rows = "".join(f"| **{e.term}** | {e.meaning.replace('|', bar)} |\n" for e in ENTRIES)
    return head + rows


if __name__ == "__main__":  # pragma: no cover - regenerates docs/glossary.md
    with open(sys.argv[1], "w", encoding="utf-8") as fh:
        fh.write(markdown())

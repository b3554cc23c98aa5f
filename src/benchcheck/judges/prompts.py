"""Prompt templates for judges: the four binary factual-consistency framings, NLI, TOML.

A :class:`PromptTemplate` turns one example into a chat request (system + user message)
whose answer is one label token. The paper (methods.md, section 2) re-labels each example
with several zero-shot framings of the same question; the four built-in binary framings are
``nli`` (premise / hypothesis), ``document`` (document / statement), ``grounding``
(grounding / generated text) and ``evidence`` (evidence / claim). ``nli3`` asks the
three-way NLI question (entailment / neutral / contradiction).

The four binary framings start with the first text (the grounding) and name its role only
after it, so that the framings of one example share the token prefix system message +
grounding: a local engine evaluates a (long) grounding once per example instead of once
per prompt, and only the short framing-specific tail four times. ``nli3``, asked on its
own, names the roles first.

>>> t = BUILTIN_PROMPTS["grounding"]
>>> t.labels, t.verbalisers
(('0', '1'), ('0', '1'))
>>> r = t.render({"text_a": "The sky is blue.", "text_b": "The sky is green."})
>>> "The sky is green." in r.user and r.verbalisers == ("0", "1")
True
>>> len(t.template_hash)
16
"""

from __future__ import annotations

import hashlib
import json
import string
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from benchcheck.errors import InputError, UsageError

#: The system message every built-in template uses.
SYSTEM = "You are a careful annotator. Answer with a single digit and nothing else."

#: Names of the four binary framings, in the order ``--prompts all`` runs them.
BINARY_FRAMINGS: tuple[str, ...] = ("nli", "document", "grounding", "evidence")


@dataclass(frozen=True)
class ChatRequest:
    """One rendered prompt: the messages and the label tokens whose probabilities we want."""

    system: str | None
    user: str
    labels: tuple[str, ...]
    verbalisers: tuple[str, ...]
    #: The example's raw fields (name, text), for judges that read the pair itself (NLI).
    fields: tuple[tuple[str, str], ...] = ()

    def messages(self) -> list[dict[str, str]]:
        """Return the request as chat messages (OpenAI / HF chat-template format)."""
        out = [] if self.system is None else [{"role": "system", "content": self.system}]
        out.append({"role": "user", "content": self.user})
        return out

    def plain_text(self) -> str:
        r"""Return the request as raw text, for models without a chat template.

        >>> ChatRequest("Be brief.", "Is it?", ("0", "1"), ("0", "1")).plain_text()
        'Be brief.\n\nIs it?\n'
        >>> ChatRequest(None, "Is it?", ("0", "1"), ("0", "1")).plain_text()
        'Is it?\n'
        """
        head = f"{self.system}\n\n" if self.system else ""
        return f"{head}{self.user}\n"


#: The example fields a template may name.
FIELDS = ("text", "text_a", "text_b")


def template_fields(user: str, *, name: str = "?") -> frozenset[str]:
    """Return the fields of a template, which may hold only plain ``{field}`` placeholders.

    A format spec (``{text_a:>3000000000}`` pads every prompt to gigabytes), a conversion
    (``{text_a!r}``), an attribute or index (``{text_a.x}``, ``{text_a[0]}``), a positional
    ``{}``, a field outside :data:`FIELDS` or a lone brace is a :class:`UsageError` naming
    the prompt; ``{{`` and ``}}`` are literal braces.

    >>> sorted(template_fields("A: {text_a} B: {text_b} {{x}}"))
    ['text_a', 'text_b']
    >>> template_fields("{text_a:>99}", name="p")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    benchcheck.errors.UsageError: prompt 'p': '{text_a:>99}' is not a plain placeholder: ...
    """
    try:
        parts = list(string.Formatter().parse(user))
    except ValueError as exc:  # a lone '{' or '}'
        raise UsageError(
            f"prompt {name!r}: {exc}; write {{{{ and }}}} for literal braces"
        ) from None
    fields = set()
    for _, field, spec, conversion in parts:
        if field is None:
            continue
        if spec or conversion is not None or field not in FIELDS:
            shown = "{" + field + (f"!{conversion}" if conversion else "")
            shown += (f":{spec}" if "{" not in spec else ":<a nested field>") if spec else ""
            shown += "}"
            if len(shown) > 60:
                shown = shown[:60] + "…"
            if not (spec or conversion) and field.isidentifier():
                raise UsageError(
                    f"prompt {name!r}: unknown field {field!r}; allowed: {', '.join(FIELDS)}"
                )
            raise UsageError(  # (no '{field}' in the words: it would read as a parameter)
                f"prompt {name!r}: {shown!r} is not a plain placeholder: only text, text_a or "
                "text_b in braces, with no ':' format and no '!' conversion ({{ and }} for "
                "literal braces)"
            )
        fields.add(field)
    return frozenset(fields)


@dataclass(frozen=True)
class PromptTemplate:
    """A zero-shot template: ``user`` is a :meth:`str.format` string over example fields.

    Fields available to ``user``: ``text_a`` and ``text_b`` (pair tasks), ``text``
    (classification). ``labels`` are the dataset's label values, ``verbalisers`` the answer
    token for each (default: the labels themselves).
    """

    name: str
    user: str
    system: str | None = SYSTEM
    labels: tuple[str, ...] = ("0", "1")
    verbalisers: tuple[str, ...] = ("0", "1")

    def __post_init__(self) -> None:
        if len(self.labels) < 2:
            raise UsageError(f"prompt {self.name!r}: needs at least two labels, got {self.labels}")
        if len(self.labels) != len(self.verbalisers):
            raise UsageError(
                f"prompt {self.name!r}: {len(self.labels)} labels but "
                f"{len(self.verbalisers)} verbalisers"
            )
        if len(set(self.verbalisers)) != len(self.verbalisers):
            raise UsageError(f"prompt {self.name!r}: verbalisers must differ: {self.verbalisers}")
        template_fields(self.user, name=self.name)

    @property
    def fields(self) -> frozenset[str]:
        """The example fields the template reads."""
        return template_fields(self.user, name=self.name)

    @property
    def template_hash(self) -> str:
        """16 hex digits of sha256 over everything that changes what the judge sees."""
        body = json.dumps(
            [self.system, self.user, list(self.labels), list(self.verbalisers)],
            ensure_ascii=False,
        )
        return hashlib.sha256(body.encode("utf-8")).hexdigest()[:16]

    def with_verbalisers(self, verbalisers: Sequence[str]) -> PromptTemplate:
        """Return the same template answering with other label tokens."""
        return replace(self, verbalisers=tuple(verbalisers))

    def render(self, example: Mapping[str, str]) -> ChatRequest:
        """Fill the template with one example's fields."""
        try:
            user = self.user.format(**{k: example[k] for k in self.fields})
        except KeyError as exc:
            raise UsageError(
                f"prompt {self.name!r} needs the field {exc.args[0]!r}; "
                f"the example has {sorted(example)}"
            ) from None
        raw = tuple((k, str(example[k])) for k in ("text", "text_a", "text_b") if k in example)
        return ChatRequest(self.system, user, self.labels, self.verbalisers, raw)


def _binary(name: str, a: str, b: str, question: str) -> PromptTemplate:
    user = (
        f"{{text_a}}\n\nThe text above is the {a.lower()}.\n{b}: {{text_b}}\n\n"
        f"{question} Answer 1 for yes, 0 for no.\nAnswer (0 or 1):"
    )
    return PromptTemplate(name=name, user=user)


BUILTIN_PROMPTS: dict[str, PromptTemplate] = {
    "nli": _binary("nli", "Premise", "Hypothesis", "Does the premise entail the hypothesis?"),
    "document": _binary(
        "document",
        "Document",
        "Statement",
        "Is the statement factually consistent with the document?",
    ),
    "grounding": _binary(
        "grounding",
        "Grounding",
        "Generated text",
        "Is every fact in the generated text supported by the grounding?",
    ),
    "evidence": _binary("evidence", "Evidence", "Claim", "Does the evidence support the claim?"),
    "nli3": PromptTemplate(
        name="nli3",
        # Question first, roles named before the texts: nli3 is asked alone (it shares no
        # prefix with the binary framings), and on the 90-example sample suite the default
        # judge scored R_K 0.243 this way against 0.181 with the premise first.
        user=(
            "Does the premise entail the hypothesis, is it neutral, or does it contradict it? "
            "Answer 0 for entailment, 1 for neutral, 2 for contradiction.\n\n"
            "Premise: {text_a}\n\nHypothesis: {text_b}\n\nAnswer (0, 1 or 2):"
        ),
        labels=("entailment", "neutral", "contradiction"),
        verbalisers=("0", "1", "2"),
    ),
}


#: The system message of the multiple-choice prompt: one letter, nothing else.
MCQ_SYSTEM = "You are a careful expert. Answer with a single letter and nothing else."


def mcq_prompt(n_options: int) -> PromptTemplate:
    r"""Return the multiple-choice prompt over ``n_options`` lettered options (``text`` lists them).

    Its labels and verbalisers are the option letters: the judge's P(option) is read from
    the letters' log-probabilities, as every judge reads its labels.

    >>> t = mcq_prompt(3)
    >>> t.labels, t.render({"text": "2 + 2?\nA. 3\nB. 4\nC. 5"}).user.splitlines()[-1]
    (('A', 'B', 'C'), 'Answer (A, B or C):')
    """
    letters = tuple(string.ascii_uppercase[:n_options])
    shown = ", ".join(letters[:-1]) + f" or {letters[-1]}"
    return PromptTemplate(
        name="mcq",
        user="Choose the correct option of this multiple-choice question.\n\n{text}\n\n"
        f"Answer ({shown}):",
        system=MCQ_SYSTEM,
        labels=letters,
        verbalisers=letters,
    )


def load_prompt_file(path: str | Path) -> dict[str, PromptTemplate]:
    """Read user templates from TOML: one table per template under ``[prompts.NAME]``.

    Keys: ``user`` (required), ``system`` (optional; ``""`` for none), ``labels`` and
    ``verbalisers`` (optional lists of strings; default ``["0", "1"]``).
    Errors name the file and the template.
    """
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError("file not found", path=path) from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"invalid TOML ({exc})", path=path) from None
    table = data.get("prompts")
    if not isinstance(table, dict) or not table:
        raise InputError("expected [prompts.NAME] tables with a 'user' string", path=path)
    out: dict[str, PromptTemplate] = {}
    for name, spec in table.items():
        if not isinstance(spec, dict) or not isinstance(spec.get("user"), str):
            raise InputError(f"prompt {name!r} needs a 'user' string", path=path)
        unknown = set(spec) - {"user", "system", "labels", "verbalisers"}
        if unknown:
            raise InputError(f"prompt {name!r}: unknown key(s) {sorted(unknown)}", path=path)
        labels = tuple(str(x) for x in spec.get("labels", ("0", "1")))
        verbalisers = tuple(str(x) for x in spec.get("verbalisers", labels))
        system = spec.get("system", SYSTEM)
        try:
            out[name] = PromptTemplate(
                name=name,
                user=spec["user"],
                system=system or None,
                labels=labels,
                verbalisers=verbalisers,
            )
        except UsageError as exc:
            raise InputError(str(exc), path=path) from None
    return out


def select_prompts(
    spec: str = "all",
    *,
    extra: Mapping[str, PromptTemplate] | None = None,
    verbalisers: Sequence[str] | None = None,
) -> list[PromptTemplate]:
    """Pick templates by name: ``all`` (the four binary framings), or ``name,name,...``.

    ``extra`` are user templates (e.g. from :func:`load_prompt_file`); with ``spec="all"``
    and user templates given, the user templates are used. ``verbalisers`` overrides the
    answer tokens of every selected template.

    >>> [t.name for t in select_prompts("all")]
    ['nli', 'document', 'grounding', 'evidence']
    >>> select_prompts("nli,evidence", verbalisers=["A", "B"])[1].verbalisers
    ('A', 'B')
    """
    pool = {**BUILTIN_PROMPTS, **(extra or {})}
    if spec.strip() == "all":
        names = list(extra) if extra else list(BINARY_FRAMINGS)
    else:
        names = [n.strip() for n in spec.split(",") if n.strip()]
    if not names:
        raise UsageError("{prompts}: name at least one prompt")
    missing = [n for n in names if n not in pool]
    if missing:
        raise UsageError(f"{{prompts}}: unknown prompt(s) {missing}; known: {sorted(pool)}")
    chosen = [pool[n] for n in dict.fromkeys(names)]
    if verbalisers is not None:
        chosen = [t.with_verbalisers(verbalisers) for t in chosen]
    return chosen

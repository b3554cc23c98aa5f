"""Candidate prompt framings measured by ``detect_bench.py`` (issue 12, section 2).

The built-in framings (``benchcheck.judges.prompts.BUILTIN_PROMPTS``) plus variants that
could change calibration or ranking with a small judge:

* layout: grounding first (the built-ins: system + grounding is a prefix shared by every
  framing of one example) vs role first (``Premise: …`` before the texts; each framing
  evaluates the grounding again, the two summaries of one document still share it);
* answer tokens: digits (``Answer 1 for yes, 0 for no``) vs words (``Yes`` / ``No``): the
  digit code is an indirection a 1.5B model may resolve with a bias;
* polarity: ``*_err`` asks whether the second text contains an error, answering 1 for
  yes — the label token order is reversed (label "0" = answer "1"), so a judge biased
  toward one digit is biased toward the other label, and averaging it with a plain
  framing cancels part of the bias.

Each candidate is a plain :class:`~benchcheck.judges.prompts.PromptTemplate`; the cache
key is its template hash, so a candidate promoted into the built-ins keeps its judgments.
"""

from __future__ import annotations

from benchcheck.judges.prompts import BUILTIN_PROMPTS, SYSTEM, PromptTemplate

_YN = ("No", "Yes")
#: The system message of the candidates answered in words (the built-ins ask for a digit).
SYSTEM_WORDS = "You are a careful annotator. Answer with a single word and nothing else."


def _role_first(name: str, a: str, b: str, question: str, *, words: bool = False) -> PromptTemplate:
    answer = (
        "Answer Yes or No.\nAnswer:" if words else "Answer 1 for yes, 0 for no.\nAnswer (0 or 1):"
    )
    user = f"{a}: {{text_a}}\n\n{b}: {{text_b}}\n\n{question} {answer}"
    return PromptTemplate(
        name=name,
        user=user,
        verbalisers=_YN if words else ("0", "1"),
        system=SYSTEM_WORDS if words else SYSTEM,
    )


def _ground_first(
    name: str, a: str, b: str, question: str, *, words: bool = False, reverse: bool = False
) -> PromptTemplate:
    if words:
        answer = "Answer Yes or No.\nAnswer:"
    else:
        answer = "Answer 1 for yes, 0 for no.\nAnswer (0 or 1):"
    user = (
        f"{{text_a}}\n\nThe text above is the {a.lower()}.\n{b}: {{text_b}}\n\n{question} {answer}"
    )
    if reverse:  # label "0" (inconsistent) is the answer "yes, it has an error"
        verb = ("Yes", "No") if words else ("1", "0")
    else:
        verb = _YN if words else ("0", "1")
    return PromptTemplate(
        name=name, user=user, verbalisers=verb, system=SYSTEM_WORDS if words else SYSTEM
    )


_DOC_Q = "Is the statement factually consistent with the document?"
_NLI_Q = "Does the premise entail the hypothesis?"
_ERR_Q = "Does the statement contain any information that the document does not support?"

CANDIDATES: dict[str, PromptTemplate] = {
    **{k: BUILTIN_PROMPTS[k] for k in ("nli", "document", "grounding", "evidence")},
    "nli_rf": _role_first("nli_rf", "Premise", "Hypothesis", _NLI_Q),
    "document_rf": _role_first("document_rf", "Document", "Statement", _DOC_Q),
    "document_yn": _ground_first("document_yn", "Document", "Statement", _DOC_Q, words=True),
    "document_rf_yn": _role_first("document_rf_yn", "Document", "Statement", _DOC_Q, words=True),
    "document_err": _ground_first("document_err", "Document", "Statement", _ERR_Q, reverse=True),
    "document_err_yn": _ground_first(
        "document_err_yn", "Document", "Statement", _ERR_Q, words=True, reverse=True
    ),
}

NLI3_CANDIDATES: dict[str, PromptTemplate] = {
    "nli3": BUILTIN_PROMPTS["nli3"],
    # GPT-3's NLI wording (true / false / neither), answered in words
    "nli3_tfn": PromptTemplate(
        name="nli3_tfn",
        user=(
            "Premise: {text_a}\n\nHypothesis: {text_b}\n\n"
            "Given the premise, is the hypothesis true, false, or neither? "
            "Answer True, False or Neither.\nAnswer:"
        ),
        labels=("entailment", "neutral", "contradiction"),
        verbalisers=("True", "Neither", "False"),
        system=SYSTEM_WORDS,
    ),
    # the same digits as nli3, premise first: shares the grounding prefix with the binary ones
    "nli3_gf": PromptTemplate(
        name="nli3_gf",
        user=(
            "{text_a}\n\nThe text above is the premise.\nHypothesis: {text_b}\n\n"
            "Does the premise entail the hypothesis, is it neutral, or does it contradict it? "
            "Answer 0 for entailment, 1 for neutral, 2 for contradiction.\nAnswer (0, 1 or 2):"
        ),
        labels=("entailment", "neutral", "contradiction"),
        verbalisers=("0", "1", "2"),
    ),
}

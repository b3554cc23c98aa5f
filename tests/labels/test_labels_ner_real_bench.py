"""The real-error benchmark's build step (issue 36): offsets, alignment, held-out test rows.

``benchmarks/_ner_real.py`` turns Reiss et al.'s character-offset corrections into corpus
sentences; these tests build a tiny corpus in its format and check the offsets by hand, that
test-split rows are never parsed, and that a misaligned correction stops the build (exit 2,
one line).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_ner_real", ROOT / "benchmarks" / "_ner_real.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["_ner_real"] = module
    spec.loader.exec_module(module)
    return module


real = _module()

TRAIN = """-DOCSTART- -X- O O

EU NNP I-NP I-ORG
rejects VBZ I-VP O
German JJ I-NP I-MISC
call NN I-NP O
. . O O

Peter NNP I-NP I-PER
Blackburn NNP I-NP I-PER

-DOCSTART- -X- O O

( ( O O
Leeds NNP I-NP I-LOC
) ) O O
won VBD I-VP O
$ $ O O
5 CD I-NP O
.  . O O
"""
DEV = """-DOCSTART- -X- O O

England NNP I-NP I-LOC
beat VBD I-VP O
Scotland NNP I-NP I-LOC
"""
TEST = """-DOCSTART- -X- O O

Nobody NN I-NP O
"""
# Document texts (by the rule of _ner_real.sentence_text):
#   train doc 0: "-DOCSTART-\nEU rejects German call.\nPeter Blackburn"
#   train doc 1: "-DOCSTART-\n(Leeds) won $5."
#   dev doc 0:   "-DOCSTART-\nEngland beat Scotland"
HEADER = (
    "fold,doc_offset,corpus_span,corpus_ent_type,error_type,correct_span,correct_ent_type,notes"
)
ROWS = [
    "train,0,\"[11, 13): 'EU'\",ORG,Tag,\"[11, 13): 'EU'\",LOC,",
    "train,1,\"[12, 17): 'Leeds'\",LOC,Tag,\"[12, 17): 'Leeds'\",ORG,team",
    "train,0,,,Missing,\"[35, 40): 'Peter'\",PER,",
    "dev,0,\"[24, 32): 'Scotland'\",LOC,Tag,\"[24, 32): 'Scotland'\",ORG,",
    # a test row is dropped unread: its nonsense span would fail if it were parsed
    'test,99,"not a span",LOC,Tag,,ORG,',
]
COUNTS = {"eng.train": 3, "eng.testa": 1, "eng.testb": 1}


def _corpus(tmp_path: Path, rows: list[str] = ROWS) -> tuple[Path, Path]:
    for name, text in (("eng.train", TRAIN), ("eng.testa", DEV), ("eng.testb", TEST)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    csv = tmp_path / "corrections.csv"
    csv.write_text("\n".join([HEADER, *rows]) + "\n", encoding="utf-8")
    return tmp_path, csv


def test_sentence_text_follows_the_spacing_rule() -> None:
    text, begins, ends = real.sentence_text(["(", "Leeds", ")", "won", "$", "5", "."])
    assert text == "(Leeds) won $5."
    assert [text[b:e] for b, e in zip(begins, ends, strict=True)] == [
        "(",
        "Leeds",
        ")",
        "won",
        "$",
        "5",
        ".",
    ]
    assert real.sentence_text(["Peter", "'s", "U.S."])[0] == "Peter's U.S."


def test_read_documents_counts_the_docstart_line_in_the_text(tmp_path: Path) -> None:
    folder, _ = _corpus(tmp_path)
    texts, members, sentences = real.read_documents(folder / "eng.train")
    assert texts == [
        "-DOCSTART-\nEU rejects German call.\nPeter Blackburn",
        "-DOCSTART-\n(Leeds) won $5.",
    ]
    assert members == [[0, 1], [2]]
    assert [s.line for s in sentences] == [3, 9, 14]  # 1-based line of the first token
    assert texts[0][sentences[1].begins[0] : sentences[1].ends[1]] == "Peter Blackburn"


def test_locate_maps_train_and_dev_corrections_to_corpus_sentences(tmp_path: Path) -> None:
    folder, csv = _corpus(tmp_path)
    found, ranges, sentences = real.locate(folder, csv, expected=COUNTS)
    assert ranges == {"eng.train": (0, 3), "eng.testa": (3, 4), "eng.testb": (4, 5)}
    assert len(sentences) == 5
    got = [(c.fold, c.doc, c.error_type, c.sentences, c.tokens) for c in found]
    assert got == [
        ("train", 0, "Tag", (0,), ((0, 0, 1),)),
        ("train", 1, "Tag", (2,), ((2, 1, 2),)),
        ("train", 0, "Missing", (1,), ((1, 0, 1),)),
        ("dev", 0, "Tag", (3,), ((3, 2, 3),)),  # dev sentences follow train's in the corpus
    ]
    assert all(c.fold != "test" for c in found)


def test_a_misaligned_correction_is_one_error_naming_the_row(tmp_path: Path) -> None:
    folder, csv = _corpus(tmp_path, [*ROWS[:1], "train,0,\"[11, 13): 'XY'\",ORG,Tag,,,"])
    with pytest.raises(real.AlignmentError, match=r"row 3 \(train doc 0\).*'EU'.*'XY'"):
        real.locate(folder, csv, expected=COUNTS)
    folder, csv = _corpus(tmp_path, ["dev,5,\"[0, 1): 'E'\",LOC,Tag,,,"])
    with pytest.raises(real.AlignmentError, match="the fold has 1 documents"):
        real.locate(folder, csv, expected=COUNTS)


def test_the_benchmark_exits_2_with_one_line_on_a_corpus_that_is_not_the_original(
    tmp_path: Path,
) -> None:
    folder, csv = _corpus(tmp_path)
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "ner_detect_bench.py"),
            "--real",
            "--conll",
            str(folder),
            "--corrections",
            str(csv),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "3 sentences, the original has 14041" in lines[0]

"""Prediction files scored with seqeval micro-F1 and per sentence, and misaligned predictions."""

import random

import pytest
from _ner_stats_reference import write_conll
from seqeval.metrics import f1_score

from benchcheck.errors import InputError
from benchcheck.io.conll import read_conll
from benchcheck.io.load import read_predictions
from benchcheck.metrics.predictions import score_predictions, sentence_exact_match, seqeval_f1

TAGS = ["O", "O", "B-PER", "I-PER", "B-LOC", "I-LOC"]


def _corpus(seed: int, n: int = 40):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        tokens = tuple(
            rng.choice(["Ann", "Lee", "Paris", "in", "."]) for _ in range(rng.randint(1, 6))
        )
        out.append((tokens, tuple(rng.choice(TAGS) for _ in tokens)))
    return out


def _predict(gold, seed: int):
    """Corrupt about a third of the tags (keeping the tokens)."""
    rng = random.Random(seed)
    return [
        (tokens, tuple(rng.choice(TAGS) if rng.random() < 0.3 else t for t in tags))
        for tokens, tags in gold
    ]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_micro_f1_equals_seqeval(tmp_path, seed):
    gold = _corpus(seed)
    pred = _predict(gold, seed + 100)
    g = read_conll(write_conll(tmp_path / "test.txt", gold))
    p = read_conll(write_conll(tmp_path / "pred.txt", pred))
    expected = f1_score([list(t) for _, t in gold], [list(t) for _, t in pred])
    assert seqeval_f1(g, p) == pytest.approx(expected)
    assert seqeval_f1(g, g) == 1.0
    scores = score_predictions(
        g, read_predictions({"m": tmp_path / "pred.txt", "oracle": tmp_path / "test.txt"})
    )
    assert scores == {"m": pytest.approx(100 * expected), "oracle": 100.0}


def test_prediction_file_with_extra_columns(tmp_path):
    gold = _corpus(5, 10)
    g = read_conll(write_conll(tmp_path / "test.txt", gold))
    # token, gold tag, predicted tag (conlleval's layout): the last column is scored.
    pred = _predict(gold, 9)
    text = "\n\n".join(
        "\n".join(f"{t} {a} {b}" for t, a, b in zip(tok, gt, pt, strict=True))
        for (tok, gt), (_, pt) in zip(gold, pred, strict=True)
    )
    (tmp_path / "pred.txt").write_text(text + "\n")
    expected = f1_score([list(t) for _, t in gold], [list(t) for _, t in pred])
    got = score_predictions(g, read_predictions({"crf": tmp_path / "pred.txt"}))["crf"]
    assert got == pytest.approx(100 * expected)


def test_misaligned_predictions_name_file_and_line(tmp_path):
    gold = [
        (("Ann", "Lee"), ("B-PER", "I-PER")),
        (("in", "Paris"), ("O", "B-LOC")),
        (("ok",), ("O",)),
    ]
    g = read_conll(write_conll(tmp_path / "test.txt", gold))
    # Second sentence's tokens differ: lines 1-2, blank, 4-5 -> sentence 2 starts at line 4.
    other = [gold[0], (("in", "Rome"), ("O", "B-LOC")), gold[2]]
    p = read_conll(write_conll(tmp_path / "p1.txt", other))
    with pytest.raises(InputError, match="sentence 2 does not have the same tokens") as info:
        seqeval_f1(g, p)
    assert (info.value.path, info.value.line) == (str(tmp_path / "p1.txt"), 4)
    # One sentence too many: the extra one (line 9) is named.
    p = read_conll(write_conll(tmp_path / "p2.txt", [*gold, gold[0]]))
    with pytest.raises(InputError, match="4 sentences") as info:
        seqeval_f1(g, p)
    assert info.value.line == 9
    # One too few: the predictions' last sentence (line 4) is named.
    p = read_conll(write_conll(tmp_path / "p3.txt", gold[:2]))
    with pytest.raises(InputError, match="end after 2 sentences") as info:
        seqeval_f1(g, p)
    assert info.value.line == 4 and "test.txt" not in info.value.path


def test_test_split_predictions_need_a_test_split(tmp_path):
    from benchcheck.data.model import Dataset
    from benchcheck.errors import UsageError
    from benchcheck.metrics.predictions import score_test_predictions

    gold = _corpus(5)
    write_conll(tmp_path / "test.txt", gold)
    write_conll(tmp_path / "pred.txt", _predict(gold, 6))
    split = read_conll(tmp_path / "test.txt", name="train")
    predicted = read_predictions({"m": tmp_path / "pred.txt"})
    with pytest.raises(UsageError, match="test split"):
        score_test_predictions(Dataset("ner", {"train": split}), predicted)
    test = read_conll(tmp_path / "test.txt", name="test")
    got = score_test_predictions(Dataset("ner", {"test": test}), predicted)
    assert got == score_predictions(test, predicted)


@pytest.mark.parametrize("seed", [1, 2])
def test_sentence_exact_match_against_plain_entity_sets(tmp_path, seed):
    """Exact match per sentence, by entity sets collected the slow way (IOB2 read by hand)."""

    def entities(tags):
        out, start = set(), None
        for k, tag in enumerate([*tags, "O"]):
            inside = start is not None and tag == "I-" + tags[start][2:]
            if start is not None and not inside:
                out.add((tags[start][2:], start, k - 1))
                start = None
            if tag.startswith("B-") or (tag.startswith("I-") and start is None):
                start = k
        return out

    gold = _corpus(seed)
    pred = _predict(gold, seed + 7)
    g = read_conll(write_conll(tmp_path / "test.txt", gold))
    p = read_conll(write_conll(tmp_path / "pred.txt", pred))
    pairs = zip(gold, pred, strict=True)
    expected = [float(entities(gt) == entities(pt)) for (_, gt), (_, pt) in pairs]
    assert sentence_exact_match(g, p) == expected
    assert 0 < sum(expected) < len(expected)  # the case has both kinds
    assert sentence_exact_match(g, g) == [1.0] * len(gold)
    short = read_conll(write_conll(tmp_path / "short.txt", gold[:-1]))
    with pytest.raises(InputError, match="end after"):
        sentence_exact_match(g, short)

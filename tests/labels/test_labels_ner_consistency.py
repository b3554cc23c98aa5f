"""The variation principle, scored: occurrences annotated unlike the rest of their surface."""

import polars as pl
import pytest

from benchcheck.labels.ner_consistency import ALPHA, consistency_votes
from benchcheck.labels.ner_detect import _overlap_max, _vote_rows


def test_scores_by_hand_with_labelled_and_unlabelled_occurrences():
    # "new york": LOC three times, ORG once, unannotated once (5 occurrences).
    words = [["in", "new", "york"]] * 5
    spans = [[(1, 3, "LOC")]] * 3 + [[(1, 3, "ORG")]] + [[]]
    votes = consistency_votes(words, spans)
    # the ORG occurrence: 4 others, 3 LOC + 1 O disagree -> 4 / (4 + 0.5); proposes LOC
    # the O occurrence: 4 others, all four annotated -> 4 / 4.5; proposes LOC
    # each LOC occurrence: its label is the others' majority -> not reported
    assert votes.rows() == [
        (3, 1, 3, "ORG", "LOC", pytest.approx(4 / (4 + ALPHA)), 4),
        (4, 1, 3, None, "LOC", pytest.approx(4 / (4 + ALPHA)), 4),
    ]


def test_an_occurrence_inside_another_span_is_left_out():
    # "york" alone is a LOC once; inside "new york" (ORG) it is neither LOC nor O.
    words = [["york"], ["new", "york"], ["york", "city"]]
    spans = [[(0, 1, "LOC")], [(0, 2, "ORG")], []]
    votes = consistency_votes(words, spans)
    # "york": sentence 0 (LOC), sentence 2 (O); sentence 1 is partly inside ORG: out.
    # Each has one other occurrence, which disagrees: 1 / 1.5.
    assert votes.select("sentence", "start", "gold_type", "proposed_type", "support").rows() == [
        (0, 0, "LOC", None, 1),
        (2, 0, None, "LOC", 1),
    ]
    assert votes["consistency_score"].to_list() == pytest.approx([1 / 1.5, 1 / 1.5])


def test_ties_prefer_a_type_in_sorted_order_and_long_surfaces_are_skipped():
    words = [["x"], ["x"], ["x"], ["x"]]
    spans = [[(0, 1, "PER")], [(0, 1, "LOC")], [], [(0, 1, "ORG")]]
    votes = consistency_votes(words, spans)
    # each occurrence's three others carry three different labels: a tie, the first type in
    # sorted order wins (PER's others: LOC, O, ORG -> LOC; LOC's: PER, O, ORG -> ORG)
    assert votes["proposed_type"].to_list() == ["LOC", "ORG", "LOC", "LOC"]
    long = [["a"] * 9, ["a"] * 9]
    assert consistency_votes(long, [[(0, 9, "LOC")], []]).height == 0  # 9 > 8 tokens
    assert consistency_votes(long, [[(0, 9, "LOC")], []], max_tokens=9).height == 2


def test_vote_rows_kinds_and_overlaps():
    votes = pl.DataFrame(
        {
            "sentence": [0, 1, 2, 2, 3],
            "start": [0, 0, 0, 1, 0],
            "end": [1, 1, 2, 2, 1],
            "gold_type": ["PER", "PER", None, None, None],
            "proposed_type": ["LOC", None, "LOC", "LOC", "ORG"],
            "consistency_score": [0.9, 0.8, 0.7, 0.75, 0.6],
            "support": [3, 3, 2, 2, 1],
        }
    )
    disagreement = pl.DataFrame({"sentence": [3], "start": [0], "end": [2]})
    rows = _vote_rows(votes, disagreement)
    # sentence 3 overlaps a disagreement; in sentence 2 the higher score (0.75) wins
    assert rows.select("kind", "sentence", "start", "end", "gold_type", "pred_type").rows() == [
        ("wrong_type", 0, 0, 1, "PER", "LOC"),
        ("spurious_annotation", 1, 0, 1, "PER", None),
        ("missing_annotation", 2, 1, 2, None, "LOC"),
    ]
    assert rows["source"].to_list() == ["consistency"] * 3
    assert _overlap_max(disagreement, votes).tolist() == [0.6]


def test_topic_groups_cluster_documents_by_their_words_and_need_two_topics():
    """Issue 36: sports stories with sports stories, weather with weather; k = docs / 15."""
    from sklearn.cluster import KMeans
    from sklearn.feature_extraction.text import TfidfVectorizer

    from benchcheck.labels.ner_consistency import topic_groups

    sport = [["Leeds", "beat", "Chelsea", "2", "1", "goal"], ["goal", "win", "Leeds"]]
    news = [["rain", "fell", "in", "Leeds"], ["storm", "rain", "cold"]]
    words = (sport + news) * 15  # 60 sentences, two per document: 30 documents
    docs = [s // 2 for s in range(60)]
    got = topic_groups(words, docs)
    assert got is not None and len(got) == 60
    # round(30 / 15) = 2 topics; sports documents (even ones) share one, the others the other
    even = {got[s] for s in range(60) if docs[s] % 2 == 0}
    assert len(even) == 1 and even != {got[s] for s in range(60) if docs[s] % 2}
    # the same clustering computed with scikit-learn directly
    text = [[w.lower() for s in range(60) if docs[s] == d for w in words[s]] for d in range(30)]
    x = TfidfVectorizer(min_df=2, sublinear_tf=True, analyzer=lambda t: t).fit_transform(text)
    ref = KMeans(n_clusters=2, n_init=4, random_state=0).fit_predict(x)
    assert got == [int(ref[d]) for d in docs]
    # fewer than two topics' worth of documents (round(20 / 15) = 1): no topic member
    assert topic_groups(words[:40], docs[:40]) is None

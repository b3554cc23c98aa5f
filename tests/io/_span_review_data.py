"""The span review of the Label Studio tests: a CoNLL file with planted errors, two reviewers.

Shared by ``test_review_label_studio_spans.py`` (the real application) and
``test_review_spans.py`` (its saved exports, no application).
"""

from __future__ import annotations

#: Gold with two planted errors: "New" should be "New York" (LOC), "Mary" is PER, not ORG.
GOLD = """John B-PER
lives O
in O
New B-LOC
York O
. O

Mary B-ORG
works O
at O
Acme B-ORG
Corp I-ORG
. O

Bob B-PER
and O
Ann B-PER
left O
. O

我 O
在 O
北京 B-LOC
工作 O
。 O

Paris B-LOC
is O
nice O
. O
"""
#: A model that finds the two errors, a spurious "left" and a disputed type of 北京.
PRED = (
    GOLD.replace("York O", "York I-LOC")
    .replace("Mary B-ORG", "Mary B-PER")
    .replace("left O", "left B-LOC")
    .replace("北京 B-LOC", "北京 B-ORG")
)
#: What each reviewer marks, per sentence: (surface, type); None = skips the task.
ONE = {
    0: [("John", "PER"), ("New York", "LOC")],  # corrects the boundary
    1: [("Mary", "PER"), ("Acme Corp", "ORG")],  # corrects the type
    2: [("Bob", "PER"), ("Ann", "PER")],
    3: [("北京", "LOC")],
}
TWO = {0: ONE[0], 1: ONE[1], 2: None, 3: [("北京", "ORG")]}  # skips 2, disagrees on 3

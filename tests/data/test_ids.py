"""The id-join rule and the duplicate-id rule (benchcheck.data.ids), by hand."""

from __future__ import annotations

import pytest

from benchcheck.data.ids import MAX_UNMATCHED, check_join, refuse_duplicates
from benchcheck.errors import InputError


def test_no_id_in_common_shows_a_few_ids_of_each_side():
    data = [f"p{i:02d}" for i in range(1, 21)]
    judged = [str(i) for i in range(20)]
    with pytest.raises(InputError) as info:
        check_join(data, judged, left_name="the data", right_name="the judgments", path="d.jsonl")
    text = str(info.value)
    assert text.startswith("d.jsonl: the judgments share no id with the data")
    assert "'p01', 'p02', 'p03', …" in text and "'0', '1', '2', …" in text


@pytest.mark.parametrize(
    ("left", "right", "hint"),
    [(["1", "2"], ["1.0", "2.0"], "decimals"), (["01", "02"], ["1", "2"], "leading zeros")],
)
def test_hints_name_the_likely_cause(left, right, hint):
    with pytest.raises(InputError, match=hint):
        check_join(left, right, left_name="a", right_name="b")


def test_share_threshold_is_five_percent_on_each_side():
    assert MAX_UNMATCHED == 0.05
    data = [str(i) for i in range(100)]
    # 5 of 100 missing: exactly the limit, accepted; counts by hand
    res = check_join(data, data[:95], left_name="the data", right_name="the judgments")
    assert (res.common, res.left_only, res.right_only) == (95, 5, 0)
    with pytest.raises(InputError, match=r"6 of 100 ids of the data are not in the judgments"):
        check_join(data, data[:94], left_name="the data", right_name="the judgments")
    extra = data + [f"x{i}" for i in range(6)]  # 6 of 106 judged ids unknown: 5.7 %
    with pytest.raises(InputError, match=r"6 of 106 ids of the judgments are not in the data"):
        check_join(data, extra, left_name="the data", right_name="the judgments")
    # a side allowed to cover more (gold labels for a sample of the judged examples)
    check_join(data[:10], data, left_name="gold", right_name="judgments", right_unmatched=1.0)
    with pytest.raises(InputError, match="each needs a partner"):
        check_join(data, data[1:], left_name="gold", right_name="m", left_unmatched=0.0)


def test_duplicates_name_both_lines():
    refuse_duplicates(["a", "b"])
    with pytest.raises(InputError) as info:
        refuse_duplicates(["a", "b", "c", "b"], path="f.csv", lines=[2, 3, 4, 5])
    assert str(info.value) == (
        "f.csv:5: duplicate id: each example may appear once (first on line 3) (got 'b')"
    )

"""Issue 11: count tables above MAX_TABLE_BYTES are refused, with the sizes and the columns, before allocation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pgmpy_ext.data import encode
from pgmpy_ext.stats import (
    FamilyCounter,
    _counting,
    family_counts,
    family_counts_codes,
    family_counts_many,
    pairwise_counts,
)


def test_default_limit_is_two_gib():
    assert _counting.MAX_TABLE_BYTES == 2 * 1024**3


def test_two_id_like_columns_of_16000_states_are_refused_before_allocation():
    """The issue's case: TAN's class-conditional pair table of two 16,000-state columns (3.8 GiB)."""
    n = 16000
    ids = np.arange(n).astype(str)
    df = pd.DataFrame({"id1": ids, "id2": ids[::-1], "c": np.arange(n) % 2})
    data = encode(df)
    with pytest.raises(ValueError, match=r"the pairwise counts of 2 features given 'c' \(2 states\) would need "
                                         r"3\.81 GiB \(512000000 float64 cells\), more than "
                                         r"pgmpy_ext\.stats\._counting\.MAX_TABLE_BYTES = 2\.00 GiB.*largest pair is "
                                         r"'id1' \(16000 states\) x 'id2' \(16000 states\)"):
        pairwise_counts(data, ["id1", "id2"], cond="c")
    with pytest.raises(ValueError, match=r"the family table of 'id1' given \['c', 'id2'\] would need 3\.81 GiB.*"
                                         r"'id1': 16000, 'c': 2, 'id2': 16000"):
        family_counts(data, "id1", ["id2", "c"])


def test_guards_follow_the_module_limit(monkeypatch):
    data = encode(pd.DataFrame({"a": [0, 1, 2, 3], "b": ["u", "v", "w", "x"], "c": [0, 1, 0, 1]}))
    assert family_counts(data, "a", ["b"]).shape == (4, 4)
    monkeypatch.setattr(_counting, "MAX_TABLE_BYTES", 8 * 15)   # 15 cells
    with pytest.raises(ValueError, match=r"the family table of 'a' given \['b'\] would need 0\.00 GiB \(16 float64 "
                                         r"cells\)"):
        family_counts(data, "a", ["b"])
    with pytest.raises(ValueError, match=r"the family table of columns \[0, 1\] would need"):
        family_counts_codes(data.codes, [0, 1], [4, 4])
    with pytest.raises(ValueError, match=r"the 2 family tables would need .* The largest is the family of 'a' given "
                                         r"\['b'\]"):
        family_counts_many(data, iter([("a", ["b"]), ("c", [])]))
    with pytest.raises(ValueError, match=r"the pairwise counts of 2 features would need .*'a' \(4 states\) x 'b' "
                                         r"\(4 states\)"):
        pairwise_counts(data, ["a", "b"])
    counter = FamilyCounter(data)
    with pytest.raises(ValueError, match=r"the family table of 'a' given \['b'\] would need .*States: \[4, 4\]"):
        counter.table(0, [1])
    counter.dense_max_cells = 1  # sparse path: 4 child states x 4 observed configurations
    with pytest.raises(ValueError, match=r"the family table of 'a' given \['b'\] would need .*4 child states x 4 "
                                         r"observed parent configurations"):
        counter.table(0, [1])
    assert counter.table(2, [])[0].shape == (2, 1)  # small tables still work


def test_tan_classifier_surfaces_the_refusal():
    from pgmpy_ext.classifiers import TANClassifier

    n = 16000
    ids = np.arange(n).astype(str)
    X = pd.DataFrame({"id1": ids, "id2": ids[::-1], "x": np.arange(n) % 3})
    with pytest.raises(ValueError, match=r"the pairwise counts of 3 features given 'class' \(2 states\) would need "
                                         r"3\.82 GiB.*'id1' \(16000 states\) x 'id2' \(16000 states\)"):
        TANClassifier().fit(X, np.arange(n) % 2)

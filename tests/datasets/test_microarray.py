"""The shared microarray loader and the planted-bicluster generator."""

from __future__ import annotations

import numpy as np
import pytest

from pgmpy_ext.datasets import load_microarray, make_planted_biclusters


@pytest.mark.parametrize(("name", "shape", "counts"), [
    ("leukemia", (72, 7129), {"ALL": 47, "AML": 25}),
    ("colon", (62, 2000), {"tumour": 40, "normal": 22}),
])
def test_load_microarray(shared_datasets, name, shape, counts):
    X, y = load_microarray(name, data_home=shared_datasets)
    assert X.shape == shape
    assert y.value_counts().to_dict() == counts
    assert list(X.index) == list(y.index)
    assert X.dtypes.unique().tolist() == [np.float64]


def test_load_microarray_errors(tmp_path):
    with pytest.raises(ValueError, match="name == 'golub', must be one of"):
        load_microarray("golub")


def test_planted_generator():
    X, y, planted = make_planted_biclusters(n_pos=20, n_neg=10, n_genes=120, n_biclusters=(1, 1, 1),
                                            bicluster_rows=(6, 6), bicluster_cols=(10, 10), shift=5.0,
                                            n_de_genes=4, random_state=1)
    assert X.shape == (30, 120)
    assert int(y.sum()) == 20
    kinds = [b["kind"] for b in planted]
    assert kinds == ["+", "-", "mixed"]
    pos = set(np.flatnonzero(y.to_numpy() == 1))
    assert len(set(planted[0]["rows"]) & pos) == 6  # ceil(0.9 * 6) = 6 positives
    assert len(set(planted[1]["rows"]) & pos) == 0
    assert len(set(planted[2]["rows"]) & pos) == 3
    cols = [set(b["cols"]) for b in planted]
    assert not (cols[0] & cols[1])
    assert not (cols[1] & cols[2])
    # the shift is visible: block means ~5 above the rest
    for b in planted:
        assert X.to_numpy()[np.ix_(b["rows"], b["cols"])].mean() > 3.5
    with pytest.raises(ValueError, match="more than n_genes = 20"):
        make_planted_biclusters(n_genes=20)
    again = make_planted_biclusters(n_pos=20, n_neg=10, n_genes=120, n_biclusters=(1, 1, 1), bicluster_rows=(6, 6),
                                    bicluster_cols=(10, 10), shift=5.0, n_de_genes=4, random_state=1)
    np.testing.assert_array_equal(again[0].to_numpy(), X.to_numpy())

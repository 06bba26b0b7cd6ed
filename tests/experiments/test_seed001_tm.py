"""The seed 001 chapter-5 reproductions (TM, cTAN, structural TM) run end to end in quick mode, are registered, and
their classifier faces behave like the other pgmpy-ext classifiers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.base import clone

from pgmpy_ext.experiments import REPRODUCTIONS
from pgmpy_ext.experiments import _seed001_tables51_52 as e1
from pgmpy_ext.experiments import _seed001_tables53_54 as e2
from pgmpy_ext.experiments import _seed001_tables53_protocol as e2p
from pgmpy_ext.experiments import _seed001_tables55_56 as e3
from pgmpy_ext.experiments._seed001_common import (
    CTANClassifier,
    StructuralTMClassifier,
    binarize,
    cll_status,
    load_binary,
    thesis_tm,
)
from pgmpy_ext.structure import fit_ctan, fit_structural_tm


def test_registered():
    for name, mod in (("seed001-tables5.1-5.2", e1), ("seed001-tables5.3-5.4", e2), ("seed001-tables5.5-5.6", e3),
                      ("seed001-tables5.3-protocol", e2p)):
        assert REPRODUCTIONS[name].run is mod.run


@pytest.mark.parametrize(("mod", "marks"), [
    (e1, ["## Table 5.1", "| Corral | NB-TM | -25.10 |", "## Table 5.2", "Mann-Whitney"]),
    (e2, ["## Table 5.3", "| Iris | NB | 94.67 ± 3.40 |", "## Table 5.4", "| Corral | TAN-TM | -3.28 |"]),
    (e3, ["## Table 5.5", "## Table 5.6", "| Corral | 5/6 |"]),
    (e2p, ["## Every cell", "| Corral | TAN-TM | 99.20 ± 1.60 |", "| resubstitution |"]),
], ids=["tables5.1-5.2", "tables5.3-5.4", "tables5.5-5.6", "tables5.3-protocol"])
def test_quick_runs_write_reports(mod, marks, tmp_path, shared_datasets):
    text = mod.run(tmp_path / "r.md", quick=True, log=lambda *a: None).read_text()
    assert "Quick smoke run" in text
    for m in marks:
        assert m in text
    assert "TM < ML ✗" not in text


def test_invalid_cells_are_flagged(tmp_path, shared_datasets):
    text = e2.report([], e2.Settings(datasets=["Heart", "Tips"], cv=False), 1.0, True, None)
    assert "| Heart | TAN | 72.90 ± 2.74 | not run |  | invalid target (copy of Glass's cell, decision 11) |" in text
    assert "| Tips | NB | 88.78 ± 4.65 | not run |  | not available |" in text


def test_binary_data_sets(shared_datasets):
    X, y = load_binary("Monk1-bin")
    assert X.shape == (556, 17)
    assert set(np.unique(X.to_numpy().astype(int))) == {0, 1}
    X, y = load_binary("Corral")
    assert X.shape == (128, 6)
    assert y.name == "class"
    frame = binarize(pd.DataFrame({"a": pd.Categorical([1, 2, 3, 1])}))
    assert list(frame.columns) == ["a=1", "a=2", "a=3"]
    assert frame["a=1"].tolist() == [1, 0, 0, 1]


def test_cll_status():
    assert cll_status(-10.004, -10.0, abs_tol=0.01) == "match"
    assert cll_status(-11.0, -10.0, rel_tol=0.01) == "mismatch"
    assert cll_status(-5.0, -6.0, ml=-8.0) == "TM ≥ ML ✓; ≥ thesis"
    assert cll_status(-9.0, -6.0, ml=-8.0) == "TM < ML ✗; < thesis"


@pytest.fixture(scope="module")
def xor_data():
    rng = np.random.default_rng(5)
    n = 300
    a, b = rng.integers(0, 2, n), rng.integers(0, 2, n)
    c = a ^ b
    X = pd.DataFrame({"A": a, "B": b, "D": c ^ (rng.random(n) < 0.2), "E": rng.integers(0, 3, n)})
    return X, pd.Series(c, name="C")


def test_ctan_classifier(xor_data):
    X, y = xor_data
    clf = CTANClassifier(estimator=thesis_tm()).fit(X, y)
    ref = fit_ctan(clf.encoder_, "C")
    assert clf.structure_.parents == ref.parents
    assert clf.estimator_.cll_trace_[-1] >= clf.estimator_.cll_trace_[0]
    assert clf.score(X, y) > 0.95
    assert clone(clf).get_params() == clf.get_params()


def test_structural_tm_classifier_uses_the_search_parameters(xor_data):
    X, y = xor_data
    clf = StructuralTMClassifier().fit(X, y)
    ref = fit_structural_tm(clf.encoder_, "C")
    assert clf.structure_.parents == ref.parents
    assert_allclose(clf.estimator_.cll_trace_[-1], ref.trace["cll"], rtol=1e-12)
    # the held-out criterion finds the XOR: C -> A pays a little, then B -> A (A's table given C and B) a lot
    assert clf.structure_.parents["A"] == ["C", "B"] or sorted(clf.structure_.parents["A"]) == ["B", "C"]
    assert clf.score(X, y) > 0.95
    # the thesis's greedy cBIC (ML start, TM iteration): C -> A or C -> B alone does not pay, only the noisy copy D
    thesis = StructuralTMClassifier(alpha=0.0, solver="tm", criterion="cbic").fit(X, y)
    assert thesis.structure_.selected == ["D"]
    assert thesis.score(X, y) > 0.75
    with pytest.raises(ValueError, match="line_search == 'exact'"):
        StructuralTMClassifier(line_search="exact").fit(X, y)

"""cTAN (EAR-weighted TAN) and structural TM (greedy cBIC search with TM parameters), seed 001 A13-A15."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.exceptions import ConvergenceWarning

from pgmpy_ext._compat import DiscreteBayesianNetwork
from pgmpy_ext.data import encode
from pgmpy_ext.datasets import make_corral
from pgmpy_ext.parameters import TMEstimator, fit_tm
from pgmpy_ext.structure import (
    CTANSearch,
    StructuralTMSearch,
    cbic_score,
    conditional_dimension,
    fit_ctan,
    fit_structural_tm,
    fit_tan,
)
from pgmpy_ext.structure._structural_tm import _candidates


def _plugin_mi(a, b):
    out = 0.0
    for va in np.unique(a):
        for vb in np.unique(b):
            p = np.mean((a == va) & (b == vb))
            if p > 0:
                out += p * math.log(p / (np.mean(a == va) * np.mean(b == vb)))
    return out


def _plugin_cmi(a, b, c):
    return sum(np.mean(c == vc) * _plugin_mi(a[c == vc], b[c == vc]) for vc in np.unique(c))


@pytest.fixture(scope="module")
def redundant_df():
    """A, B: independent causes of an XOR class (EAR > 0); D1, D2: noisy copies of the class (EAR < 0); E: noise."""
    rng = np.random.default_rng(3)
    n = 600
    a, b = rng.integers(0, 2, n), rng.integers(0, 2, n)
    c = a ^ b
    return pd.DataFrame({"C": c, "A": a, "B": b, "D1": c ^ (rng.random(n) < 0.2), "D2": c ^ (rng.random(n) < 0.25),
                         "E": rng.integers(0, 3, n)})


# ---------------------------------------------------------------------------------------------- cTAN
def test_ear_weights_equal_plugin_cmi_minus_mi(redundant_df):
    res = fit_ctan(encode(redundant_df), "C")
    feats = res.features
    for i in range(len(feats)):
        for j in range(i + 1, len(feats)):
            a, b = redundant_df[feats[i]].to_numpy(), redundant_df[feats[j]].to_numpy()
            cmi = _plugin_cmi(a, b, redundant_df["C"].to_numpy())
            mi = _plugin_mi(a, b)
            assert_allclose(res.trace["cmi"][i, j], cmi, rtol=1e-9, atol=1e-12)
            assert_allclose(res.trace["mi"][i, j], mi, rtol=1e-9, atol=1e-12)
            assert_allclose(res.trace["ear"][i, j], cmi - mi, rtol=1e-9, atol=1e-12)
    ear = res.trace["ear"]
    assert ear[feats.index("A"), feats.index("B")] > 0.5
    assert ear[feats.index("D1"), feats.index("D2")] < -0.01


def test_ctan_keeps_negative_edges_by_default_and_can_drop_them(redundant_df):
    rng = np.random.default_rng(4)
    c = rng.integers(0, 2, 500)
    copies = pd.DataFrame({"C": c, **{f"D{k}": c ^ (rng.random(500) < 0.1) for k in range(3)}})
    tree = fit_ctan(encode(copies), "C")  # redundant copies of the class: every EAR is negative
    assert tree.trace["n_negative_edges"] == len(tree.augmenting_edges()) == 2
    assert fit_ctan(encode(copies), "C", drop_negative_edges=True).augmenting_edges() == []
    data = encode(redundant_df)
    tree = fit_ctan(data, "C")
    assert len(tree.augmenting_edges()) == len(tree.features) - 1  # a spanning tree
    forest = fit_ctan(data, "C", drop_negative_edges=True)
    ear = forest.trace["ear"]
    idx = {f: k for k, f in enumerate(forest.features)}
    assert all(ear[idx[p], idx[c]] > 0 for p, c in forest.augmenting_edges())
    assert forest.trace["n_negative_edges"] == 0
    assert len(forest.augmenting_edges()) <= len(tree.augmenting_edges())
    assert {frozenset(e) for e in forest.augmenting_edges()} <= {frozenset(e) for e in tree.augmenting_edges()}
    with pytest.raises(TypeError, match="drop_negative_edges must be an instance of"):
        fit_ctan(data, "C", drop_negative_edges="yes")


def test_ctan_differs_from_tan_and_root_orients(redundant_df):
    data = encode(redundant_df)
    ctan = {frozenset(e) for e in fit_ctan(data, "C").augmenting_edges()}
    tan = fit_tan(data, "C")
    # CMI ranks the redundant pair (D1, D2) high, EAR ranks it low: the trees differ on that pair
    cmi, ear = tan.trace["cmi"], fit_ctan(data, "C").trace["ear"]
    i, j = tan.features.index("D1"), tan.features.index("D2")
    assert cmi[i, j] > 0 > ear[i, j]
    rooted = fit_ctan(data, "C", root="E")
    assert rooted.parents["E"] == ["C"]
    assert {frozenset(e) for e in rooted.augmenting_edges()} == ctan


def test_ctan_pgmpy_face_with_tm_parameters(redundant_df):
    est = CTANSearch(redundant_df, n_jobs=2)
    dag = est.estimate(class_node="C")
    again = CTANSearch(redundant_df).estimate(class_node="C")
    assert sorted(dag.edges()) == sorted(again.edges())
    assert set(dag.nodes()) == set(redundant_df.columns)
    tm = TMEstimator(class_node="C", tol=1e-6, solver="tm", alpha=0.0)
    bn = DiscreteBayesianNetwork(dag.edges()).fit(redundant_df, estimator=tm)
    assert bn.check_model()
    assert tm.cll_trace_[-1] >= tm.cll_trace_[0]
    with pytest.raises(ValueError, match="class_node is required"):
        CTANSearch(redundant_df).estimate()


# ---------------------------------------------------------------------------------------------- cBIC dimension
def test_conditional_dimension_examples():
    cards = {"C": 3, "A": 2, "B": 4, "D": 3}
    none = {"C": [], "A": [], "B": [], "D": []}
    assert conditional_dimension(none, cards, "C") == 2
    nb = {"C": [], "A": ["C"], "B": ["C"], "D": ["C"]}
    assert conditional_dimension(nb, cards, "C") == 2 * (1 + 1 + 3 + 2)
    tan = {"C": [], "A": ["C"], "B": ["C", "A"], "D": ["C", "B"]}
    assert conditional_dimension(tan, cards, "C") == 2 * (1 + 1 + 3 + 2 + 1 * 3 + 3 * 2)
    # a feature parent outside Ch(C) adds its own (r_j - 1) term too
    out = {"C": [], "A": ["C", "D"], "B": [], "D": []}
    assert conditional_dimension(out, cards, "C") == 2 * (1 + 1 + 2 + 1 * 2)
    # BAN: shared subsets counted once ({A} appears in A's and B's families; {A, B} in B's and D's)
    ban = {"C": [], "A": ["C"], "B": ["C", "A"], "D": ["C", "A", "B"]}
    expect = 1 + (1 + 3 + 2) + (1 * 3) + (1 * 2 + 3 * 2) + (1 * 3 * 2)
    assert conditional_dimension(ban, cards, "C") == 2 * expect
    # binary NB: the number of the thesis's U statistics (N_0 and N_0i): 1 + n
    assert conditional_dimension({"C": [], "X": ["C"], "Y": ["C"]}, {"C": 2, "X": 2, "Y": 2}, "C") == 3


def test_cbic_of_empty_structure(redundant_df):
    data = encode(redundant_df)
    res = fit_structural_tm(data, "C", max_steps=0, solver="tm", alpha=0.0, criterion="cbic")
    counts = np.bincount(redundant_df["C"])
    n = len(redundant_df)
    expect = float((counts * np.log(counts / n)).sum()) - 0.5 * math.log(n) * 1
    assert_allclose(res.trace["cbic"], expect, rtol=1e-12)
    assert res.trace["steps"] == []
    assert res.selected == []


# ---------------------------------------------------------------------------------------------- structural TM
def test_candidates_respect_tan_complexity():
    parents = {"C": [], "A": ["C"], "B": ["C", "A"], "D": [], "E": ["C"]}
    cands = _candidates(parents, ["A", "B", "D", "E"], "C")
    assert cands[:1] == [("C", "D")]  # class arcs first
    feature_arcs = cands[1:]
    assert all(child in ("A", "E") for _, child in feature_arcs)  # B has a feature parent already, D is no child
    assert ("B", "A") not in feature_arcs  # would close A -> B -> A
    assert ("D", "A") in feature_arcs
    assert ("B", "E") in feature_arcs
    assert feature_arcs == sorted(feature_arcs, key=lambda e: ("ABDE".index(e[1]), "ABDE".index(e[0])))


def test_first_step_is_the_best_candidate_by_cbic(redundant_df):
    data = encode(redundant_df)
    res = fit_structural_tm(data, "C", max_steps=1, solver="tm", alpha=0.0, criterion="cbic")
    n = len(redundant_df)
    cards = {v: data.card(v) for v in data.columns}
    scores = {}
    empty = {v: [] for v in data.columns}
    for f in ["A", "B", "D1", "D2", "E"]:
        pa = {**empty, f: ["C"]}
        cll = fit_tm(data, "C", pa, solver="tm", alpha=0.0).cll
        scores[("C", f)] = cbic_score(cll, conditional_dimension(pa, cards, "C"), n)
    best = max(scores, key=scores.get)
    assert res.trace["steps"][0]["arc"] == best == ("C", "D1")
    assert_allclose(res.trace["steps"][0]["cbic"], scores[best], rtol=1e-12)


def test_structural_tm_search_finds_xor_pair(redundant_df):
    res = fit_structural_tm(encode(redundant_df), "C", solver="tm", alpha=0.0, criterion="cbic")
    steps = res.trace["steps"]
    assert np.all(np.diff([s["cbic"] for s in steps]) > 0)
    assert "E" not in res.selected  # pure noise is never worth its parameters
    # A and B are individually useless (XOR), so the only way to use them is a feature arc between them
    assert {("A", "B"), ("B", "A")} & set(res.augmenting_edges()) or not {"A", "B"} & set(res.selected)
    tm = res.trace["tm"]
    assert_allclose(res.trace["cll"], tm.cll)
    for f in res.features:
        assert len([p for p in res.parents[f] if p != "C"]) <= 1
        if res.parents[f] and "C" not in res.parents[f]:
            pytest.fail(f"{f} has feature parents but is not a child of the class")


def test_structural_tm_on_corral_uses_feature_arcs():
    X, y = make_corral()
    df = X.assign(C=y.to_numpy())
    res = fit_structural_tm(encode(df), "C", line_search="backtracking", solver="tm", alpha=0.0, criterion="cbic")
    assert res.augmenting_edges()  # the thesis: only Corral gets feature-feature arcs (Table 5.6)


def test_warm_start_and_parallel_give_the_same_structure(redundant_df):
    data = encode(redundant_df)
    cold = fit_structural_tm(data, "C", tol=1e-6, solver="tm", alpha=0.0, criterion="cbic")
    warm = fit_structural_tm(data, "C", tol=1e-6, warm_start=True, solver="tm", alpha=0.0, criterion="cbic")
    par = fit_structural_tm(data, "C", tol=1e-6, n_jobs=2, solver="tm", alpha=0.0, criterion="cbic")
    assert cold.parents == warm.parents == par.parents
    assert_allclose(warm.trace["cbic"], cold.trace["cbic"], atol=1e-3)
    assert par.trace["cbic"] == cold.trace["cbic"]


def test_structural_tm_pgmpy_face(redundant_df):
    from pgmpy_ext._compat import pgmpy_config

    est = StructuralTMSearch(redundant_df)
    old = pgmpy_config.SHOW_PROGRESS
    try:
        pgmpy_config.SHOW_PROGRESS = False
        dag = est.estimate(class_node="C", show_progress=True, max_iter=200, line_search="backtracking", solver="tm",
                           alpha=0.0, criterion="cbic")
    finally:
        pgmpy_config.SHOW_PROGRESS = old
    assert set(dag.nodes()) == set(redundant_df.columns)
    assert sorted(dag.edges()) == sorted(est.result_.edges())
    bn = DiscreteBayesianNetwork(dag.edges())
    bn.add_nodes_from(dag.nodes())
    tm = TMEstimator(class_node="C", line_search="backtracking", max_iter=200, solver="tm", alpha=0.0).fit(
        bn, redundant_df)
    assert_allclose(tm.cll_trace_[-1], est.result_.trace["cll"], rtol=1e-12)
    with pytest.raises(ValueError, match=r"line_search == 'exact'"):
        est.estimate(class_node="C", line_search="exact")


# ---------------------------------------------------------------------------------------------- bounds (issue 11)
def test_tm_learners_default_to_lbfgs(redundant_df):
    from pgmpy_ext.classifiers import StructuralTMClassifier

    data = encode(redundant_df)
    assert TMEstimator().get_params()["solver"] == "lbfgs"
    assert StructuralTMClassifier().get_params()["solver"] == "lbfgs"
    assert fit_tm(data, "C", {"C": [], "A": ["C"], "D1": ["C"]}).solver == "lbfgs"
    res = fit_structural_tm(data, "C", max_steps=1)
    assert res.trace["tm"].solver == "lbfgs"
    est = StructuralTMSearch(redundant_df)
    est.estimate(class_node="C", max_steps=1)
    assert est.result_.trace["tm"].solver == "lbfgs"


def test_structural_tm_warns_once_with_the_count_of_unconverged_fits(redundant_df):
    data = encode(redundant_df)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = fit_structural_tm(data, "C", solver="tm", alpha=0.0, criterion="cbic", tol=0.0, max_iter=1, max_steps=2)
    mine = [w for w in caught if "candidate TM fits stopped at max_iter" in str(w.message)]
    assert len(mine) == 1
    assert issubclass(mine[0].category, ConvergenceWarning)
    n_unconverged, n_candidates = res.trace["n_unconverged"], res.trace["n_tm_runs"] - 1  # the start's fit aside
    assert 0 < n_unconverged <= n_candidates
    assert f"{n_unconverged} of {n_candidates} candidate TM fits stopped at max_iter=1" in str(mine[0].message)
    with pytest.warns(ConvergenceWarning, match=r"candidate TM fits stopped at max_iter=1 .*Increase max_iter"):
        fit_structural_tm(data, "C", solver="tm", alpha=0.0, criterion="cbic", tol=0.0, max_iter=1, max_steps=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)  # converged candidates: no warning
        fit_structural_tm(data, "C", max_steps=1)


def test_structural_tm_max_candidates_stops_between_steps(redundant_df):
    from pgmpy_ext.classifiers import StructuralTMClassifier

    data = encode(redundant_df)
    full = fit_structural_tm(data, "C", max_candidates=None)
    assert full.trace["stop_reason"] == "converged"
    assert len(full.trace["steps"]) >= 2
    first, second = (s["n_candidates"] for s in full.trace["steps"][:2])
    with pytest.warns(ConvergenceWarning, match=rf"max_candidates={first + second - 1} scored candidates after 1 "
                                                 rf"added arcs: the next step needs {second} more"):
        capped = fit_structural_tm(data, "C", max_candidates=first + second - 1)
    assert capped.trace["stop_reason"] == "max_candidates"
    assert [s["arc"] for s in capped.trace["steps"]] == [full.trace["steps"][0]["arc"]]
    assert capped.trace["n_tm_runs"] == 3 * (1 + first) + 1  # 3 inner folds per candidate, then the final fit
    with pytest.warns(ConvergenceWarning, match="max_candidates=0"):
        assert fit_structural_tm(data, "C", max_candidates=0).selected == []
    X, y = redundant_df.drop(columns="C"), redundant_df["C"]
    with pytest.warns(ConvergenceWarning, match=rf"max_candidates={first}"):
        clf = StructuralTMClassifier(max_candidates=first).fit(X, y)
    assert clf.structure_.trace["stop_reason"] == "max_candidates"
    for bad in (-1, 2.5):
        with pytest.raises((ValueError, TypeError), match="max_candidates"):
            fit_structural_tm(data, "C", max_candidates=bad)
        with pytest.raises((ValueError, TypeError), match="max_candidates"):
            StructuralTMClassifier(max_candidates=bad).fit(X, y)


def test_structural_tm_progress_bar_obeys_both_switches(redundant_df, capsys, monkeypatch):
    from pgmpy_ext._compat import pgmpy_config
    from pgmpy_ext.classifiers import StructuralTMClassifier

    X, y = redundant_df.drop(columns="C"), redundant_df["C"]
    monkeypatch.setattr(pgmpy_config, "SHOW_PROGRESS", True)
    shown = StructuralTMClassifier(show_progress=True).fit(X, y)
    assert "structural TM" in capsys.readouterr().err
    quiet = StructuralTMClassifier().fit(X, y)
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(pgmpy_config, "SHOW_PROGRESS", False)
    StructuralTMClassifier(show_progress=True).fit(X, y)
    assert capsys.readouterr().err == ""
    assert shown.structure_.parents == quiet.structure_.parents

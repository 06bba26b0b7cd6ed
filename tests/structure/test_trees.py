"""Tree/forest engines: Kruskal optimality and determinism, orientation, TAN/Chow-Liu against pgmpy TreeSearch."""

from __future__ import annotations

import itertools
import warnings

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pgmpy_ext.data import encode
from pgmpy_ext.structure import fit_chow_liu_tree, fit_tan_tree, maximum_spanning_forest, orient_forest


def _weight(w, edges):
    return sum(w[i, j] for i, j in edges)


@given(st.integers(1, 9), st.integers(0, 2**32 - 1), st.booleans())
def test_kruskal_is_maximum_spanning_tree(m, seed, integer_weights):
    rng = np.random.default_rng(seed)
    w = rng.integers(0, 4, (m, m)).astype(float) if integer_weights else rng.random((m, m))
    w = (w + w.T) / 2
    edges = maximum_spanning_forest(w)
    assert len(edges) == m - 1
    g = nx.Graph()
    g.add_nodes_from(range(m))
    g.add_weighted_edges_from((i, j, w[i, j]) for i, j in itertools.combinations(range(m), 2))
    best = nx.maximum_spanning_tree(g)
    assert _weight(w, edges) == pytest.approx(sum(d["weight"] for *_, d in best.edges(data=True)), abs=1e-12)
    assert m == 1 or nx.is_tree(nx.Graph(edges))


@given(st.integers(2, 8), st.integers(0, 2**32 - 1))
def test_positive_forest_is_maximum_weight_forest(m, seed):
    """With min_weight=0, Kruskal returns the maximum-weight forest (brute force over edge subsets)."""
    rng = np.random.default_rng(seed)
    w = rng.normal(size=(m, m))
    w = (w + w.T) / 2
    edges = maximum_spanning_forest(w, min_weight=0.0)
    got = _weight(w, edges)
    if m <= 5:
        all_edges = list(itertools.combinations(range(m), 2))
        best = 0.0
        for k in range(1, m):
            for subset in itertools.combinations(all_edges, k):
                if nx.is_forest(nx.Graph(subset)):
                    best = max(best, _weight(w, subset))
        assert got == pytest.approx(best, abs=1e-12)
    assert all(w[i, j] > 0 for i, j in edges)


def test_ties_broken_by_lowest_index():
    w = np.ones((4, 4))
    assert maximum_spanning_forest(w) == [(0, 1), (0, 2), (0, 3)]
    assert maximum_spanning_forest(w, max_edges=2) == [(0, 1), (0, 2)]


def test_orient_forest_roots_and_errors():
    parents = orient_forest(5, [(0, 1), (1, 2), (3, 4)], roots=[2])
    assert parents.tolist() == [1, 2, -1, -1, 3]
    assert orient_forest(3, []).tolist() == [-1, -1, -1]
    with pytest.raises(ValueError, match="do not form a forest"):
        orient_forest(3, [(0, 1), (1, 2), (0, 2)])


def test_tan_matches_pgmpy_treesearch(asia_df):
    """Same skeleton as pgmpy's TreeSearch TAN (weights are distinct here), and the class is never a root."""
    from pgmpy.estimators import TreeSearch  # noqa: F401  (via _compat's filter when imported first)

    res = fit_tan_tree(encode(asia_df), "dysp")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dag = TreeSearch(asia_df, root_node="asia", n_jobs=1).estimate(
            estimator_type="tan", class_node="dysp", show_progress=False)
    ours = {frozenset(e) for e in res.edge_list()}
    theirs = {frozenset(e) for e in dag.edges()}
    assert ours == theirs
    assert all(p >= 0 for k, p in enumerate(res.parents) if k != 0)  # one root only: feature 0
    assert res.parents[0] == -1
    assert res.parent_sets()["dysp"] == []


def test_tan_root_parameter(asia_df):
    res = fit_tan_tree(encode(asia_df), "dysp", root="xray")
    assert res.parents[res.features.index("xray")] == -1
    with pytest.raises(ValueError, match="root 'dysp' is not one of the features"):
        fit_tan_tree(encode(asia_df), "dysp", root="dysp")


def test_chow_liu_matches_networkx_on_mi(asia_df):
    data = encode(asia_df)
    res = fit_chow_liu_tree(data)
    assert len(res.edges) == len(res.features) - 1
    # weights are mutual information: symmetric, non-negative, zero diagonal
    assert np.allclose(res.weights, res.weights.T)
    assert (res.weights >= 0).all()
    assert np.allclose(np.diag(res.weights), 0)


def test_tan_recovers_planted_chain():
    rng = np.random.default_rng(0)
    n = 4000
    c = rng.integers(0, 2, n)
    a = (c ^ (rng.random(n) < 0.2)).astype(int)
    b = (a ^ (rng.random(n) < 0.1)).astype(int)
    d = (b ^ (rng.random(n) < 0.1)).astype(int)
    e = rng.integers(0, 3, n)
    df = pd.DataFrame({"C": c, "A": a, "B": b, "D": d, "E": e})
    res = fit_tan_tree(encode(df), "C")
    skel = {frozenset(e) for e in res.edges}
    assert frozenset((0, 1)) in skel
    assert frozenset((1, 2)) in skel


# ----------------------------------------------------------------------------------------------- TAN counts reuse
def _tan_frame(seed: int, n: int = 400, names=("D", "A", "Z", "B")):
    rng = np.random.default_rng(seed)
    c = rng.integers(0, 3, n)
    cols = {"M": np.where(c == 1, "b", np.where(c == 2, "c", "a"))}  # class named between the features
    prev = c
    for k, name in enumerate(names):
        prev = (prev + (rng.random(n) < 0.3) * rng.integers(0, 3, n)) % (2 + k % 3)
        cols[name] = prev
    return pd.DataFrame(cols)


@pytest.mark.parametrize("case", ["plain", "weighted", "missing", "one_feature"])
def test_tan_family_counts_from_pair_tables_equal_direct_counts(case):
    from pgmpy_ext.models import sorted_parents
    from pgmpy_ext.stats import family_counts_many
    from pgmpy_ext.structure import fit_tan

    df = _tan_frame(3)
    if case == "one_feature":
        df = df[["M", "A"]]
    weights = np.random.default_rng(1).random(len(df)) * 2 if case == "weighted" else None
    if case == "missing":
        df = df.astype(object)
        df.iloc[[5, 17], 2] = None
        df.iloc[40, 0] = None  # a missing class too
    data = encode(df, weights=weights, missing="skip" if case == "missing" else "error")
    parents = fit_tan(data, "M").parent_sets()
    other = fit_tan(encode(df, weights=weights, missing=data.missing), "M")
    assert other.take_counts(data, parents) == {}  # counted on other (equal) data: never handed out
    st_ = fit_tan(data, "M")
    given_counts = st_.take_counts(data, parents)
    assert st_.take_counts(data, parents) == {}
    assert st_.counted_on is None
    if case == "one_feature":
        assert given_counts == {}
        return
    edges = {f for f in st_.features if len(parents[f]) == 2}
    exact = case == "plain"  # marginals (root, class) only for unweighted data without missing codes
    assert set(given_counts) == (set(parents) if exact else edges)
    ref = family_counts_many(data, [(v, sorted_parents(parents[v])) for v in given_counts])
    for (v, got), want in zip(given_counts.items(), ref):
        assert got.shape == want.shape, v
        np.testing.assert_array_equal(got, want)
    # a changed parent set does not get them
    changed = dict(parents)
    some = next(iter(edges))
    changed[some] = ["M"]
    assert some not in fit_tan(data, "M").take_counts(data, changed)

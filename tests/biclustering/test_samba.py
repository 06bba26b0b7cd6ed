"""SAMBA: the improvement kernel against its numpy reference, planted-bicluster recovery, conventions, errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from pgmpy_ext.biclustering import SAMBA
from pgmpy_ext.datasets import make_planted_biclusters
from pgmpy_ext.stats import samba_improve
from tests.reference_samba import samba_improve_ref


def _cell_jaccard(rows_a, cols_a, rows_b, cols_b) -> float:
    a = {(r, c) for r in rows_a for c in cols_a}
    b = {(r, c) for r in rows_b for c in cols_b}
    return len(a & b) / len(a | b)


# ------------------------------------------------------------------ kernel
def test_improve_hand_example():
    # a 2x2 block of +1 inside -1 everywhere else: from one cell the greedy search grows to the block
    W = -np.ones((4, 5))
    W[np.ix_([0, 2], [1, 3])] = 1.0
    U = np.zeros((1, 4), bool)
    V = np.zeros((1, 5), bool)
    U[0, 0] = V[0, 1] = True
    r = samba_improve(W, np.full(4, -1), U, V)
    assert r.props[0].tolist() == [True, False, True, False]
    assert r.genes[0].tolist() == [False, True, False, True, False]
    assert r.scores[0] == 4.0
    assert r.n_moves[0] == 2
    assert U.sum() == 1
    assert V.sum() == 1


def test_improve_twin_never_added():
    # property 1 is property 0's opposite sign: it is never added while 0 is in, however heavy
    W = np.array([[1.0, 1.0], [5.0, 5.0]])
    r = samba_improve(W, np.array([1, 0]), np.array([[True, False]]), np.array([[True, False]]), min_props=1)
    assert r.props[0].tolist() == [True, False]
    assert r.genes[0].tolist() == [True, True]


def test_improve_min_sizes_block_deletion():
    W = -np.ones((3, 3))
    r = samba_improve(W, np.full(3, -1), np.ones((1, 3), bool), np.ones((1, 3), bool), min_props=3, min_cols=3)
    assert r.props.all()
    assert r.genes.all()
    assert r.scores[0] == -9.0


def test_improve_shape_errors():
    with pytest.raises(ValueError, match="twin has 2 entries"):
        samba_improve(np.zeros((3, 2)), np.full(2, -1), np.zeros((1, 3), bool), np.zeros((1, 2), bool))
    with pytest.raises(ValueError, match="do not match W"):
        samba_improve(np.zeros((3, 2)), np.full(3, -1), np.zeros((1, 2), bool), np.zeros((1, 2), bool))


@given(st.integers(1, 6), st.integers(1, 8), st.integers(1, 4), st.booleans(), st.integers(0, 2**32 - 1))
def test_improve_matches_reference(m, n, n_seeds, signed, seed):
    rng = np.random.default_rng(seed)
    P = 2 * m if signed else m
    W = rng.integers(-3, 4, size=(P, n)).astype(float)  # exact sums, so exact ties
    twin = np.r_[np.arange(m, 2 * m), np.arange(m)] if signed else np.full(m, -1)
    U = np.zeros((n_seeds, P), bool)
    V = rng.random((n_seeds, n)) < 0.5
    U[np.arange(n_seeds), rng.integers(0, m, n_seeds)] = True
    r = samba_improve(W, twin, U, V, min_props=1, min_cols=0)
    U_ref, V_ref, s_ref = samba_improve_ref(W, twin, U, V, min_props=1, min_cols=0)
    np.testing.assert_array_equal(r.props, U_ref)
    np.testing.assert_array_equal(r.genes, V_ref)
    np.testing.assert_allclose(r.scores, s_ref, rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------------ estimator
@pytest.mark.parametrize("seed", [0, 1])
def test_recovers_planted_biclusters(seed):
    X, _, planted = make_planted_biclusters(n_genes=1000, random_state=seed)
    est = SAMBA(random_state=0).fit(X)
    assert est.rows_.shape[1] == X.shape[0]
    assert est.columns_.shape[1] == X.shape[1]
    found = [est.get_indices(i) for i in range(est.rows_.shape[0])]
    for b in planted:
        best = max(_cell_jaccard(b["rows"], b["cols"], r, c) for r, c in found)
        assert best >= 0.5, (b["kind"], best)


def test_conventions_and_determinism():
    X, _, _ = make_planted_biclusters(n_genes=200, n_biclusters=(1, 1, 1), bicluster_cols=(30, 40), random_state=3)
    X_before = X.copy()
    a = SAMBA(n_seeds=50, max_subsets_per_gene=500, random_state=7).fit(X)
    b = clone(a).fit(X.to_numpy())
    pd.testing.assert_frame_equal(X, X_before)
    rows, cols = a.biclusters_
    assert rows.dtype == bool
    assert cols.dtype == bool
    assert rows.shape[0] == cols.shape[0] == a.scores_.size > 0
    np.testing.assert_array_equal(a.rows_, b.rows_)
    np.testing.assert_array_equal(a.columns_, b.columns_)
    assert np.all(np.diff(a.scores_) <= 0)
    assert np.array_equal(a.row_signs_ != 0, a.rows_)
    r0, c0 = a.get_indices(0)
    assert a.get_shape(0) == (r0.size, c0.size)
    assert list(a.feature_names_in_) == list(X.columns)


def test_overlap_filter():
    X, _, _ = make_planted_biclusters(n_genes=500, random_state=0)
    est = SAMBA(n_seeds=100, max_overlap=0.0, random_state=0).fit(X)
    cells = [(est.rows_[i][:, None] & est.columns_[i][None, :]) for i in range(est.rows_.shape[0])]
    for i in range(len(cells)):
        for j in range(i):
            assert not (cells[i] & cells[j]).any()


def test_errors():
    X = np.random.default_rng(0).normal(size=(10, 8))
    X[3, 2] = np.nan
    with pytest.raises(ValueError, match=r"column 'x2' has NaN at row 3.*Impute them first"):
        SAMBA().fit(X)
    frame = pd.DataFrame(X, index=[f"s{i}" for i in range(10)], columns=[f"g{j}" for j in range(8)])
    with pytest.raises(ValueError, match=r"column 'g2' has NaN at row 's3'"):
        SAMBA().fit(frame)
    with pytest.raises(ValueError, match="p_c == 1.5"):
        SAMBA(p_c=1.5).fit(np.ones((4, 4)))


def test_no_structure_gives_no_bicluster():
    # a constant matrix has no edge at all: zero biclusters, with the right shapes
    est = SAMBA().fit(np.ones((12, 30)))
    assert est.rows_.shape == (0, 12)
    assert est.columns_.shape == (0, 30)
    assert est.n_seeds_ == 0


_XFAILS = {}


@parametrize_with_checks([SAMBA(n_seeds=20, min_cols=2, random_state=0)], expected_failed_checks=lambda e: _XFAILS)
def test_sklearn_compatible(estimator, check):
    check(estimator)


# ------------------------------------------------------------------ seeding: bounded sampling of kernels (issue 29)
def test_draw_subsets_distinct_sorted_uniform():
    from pgmpy_ext.biclustering._samba import _draw_subsets

    d, s, n = 6, 3, 40_000
    sub = _draw_subsets(np.random.default_rng(0), d, s, (n,))
    assert sub.shape == (n, s)
    assert np.all(np.diff(sub, axis=1) > 0)  # distinct and ascending
    assert sub.min() >= 0
    assert sub.max() < d
    _, counts = np.unique(sub, axis=0, return_counts=True)
    assert counts.size == 20  # every one of the C(6, 3) subsets occurs
    expected = n / 20
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < 50.0  # 19 degrees of freedom: P(chi2 > 50) < 1e-4


def test_large_kernel_work_is_bounded(monkeypatch):
    # kernel_size 6 on 65 x 100: a gene has ~30 neighbours and C(30, 6) ~ 600,000 subsets; the old seeding listed
    # them all before sampling (10 s, 700 MB). Now at most _LIST_FACTOR * max_subsets_per_gene are ever listed.
    import itertools
    import tracemalloc

    from pgmpy_ext.biclustering import _samba as mod

    listed = []
    real = itertools.combinations

    def spy(it, r):
        out = list(real(it, r))
        listed.append(len(out))
        return iter(out)

    monkeypatch.setattr(mod.itertools, "combinations", spy)
    X = np.random.default_rng(0).normal(size=(65, 100))
    tracemalloc.start()
    est = SAMBA(kernel_size=6, max_subsets_per_gene=2000, random_state=0).fit(X)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert max(listed, default=0) <= mod._LIST_FACTOR * 2000
    assert peak < 100 * 2**20, peak / 2**20  # the old seeding peaked at ~450 MB here
    assert est.rows_.shape[1] == 65


@pytest.mark.parametrize(("dense_keys", "int_key_bits"), [(0, 62), (1 << 22, 0)], ids=["sparse-int", "rows"])
def test_seed_hashing_paths_agree(monkeypatch, dense_keys, int_key_bits):
    # the dense table, the sorted int64 keys and the row hashing give the same kernels in the same order
    from pgmpy_ext.biclustering import _samba as mod

    X, _, _ = make_planted_biclusters(n_genes=200, n_biclusters=(1, 1, 0), bicluster_cols=(30, 40), random_state=2)
    ref = SAMBA(kernel_size=3, max_subsets_per_gene=300, random_state=5).fit(X)
    monkeypatch.setattr(mod, "_DENSE_KEYS", dense_keys)
    monkeypatch.setattr(mod, "_INT_KEY_BITS", int_key_bits)
    other = SAMBA(kernel_size=3, max_subsets_per_gene=300, random_state=5).fit(X)
    np.testing.assert_array_equal(ref.rows_, other.rows_)
    np.testing.assert_array_equal(ref.columns_, other.columns_)
    np.testing.assert_array_equal(ref.scores_, other.scores_)


def test_sampled_kernels_recover_planted_and_are_deterministic():
    # kernel_size 4 with 5,000 draws per gene: a planted gene has ~29 neighbours (C(29, 4) = 23,751 subsets, more
    # than _LIST_FACTOR * 5,000), so its subsets are drawn (Floyd), never listed; ~2% of them lie inside its block
    X, _, planted = make_planted_biclusters(n_genes=200, n_biclusters=(1, 1, 0), bicluster_rows=(14, 14),
                                            bicluster_cols=(60, 60), shift=3.0, random_state=4)
    kw = {"kernel_size": 4, "max_subsets_per_gene": 5000, "min_rows": 4}
    a = SAMBA(random_state=1, **kw).fit(X)
    b = SAMBA(random_state=1, **kw).fit(X)
    np.testing.assert_array_equal(a.rows_, b.rows_)
    np.testing.assert_array_equal(a.columns_, b.columns_)
    found = [a.get_indices(i) for i in range(a.rows_.shape[0])]
    for p in planted:
        best = max(_cell_jaccard(p["rows"], p["cols"], r, c) for r, c in found)
        assert best >= 0.7, (p["kind"], best)


def test_best_per_gene_keeps_kernels_with_an_unserved_gene():
    from pgmpy_ext.biclustering._samba import _best_per_gene

    # properties 0-3 x genes 0-3; kernel (0, 1) joins genes {0, 1}, (0, 2) genes {0, 1}, (2, 3) genes {2, 3}
    E = np.array([[1, 1, 0, 0], [1, 1, 0, 0], [1, 1, 1, 1], [0, 0, 1, 1]], dtype=bool)
    kernels = np.array([[0, 1], [0, 2], [2, 3]])
    assert _best_per_gene(E, kernels, k=1, n_seeds=10).tolist() == [[0, 1], [2, 3]]
    assert _best_per_gene(E, kernels, k=2, n_seeds=10).tolist() == [[0, 1], [0, 2], [2, 3]]
    assert _best_per_gene(E, kernels, k=2, n_seeds=2).tolist() == [[0, 1], [0, 2]]

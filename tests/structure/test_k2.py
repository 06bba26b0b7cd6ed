"""K2 search (seed 004 section 1.6): the kernel against exhaustive and plain-numpy searches, scores, faces."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.special import gammaln

from pgmpy_ext.classifiers import K2Classifier
from pgmpy_ext.data import encode
from pgmpy_ext.stats import dirichlet_family_score, k2_parent_search, local_score
from pgmpy_ext.structure import K2Search, fit_k2, k2_search


def _counts(codes: np.ndarray, cards, child: int, parents: list[int]) -> np.ndarray:
    """Family table (child, *parents) by np.add.at over the rows where the family is observed."""
    fam = [child, *parents]
    sub = codes[:, fam]
    ok = (sub >= 0).all(axis=1)
    table = np.zeros([cards[c] for c in fam])
    np.add.at(table, tuple(sub[ok].T), 1.0)
    return table.reshape(cards[child], -1)


def _score(kind, table, n_total, alpha=0.5, ess=10.0):
    r, q = table.shape
    if kind == "bayes":
        nj = table.sum(0)
        return float(np.sum(gammaln(r * alpha) - gammaln(nj + r * alpha))
                     + np.sum(gammaln(table + alpha) - gammaln(alpha)))
    return local_score(kind, table, n_total, equivalent_sample_size=ess, q_total=q)


def _random_codes(seed, n=40, m=6, max_card=3, missing=0.0):
    rng = np.random.default_rng(seed)
    cards = rng.integers(2, max_card + 1, m + 1)
    codes = np.column_stack([rng.integers(0, c, n) for c in cards])
    for j in range(1, m):  # some dependence so that parents get added
        codes[:, j] = np.where(rng.random(n) < 0.5, codes[:, j - 1] % cards[j], codes[:, j])
    if missing:
        codes = np.where(rng.random(codes.shape) < missing, -1, codes)
        codes[:, -1] = np.abs(codes[:, -1])  # the class stays complete
    df = pd.DataFrame({f"X{j}": pd.Categorical.from_codes(codes[:, j], list(range(cards[j])))
                       for j in range(m)})
    df["C"] = codes[:, -1]
    return df


def _greedy_reference(codes, cards, order, fixed, max_parents, kind, n_total):
    """K2 written with explicit counting (the spec's pseudo-code), ties to the lowest index."""
    tol = 1e-12
    out = {}
    for pos, i in enumerate(order):
        pa: list[int] = []
        best = _score(kind, _counts(codes, cards, i, sorted([*fixed, *pa])), n_total)
        while len(pa) < max_parents:
            cands = [(z, _score(kind, _counts(codes, cards, i, sorted([*fixed, *pa, z])), n_total))
                     for z in sorted(order[:pos]) if z not in pa]
            if not cands:
                break
            z_best, s_best = cands[0]
            for z, s in cands[1:]:
                if s > s_best + tol * max(1.0, abs(s_best)):
                    z_best, s_best = z, s
            if not s_best > best + tol * max(1.0, abs(best)):
                break
            pa.append(z_best)
            best = s_best
        out[i] = (pa, best)
    return out


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("kind", ["bayes", "k2", "bdeu", "bic", "aic", "ll"])
def test_one_parent_k2_equals_exhaustive_best_parent_set(seed, kind):
    """With the class fixed and one feature parent allowed, greedy K2 is exhaustive: for every node, the chosen set
    maximises the local score over {} and every single predecessor."""
    df = _random_codes(seed)
    data = encode(df)
    codes, cards = data.codes, data.cards
    m = df.shape[1] - 1
    order = list(np.random.default_rng(seed).permutation(m))
    parents, scores = k2_parent_search(data, list(range(m)), order, fixed=[m], max_parents=1, scoring_method=kind,
                                       n_total=len(df))
    for pos, i in enumerate(order):
        sets = [[]] + [[z] for z in order[:pos]]
        vals = [_score(kind, _counts(codes, cards, i, sorted([m, *s])), len(df)) for s in sets]
        assert scores[i] == pytest.approx(max(vals), rel=1e-10)
        assert _score(kind, _counts(codes, cards, i, sorted([m, *parents[i]])), len(df)) == pytest.approx(
            max(vals), rel=1e-10)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("max_parents", [2, 3])
def test_k2_local_scores_never_beat_the_exhaustive_best(seed, max_parents):
    df = _random_codes(seed, m=5)
    data = encode(df)
    m = df.shape[1] - 1
    order = list(range(m))
    parents, scores = k2_parent_search(data, list(range(m)), order, fixed=[m], max_parents=max_parents)
    for i in range(m):
        best = max(dirichlet_family_score(_counts(data.codes, data.cards, i, sorted([m, *s])), 0.5)
                   for k in range(max_parents + 1) for s in itertools.combinations(range(i), k))
        assert scores[i] <= best + 1e-9
        assert len(parents[i]) <= max_parents


@pytest.mark.parametrize(("seed", "missing"), [(0, 0.0), (1, 0.0), (2, 0.1), (3, 0.15)])
@pytest.mark.parametrize("kind", ["bayes", "k2", "bdeu", "bic"])
def test_kernel_equals_plain_numpy_greedy_search(seed, missing, kind):
    df = _random_codes(seed, n=70, m=7, max_card=4, missing=missing)
    data = encode(df, missing="skip")
    m = df.shape[1] - 1
    order = list(np.random.default_rng(seed + 10).permutation(m))
    parents, scores = k2_parent_search(data, list(range(m)), order, fixed=[m], max_parents=3, scoring_method=kind,
                                       n_total=len(df))
    ref = _greedy_reference(data.codes, data.cards, order, [m], 3, kind, len(df))
    for i in range(m):
        assert parents[i] == ref[i][0], i
        assert scores[i] == pytest.approx(ref[i][1], rel=1e-10)


def test_weighted_path_and_threads_give_the_kernel_result():
    df = _random_codes(5, n=120, m=8)
    data = encode(df)
    m = df.shape[1] - 1
    feats = [f"X{j}" for j in range(m)]
    base = k2_search(data, feats, list(range(m)), max_parents=3, scoring_method="bayes", fixed=["C"])
    two = k2_search(data, feats, list(range(m)), max_parents=3, scoring_method="bayes", fixed=["C"], n_jobs=2)
    weighted = k2_search(encode(df, weights=np.ones(len(df))), feats, list(range(m)), max_parents=3,
                         scoring_method="bayes", fixed=["C"])
    assert base[0] == two[0] == weighted[0]
    np.testing.assert_array_equal(base[1], two[1])
    np.testing.assert_allclose(base[1], weighted[1], rtol=1e-12)


def test_fit_k2_naive_bayes_init_counts_the_class_and_orders():
    df = _random_codes(6, n=100, m=5)
    data = encode(df)
    res = fit_k2(data, "C", max_parents=3)
    assert all(res.parents[f][0] == "C" and len(res.parents[f]) <= 3 for f in res.features)
    assert res.trace["order"] == res.features
    nb = fit_k2(data, "C", max_parents=1)
    assert all(res_pa == ["C"] for res_pa in nb.parents.values())
    free = fit_k2(data, "C", max_parents=2, init_naive_bayes=False)
    for f in free.features:
        pa = free.parents[f]
        assert len(pa) <= 2
        assert "C" not in pa[1:]
    rnd = fit_k2(data, "C", order="random", random_state=3)
    assert rnd.trace["order"] == [res.features[k] for k in np.random.default_rng(3).permutation(5)]
    with pytest.raises(ValueError, match=r"max_parents == 0, must be >= 1"):
        fit_k2(data, "C", max_parents=0)
    with pytest.raises(ValueError, match=r"order == 'bogus', must be one of"):
        fit_k2(data, "C", order="bogus")


def test_pgmpy_face_and_sklearn_face_agree():
    df = _random_codes(7, n=150, m=5)
    dag = K2Search(df).estimate(class_node="C", max_parents=3)
    clf = K2Classifier(max_parents=3).fit(df.drop(columns="C"), df["C"])
    assert sorted(dag.edges()) == sorted(clf.model_.edges())
    assert clf.class_node_ == "C"
    clf.model_.check_model()

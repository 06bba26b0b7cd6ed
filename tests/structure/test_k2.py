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


def _greedy_reference(codes, cards, order, fixed, max_parents, kind, n_total, size_prior=False):
    """K2 written with explicit counting (the spec's pseudo-code), ties to the lowest index; ``size_prior``: the
    log prior ratio of a parent-set prior uniform over sizes, log(C(p, k + 1) / C(p, k)), floored at 0."""
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
            from math import comb, log

            cost = max(0.0, log(comb(pos, len(pa) + 1) / comb(pos, len(pa)))) if size_prior else 0.0
            if not s_best - cost > best + tol * max(1.0, abs(best)):
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


@pytest.mark.parametrize(("seed", "missing"), [(0, 0.0), (1, 0.1), (2, 0.0)])
@pytest.mark.parametrize("kind", ["bayes", "bic"])
def test_size_prior_kernel_equals_the_reference_and_the_weighted_path(seed, missing, kind):
    df = _random_codes(seed, n=60, m=9, max_card=3, missing=missing)
    data = encode(df, missing="skip")
    m = df.shape[1] - 1
    order = list(np.random.default_rng(seed + 20).permutation(m))
    parents, scores = k2_parent_search(data, list(range(m)), order, fixed=[m], max_parents=3, scoring_method=kind,
                                       n_total=len(df), size_prior=True)
    ref = _greedy_reference(data.codes, data.cards, order, [m], 3, kind, len(df), size_prior=True)
    for i in range(m):
        assert parents[i] == ref[i][0], i
        assert scores[i] == pytest.approx(ref[i][1], rel=1e-10)
    feats = [f"X{j}" for j in range(m)]
    weighted = k2_search(encode(df, weights=np.ones(len(df)), missing="skip"), feats, order, max_parents=3,
                         scoring_method=kind, fixed=["C"], size_prior=True)
    assert weighted[0] == parents


def test_size_prior_keeps_chance_parents_out_of_many_noise_genes():
    # 30 rows, one informative pair (G1 copies G0 mostly) and 400 independent noise variables placed before G1
    rng = np.random.default_rng(0)
    n, noise = 30, 400
    y = rng.integers(0, 2, n)
    g0 = np.where(rng.random(n) < 0.8, y, 1 - y)
    cols = {f"N{j}": rng.integers(0, 3, n) for j in range(noise)}
    df = pd.DataFrame({"G0": g0, **cols, "G1": np.where(rng.random(n) < 0.9, g0, 1 - g0)})
    X = df.astype("category")
    uniform = K2Classifier(max_parents=3, parent_prior="uniform").fit(X, y)
    size = K2Classifier(max_parents=3, parent_prior="size").fit(X, y)
    n_uniform = sum(len(uniform.structure_.parents[f]) - 1 for f in X.columns)
    n_size = sum(len(size.structure_.parents[f]) - 1 for f in X.columns)
    assert n_uniform > 100  # the uniform prior gives most noise variables a chance parent
    assert n_size < n_uniform / 4
    assert "G0" in size.structure_.parents["G1"]  # the real dependence survives the prior
    assert size.structure_.trace["parent_prior"] == "size"
    with pytest.raises(ValueError, match="parent_prior"):
        K2Classifier(parent_prior="bdeu").fit(X, y)


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


# --- exact pruning and parallel search (issue 14: K2 on 65 x 7,129 genes) ---

def _refinement_bound(table: np.ndarray, alpha: float) -> float:
    """numpy reference of the kernel's bound: sum over parent configurations j and child states k of the term of
    a configuration holding the N_jk rows of state k alone, phi(N) = lgamma(r a) - lgamma(N + r a)
    + lgamma(N + a) - lgamma(a) (phi(0) = 0)."""
    r = table.shape[0]
    n = table.reshape(r, -1)
    phi = gammaln(r * alpha) - gammaln(n + r * alpha) + gammaln(n + alpha) - gammaln(alpha)
    return float(np.sum(np.where(n > 0, phi, 0.0)))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("alpha", [0.5, 1.0, 2.0])
def test_refinement_bound_dominates_every_superset_brute_force(seed, alpha):
    """The bound of a parent set is >= the BAYES score of the set itself and of every superset (all subsets of
    the other variables, enumerated), and equals the set's score when every configuration is pure."""
    df = _random_codes(seed, n=int(25 + 10 * seed), m=6, max_card=4)
    data = encode(df)
    codes, cards = data.codes, data.cards
    m = df.shape[1] - 1
    child = m - 1
    others = list(range(m - 1))
    for size in range(3):
        for pa in itertools.combinations(others, size):
            pa = [m, *pa]
            bound = _refinement_bound(_counts(codes, cards, child, sorted(pa)), alpha)
            rest = [v for v in others if v not in pa]
            for extra_size in range(len(rest) + 1):
                for extra in itertools.combinations(rest, extra_size):
                    s = dirichlet_family_score(_counts(codes, cards, child, sorted([*pa, *extra])), alpha)
                    assert s <= bound + 1e-9 * max(1.0, abs(bound))
    # a child that is a function of its parents: every configuration pure, bound == score
    pure = encode(pd.DataFrame({"A": [0, 1, 2, 0, 1, 2, 0, 0], "B": [1, 0, 0, 1, 0, 0, 1, 1]}))
    table = _counts(pure.codes, pure.cards, 1, [0])
    assert _refinement_bound(table, alpha) == pytest.approx(dirichlet_family_score(table, alpha), rel=1e-12)


def _wide_codes(seed, n, m, cards=(3,), missing=0.0):
    """A class plus m features with chained dependence, cardinalities drawn from ``cards`` (many features, so
    that the bound prunes; several words of rows when n > 64)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    card = rng.choice(np.asarray(cards), m)
    cols = []
    for j in range(m):
        base = (y + rng.integers(0, 2, n)) if j == 0 else cols[rng.integers(0, j)]
        col = np.where(rng.random(n) < 0.6, base % card[j], rng.integers(0, card[j], n))
        cols.append(col)
    codes = np.column_stack(cols)
    if missing:
        codes = np.where(rng.random(codes.shape) < missing, -1, codes)
    df = pd.DataFrame({f"X{j}": pd.Categorical.from_codes(codes[:, j], list(range(card[j]))) for j in range(m)})
    df["C"] = y
    return df


@pytest.mark.parametrize(("seed", "n", "cards", "missing"), [
    (0, 40, (3,), 0.0),          # one word of rows, 3-state children (unrolled path)
    (1, 65, (3,), 0.0),          # 65 rows: groups spanning two words (the leukemia fold's shape)
    (2, 150, (3,), 0.0),         # three words: generic span loop
    (3, 70, (2, 3, 4, 5), 0.0),  # mixed cardinalities: generic child path
    (4, 65, (3,), 0.05),         # missing values: those candidates are never pruned, no early stop
    (5, 130, (2, 4), 0.02),
])
@pytest.mark.parametrize("kind", ["bayes", "k2"])
def test_pruned_search_is_identical_to_scoring_every_candidate(seed, n, cards, missing, kind):
    df = _wide_codes(seed, n, 60, cards, missing)
    data = encode(df, missing="skip")
    m = df.shape[1] - 1
    order = list(np.random.default_rng(seed).permutation(m)) if seed % 2 else list(range(m))
    st_full, st_pruned = {}, {}
    full = k2_parent_search(data, list(range(m)), order, fixed=[m], max_parents=4, scoring_method=kind,
                            prune=False, stats=st_full)
    pruned = k2_parent_search(data, list(range(m)), order, fixed=[m], max_parents=4, scoring_method=kind,
                              stats=st_pruned)
    assert pruned[0] == full[0]
    np.testing.assert_array_equal(pruned[1], full[1])  # bit-identical: the scored candidates sum the same way
    assert st_full["pruned"] == 0
    assert st_full["scored"] == st_full["candidates"]
    assert st_pruned["pruned"] + st_pruned["scored"] == st_pruned["candidates"] <= st_full["candidates"]
    assert st_pruned["pruned"] > 0  # the bound did its job (these data have many poor candidates)


def test_pruned_search_equals_the_numpy_greedy_reference():
    df = _wide_codes(7, 65, 25, (3,))
    data = encode(df)
    m = df.shape[1] - 1
    st = {}
    parents, scores = k2_parent_search(data, list(range(m)), list(range(m)), fixed=[m], max_parents=3, stats=st)
    assert st["pruned"] > 0
    ref = _greedy_reference(data.codes, data.cards, list(range(m)), [m], 3, "bayes", len(df))
    for i in range(m):
        assert parents[i] == ref[i][0], i
        assert scores[i] == pytest.approx(ref[i][1], rel=1e-10)


def test_search_stops_when_every_configuration_is_pure():
    """A feature that is a function of the class: its class-only family is already pure, so no candidate is
    considered (the stop rule), and the result equals scoring them all (no parent added)."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 50)
    df = pd.DataFrame({"A": rng.integers(0, 3, 50), "B": rng.integers(0, 3, 50), "F": 2 * y, "C": y})
    data = encode(df)
    st = {}
    parents, scores = k2_parent_search(data, [0, 1, 2], [0, 1, 2], fixed=[3], max_parents=2, stats=st)
    full = k2_parent_search(data, [0, 1, 2], [0, 1, 2], fixed=[3], max_parents=2, prune=False)
    assert parents == full[0]
    assert parents[2] == []
    np.testing.assert_array_equal(scores, full[1])
    # A is considered by B (1 candidate) and so on, but F (position 2) considers none
    st_nof = {}
    k2_parent_search(data, [0, 1], [0, 1], fixed=[3], max_parents=2, stats=st_nof)
    assert st["candidates"] == st_nof["candidates"]


@pytest.mark.parametrize("kind", ["bayes", "bdeu", "bic"])
def test_threads_over_variables_give_identical_results(kind):
    """Same parents and bit-identical scores for any n_jobs, also with a progress callback (blocks)."""
    df = _wide_codes(11, 65, 80, (2, 3), 0.02)
    data = encode(df, missing="skip")
    m = df.shape[1] - 1
    order = list(np.random.default_rng(3).permutation(m))
    runs = [k2_parent_search(data, list(range(m)), order, fixed=[m], max_parents=3, scoring_method=kind, n_jobs=j)
            for j in (1, 2, 3, -1)]
    done = []
    runs.append(k2_parent_search(data, list(range(m)), order, fixed=[m], max_parents=3, scoring_method=kind,
                                 n_jobs=2, progress=done.append))
    assert sum(done) == m
    for parents, scores in runs[1:]:
        assert parents == runs[0][0]
        np.testing.assert_array_equal(scores, runs[0][1])


def test_k2_classifier_same_network_for_any_n_jobs():
    df = _wide_codes(12, 65, 40, (3,))
    X, y = df.drop(columns="C"), df["C"]
    one = K2Classifier(max_parents=5, n_jobs=1).fit(X, y)
    two = K2Classifier(max_parents=5, n_jobs=2).fit(X, y)
    assert sorted(one.model_.edges()) == sorted(two.model_.edges())
    np.testing.assert_array_equal(one.predict_proba(X), two.predict_proba(X))

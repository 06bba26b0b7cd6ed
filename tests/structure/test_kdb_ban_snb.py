"""kDB, BAN (K2) and selective naive Bayes engines: hand-made answers, independent references, properties."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from pgmpy.structure_score import K2

from pgmpy_ext._compat import pgmpy_config
from pgmpy_ext.data import encode
from pgmpy_ext.models import BatchPosterior, build_network
from pgmpy_ext.stats import LOO_LOG_FLOOR, LOO_TIE_RTOL, LeaveOneOutNB
from pgmpy_ext.structure import (
    BANSearch,
    KDBSearch,
    SelectiveNBSearch,
    class_mutual_information,
    fit_ban,
    fit_kdb,
    fit_nb,
    fit_selective_nb,
)
from tests.reference_scores import k2_ref


def _random_frame(seed: int, n: int, cards, k_classes: int = 2) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    cols = {"C": rng.integers(0, k_classes, n)}
    for j, r in enumerate(cards):
        cols[f"X{j}"] = rng.integers(0, r, n)
    return pd.DataFrame(cols)


def _mi_ref(a: np.ndarray, b: np.ndarray) -> float:
    """Plug-in I(A; B) in nats from two code vectors (plain numpy)."""
    n = a.shape[0]
    total = 0.0
    for x in np.unique(a):
        for y in np.unique(b):
            nxy = np.sum((a == x) & (b == y))
            if nxy:
                total += nxy / n * math.log(nxy * n / (np.sum(a == x) * np.sum(b == y)))
    return total


def _cmi_ref(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> float:
    n = a.shape[0]
    return sum(np.sum(c == k) / n * _mi_ref(a[c == k], b[c == k]) for k in np.unique(c))


# ----------------------------------------------------------------------------------------------------------- kDB
def _hand_kdb_frame() -> pd.DataFrame:
    """A = C; B = C with row 0 flipped; D = B (I(B; C) = I(D; C): the tie goes to B, the lower index)."""
    c = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    b = c.copy()
    b[0] = 1
    return pd.DataFrame({"C": c, "A": c, "B": b, "D": b})


def test_kdb_hand_computed_structure():
    df = _hand_kdb_frame()
    res = fit_kdb(encode(df), "C", k=1)
    # I(A; C) = log 2 > I(B; C) = I(D; C): order A, B, D (tie B/D -> B, the lower index)
    assert res.trace["order"] == ["A", "B", "D"]
    assert_allclose(res.trace["mi"][0], math.log(2), rtol=1e-12)
    assert res.trace["mi"][1] == res.trace["mi"][2]
    # B: only A is placed; D: I(D; A | C) = 0 (A is constant given C), I(D; B | C) = H(B | C) > 0 -> B
    assert res.parents == {"A": ["C"], "B": ["C", "A"], "D": ["C", "B"]}
    res2 = fit_kdb(encode(df), "C", k=2)
    assert res2.parents == {"A": ["C"], "B": ["C", "A"], "D": ["C", "B", "A"]}


def test_kdb_k0_is_naive_bayes():
    data = encode(_random_frame(3, 60, [2, 3, 2, 4]))
    assert fit_kdb(data, "C", k=0).parents == fit_nb(data, "C").parents


def _kdb_reference(df: pd.DataFrame, k: int) -> dict:
    """Fig. 4.9 of the thesis, literally (with the typos fixed), on plain-numpy MI and CMI."""
    feats = [c for c in df.columns if c != "C"]
    cols = {f: df[f].to_numpy() for f in feats}
    c = df["C"].to_numpy()
    mi = {f: _mi_ref(cols[f], c) for f in feats}
    placed, parents = [], {}
    remaining = list(feats)

    def first_best(values: dict, names: list):
        best = max(values[f] for f in names)
        return next(f for f in names if values[f] >= best - 1e-12 * max(1.0, abs(best)))

    while remaining:
        xmax = first_best(mi, remaining)
        cm = {f: _cmi_ref(cols[xmax], cols[f], c) for f in placed}
        pool = sorted(placed, key=feats.index)
        chosen = []
        while pool and len(chosen) < k:
            chosen.append(first_best(cm, pool))
            pool.remove(chosen[-1])
        parents[xmax] = ["C", *chosen]
        placed.append(xmax)
        remaining.remove(xmax)
    return parents


@given(st.integers(0, 2**32 - 1), st.integers(0, 3), st.lists(st.integers(1, 3), min_size=1, max_size=5))
def test_kdb_matches_literal_reference(seed, k, cards):
    rng = np.random.default_rng(seed)
    n = 80
    c = rng.integers(0, 2, n)
    cols = {"C": c}
    for j, r in enumerate(cards):  # features that depend on the class and on the previous feature, to vary MI/CMI
        prev = cols[f"X{j - 1}"] if j else c
        cols[f"X{j}"] = np.where(rng.random(n) < 0.6, (prev + rng.integers(0, 2)) % r, rng.integers(0, r, n))
    df = pd.DataFrame(cols)
    res = fit_kdb(encode(df), "C", k=k)
    ref = _kdb_reference(df, k)
    assert res.parents == ref
    for f, pa in res.parents.items():
        assert pa[0] == "C"
        assert len(pa) <= k + 1
    assert_allclose(res.trace["mi"], [_mi_ref(df[f].to_numpy(), c) for f in res.features], atol=1e-12)


def test_class_mutual_information_matches_reference():
    df = _random_frame(5, 200, [2, 3, 4], k_classes=3)
    got = class_mutual_information(encode(df), ["X0", "X1", "X2"], "C")
    assert_allclose(got, [_mi_ref(df[f].to_numpy(), df["C"].to_numpy()) for f in ["X0", "X1", "X2"]], rtol=1e-10)


def test_kdb_search_face_and_errors():
    df = _hand_kdb_frame()
    search = KDBSearch(df)
    dag = search.estimate(class_node="C", k=1)
    assert sorted(dag.edges()) == [("A", "B"), ("B", "D"), ("C", "A"), ("C", "B"), ("C", "D")]
    with pytest.raises(ValueError, match=r"k == -1, must be >= 0"):
        search.estimate(class_node="C", k=-1)
    with pytest.raises(TypeError, match=r"k must be an instance of"):
        search.estimate(class_node="C", k=1.5)
    with pytest.raises(ValueError, match="class_node is required"):
        search.estimate()


# ----------------------------------------------------------------------------------------------------------- BAN
def _k2_search_with_pgmpy(df: pd.DataFrame, order: list, max_parents: int) -> dict:
    """K2 (Fig. in section 2.4) written out with pgmpy's own K2 local score (binary data: textbook K2)."""
    score = K2(df)
    parents = {}
    for pos, x in enumerate(order):
        pa: list = []
        best = score.local_score(x, tuple(pa))
        preds = [f for f in df.columns if f in order[:pos]]  # data order = lowest index first
        while len(pa) < max_parents:
            cands = [(score.local_score(x, tuple(sorted([*pa, z]))), z) for z in preds if z not in pa]
            if not cands:
                break
            s_best = max(s for s, _ in cands)
            z_best = next(z for s, z in cands if s >= s_best - 1e-12 * max(1.0, abs(s_best)))
            if not s_best > best + 1e-12 * max(1.0, abs(best)):
                break
            pa.append(z_best)
            best = s_best
        parents[x] = pa
    return parents


def _binary_chain_frame(seed: int, n: int = 150) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, n)
    b = a ^ (rng.random(n) < 0.15)
    d = (a & b) ^ (rng.random(n) < 0.1)
    e = rng.integers(0, 2, n)
    f = (d | e) ^ (rng.random(n) < 0.2)
    return pd.DataFrame({"C": rng.integers(0, 2, n), "A": a, "B": b, "D": d, "E": e, "F": f})


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("max_parents", [1, 2, 4])
def test_ban_equals_k2_search_with_pgmpy_scores(seed, max_parents):
    df = _binary_chain_frame(seed)
    feats = ["A", "B", "D", "E", "F"]
    order = [feats[i] for i in np.random.default_rng(seed).permutation(5)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        ref = _k2_search_with_pgmpy(df[feats], order, max_parents)
        pg = K2(df)
        res = fit_ban(encode(df), "C", order=order, max_parents=max_parents)
        for f in feats:
            feat_pa = [p for p in res.parents[f] if p != "C"]
            assert set(feat_pa) == set(ref[f]), f
            assert res.parents[f][0] == "C"
            # our local K2 equals pgmpy's on the chosen family (binary data: pgmpy's K2 is the textbook one)
            assert res.trace["local_scores"][f] == pytest.approx(pg.local_score(f, tuple(sorted(feat_pa))),
                                                                 rel=1e-9)
    assert res.trace["order"] == order


def test_ban_local_score_is_textbook_k2_with_unseen_configurations():
    rng = np.random.default_rng(4)
    n = 40  # 3- and 4-state variables on 40 rows: many parent configurations never occur
    a = rng.integers(0, 4, n)
    b = (a + rng.integers(0, 2, n)) % 3
    df = pd.DataFrame({"C": rng.integers(0, 2, n), "A": a, "B": b})
    data = encode(df)
    res = fit_ban(data, "C", order=["A", "B"])
    assert res.parents["B"] == ["C", "A"]
    counts = np.zeros((3, 4))
    np.add.at(counts, (b, a), 1.0)
    assert res.trace["local_scores"]["B"] == pytest.approx(k2_ref(counts), rel=1e-12)
    assert res.trace["total_score"] == pytest.approx(k2_ref(np.bincount(a, minlength=4)[:, None]) + k2_ref(counts),
                                                     rel=1e-12)


@given(st.integers(0, 2**32 - 1), st.integers(0, 3), st.integers(2, 6))
def test_ban_respects_order_and_max_parents(seed, max_parents, m):
    rng = np.random.default_rng(seed)
    n = 60
    base = rng.integers(0, 2, n)
    df = pd.DataFrame({"C": rng.integers(0, 3, n),
                       **{f"X{j}": np.where(rng.random(n) < 0.7, base, rng.integers(0, 2, n)) for j in range(m)}})
    res = fit_ban(encode(df), "C", max_parents=max_parents, random_state=seed)
    order = res.trace["order"]
    assert sorted(order) == sorted(res.features)
    for f in res.features:
        assert res.parents[f][0] == "C"
        feat_pa = res.parents[f][1:]
        assert len(feat_pa) <= max_parents
        assert all(order.index(p) < order.index(f) for p in feat_pa)
    assert res.to_dag().in_degree("C") == 0


def test_ban_ignores_the_class_and_max_parents_zero_is_nb():
    df = _binary_chain_frame(7)
    order = ["A", "B", "D", "E", "F"]
    res = fit_ban(encode(df), "C", order=order)
    shuffled = df.assign(C=np.random.default_rng(0).permutation(df["C"].to_numpy()))
    assert fit_ban(encode(shuffled), "C", order=order).parents == res.parents
    assert res.augmenting_edges()  # the chain data do have feature dependencies
    assert fit_ban(encode(df), "C", order=order, max_parents=0).parents == fit_nb(encode(df), "C").parents


def test_ban_random_order_is_seeded():
    data = encode(_binary_chain_frame(8))
    a = fit_ban(data, "C", random_state=11)
    b = fit_ban(data, "C", random_state=11)
    assert a.parents == b.parents
    assert a.trace["order"] == b.trace["order"]
    orders = {tuple(fit_ban(data, "C", random_state=s).trace["order"]) for s in range(6)}
    assert len(orders) > 1
    expected = [a.features[i] for i in np.random.default_rng(11).permutation(len(a.features))]
    assert a.trace["order"] == expected


def test_ban_scoring_methods_and_errors():
    df = _binary_chain_frame(9)
    search = BANSearch(df)
    order = ["A", "B", "D", "E", "F"]
    for kind in ("bdeu", "bic", "aic"):
        dag = search.estimate(class_node="C", order=order, scoring_method=kind)
        assert all(("C", f) in dag.edges() for f in order)
    assert search.result_.trace["scoring_method"] == "aic"
    with pytest.raises(ValueError, match=r"order must list every feature exactly once"):
        search.estimate(class_node="C", order=["A", "B"])
    with pytest.raises(ValueError, match=r"order names \['Z'\], which are not features"):
        search.estimate(class_node="C", order=["A", "B", "D", "E", "Z"])
    with pytest.raises(ValueError, match=r"scoring_method == 'bogus', must be one of"):
        search.estimate(class_node="C", scoring_method="bogus")
    with pytest.raises(ValueError, match=r"max_parents == -1, must be >= 0"):
        search.estimate(class_node="C", max_parents=-1)


def test_ban_progress_bar(capsys, monkeypatch):
    df = _binary_chain_frame(10)
    monkeypatch.setattr(pgmpy_config, "SHOW_PROGRESS", True)
    BANSearch(df).estimate(class_node="C", random_state=0, show_progress=True)
    assert "K2 search" in capsys.readouterr().err
    monkeypatch.setattr(pgmpy_config, "SHOW_PROGRESS", False)
    BANSearch(df).estimate(class_node="C", random_state=0, show_progress=True)
    assert capsys.readouterr().err == ""


# -------------------------------------------------------------------------------------------------- selective NB
def _argmax_tie(scores: np.ndarray) -> int:
    m = scores.max()
    return int(np.flatnonzero(scores >= m - LOO_TIE_RTOL * (1 + abs(m)))[0])


def _loo_refit_numpy(df: pd.DataFrame, subset: list, alpha: float, weights=None) -> np.ndarray:
    """Explicit LOO: for every row, naive Bayes counted (plain numpy) on all the other rows, then row d scored."""
    data = encode(df)
    codes = data.codes
    y = codes[:, data.index("C")]
    K = data.card("C")
    w = np.ones(len(df)) if weights is None else np.asarray(weights, dtype=float)
    correct = np.zeros(len(df), dtype=bool)

    def factor(num, den, r):
        if den + r * alpha == 0:
            return -math.log(r)
        p = (num + alpha) / (den + r * alpha)
        return max(math.log(p), LOO_LOG_FLOOR) if p > 0 else LOO_LOG_FLOOR

    for d in range(len(df)):
        keep = np.arange(len(df)) != d
        nc = np.bincount(y[keep], weights=w[keep], minlength=K)
        s = np.array([factor(nc[c], nc.sum(), K) for c in range(K)])
        for f in subset:
            j = data.index(f)
            r = data.card(f)
            t = np.zeros((r, K))
            np.add.at(t, (codes[keep, j], y[keep]), w[keep])
            s += [factor(t[codes[d, j], c], nc[c], r) for c in range(K)]
        correct[d] = _argmax_tie(s) == y[d]
    return correct


def _loo_refit_networks(df: pd.DataFrame, subset: list, alpha: float, weights=None) -> np.ndarray:
    """Explicit LOO through the classifiers' own path: build_network on the other rows (states kept), floored
    log-CPT, the batch log-joint of row d."""
    data = encode(df, weights=weights)
    y = data.codes[:, data.index("C")]
    parents = {"C": [], **{f: ["C"] for f in subset}}
    correct = np.zeros(len(df), dtype=bool)
    for d in range(len(df)):
        model = build_network(parents, data.take(np.arange(len(df)) != d), alpha=alpha)
        post = BatchPosterior(model, "C")
        np.maximum(post.compiled.log_cpt, LOO_LOG_FLOOR, out=post.compiled.log_cpt)
        lj = post.log_joint(data.take([d]))[0]
        order = [post.classes.index(s) for s in data.states[data.index("C")]]
        correct[d] = _argmax_tie(lj[order]) == y[d]
    return correct


@st.composite
def _loo_cases(draw):
    n = draw(st.integers(1, 18))
    k_classes = draw(st.integers(2, 3))
    cards = draw(st.lists(st.integers(1, 3), min_size=1, max_size=4))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"C": rng.integers(0, k_classes, n), **{f"X{j}": rng.integers(0, r, n)
                                                               for j, r in enumerate(cards)}})
    weights = draw(st.sampled_from([None, "int", "float"]))
    if weights == "int":
        weights = rng.integers(1, 4, n).astype(float)
    elif weights == "float":
        weights = rng.random(n) + 0.1
    alpha = draw(st.sampled_from([0.0, 0.5, 1.0]))
    subset = draw(st.permutations([f"X{j}" for j in range(len(cards))]))[:draw(st.integers(0, len(cards)))]
    return df, weights, alpha, list(subset)


@given(_loo_cases())
def test_closed_form_loo_equals_explicit_refit(case):
    df, weights, alpha, subset = case
    data = encode(df, weights=weights)
    feats = [c for c in df.columns if c != "C"]
    loo = LeaveOneOutNB(data, "C", feats, alpha=alpha)
    for f in subset:
        loo.add(feats.index(f))
    expected = _loo_refit_numpy(df, subset, alpha, weights)
    assert_array_equal(loo.correct(), expected)
    assert_array_equal(expected, _loo_refit_networks(df, subset, alpha, weights))
    w = np.ones(len(df)) if weights is None else weights
    assert loo.accuracy() == pytest.approx(w[expected].sum() / w.sum(), rel=1e-12)
    # every remaining candidate, scored in one kernel call, equals its own explicit refit
    rest = [t for t in range(len(feats)) if feats[t] not in subset]
    got = loo.candidate_scores(rest)
    for t, g in zip(rest, got):
        ref = _loo_refit_numpy(df, [*subset, feats[t]], alpha, weights)
        assert g == pytest.approx(w[ref].sum(), rel=1e-12)


def test_loo_duplicates_are_left_out_one_at_a_time():
    """Two identical rows: each is scored with the other still in the data (not both removed)."""
    df = pd.DataFrame({"C": [0, 0, 0, 1, 1, 1], "A": [0, 0, 0, 1, 1, 0]})
    loo = LeaveOneOutNB(encode(df), "C", ["A"], alpha=0.0)
    loo.add(0)
    # rows 0-2 (three copies, class 0): the two other copies keep N(A=0, C=0) = 2 > N(A=0, C=1) = 1 -> correct
    assert loo.correct().tolist() == _loo_refit_numpy(df, ["A"], 0.0).tolist() == [True] * 5 + [False]
    # a weight-3 row is not three copies: it is left out with its whole weight, and then class 0 has no data
    weighted = LeaveOneOutNB(encode(df.iloc[2:], weights=[3.0, 1, 1, 1]), "C", ["A"], alpha=0.0)
    weighted.add(0)
    assert weighted.correct().tolist() == [False, True, True, False]


def test_loo_threads_bit_identical():
    df = _random_frame(12, 400, [3, 2, 4, 5, 2, 3], k_classes=3)
    data = encode(df)
    feats = [c for c in df.columns if c != "C"]
    one = LeaveOneOutNB(data, "C", feats, alpha=0.5, n_jobs=1)
    two = LeaveOneOutNB(data, "C", feats, alpha=0.5, n_jobs=2)
    assert_array_equal(one.candidate_scores(), two.candidate_scores())


def test_loo_errors():
    df = _random_frame(0, 10, [2])
    with pytest.raises(ValueError, match=r"alpha == -1.0, must be >= 0"):
        LeaveOneOutNB(encode(df), "C", ["X0"], alpha=-1)
    with pytest.raises(ValueError, match=r"log_floor == -inf, must be a finite number"):
        LeaveOneOutNB(encode(df), "C", ["X0"], log_floor=-np.inf)
    loo = LeaveOneOutNB(encode(df), "C", ["X0"])
    loo.add(0)
    with pytest.raises(ValueError, match=r"feature 'X0' is already selected"):
        loo.add(0)
    with pytest.raises(ValueError, match=r"candidate indices must be in 0..0"):
        loo.candidate_scores([3])
    missing = df.astype(object)
    missing.iloc[0, 1] = None
    with pytest.raises(ValueError, match="needs complete data"):
        LeaveOneOutNB(encode(missing, missing="skip"), "C", ["X0"])


def _planted_frame(seed: int = 0, n: int = 600) -> pd.DataFrame:
    """Four classes; A tells C // 2 and B tells C % 2 (5% noise each); N0-N2 are pure noise, placed first."""
    rng = np.random.default_rng(seed)
    c = rng.integers(0, 4, n)
    a = np.where(rng.random(n) < 0.95, c // 2, 1 - c // 2)
    b = np.where(rng.random(n) < 0.95, c % 2, 1 - c % 2)
    return pd.DataFrame({"C": c, "N0": rng.integers(0, 3, n), "A": a, "N1": rng.integers(0, 2, n), "B": b,
                         "N2": rng.integers(0, 4, n)})


def test_selective_nb_picks_the_planted_features():
    df = _planted_frame()
    res = fit_selective_nb(encode(df), "C")
    assert set(res.trace["order"][:2]) == {"A", "B"}
    assert res.selected == [f for f in res.features if f in res.trace["order"]]
    acc = res.trace["loo_accuracy"]
    assert len(acc) == len(res.trace["order"]) + 1
    assert all(b > a for a, b in zip(acc, acc[1:]))  # strict improvement at every step
    assert acc[2] > 0.85
    # the trace is the explicit LOO accuracy of each prefix
    for t in range(len(acc)):
        assert acc[t] == pytest.approx(_loo_refit_numpy(df, res.trace["order"][:t], 0.0).mean(), rel=1e-12)
    # the last step's candidates did not improve: their accuracies are <= the final one, NaN for the selected
    last = res.trace["candidate_accuracy"][-1]
    assert np.isnan(last[[res.features.index(f) for f in res.selected]]).all()
    if len(res.selected) < len(res.features):
        assert np.nanmax(last) <= acc[-1]
    dag = SelectiveNBSearch(df).estimate(class_node="C")
    assert set(dag.nodes()) == set(df.columns)  # unselected features stay, isolated
    assert sorted(dag.edges()) == sorted(("C", f) for f in res.selected)


def test_selective_nb_ties_go_to_the_lowest_index_and_empty_selection():
    c = np.array([0, 0, 0, 1, 1, 1, 1, 1])
    df = pd.DataFrame({"C": c, "K": np.zeros(8, dtype=int), "A1": c, "A2": c})
    res = fit_selective_nb(encode(df), "C")
    assert res.selected == ["A1"]  # A1 and A2 tie at LOO accuracy 1; nothing can improve afterwards
    # empty set: a held-out class-1 row leaves 4 > 3 (correct), a class-0 row leaves 2 < 5 (wrong)
    assert res.trace["loo_accuracy"] == [pytest.approx(5 / 8), 1.0]
    assert res.parents == {"K": [], "A1": ["C"], "A2": []}
    const = fit_selective_nb(encode(df[["C", "K"]]), "C")  # a constant feature never changes a prediction
    assert const.selected == []
    assert const.parents == {"K": []}
    assert const.trace["loo_accuracy"] == [pytest.approx(5 / 8)]
    assert const.to_dag().number_of_edges() == 0


def test_exact_ties_go_to_the_lowest_index_whatever_the_rounding():
    """Relabelled copies have equal MI/CMI/K2 in exact arithmetic but their sums run in another order."""
    rng = np.random.default_rng(13)
    n = 300
    c = rng.integers(0, 3, n)
    a = np.where(rng.random(n) < 0.7, c, rng.integers(0, 3, n))
    df = pd.DataFrame({"C": c, "R": (a + 1) % 3, "A": a, "B": np.where(rng.random(n) < 0.8, a, rng.integers(0, 3, n))})
    res = fit_kdb(encode(df), "C", k=1)
    assert res.trace["order"][:2] == ["R", "A"]  # I(R; C) == I(A; C): R has the lower index
    assert res.parents["B"] == ["C", "R"]        # I(B; R | C) == I(B; A | C)
    ban = fit_ban(encode(df), "C", order=["A", "R", "B"], max_parents=1)
    assert ban.parents["B"] == ["C", "R"]        # K2(B | R) == K2(B | A): R is the lower feature index

"""FAN, SBN and ABN structure engines and their pgmpy faces: hand-computed monitors, Corral, the likelihood
identity of seed 000 section 1.6, brute force over every labelled forest against pgmpy's BIC (seed 002 A.10)."""

from __future__ import annotations

import itertools
import math
from functools import cache

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from pgmpy.structure_score import BIC

from pgmpy_ext.data import encode
from pgmpy_ext.datasets import make_corral
from pgmpy_ext.scores import LogLikelihoodScore
from pgmpy_ext.structure import fit_nb, fit_tan
from pgmpy_ext.structure._forest import (
    ABNSearch,
    FANSearch,
    SBNSearch,
    abn_forest,
    fit_abn,
    fit_fan,
    fit_sbn,
    mdl_gains,
    sbn_monitor,
)

LN2 = math.log(2.0)


# ---------------------------------------------------------------------------------------------------- data
def forest_data(n, cards, n_classes, n_rows, seed, *, concentration=0.6, edge_prob=0.8) -> pd.DataFrame:
    """Rows sampled from a random forest-augmented naive Bayes with Dirichlet CPTs: features X0.., class C."""
    rng = np.random.default_rng(seed)
    c = rng.choice(n_classes, size=n_rows, p=rng.dirichlet(np.full(n_classes, 2.0)))
    cols, placed = {}, []
    for i in rng.permutation(n):
        parent = placed[rng.integers(len(placed))] if placed and rng.random() < edge_prob else None
        xp = np.zeros(n_rows, dtype=int) if parent is None else cols[parent]
        rp = 1 if parent is None else cards[parent]
        cpt = rng.dirichlet(np.full(cards[i], concentration), size=(n_classes, rp))
        cum = np.cumsum(cpt[c, xp], axis=1)
        cols[i] = np.minimum((rng.random(n_rows)[:, None] > cum).sum(axis=1), cards[i] - 1)
        placed.append(i)
    df = pd.DataFrame({f"X{i}": cols[i] for i in range(n)})
    df["C"] = c
    return df


def declared_states(df: pd.DataFrame, cards, n_classes) -> dict:
    out = {f"X{i}": list(range(int(r))) for i, r in enumerate(cards)}
    out["C"] = list(range(n_classes))
    return out


@st.composite
def class_data(draw, max_features=6):
    """(DataFrame with class column "C", features) with 2..max_features features of 2..4 states."""
    n = draw(st.integers(2, max_features))
    cards = draw(st.lists(st.integers(2, 4), min_size=n, max_size=n))
    n_rows = draw(st.integers(20, 300))
    seed = draw(st.integers(0, 2**32 - 1))
    df = forest_data(n, cards, draw(st.integers(2, 3)), n_rows, seed)
    assume(df["C"].nunique() > 1)   # a classifier needs two classes
    return df


def _aug(structure) -> set:
    return {frozenset(e) for e in structure.augmenting_edges()}


# ---------------------------------------------------------------------------------------------------- SBN by hand
@pytest.fixture
def two_copies() -> pd.DataFrame:
    """B copies A and E copies D; A and D are independent within each class. So I_2(A;B|C) = I_2(D;E|C) = 1 bit
    and every other pair has CMI 0 (N = 8)."""
    a = np.array([0, 0, 1, 1, 0, 0, 1, 1])
    d = np.array([0, 1, 0, 1, 0, 1, 0, 1])
    c = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    return pd.DataFrame({"A": a, "B": a, "D": d, "E": d, "C": c})


def test_sbn_monitor_hand_computed(two_copies):
    """n = 4 features: 2m = 2 log2(5) = 4.644 bits; k = 4.644 - 8 * 1 for the two copy edges, then +4.644."""
    res = fit_sbn(encode(two_copies), "C")
    two_m = 2 * math.log2(5)
    mon = pd.DataFrame(res.trace["monitor"])
    assert mon["edge"].tolist() == [("A", "B"), ("D", "E"), ("A", "D")]   # ties (-0, i, j): (A, D) is first
    assert_allclose(mon["cmi_bits"], [1.0, 1.0, 0.0], atol=1e-12)
    assert_allclose(mon["k_bits"], [two_m - 8, two_m - 8, two_m], rtol=1e-12)
    assert_allclose(mon["K_bits"], [two_m - 8, 2 * two_m - 16, 3 * two_m - 16], rtol=1e-12)
    assert mon["accepted"].tolist() == [True, True, False]
    assert res.trace["code_length_bits"] == pytest.approx(math.log2(5))
    assert res.trace["n_rows"] == 8
    assert _aug(res) == {frozenset("AB"), frozenset("DE")}
    # The literal rule keeps adding while K_e < 0: K_3 = 3 * 4.644 - 16 = -2.07, so it adds (A, D) too (TAN).
    cum = fit_sbn(encode(two_copies), "C", stopping="cumulative")
    assert _aug(cum) == {frozenset("AB"), frozenset("DE"), frozenset("AD")}
    # D1: ceil(log2 5) = 3 bits per symbol, so each copy edge costs 6 bits: k = -2, still accepted.
    icl = fit_sbn(encode(two_copies), "C", integer_code_length=True)
    assert icl.trace["code_length_bits"] == 3.0
    assert_allclose([r["k_bits"] for r in icl.trace["monitor"]], [-2.0, -2.0, 6.0], rtol=1e-12)
    assert _aug(icl) == _aug(res)


def test_sbn_strict_boundary(two_copies):
    """D4: a test value of exactly 0 does not add the edge, under both rules (exact binary fractions)."""
    assert sbn_monitor([0.5], n_rows=8, penalty_bits=4.0)[0] == 0                         # k_1 = 0
    assert sbn_monitor([0.5], n_rows=8, penalty_bits=4.0, stopping="cumulative")[0] == 0  # K_1 = 0
    assert sbn_monitor([1.0, 0.0], n_rows=8, penalty_bits=4.0, stopping="cumulative")[0] == 1   # K = -4, 0
    assert sbn_monitor([1.0, 0.0], n_rows=8, penalty_bits=3.5, stopping="cumulative")[0] == 2   # K = -4.5, -1
    # on data: I_2(A;B|C) = 1 bit, N = 8 -> a penalty of 8 bits makes k_1 = 0 (up to rounding of the CMI)
    assert _aug(fit_sbn(encode(two_copies), "C", penalty_bits=8.0)) == set()
    assert _aug(fit_sbn(encode(two_copies), "C", penalty_bits=7.99)) == {frozenset("AB"), frozenset("DE")}


def test_sbn_monitor_function():
    n, k, K = sbn_monitor([2.0, 1.0, 0.5, 0.25], n_rows=4, penalty_bits=3.0)
    assert n == 2
    assert k.tolist() == [-5.0, -1.0, 1.0, 2.0]
    assert K.tolist() == [-5.0, -6.0, -5.0, -3.0]
    assert sbn_monitor([2.0, 1.0, 0.5, 0.25], 4, 3.0, "cumulative")[0] == 4
    assert sbn_monitor([2.0, 1.0, 0.5, 0.25], 4, 3.0, "cumulative", max_edges=1)[0] == 1
    assert sbn_monitor([], 4, 3.0)[0] == 0
    assert sbn_monitor([2.0], 4, math.inf)[0] == 0


# ---------------------------------------------------------------------------------------------------- SBN on Corral
@pytest.mark.parametrize(("stopping", "integer_code_length", "n_edges"),
                         [("marginal", False, 3), ("cumulative", False, 5), ("marginal", True, 3),
                          ("cumulative", True, 5)],
                         ids=["marginal", "cumulative", "marginal-int", "cumulative-int"])
def test_sbn_corral_edge_counts(stopping, integer_code_length, n_edges):
    """Seed 000 section 9.1 / Table 3.2: all 128 rows with true labels give 3 edges (marginal) and 5 (cumulative)."""
    df = make_corral(return_X_y=False)
    est = SBNSearch(df)
    dag = est.estimate(class_node="class", stopping=stopping, integer_code_length=integer_code_length)
    aug = [e for e in dag.edges() if e[0] != "class"]
    assert len(aug) == n_edges
    assert {frozenset(e) for e in est.result_.trace["edges"][:3]} == {
        frozenset(("A0", "A1")), frozenset(("B0", "B1")), frozenset(("A0", "B0"))}
    if stopping == "marginal":  # attributes 5 and 6 have no attribute parent and no attribute child
        assert all("Irrelevant" not in e and "Correlated" not in e for e in aug)
    assert est.monitor_frame()["accepted"].sum() == n_edges


def test_corral_generator_definition():
    X, y = make_corral()
    assert X.shape == (128, 6)
    assert y.name == "class"
    expected = (X["A0"] & X["A1"]) | (X["B0"] & X["B1"])
    assert (y == expected).all()
    assert int(y.sum()) == 56
    assert int((X["Correlated"] == y).sum()) == 96
    # every (A0, A1, B0, B1, Irrelevant) combination exactly 4 times, Correlated flipped in exactly one copy
    groups = X.assign(agree=(X["Correlated"] == y)).groupby(list(X.columns[:5]))["agree"].agg(["size", "sum"])
    assert len(groups) == 32
    assert (groups["size"] == 4).all()
    assert (groups["sum"] == 3).all()
    Xs, ys = make_corral(shuffle=True, random_state=3)
    assert not (Xs.to_numpy() == X.to_numpy()).all()
    pd.testing.assert_frame_equal(
        Xs.assign(y=ys).sort_values(list(X.columns) + ["y"]).reset_index(drop=True),
        X.assign(y=y).sort_values(list(X.columns) + ["y"]).reset_index(drop=True))
    Xs2, _ = make_corral(shuffle=True, random_state=3)
    pd.testing.assert_frame_equal(Xs, Xs2)
    frame = make_corral(return_X_y=False)
    assert list(frame.columns) == [*X.columns, "class"]


# ---------------------------------------------------------------------------------------------------- SBN properties
@given(class_data(), st.sampled_from([0.5, 1.0, 5.0, 20.0, math.inf]), st.sampled_from(["marginal", "cumulative"]))
def test_sbn_is_monitored_prefix_of_tan(df, penalty, stopping):
    """The SBN forest is the prefix of TAN's Kruskal sequence that the literal pseudo-code of section 2.4 accepts,
    with k_e computed from log-likelihood differences (eq. 3.6) instead of the CMI identity."""
    enc = encode(df)
    tan = fit_tan(enc, "C")
    res = fit_sbn(enc, "C", penalty_bits=penalty, stopping=stopping)
    ll = LogLikelihoodScore(df)
    accepted, K = [], 0.0
    for u, v in tan.trace["edges"]:
        k = penalty - (ll.local_score(u, ("C", v)) - ll.local_score(u, ("C",))) / LN2   # eq. 3.6, in bits
        if (stopping == "marginal" and not k < 0) or (stopping == "cumulative" and not K + k < 0):
            break
        K += k
        accepted.append((u, v))
    assert res.trace["edges"] == accepted
    assert [r["edge"] for r in res.trace["monitor"]] == tan.trace["edges"]


@given(class_data(), st.sampled_from(["marginal", "cumulative"]), st.booleans())
def test_sbn_trace_consistent(df, stopping, integer_code_length):
    enc = encode(df)
    res = fit_sbn(enc, "C", stopping=stopping, integer_code_length=integer_code_length)
    mon = pd.DataFrame(res.trace["monitor"])
    n = len(res.features)
    m = math.log2(n + 1)
    m = math.ceil(m) if integer_code_length else m
    assert res.trace["penalty_bits"] == pytest.approx(2 * m)
    assert len(mon) == n - 1
    assert mon["step"].tolist() == list(range(1, n))
    idx = {f: i for i, f in enumerate(res.features)}
    cmi_bits = [res.trace["cmi"][idx[u], idx[v]] / LN2 for u, v in mon["edge"]]
    assert_allclose(mon["cmi_bits"], cmi_bits, rtol=1e-12)
    assert_allclose(mon["k_bits"], 2 * m - len(df) * np.asarray(cmi_bits), rtol=1e-12, atol=1e-9)
    assert_allclose(mon["K_bits"], np.cumsum(mon["k_bits"]), rtol=1e-12, atol=1e-9)
    assert (np.diff(mon["k_bits"]) >= -1e-9).all()          # Kruskal order: k_1 <= k_2 <= ...
    acc = mon["accepted"].to_numpy()
    n_acc = int(acc.sum())
    assert acc[:n_acc].all()
    assert not acc[n_acc:].any()
    test = mon["k_bits"] if stopping == "marginal" else mon["K_bits"]
    assert (test[:n_acc] < 0).all()
    assert n_acc == n - 1 or test[n_acc] >= 0
    assert res.trace["edges"] == mon["edge"][:n_acc].tolist()


@given(class_data())
def test_sbn_loglik_identity(df):
    """Seed 000 section 1.6: LL(SBN) - LL(NB) = N * sum of the accepted edges' CMI (nats), for any penalty."""
    enc = encode(df)
    ll = LogLikelihoodScore(df)
    nb = ll.score(fit_nb(enc, "C").to_dag())
    for penalty in (0.0, 2.0, 10.0):
        res = fit_sbn(enc, "C", penalty_bits=penalty)
        cmi = sum(r["cmi_bits"] for r in res.trace["monitor"] if r["accepted"]) * LN2
        assert ll.score(res.to_dag()) - nb == pytest.approx(len(df) * cmi, rel=1e-9, abs=1e-9)


def test_sbn_extremes_are_nb_and_tan():
    df = forest_data(6, [2, 3, 4, 2, 3, 5], 3, 400, seed=11)
    enc = encode(df)
    tan = fit_tan(enc, "C")
    idx = {f: i for i, f in enumerate(tan.features)}
    assert all(tan.trace["cmi"][idx[u], idx[v]] > 0 for u, v in tan.trace["edges"])   # precondition for TAN
    for stopping in ("marginal", "cumulative"):
        assert fit_sbn(enc, "C", penalty_bits=math.inf, stopping=stopping).parents == fit_nb(enc, "C").parents
        assert fit_sbn(enc, "C", penalty_bits=0.0, stopping=stopping).parents == tan.parents
        assert fit_sbn(enc, "C", penalty_bits=0, max_edges=2, stopping=stopping).trace["edges"] == \
            tan.trace["edges"][:2]
    with_root = fit_sbn(enc, "C", penalty_bits=0.0, root="X3")
    assert with_root.parents == fit_tan(enc, "C", root="X3").parents
    assert with_root.parents["X3"] == ["C"]


def test_sbn_zero_cmi_edge_stops_marginal_penalty_zero():
    """Corral's Irrelevant/Correlated edges have CMI exactly 0: with penalty 0, k_e = 0 is not < 0 (D4)."""
    enc = encode(make_corral(return_X_y=False))
    assert len(fit_sbn(enc, "class", penalty_bits=0.0).augmenting_edges()) == 3
    assert len(fit_sbn(enc, "class", penalty_bits=0.0, stopping="cumulative").augmenting_edges()) == 5


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"stopping": "literal"}, ValueError, r"stopping == 'literal', must be one of \('marginal', 'cumulative'\)"),
    ({"penalty_bits": -1.0}, ValueError, "penalty_bits == -1.0, must be >= 0"),
    ({"penalty_bits": math.nan}, ValueError, "penalty_bits == nan"),
    ({"penalty_bits": "2"}, TypeError, "penalty_bits must be an instance of"),
    ({"max_edges": -1}, ValueError, "max_edges == -1, must be >= 0"),
    ({"max_edges": 1.5}, TypeError, "max_edges must be an instance of"),
    ({"integer_code_length": "yes"}, TypeError, "integer_code_length must be an instance of"),
    ({"root": "nope"}, ValueError, "root 'nope' is not one of the features"),
], ids=["stopping", "penalty-neg", "penalty-nan", "penalty-type", "max-neg", "max-type", "icl-type", "root"])
def test_sbn_errors(two_copies, kwargs, error, match):
    with pytest.raises(error, match=match):
        SBNSearch(two_copies).estimate(class_node="C", **kwargs)


def test_sbn_search_requires_estimate(two_copies):
    with pytest.raises(AttributeError, match="call estimate"):
        SBNSearch(two_copies).monitor_frame()
    with pytest.raises(ValueError, match="class_node is required"):
        SBNSearch(two_copies).estimate()


# ---------------------------------------------------------------------------------------------------- FAN
@given(class_data(), st.integers(0, 8))
def test_fan_is_prefix_of_tan(df, n_edges):
    enc = encode(df)
    tan = fit_tan(enc, "C")
    fan = fit_fan(enc, "C", n_edges=n_edges)
    assert fan.trace["edges"] == tan.trace["edges"][:n_edges]
    assert_allclose(fan.trace["cmi"], tan.trace["cmi"], rtol=0, atol=0)


def test_fan_extremes_are_nb_and_tan():
    df = forest_data(5, [2, 3, 4, 2, 3], 2, 300, seed=4)
    enc = encode(df)
    assert fit_fan(enc, "C", n_edges=0).parents == fit_nb(enc, "C").parents
    assert fit_fan(enc, "C", n_edges=4).parents == fit_tan(enc, "C").parents
    assert fit_fan(enc, "C", n_edges=4, root="X2").parents == fit_tan(enc, "C", root="X2").parents
    assert fit_fan(enc, "C", n_edges=99).parents == fit_tan(enc, "C").parents   # clipped at n - 1
    dag = FANSearch(df).estimate(class_node="C", n_edges=2)
    assert sorted(dag.edges()) == sorted(fit_fan(enc, "C", n_edges=2).edges())


def test_fan_hand_computed(two_copies):
    res = fit_fan(encode(two_copies), "C", n_edges=2)
    assert res.parents == {"A": ["C"], "B": ["C", "A"], "D": ["C"], "E": ["C", "D"]}
    assert res.trace["edges"] == [("A", "B"), ("D", "E")]


@pytest.mark.parametrize(("n_edges", "error", "match"), [
    (None, ValueError, "n_edges is required"), (-1, ValueError, "n_edges == -1, must be >= 0"),
    (1.0, TypeError, "n_edges must be an instance of")], ids=["none", "negative", "float"])
def test_fan_errors(two_copies, n_edges, error, match):
    with pytest.raises(error, match=match):
        FANSearch(two_copies).estimate(class_node="C", n_edges=n_edges)


# ---------------------------------------------------------------------------------------------------- ABN: weights
def test_abn_counterexample_a6():
    """Seed 002 A.6: N = 1000, |C| = 2, A and B binary, D with 10 states."""
    cmi = np.array([[0, .05, .10], [.05, 0, .09], [.10, .09, 0]])
    gains, thresholds = mdl_gains(cmi, [2, 2, 10], 2, 1000)
    assert_allclose([gains[0, 1], gains[0, 2], gains[1, 2]], [43.09, 37.83, 27.83], atol=5e-3)   # the spec's values
    assert_allclose([thresholds[0, 1], thresholds[0, 2]], [0.00691, 0.06217], atol=5e-6)
    best = abn_forest(cmi, [2, 2, 10], 2, 1000)
    literal = abn_forest(cmi, [2, 2, 10], 2, 1000, weight="cmi")
    assert best == [(0, 1), (0, 2)]
    assert literal == [(0, 2), (1, 2)]
    assert sum(gains[e] for e in best) == pytest.approx(80.92, abs=5e-3)
    assert sum(gains[e] for e in literal) == pytest.approx(65.66, abs=5e-3)


def test_abn_threshold_worked_example():
    """Section A.3: |C| = 2, binary pair, N = 1000 -> T_R = 0.0069078 nats (0.0099658 bits)."""
    _, thr = mdl_gains(np.zeros((2, 2)), [2, 2], 2, 1000)
    assert thr[0, 1] == pytest.approx(0.0069078, abs=1e-7)
    assert thr[0, 1] / LN2 == pytest.approx(0.0099658, abs=1e-7)


def test_abn_strict_gain_and_cmi_filter():
    """A.11-4: an edge with gain exactly 0 is left out (N = 1: no penalty, zero CMI), where TAN/FAN would keep it;
    "cmi" only reorders the candidates with a positive gain."""
    assert abn_forest(np.zeros((3, 3)), [2, 2, 2], 2, 1) == []
    assert abn_forest(np.zeros((3, 3)), [2, 2, 2], 2, 1, weight="cmi") == []
    cmi = np.array([[0, .2, .001], [.2, 0, .3], [.001, .3, 0]])
    gains, _ = mdl_gains(cmi, [2, 2, 2], 2, 100)
    assert gains[0, 2] < 0 < gains[0, 1] < gains[1, 2]
    assert abn_forest(cmi, [2, 2, 2], 2, 100) == [(1, 2), (0, 1)]
    assert abn_forest(cmi, [2, 2, 2], 2, 100, weight="cmi") == [(1, 2), (0, 1)]


# ---------------------------------------------------------------------------------------------------- ABN: brute force
@cache
def labelled_forests(n: int) -> tuple[list, np.ndarray]:
    """All labelled forests on n nodes as a 0/1 incidence matrix (forest x pair), pairs i < j lexicographic."""
    pairs = list(itertools.combinations(range(n), 2))
    rows = []
    for k in range(n):
        for subset in itertools.combinations(range(len(pairs)), k):
            root = list(range(n))
            ok = True
            for p in subset:
                a, b = pairs[p]
                while root[a] != a:
                    a = root[a]
                while root[b] != b:
                    b = root[b]
                if a == b:
                    ok = False
                    break
                root[a] = b
            if ok:
                rows.append(subset)
    inc = np.zeros((len(rows), len(pairs)))
    for r, subset in enumerate(rows):
        inc[r, list(subset)] = 1.0
    return pairs, inc


def test_forest_counts():
    """Seed 002 A.10: 1, 2, 7, 38, 291, 2932, 36961 labelled forests on n = 1..7 nodes."""
    assert [labelled_forests(n)[1].shape[0] for n in range(1, 8)] == [1, 2, 7, 38, 291, 2932, 36961]


class PgmpyForestScorer:
    """BIC (= -MDL, nats) of every ABN over the features from pgmpy's own BIC local scores, cached per family.

    For forest F, BIC = BIC(C) + sum_i BIC(X_i | C) + sum over oriented arcs p -> c of
    [BIC(X_c | C, X_p) - BIC(X_c | C)]. The arc delta is checked to be symmetric (score equivalence, so every
    orientation of F scores the same), and the full ``BIC.score`` of a DAG is checked against the sum.
    """

    def __init__(self, df, state_names, n):
        self.bic = BIC(df, state_names=state_names)
        self.features = [f"X{i}" for i in range(n)]
        self.pairs, self.incidence = labelled_forests(n)
        base = {f: self.bic.local_score(f, ("C",)) for f in self.features}
        self.nb = self.bic.local_score("C", ()) + sum(base.values())
        fw = [self.bic.local_score(self.features[j], (self.features[i], "C")) - base[self.features[j]]
              for i, j in self.pairs]
        bw = [self.bic.local_score(self.features[i], (self.features[j], "C")) - base[self.features[i]]
              for i, j in self.pairs]
        assert_allclose(fw, bw, rtol=1e-9, atol=1e-8)
        self.delta = np.asarray(fw)
        self.all_scores = self.nb + self.incidence @ self.delta

    def forest_bic(self, edges) -> float:
        idx = [self.pairs.index(tuple(sorted((self.features.index(u), self.features.index(v))))) for u, v in edges]
        return float(self.nb + self.delta[idx].sum())


def _brute_force_case(n, n_classes, n_rows, seed, equal_cards=False):
    rng = np.random.default_rng([n, n_classes, n_rows, seed])
    cards = [3] * n if equal_cards else [int(r) for r in rng.integers(2, 6, n)]
    df = forest_data(n, cards, n_classes, n_rows, seed)
    states = declared_states(df, cards, n_classes)
    return df, states, PgmpyForestScorer(df, states, n)


BRUTE_CASES = [(n, k, nr, s) for n in (6, 7) for k in (2, 3) for nr in (50, 200, 1000) for s in (0,)]
BRUTE_CASES += [(6, 2, 200, 28), (6, 3, 200, 34), (7, 3, 50, 3)]


@pytest.mark.parametrize(("n", "n_classes", "n_rows", "seed"), BRUTE_CASES,
                         ids=[f"n{n}-K{k}-N{nr}-s{s}" for n, k, nr, s in BRUTE_CASES])
def test_abn_is_brute_force_optimal(n, n_classes, n_rows, seed):
    """mdl_gain attains the minimum MDL over every labelled forest (mixed cardinalities 2-5)."""
    df, states, scorer = _brute_force_case(n, n_classes, n_rows, seed)
    est = ABNSearch(df, state_names=states)
    dag = est.estimate(class_node="C")
    edges = est.result_.augmenting_edges()
    best = scorer.all_scores.max()
    assert scorer.forest_bic(edges) == pytest.approx(best, rel=1e-10, abs=1e-8)
    # the full pgmpy score of the returned DAG, and the engine's own MDL diagnostics, agree with it
    assert scorer.bic.score(dag) == pytest.approx(best, rel=1e-10)
    assert -est.result_.trace["mdl"]["abn"] == pytest.approx(best, rel=1e-10)
    # paper-literal: never better than the optimum, and optimal exactly when it picks an optimal forest
    literal = ABNSearch(df, state_names=states)
    literal.estimate(class_node="C", weight="cmi")
    assert scorer.forest_bic(literal.result_.augmenting_edges()) <= best + 1e-8


def test_abn_paper_literal_strictly_suboptimal_on_data():
    """A data set (found by the brute-force sweep) where the paper's Kruskal-on-CMI misses the MDL optimum."""
    df, states, scorer = _brute_force_case(6, 2, 200, 28)
    results = {}
    for weight in ("mdl_gain", "cmi"):
        est = ABNSearch(df, state_names=states)
        est.estimate(class_node="C", weight=weight)
        results[weight] = scorer.forest_bic(est.result_.augmenting_edges())
    assert results["mdl_gain"] == pytest.approx(scorer.all_scores.max(), rel=1e-10)
    assert results["cmi"] < results["mdl_gain"] - 1.0


@pytest.mark.parametrize(("n", "n_classes", "n_rows", "seed"), [(6, 2, 200, 1), (7, 3, 1000, 2), (6, 3, 50, 3)],
                         ids=["n6-K2", "n7-K3", "n6-K3-small"])
def test_abn_paper_literal_optimal_with_equal_cardinalities(n, n_classes, n_rows, seed):
    df, states, scorer = _brute_force_case(n, n_classes, n_rows, seed, equal_cards=True)
    best = scorer.all_scores.max()
    for weight in ("mdl_gain", "cmi"):
        res = fit_abn(encode(df, states=states), "C", weight=weight)
        assert scorer.forest_bic(res.augmenting_edges()) == pytest.approx(best, rel=1e-10, abs=1e-8)


@given(class_data(max_features=7))
def test_abn_dominates_nb_and_tan(df):
    """MDL(ABN) <= MDL(TAN), MDL(NB), with pgmpy's BIC on the DAGs (MDL = -BIC); the engine's MDL diagnostics
    equal pgmpy's values."""
    enc = encode(df)
    bic = BIC(df)
    abn = fit_abn(enc, "C")
    scores = {"abn": bic.score(abn.to_dag()), "tan": bic.score(fit_tan(enc, "C").to_dag()),
              "nb": bic.score(fit_nb(enc, "C").to_dag())}
    assert scores["abn"] >= scores["tan"] - 1e-8
    assert scores["abn"] >= scores["nb"] - 1e-8
    for key, value in scores.items():
        assert -abn.trace["mdl"][key] == pytest.approx(value, rel=1e-9)


def test_abn_reduces_to_tan_and_nb():
    """A.10-3: strong dependencies and large N give TAN; independent features give NB."""
    rng = np.random.default_rng(0)
    n_rows = 5000
    c = rng.integers(0, 2, n_rows)
    x0 = c ^ (rng.random(n_rows) < 0.3)
    cols = [x0]
    for _ in range(4):
        cols.append(cols[-1] ^ (rng.random(n_rows) < 0.1))
    strong = pd.DataFrame({f"X{i}": v for i, v in enumerate(cols)}).assign(C=c)
    enc = encode(strong)
    assert fit_abn(enc, "C").parents == fit_tan(enc, "C").parents
    indep = pd.DataFrame({f"X{i}": rng.integers(0, 3, 60) for i in range(5)}).assign(C=rng.integers(0, 2, 60))
    assert fit_abn(encode(indep), "C").parents == fit_nb(encode(indep), "C").parents


def test_abn_search_attributes():
    df, states, _ = _brute_force_case(6, 3, 200, 0)
    est = ABNSearch(df, state_names=states)
    est.estimate(class_node="C", root="X4")
    res = est.result_
    gains = est.gains_.to_numpy()
    assert list(est.gains_.index) == list(est.gains_.columns) == res.features
    assert_allclose(gains, gains.T, rtol=1e-12, atol=1e-9)
    cards = np.array([len(states[f]) for f in res.features])
    pen = 0.5 * math.log(200) * 3 * np.outer(cards - 1, cards - 1)
    np.fill_diagonal(pen, 0.0)
    assert_allclose(gains, 200 * res.trace["cmi"] - pen, rtol=1e-12, atol=1e-9)
    assert_allclose(est.thresholds_.to_numpy(), pen / 200, rtol=1e-12)
    assert all(est.gains_.loc[u, v] > 0 for u, v in res.augmenting_edges())
    assert res.parents["X4"] == ["C"]
    with pytest.raises(ValueError, match=r"weight == 'bic', must be one of \('mdl_gain', 'cmi'\)"):
        est.estimate(class_node="C", weight="bic")

"""The count-space TM engine and TMEstimator (seed 001 spec section 5.7)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

from pgmpy_ext._compat import DAG, DiscreteBayesianNetwork, VariableElimination
from pgmpy_ext.classifiers import NaiveBayesClassifier, TANClassifier
from pgmpy_ext.data import encode
from pgmpy_ext.parameters import TMEstimator, fit_tm
from pgmpy_ext.structure import fit_tan
from tests.parameters.reference_tm import fan_binary, nb_binary, nb_multinomial

LINE_SEARCHES = ["grid", "backtracking"]


# ---------------------------------------------------------------------------------------------- data
def noisy_multinomial(n=400, K=3, seed=1):
    """Non-separable data with features of 2-4 states related to the class and to each other."""
    rng = np.random.default_rng(seed)
    c = rng.integers(0, K, n)
    cols = {}
    prev = c
    for j in range(4):
        r = int(rng.integers(2, 5))
        cols[f"X{j}"] = np.where(rng.random(n) < 0.5, (prev + j) % r, rng.integers(0, r, n))
        prev = cols[f"X{j}"]
    return pd.DataFrame({"C": c, **cols})


def corral_like(n=128, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (n, 6))
    y = ((X[:, 0] & X[:, 1]) | (X[:, 2] & X[:, 3])).astype(int)
    y = np.where(rng.random(n) < 0.1, 1 - y, y)
    X[:, 5] = np.where(rng.random(n) < 0.75, y, 1 - y)
    return X, y


def mofn_cube():
    """The full 2^10 cube of m-of-n-3-7-10 (class = at least 3 of bits 2..8): separable, the full step overshoots
    and the line search runs."""
    X = np.array(list(itertools.product([0, 1], repeat=10)))
    y = (X[:, 2:9].sum(1) >= 3).astype(int)
    return pd.DataFrame({"C": y, **{f"X{i}": X[:, i] for i in range(10)}})


def nb_parents(features, c="C"):
    return {c: [], **{f: [c] for f in features}}


def onehot(data, cols):
    return np.hstack([np.eye(data.card(f))[data.codes[:, data.index(f)]] for f in cols])


def pair_onehot(data, i, j):
    a, b = data.codes[:, data.index(i)], data.codes[:, data.index(j)]
    return np.eye(data.card(i) * data.card(j))[a * data.card(j) + b]


def lr_optimum(F, y):
    """CLL optimum of unregularised multinomial logistic regression (C = inf: sklearn 1.8 deprecated penalty=None)."""
    lr = LogisticRegression(C=np.inf, tol=1e-12, max_iter=100_000).fit(F, y)
    lp = lr.predict_log_proba(F)
    return lp[np.arange(len(y)), np.searchsorted(lr.classes_, y)].sum()


# ---------------------------------------------------------------------------------------------- monotonicity
@pytest.mark.parametrize("line_search", LINE_SEARCHES)
@pytest.mark.parametrize("case", ["nb_multinomial", "tan_multinomial", "nb_mofn", "ban_corral", "alpha"])
def test_cll_never_decreases_and_beats_ml(case, line_search):
    alpha = 0.0
    if case == "nb_multinomial":
        df = noisy_multinomial()
        pa = nb_parents(["X0", "X1", "X2", "X3"])
    elif case == "tan_multinomial":
        df = noisy_multinomial(seed=3)
        pa = {"C": [], "X0": ["C"], "X1": ["C", "X0"], "X2": ["C", "X1"], "X3": ["C", "X1"]}
    elif case == "nb_mofn":
        df = mofn_cube()
        pa = nb_parents([f"X{i}" for i in range(10)])
    elif case == "ban_corral":
        X, y = corral_like(seed=2)
        df = pd.DataFrame({"C": y, **{f"X{i}": X[:, i] for i in range(6)}})
        pa = {"C": [], "X0": ["C"], "X1": ["C", "X0"], "X2": ["C", "X0", "X1"], "X3": ["C", "X2", "X1", "X0"],
              "X4": ["C"], "X5": ["C", "X4", "X3"]}
    else:
        df = noisy_multinomial(seed=5)
        pa = nb_parents(["X0", "X1", "X2", "X3"])
        alpha = 1.0
    res = fit_tm(encode(df), "C", pa, line_search=line_search, max_iter=300, alpha=alpha, warn=False, solver="tm")
    assert np.all(np.diff(res.cll_trace) >= 0.0)
    assert res.cll >= res.cll_ml
    assert res.n_iter == len(res.step_sizes) == len(res.cll_trace) - 1 > 0
    assert np.all((res.step_sizes > 0) & (res.step_sizes <= 1))
    if case == "nb_mofn":
        assert (res.step_sizes < 1).any()  # the line search ran on this separable set
        assert res.cll > res.cll_ml + 200


def test_grid_uses_thesis_values():
    res = fit_tm(encode(mofn_cube()), "C", nb_parents([f"X{i}" for i in range(10)]), line_search="grid",
                 max_iter=100, warn=False, solver="tm", alpha=0.0)
    lam = res.step_sizes[res.step_sizes < 1]
    assert lam.size > 0
    assert_allclose(lam * 100, np.round(lam * 100), atol=1e-9)


# ---------------------------------------------------------------------------------------------- optimality
@pytest.mark.parametrize("line_search", LINE_SEARCHES)
def test_nb_tm_reaches_logistic_regression_optimum(line_search):
    data = encode(noisy_multinomial())
    feats = ["X0", "X1", "X2", "X3"]
    res = fit_tm(data, "C", nb_parents(feats), tol=1e-8, max_iter=20_000, line_search=line_search, solver="tm",
                 alpha=0.0)
    opt = lr_optimum(onehot(data, feats), data.codes[:, data.index("C")])
    assert res.converged
    assert abs(res.cll - opt) <= 1e-4 * abs(opt)
    assert res.cll <= opt + 1e-6  # never above the optimum of the larger family


@pytest.mark.parametrize("line_search", LINE_SEARCHES)
def test_tan_tm_reaches_logistic_regression_optimum_with_pairwise_features(line_search):
    df = noisy_multinomial(seed=3)
    data = encode(df)
    feats = ["X0", "X1", "X2", "X3"]
    tan = fit_tan(data, "C")
    res = fit_tm(data, "C", tan.parent_sets(), tol=1e-8, max_iter=20_000, line_search=line_search, solver="tm",
                 alpha=0.0)
    F = np.hstack([onehot(data, feats)] + [pair_onehot(data, p, c) for p, c in tan.augmenting_edges()])
    opt = lr_optimum(F, data.codes[:, data.index("C")])
    assert abs(res.cll - opt) <= 1e-4 * abs(opt)


def test_tan_root_does_not_change_converged_cll():
    data = encode(noisy_multinomial(seed=4))
    clls = []
    for root in ["X0", "X1", "X2", "X3"]:
        tan = fit_tan(data, "C", root=root)
        clls.append(fit_tm(data, "C", tan.parent_sets(), tol=1e-9, max_iter=20_000,
                           line_search="backtracking", solver="tm", alpha=0.0).cll)
    assert len({tuple(sorted(fit_tan(data, "C", root=r).augmenting_edges())) for r in ["X0", "X3"]}) == 2
    assert_allclose(clls, clls[0], rtol=1e-7)


# ---------------------------------------------------------------------------------------------- thesis equivalence
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_count_space_equals_thesis_binary_nb_iterate_by_iterate(seed):
    X, y = corral_like(seed=seed)
    df = pd.DataFrame({"C": y, **{f"X{i}": X[:, i] for i in range(6)}})
    iterates = []
    res = fit_tm(encode(df), "C", nb_parents([f"X{i}" for i in range(6)]), tol=0.0, max_iter=25, warn=False,
                 callback=lambda it, T, cll: iterates.append(T), solver="tm", alpha=0.0)
    us, trace, v = nb_binary(X, y, 25)
    assert len(iterates) == len(us) - 1 == 25
    assert_allclose(res.cll_trace, trace, rtol=1e-11)
    for T, u in zip(iterates, us[1:]):
        # N_0 = T_0[1], N_0i = T_i[x=1, c=1]; v: N_i = sum_c T_i[1, c] never changes
        mine = np.concatenate([[T["C"][1]], [T[f"X{i}"][1, 1] for i in range(6)]])
        assert_allclose(mine, u, rtol=1e-10)
        assert_allclose([T[f"X{i}"][1].sum() for i in range(6)], v, rtol=1e-12)


def test_count_space_equals_thesis_binary_nb_with_line_search():
    df = mofn_cube()
    X = df[[f"X{i}" for i in range(10)]].to_numpy()
    y = df["C"].to_numpy()
    iterates = []
    res = fit_tm(encode(df), "C", nb_parents([f"X{i}" for i in range(10)]), tol=0.0, max_iter=45, warn=False,
                 callback=lambda it, T, cll: iterates.append(T), solver="tm", alpha=0.0)
    assert (res.step_sizes < 1).any()
    us, trace, _ = nb_binary(X, y, 45)
    assert_allclose(res.cll_trace, trace, rtol=1e-9)
    for T, u in zip(iterates, us[1:]):
        mine = np.concatenate([[T["C"][1]], [T[f"X{i}"][1, 1] for i in range(10)]])
        assert_allclose(mine, u, rtol=1e-9)


def test_count_space_equals_thesis_binary_fan_iterate_by_iterate():
    X, y = corral_like(n=200, seed=5)
    parent = [-1, 0, 1, -1, 3, 0]  # X1 <- X0, X2 <- X1, X4 <- X3, X5 <- X0
    df = pd.DataFrame({"C": y, **{f"X{i}": X[:, i] for i in range(6)}})
    pa = {"C": []}
    for i, p in enumerate(parent):
        pa[f"X{i}"] = ["C"] + ([f"X{p}"] if p >= 0 else [])
    iterates = []
    res = fit_tm(encode(df), "C", pa, tol=0.0, max_iter=20, warn=False,
                 callback=lambda it, T, cll: iterates.append(T), solver="tm", alpha=0.0)
    us, trace = fan_binary(X, y, parent, 20)
    assert_allclose(res.cll_trace, trace, rtol=1e-10)
    kids = [i for i in range(6) if parent[i] >= 0]
    for T, u in zip(iterates, us[1:]):
        n0i = [T[f"X{i}"][1, 1].sum() if parent[i] < 0 else T[f"X{i}"][1, 1, :].sum() for i in range(6)]
        n0ij = [T[f"X{i}"][1, 1, 1] for i in kids]  # table axes (X_i, C, X_j): "C" sorts before "X.."
        assert_allclose(np.concatenate([[T["C"][1]], n0i, n0ij]), u, rtol=1e-10)


def test_count_space_equals_thesis_multinomial_nb_moments():
    rng = np.random.default_rng(11)
    n, K, cards = 150, 3, [3, 4, 2]
    y = rng.integers(0, K, n)
    X = np.column_stack([np.where(rng.random(n) < 0.6, (y + k) % r, rng.integers(0, r, n))
                         for k, r in enumerate(cards)])
    df = pd.DataFrame({"C": y, **{f"X{i}": X[:, i] for i in range(3)}})
    iterates = []
    res = fit_tm(encode(df), "C", nb_parents(["X0", "X1", "X2"]), tol=0.0, max_iter=10, warn=False,
                 callback=lambda it, T, cll: iterates.append(T), solver="tm", alpha=0.0)
    counts, trace = nb_multinomial(X, y, cards, K, 10)
    assert_allclose(res.cll_trace, trace, rtol=1e-8)
    for T, (Nc, tabs) in zip(iterates, counts[1:]):
        assert_allclose(T["C"], Nc, rtol=1e-7)
        for i in range(3):
            assert_allclose(T[f"X{i}"], tabs[i].T, rtol=1e-7, atol=1e-7)  # ours: (x_i, c); thesis: (c, x_i)


# ---------------------------------------------------------------------------------------------- zeros and classes
@pytest.mark.parametrize("line_search", LINE_SEARCHES)
def test_zero_cells_stay_zero(line_search):
    X, y = corral_like(seed=1)
    df = pd.DataFrame({"C": y, **{f"X{i}": X[:, i] for i in range(6)}})
    pa = {"C": [], "X0": ["C"], "X1": ["C", "X0"], "X2": ["C", "X0", "X1"], "X3": ["C", "X2", "X1", "X0"],
          "X4": ["C"], "X5": ["C", "X4", "X3"]}
    seen = []
    res = fit_tm(encode(df), "C", pa, max_iter=200, line_search=line_search, warn=False,
                 callback=lambda it, T, cll: seen.append(T), solver="tm", alpha=0.0)
    zeros = {k: o == 0 for k, o in res.observed.items()}
    assert sum(int(z.sum()) for z in zeros.values()) > 0
    for T in seen:
        for k, z in zeros.items():
            assert np.all(T[k][z] == 0.0)
            assert np.all(T[k] >= 0.0)


def test_class_without_data_stays_at_zero():
    df = noisy_multinomial(K=3)
    df = df[df["C"] != 1]
    data = encode(df, states={"C": [0, 1, 2]})
    res = fit_tm(data, "C", nb_parents(["X0", "X1"]), tol=1e-6, solver="tm", alpha=0.0)
    assert res.counts["C"][1] == 0.0
    assert np.all(res.counts["X0"][:, 1] == 0.0)
    assert res.cll > res.cll_ml


def test_counts_keep_class_free_marginals():
    data = encode(noisy_multinomial(seed=2))
    pa = {"C": [], "X0": ["C"], "X1": ["C", "X0"], "X2": ["C", "X1"], "X3": ["C"]}
    res = fit_tm(data, "C", pa, tol=1e-6, solver="tm", alpha=0.0)
    for node in ["X0", "X1", "X2", "X3"]:
        ax = 1 + res.parents[node].index("C")
        assert_allclose(res.counts[node].sum(axis=ax), res.observed[node].sum(axis=ax), rtol=1e-9, atol=1e-9)
    assert_allclose(res.counts["C"].sum(), len(data.codes), rtol=1e-12)


# ---------------------------------------------------------------------------------------------- options, errors
def test_weights_equal_duplicated_rows():
    df = noisy_multinomial(n=120, seed=7)
    w = np.random.default_rng(0).integers(1, 4, len(df))
    dup = df.loc[df.index.repeat(w)].reset_index(drop=True)
    pa = nb_parents(["X0", "X1", "X2"])
    a = fit_tm(encode(df), "C", pa, weights=w.astype(float), tol=1e-7, solver="tm", alpha=0.0)
    b = fit_tm(encode(dup), "C", pa, tol=1e-7, solver="tm", alpha=0.0)
    assert_allclose(a.cll_trace, b.cll_trace, rtol=1e-10)
    for k in a.counts:
        assert_allclose(a.counts[k], b.counts[k], rtol=1e-9)


def test_warm_start_init_and_alpha():
    data = encode(noisy_multinomial(seed=8))
    pa = nb_parents(["X0", "X1", "X2", "X3"])
    cold = fit_tm(data, "C", pa, tol=1e-8, max_iter=10_000, solver="tm", alpha=0.0)
    warm = fit_tm(data, "C", pa, tol=1e-8, max_iter=10_000, init=cold.counts, solver="tm")
    assert warm.n_iter <= 2
    assert_allclose(warm.cll, cold.cll, rtol=1e-9)
    smooth = fit_tm(data, "C", pa, alpha=1.0, max_iter=0, solver="tm")
    assert smooth.n_iter == 0
    for k in smooth.counts:
        assert_allclose(smooth.counts[k], cold.observed[k] + 1.0)
    with pytest.raises(ValueError, match=r"init has tables for \['X9'\]"):
        fit_tm(data, "C", pa, init={"X9": np.ones(2)}, solver="tm", alpha=0.0)
    bad = {"X0": -np.ones_like(cold.counts["X0"])}
    with pytest.raises(ValueError, match="starting counts are illegal"):
        fit_tm(data, "C", pa, init=bad, solver="tm", alpha=0.0)


def test_max_iter_warns_and_options_are_validated():
    data = encode(noisy_multinomial())
    pa = nb_parents(["X0", "X1"])
    with pytest.warns(ConvergenceWarning, match="TM stopped at max_iter=2"):
        res = fit_tm(data, "C", pa, tol=0.0, max_iter=2, solver="tm", alpha=0.0)
    assert res.stop_reason == "max_iter"
    assert not res.converged
    assert res.n_iter == 2
    with pytest.raises(ValueError, match=r"line_search == 'newton', must be one of \('grid', 'backtracking'\)"):
        fit_tm(data, "C", pa, line_search="newton", solver="tm", alpha=0.0)
    with pytest.raises(ValueError, match="alpha == -1"):
        fit_tm(data, "C", pa, alpha=-1.0, solver="tm")
    with pytest.raises(ValueError, match="tol == -1"):
        fit_tm(data, "C", pa, tol=-1.0, solver="tm", alpha=0.0)
    with pytest.raises(ValueError, match=r"class_node 'C' has parents \['X0'\]"):
        fit_tm(data, "C", {"C": ["X0"], "X1": ["C"]}, solver="tm", alpha=0.0)
    with pytest.raises(ValueError, match="class_node 'Z' is not a column"):
        fit_tm(data, "Z", pa, solver="tm", alpha=0.0)


def test_structure_without_class_children_is_ml():
    data = encode(noisy_multinomial())
    res = fit_tm(data, "C", {"C": [], "X0": [], "X1": ["X0"]}, solver="tm", alpha=0.0)
    assert res.children == []
    assert res.n_iter == 1
    assert res.converged
    assert_allclose(res.cll, res.cll_ml)


# ---------------------------------------------------------------------------------------------- pgmpy face
def test_estimator_in_plain_pgmpy():
    df = noisy_multinomial(seed=9)
    dag = DAG([("C", "X0"), ("C", "X1"), ("C", "X2"), ("X0", "X1"), ("X2", "X3")])
    dag.add_node("C")
    est = TMEstimator(class_node="C", tol=1e-6, solver="tm", alpha=0.0)
    bn = DiscreteBayesianNetwork(dag.edges()).fit(df, estimator=est)
    assert bn.check_model()
    assert len(est.parameters_) == 5
    assert est.n_iter_ == len(est.step_sizes_) == len(est.cll_trace_) - 1
    assert est.converged_
    assert est.cll_trace_[-1] > est.cll_trace_[0]
    # nodes outside Ch(C) keep maximum-likelihood CPDs (what pgmpy's DiscreteMLE gives)
    from pgmpy.parameter_estimator import DiscreteMLE

    ml = DiscreteMLE().fit(DiscreteBayesianNetwork(dag.edges()), df)
    ml_cpds = {cpd.variable: cpd for cpd in ml.parameters_}
    assert bn.get_cpds("X3") == ml_cpds["X3"]
    assert bn.get_cpds("X1") != ml_cpds["X1"]
    # the CPDs are the normalised TM counts, and pgmpy's VE reproduces the TM's conditional likelihood
    ve = VariableElimination(bn)
    cll = 0.0
    for _, row in df.drop_duplicates().iterrows():
        q = ve.query(["C"], evidence={k: int(row[k]) for k in ["X0", "X1", "X2", "X3"]}, show_progress=False)
        mult = int(((df == row).all(axis=1)).sum())
        cll += mult * np.log(q.values[q.state_names["C"].index(int(row["C"]))])
    assert_allclose(cll, est.cll_trace_[-1], rtol=1e-9)
    # a DAG works too, and clone/get_params round-trip (skbase)
    est2 = TMEstimator(class_node="C", tol=1e-6, solver="tm", alpha=0.0).fit(dag, df)
    assert [c.variable for c in est2.parameters_] == list(dag.nodes())
    assert est.clone().get_params() == est.get_params()
    assert clone(est).get_params()["tol"] == 1e-6


def test_estimator_sample_weight_and_state_names():
    df = noisy_multinomial(n=150, seed=12)
    dag = DiscreteBayesianNetwork([("C", "X0"), ("C", "X1")])
    w = np.random.default_rng(1).random(len(df)) + 0.5
    est = TMEstimator(class_node="C", state_names={"X0": [0, 1, 2, 3, 4, 5]}, tol=1e-6, solver="tm", alpha=0.0)
    est.fit(dag, df[["C", "X0", "X1"]], sample_weight=w)
    assert est.state_names_["X0"] == [0, 1, 2, 3, 4, 5]
    ref = fit_tm(encode(df[["C", "X0", "X1"]], states={"X0": [0, 1, 2, 3, 4, 5]}), "C",
                 nb_parents(["X0", "X1"]), weights=w, tol=1e-6, solver="tm", alpha=0.0)
    assert_allclose(est.cll_trace_, ref.cll_trace, rtol=1e-12)


def test_estimator_errors():
    df = noisy_multinomial(n=50)
    dag = DiscreteBayesianNetwork([("C", "X0")])
    with pytest.raises(ValueError, match=r"class_node is required"):
        TMEstimator(solver="tm", alpha=0.0).fit(dag, df)
    with pytest.raises(ValueError, match=r"class_node 'Y' is not a node of the model"):
        TMEstimator(class_node="Y", solver="tm", alpha=0.0).fit(dag, df)
    with pytest.raises(ValueError, match=r"class_node 'X0' has parents \['C'\]"):
        TMEstimator(class_node="X0", solver="tm", alpha=0.0).fit(dag, df)
    dfn = df.astype({"X0": float})
    dfn.loc[3, "X0"] = np.nan
    with pytest.raises(ValueError, match=r"Column 'X0' has a missing value \(NaN\) at row 3"):
        TMEstimator(class_node="C", solver="tm", alpha=0.0).fit(dag, dfn)


# ---------------------------------------------------------------------------------------------- classifiers
@pytest.mark.parametrize("cls", [NaiveBayesClassifier, TANClassifier], ids=["NB", "TAN"])
def test_classifiers_accept_tm_and_match_variable_elimination(cls):
    df = noisy_multinomial(seed=13)
    X, y = df.drop(columns="C"), df["C"].rename("label")
    clf = cls(estimator=TMEstimator(tol=1e-6, solver="tm", alpha=0.0)).fit(X, y)
    assert clf.estimator.get_params()["class_node"] is None  # the user's instance is untouched
    ve = VariableElimination(clf.model_)
    proba = clf.predict_proba(X.iloc[:25])
    for r in range(25):
        q = ve.query(["label"], evidence={k: int(v) for k, v in X.iloc[r].items()}, show_progress=False)
        assert_allclose(proba[r], q.values[[q.state_names["label"].index(c) for c in clf.classes_]], rtol=1e-9,
                        atol=1e-12)
    # the TM model fits the training class better than the generative one
    gen = cls(alpha=0.0).fit(X, y)
    yi = np.searchsorted(clf.classes_, y)
    tm_cll = np.log(clf.predict_proba(X)[np.arange(len(y)), yi]).sum()
    ml_cll = np.log(gen.predict_proba(X)[np.arange(len(y)), yi]).sum()
    assert tm_cll > ml_cll


def test_no_warning_in_classifier_on_convergence():
    df = noisy_multinomial(seed=14)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        NaiveBayesClassifier(estimator=TMEstimator(solver="tm", alpha=0.0)).fit(df.drop(columns="C"), df["C"])


def _single_network_classifiers():
    import pgmpy_ext.classifiers as C

    out = []
    for name in C.__all__:
        cls = getattr(C, name)
        if isinstance(cls, type) and issubclass(cls, C.BNClassifierBase) and cls is not C.BNClassifierBase \
                and "estimator" in cls().get_params():
            out.append(cls(**({"n_edges": 2} if name == "FANClassifier" else {})))
    return out


@pytest.mark.parametrize("clf", _single_network_classifiers(), ids=lambda c: type(c).__name__)
def test_every_classifier_accepts_tm(clf):
    df = noisy_multinomial(n=300, seed=15)
    X, y = df.drop(columns="C"), df["C"].rename("label")
    fitted = clone(clf).set_params(estimator=TMEstimator(tol=1e-4, max_iter=5000, solver="tm", alpha=0.0)).fit(X, y)
    est = fitted.estimator_
    assert isinstance(est, TMEstimator)
    assert est.class_node == "label"
    assert np.all(np.diff(est.cll_trace_) >= 0)
    assert fitted.model_.check_model()
    ve = VariableElimination(fitted.model_)
    proba = fitted.predict_proba(X.iloc[:5])
    for r in range(5):
        q = ve.query(["label"], evidence={k: int(v) for k, v in X.iloc[r].items()}, show_progress=False)
        assert_allclose(proba[r], q.values[[q.state_names["label"].index(c) for c in fitted.classes_]], rtol=1e-9,
                        atol=1e-12)


@pytest.mark.parametrize("line_search", LINE_SEARCHES)
def test_exported_model_is_the_optimised_model_with_empty_parent_configurations(line_search):
    from pgmpy_ext.models import BatchPosterior

    X, y = corral_like(n=40, seed=2)
    df = pd.DataFrame({"C": y, **{f"X{i}": X[:, i] for i in range(6)}})
    pa = {"C": [], "X0": ["C"], "X1": ["C", "X0"], "X2": ["C", "X0", "X1"], "X3": ["C", "X2", "X1", "X0"],
          "X4": [], "X5": ["C", "X4", "X3"]}  # X4 is not a child of the class
    bn = DiscreteBayesianNetwork([(p, c) for c, ps in pa.items() for p in ps])
    est = TMEstimator(class_node="C", line_search=line_search, max_iter=300, solver="tm", alpha=0.0).fit(bn, df)
    res = est.result_
    empty = {k: (o.sum(axis=0) == 0) for k, o in res.observed.items() if k != "C"}
    assert any(e.any() for e in empty.values())
    for k, e in empty.items():  # empty slices keep their (zero) counts and export a uniform column
        assert np.all(res.counts[k][:, e] == 0.0)
        assert_allclose(res.tables()[k][:, e], 1.0 / res.counts[k].shape[0])
    post = BatchPosterior(bn.copy().fit(df, estimator=est.clone().set_params(max_iter=300)), "C")
    p = post.predict_proba(df)
    cls = post.classes
    exported = np.log(p[np.arange(len(df)), [cls.index(v) for v in df["C"]]]).sum()
    assert_allclose(exported, est.cll_trace_[-1], rtol=1e-9)
    assert est.cll_trace_[-1] > est.cll_trace_[0]


@pytest.mark.parametrize("structure", ["nb", "fan", "ban"])
def test_count_space_equals_thesis_multinomial_moments_nb_fan_ban(structure):
    from tests.parameters.reference_tm import moment_space_tm

    rng = np.random.default_rng(21)
    n, K, cards = 160, 3, [3, 2, 3, 2]
    y = rng.integers(0, K, n)
    X = np.column_stack([np.where(rng.random(n) < 0.55, (y + k) % r, rng.integers(0, r, n))
                         for k, r in enumerate(cards)])
    parents = {"nb": [[], [], [], []], "fan": [[], [0], [], [2]], "ban": [[], [0], [0, 1], [2]]}[structure]
    df = pd.DataFrame({"C": y, **{f"X{i}": X[:, i] for i in range(4)}})
    pa = {"C": [], **{f"X{i}": ["C", *(f"X{j}" for j in parents[i])] for i in range(4)}}
    iterates = []
    res = fit_tm(encode(df), "C", pa, tol=0.0, max_iter=8, warn=False, callback=lambda it, T, cll: iterates.append(T),
                 solver="tm", alpha=0.0)
    counts, trace = moment_space_tm(X, y, cards, K, parents, 8)
    assert_allclose(res.cll_trace, trace, rtol=1e-8)
    for T, (Nc, tabs) in zip(iterates, counts[1:]):
        assert_allclose(T["C"], Nc, rtol=1e-7)
        for i in range(4):
            # ours: axes (x_i, *sorted parents) = (x_i, C, X_j...) since "C" < "X.."; reference: (c, x_i, X_j...)
            assert_allclose(T[f"X{i}"], np.swapaxes(tabs[i], 0, 1), rtol=1e-7, atol=1e-7)

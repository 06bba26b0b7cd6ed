"""build_network / cpds_from_counts: equal to pgmpy's DiscreteMLE / DiscreteBayesianEstimator, types kept."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from pgmpy.parameter_estimator import DiscreteBayesianEstimator, DiscreteMLE

from pgmpy_ext._compat import DAG, DiscreteBayesianNetwork
from pgmpy_ext.data import encode
from pgmpy_ext.models import build_network, compile_network, cpds_from_counts, cpds_from_layout, sorted_parents
from pgmpy_ext.stats import NetworkLayout, estep_accumulate, family_counts, unique_rows

ASIA_TAN = {  # class dysp -> every feature, plus a tree over the features
    "dysp": [], "either": ["dysp"], "tub": ["dysp", "either"], "lung": ["dysp", "either"],
    "xray": ["dysp", "either"], "bronc": ["dysp", "lung"], "smoke": ["dysp", "bronc"], "asia": ["dysp", "tub"],
}


def assert_cpd_close(ours, theirs, rtol=1e-12):
    """Same variable, evidence order and state sets; values equal after aligning theirs to our state orders."""
    assert ours.variables == theirs.variables
    values = np.asarray(theirs.values, dtype=float)
    for axis, var in enumerate(ours.variables):
        assert set(ours.state_names[var]) == set(theirs.state_names[var]), var
        idx = [list(theirs.state_names[var]).index(s) for s in ours.state_names[var]]
        values = np.take(values, idx, axis=axis)
    assert_allclose(ours.values, values, rtol=rtol, atol=1e-15)


def _pgmpy_cpds(estimator, parents, df, **fit_kw):
    dag = DAG()
    dag.add_nodes_from(parents)
    dag.add_edges_from([(p, n) for n, pa in parents.items() for p in pa])
    return {c.variable: c for c in estimator.fit(dag, df, **fit_kw).parameters_}


@pytest.mark.parametrize("parents", [ASIA_TAN, {"asia": [], "tub": ["asia"], "smoke": [], "lung": ["smoke"],
                                                 "bronc": ["smoke"], "either": ["lung", "tub"],
                                                 "xray": ["either"], "dysp": ["bronc", "either"]}],
                         ids=["tan", "asia-structure"])
def test_alpha0_equals_pgmpy_mle(asia_df, parents):
    model = build_network(parents, encode(asia_df))
    ref = _pgmpy_cpds(DiscreteMLE(), parents, asia_df)
    assert model.check_model()
    assert set(model.nodes()) == set(parents)
    for node in parents:
        assert_cpd_close(model.get_cpds(node), ref[node])


@pytest.mark.parametrize("alpha", [0.5, 1.0, 3.0], ids=["a0.5", "a1", "a3"])
def test_alpha_equals_pgmpy_dirichlet(asia_df, alpha):
    model = build_network(ASIA_TAN, encode(asia_df), alpha=alpha)
    ref = _pgmpy_cpds(DiscreteBayesianEstimator(prior_type="dirichlet", pseudo_counts=alpha), ASIA_TAN, asia_df)
    for node in ASIA_TAN:
        assert_cpd_close(model.get_cpds(node), ref[node])


def test_weighted_equals_pgmpy(asia_df):
    w = np.random.default_rng(3).random(len(asia_df)) * 2
    model = build_network(ASIA_TAN, encode(asia_df), weights=w)
    ref = _pgmpy_cpds(DiscreteMLE(), ASIA_TAN, asia_df, sample_weight=w)
    for node in ASIA_TAN:
        assert_cpd_close(model.get_cpds(node), ref[node])
    # weights stored in the EncodedData are used by default
    model2 = build_network(ASIA_TAN, encode(asia_df, weights=w))
    for node in ASIA_TAN:
        assert_array_equal(model2.get_cpds(node).values, model.get_cpds(node).values)


def test_unseen_parent_configuration_gets_uniform_column():
    df = pd.DataFrame({"P": ["a", "a", "b", "b", "c"], "Q": [0, 1, 0, 0, 1], "X": ["u", "v", "w", "w", "u"]})
    # (P, Q) = (b, 1) and (c, 0) never occur
    model = build_network({"X": ["Q", "P"]}, encode(df))
    cpd = model.get_cpds("X")
    assert cpd.variables == ["X", "P", "Q"]
    vals = cpd.get_values()
    assert_allclose(vals[:, 3], [1 / 3] * 3)  # (b, 1)
    assert_allclose(vals[:, 4], [1 / 3] * 3)  # (c, 0)
    assert_allclose(vals[:, 2], [0.0, 0.0, 1.0])  # (b, 0): w twice
    assert_cpd_close(cpd, _pgmpy_cpds(DiscreteMLE(), {"X": ["Q", "P"], "P": [], "Q": []}, df)["X"])


def test_state_names_keep_python_types_and_isolated_nodes():
    df = pd.DataFrame({"n": np.array([2, 0, 2, 5], dtype=np.int64), "b": [True, False, False, True],
                       "s": ["x", "y", "x", "x"], "f": [1.5, 2.5, 1.5, 1.5], "lone": ["k", "k", "l", "k"]})
    df["f"] = df["f"].astype("category")
    model = build_network({"n": ["b", "s"], "f": ["n"], "lone": []}, encode(df))
    assert model.check_model()
    assert list(model.nodes()) == ["n", "f", "lone", "b", "s"]  # mapping order, then parent-only nodes
    assert set(model.edges()) == {("b", "n"), ("s", "n"), ("n", "f")}
    sn = model.get_cpds("n").state_names
    assert sn == {"n": [0, 2, 5], "b": [False, True], "s": ["x", "y"]}
    assert [type(v) for v in sn["n"]] == [int, int, int]
    assert [type(v) for v in sn["b"]] == [bool, bool]
    assert [type(v) for v in model.get_cpds("f").state_names["f"]] == [float, float]
    assert model.get_cpds("lone").variables == ["lone"]


def test_counts_argument_is_used():
    df = pd.DataFrame({"A": [0, 1, 1, 1], "B": ["u", "u", "v", "v"]})
    data = encode(df)
    given = family_counts(data, "A", ["B"]) * 10 + np.array([[1.0, 0.0], [0.0, 0.0]])
    model = build_network({"A": ["B"], "B": []}, data, counts={"A": given})
    assert_allclose(model.get_cpds("A").get_values(), given / given.sum(axis=0))
    assert_allclose(model.get_cpds("B").get_values(), [[0.5], [0.5]])


def test_cpds_from_counts_hand():
    cpds = cpds_from_counts({"C": [[3.0, 0.0], [1.0, 0.0]]}, {"C": ["Z"]}, {"C": ["lo", "hi"], "Z": [False, True]},
                            alpha=0.0)
    assert cpds[0].variables == ["C", "Z"]
    assert_allclose(cpds[0].get_values(), [[0.75, 0.5], [0.25, 0.5]])
    cpds = cpds_from_counts({"C": [[3.0, 0.0], [1.0, 0.0]]}, {"C": ["Z"]}, {"C": ["lo", "hi"], "Z": [False, True]},
                            alpha=1.0)
    assert_allclose(cpds[0].get_values(), [[4 / 6, 0.5], [2 / 6, 0.5]])


def test_sorted_parents_mixed_types():
    assert sorted_parents(["b", "a"]) == ["a", "b"]
    assert sorted_parents([2, "a", 1]) == [1, 2, "a"]  # int before str (by type name), then by repr


def test_build_errors(asia_df):
    data = encode(asia_df)
    with pytest.raises(ValueError, match=r"alpha == -1.0, must be >= 0."):
        build_network({"asia": []}, data, alpha=-1.0)
    with pytest.raises(TypeError, match="alpha must be a real number"):
        build_network({"asia": []}, data, alpha="x")
    with pytest.raises(ValueError, match=r"node 'nope' is not a column of the data"):
        build_network({"asia": ["nope"]}, data)
    with pytest.raises(ValueError, match="cannot be its own parent"):
        build_network({"asia": ["asia"]}, data)
    with pytest.raises(ValueError, match=r"counts given for \['tub'\], which are not nodes"):
        build_network({"asia": []}, data, counts={"tub": np.ones(2)})
    with pytest.raises(ValueError, match=r"counts of 'asia' have 3 entries, expected"):
        build_network({"asia": []}, data, counts={"asia": np.ones(3)})
    with pytest.raises(ValueError, match="counts of 'asia' must be finite and >= 0"):
        build_network({"asia": []}, data, counts={"asia": np.array([1.0, -1.0])})
    with pytest.raises(ValueError, match="Loops are not allowed"):
        build_network({"asia": ["tub"], "tub": ["asia"]}, data)
    with pytest.raises(TypeError, match="data must be an EncodedData"):
        build_network({"asia": []}, asia_df)
    with pytest.raises(ValueError, match="parents has no entry for 'A'"):
        cpds_from_counts({"A": [1.0]}, {}, {"A": ["x"]})
    with pytest.raises(ValueError, match="states has no entry for 'B'"):
        cpds_from_counts({"A": [1.0, 1.0]}, {"A": ["B"]}, {"A": ["x"]})


def test_result_is_a_plain_discrete_bayesian_network(asia_df):
    model = build_network(ASIA_TAN, encode(asia_df), alpha=1.0)
    assert type(model) is DiscreteBayesianNetwork
    assert all(model.get_cpds(n).get_evidence()[::-1] == sorted(ASIA_TAN[n]) for n in ASIA_TAN)


def test_cpds_from_layout_inverts_compile(asia_model):
    net = compile_network(asia_model, "dysp")
    cpds = cpds_from_layout(net.layout, net.log_cpt, net.states, log=True)
    for cpd in cpds:
        ref = asia_model.get_cpds(cpd.variable)
        assert cpd.variables == ref.variables
        assert cpd.state_names == ref.state_names
        assert_allclose(cpd.values, ref.values, rtol=1e-14)
    with pytest.raises(ValueError, match="states has no entry for 'dysp'"):
        cpds_from_layout(net.layout, net.log_cpt, {k: v for k, v in net.states.items() if k != "dysp"}, log=True)


def test_em_style_round_trip_latent_class(asia_df):
    """E-step on unique rows + M-step through the layout + CPDs: one EM iteration gives a valid model, and the
    log-likelihood does not decrease over a few iterations (EM's monotonicity)."""
    data = encode(asia_df)
    feats = list(data.columns)
    parents = {"H": [], **{f: ["H"] for f in feats}}
    layout = NetworkLayout.build(parents, {"H": 3, **dict(zip(feats, data.cards.tolist()))}, data.columns, "H")
    rng = np.random.default_rng(0)
    probs = layout.normalize(rng.random(layout.size))
    u = unique_rows(data.codes, data.cards)
    lls = []
    for _ in range(5):
        res = estep_accumulate(layout, np.log(probs), u.codes, u.counts)
        lls.append(res.loglik)
        probs = layout.normalize(res.counts)
    assert all(b >= a - 1e-9 for a, b in zip(lls, lls[1:]))
    states = {"H": ["c0", "c1", "c2"], **data.state_names}
    model = DiscreteBayesianNetwork()
    model.add_nodes_from(["H", *feats])
    model.add_edges_from([("H", f) for f in feats])
    model.add_cpds(*cpds_from_layout(layout, probs, states))
    assert model.check_model()


@pytest.mark.parametrize("alpha", [0.0, 0.5, 1.0])
def test_stacked_normalisation_equals_normalize_columns(alpha):
    """Issue 25: network_tables normalises every table of one shape at once; the numbers are normalize_columns',
    bit for bit (row counts from 1 to 12, all-zero columns included)."""
    from pgmpy_ext.models._build import normalize_stacked_columns
    from pgmpy_ext.utils import normalize_columns

    rng = np.random.default_rng(int(alpha * 10))
    for r in (1, 2, 3, 7, 8, 9, 12):
        for q in (1, 2, 5):
            stack = rng.integers(0, 4, (20, r, q)).astype(float) * rng.random((20, r, q))
            stack[3, :, 0] = 0.0  # an unseen parent configuration
            got = normalize_stacked_columns(stack, alpha)
            for k in range(stack.shape[0]):
                np.testing.assert_array_equal(got[k], normalize_columns(stack[k], alpha))


@pytest.mark.parametrize("weighted", [False, True])
def test_network_tables_grouped_counting_equals_per_node(weighted):
    """Issue 25: network_tables counts a large group of families with one parent list in one pass (a naive Bayes
    part), the rest together, given counts as they are: every table equals cpds_from_counts on family_counts of
    that node, bit for bit (mixed cardinalities within the group, missing cells, a parent-only node)."""
    from pgmpy_ext.models import network_tables
    from pgmpy_ext.models._build import _SHARED_PARENTS_MIN

    rng = np.random.default_rng(5)
    n, m = 400, _SHARED_PARENTS_MIN + 6
    cols = {"C": rng.integers(0, 3, n)}
    for j in range(m):
        cols[f"f{j}"] = rng.integers(0, 2 + j % 4, n)
    df = pd.DataFrame(cols)
    df.iloc[rng.integers(0, n, 30), rng.integers(1, m, 30)] = np.nan
    df = df.astype("Int64").astype("category")
    data = encode(df, missing="skip")
    w = rng.random(n) if weighted else None
    parents = {"C": []}
    parents.update({f"f{j}": ["C"] for j in range(m - 4)})
    parents.update({f"f{m - 4}": ["C", "f0"], f"f{m - 3}": ["f1"], f"f{m - 2}": ["f0", "C"]})  # f{m-1}: parent-only
    parents[f"f{m - 3}"] = ["f1", f"f{m - 1}"]
    given = {"f1": family_counts(data, "f1", ["C"]) + 1.0}
    nt = network_tables(parents, data, counts=given, alpha=0.5, weights=w)
    assert nt.nodes == [*parents, f"f{m - 1}"]
    for node in nt.nodes:
        pa = sorted_parents(parents.get(node, []))
        assert nt.parents[node] == pa
        counts = given[node] if node in given else family_counts(data, node, pa, sort_parents=False, weights=w)
        ref = cpds_from_counts({node: counts}, {node: pa}, data.state_names, alpha=0.5)[0].get_values()
        assert_array_equal(nt.tables[node], ref)

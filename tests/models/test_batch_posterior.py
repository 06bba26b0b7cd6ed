"""BatchPosterior / compile_network: equal to pgmpy VariableElimination row by row, for any CPD layout."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from pgmpy_ext._compat import DiscreteBayesianNetwork, TabularCPD, VariableElimination
from pgmpy_ext.data import encode
from pgmpy_ext.models import BatchPosterior, build_network, compile_network


def ve_posterior(model, target, row: dict, classes: list) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        q = VariableElimination(model).query([target], evidence=row, show_progress=False)
    names = q.state_names[target]
    return np.array([q.values[names.index(s)] for s in classes])


def random_network(seed: int, *, latent: bool = False) -> DiscreteBayesianNetwork:
    """Mixed cardinalities (1-5), node names of several types, CPD evidence in random (unsorted) order, states of
    several types in a shuffled order, random (strictly positive) probabilities."""
    rng = np.random.default_rng(seed)
    names = ["a", 7, ("t", 1), "d-e", 3, "z"]
    kinds = [["lo", "mid", "hi"], [0, 1, 2, 3], [False, True], ["<=50K", ">50K"], [10, 20, 30, 40, 50], ["only"]]
    states = {}
    for n, st in zip(names, kinds):
        st = list(st)
        rng.shuffle(st)
        states[n] = [s.item() if isinstance(s, np.generic) else s for s in st]
    order = [names[i] for i in rng.permutation(len(names))]
    model = DiscreteBayesianNetwork()
    model.add_nodes_from(order)
    cpds = []
    for i, v in enumerate(order):
        k = int(rng.integers(0, min(3, i) + 1))
        pa = [order[j] for j in rng.choice(i, size=k, replace=False)] if k else []
        model.add_edges_from([(p, v) for p in pa])
        r, q = len(states[v]), int(np.prod([len(states[p]) for p in pa], dtype=int))
        vals = rng.dirichlet(np.ones(r), size=q).T
        sn = {v: states[v], **{p: states[p] for p in pa}}
        cpds.append(TabularCPD(v, r, vals, evidence=pa or None, evidence_card=[len(states[p]) for p in pa] or None,
                               state_names=sn))
    model.add_cpds(*cpds)
    if latent:
        model.latents = {order[0]}
    assert model.check_model()
    return model


def random_rows(model, n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    cols = {}
    for v in model.nodes():
        st = model.get_cpds(v).state_names[v]
        picks = rng.integers(0, len(st), size=n)
        col = np.empty(n, dtype=object)
        col[:] = [st[i] for i in picks]
        cols[v] = col
    return pd.DataFrame(cols)


@pytest.mark.parametrize("target", ["asia", "tub", "smoke", "lung", "bronc", "either", "xray", "dysp"])
def test_asia_every_target_matches_variable_elimination(asia_model, asia_df, target):
    bp = BatchPosterior(asia_model, target)
    rows = asia_df.iloc[:25]
    proba = bp.predict_proba(rows)
    assert proba.shape == (25, 2)
    for i in range(len(rows)):
        ev = {c: rows[c].iloc[i] for c in bp.features}
        assert_allclose(proba[i], ve_posterior(asia_model, target, ev, bp.classes), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2, 3], ids=lambda s: f"seed{s}")
def test_random_network_every_target_matches_variable_elimination(seed):
    model = random_network(seed)
    df = random_rows(model, 12, seed + 100)
    for target in model.nodes():
        bp = BatchPosterior(model, target)
        proba = bp.predict_proba(df)
        for i in range(len(df)):
            ev = {c: df[c].iloc[i] for c in bp.features}
            assert_allclose(proba[i], ve_posterior(model, target, ev, bp.classes), rtol=1e-9, atol=1e-12)


def test_int_and_bool_states_with_typed_columns():
    df = pd.DataFrame({"c": [0, 1, 2, 1, 0, 2, 2, 1], "x": [True, False, True, True, False, False, True, True],
                       "k": [5, 5, 6, 6, 5, 6, 5, 5]})
    model = build_network({"c": [], "x": ["c"], "k": ["c", "x"]}, encode(df), alpha=1.0)
    assert model.get_cpds("c").state_names["c"] == [0, 1, 2]
    for target in ["c", "x", "k"]:
        bp = BatchPosterior(model, target)
        proba = bp.predict_proba(df)
        for i in range(len(df)):
            ev = {c: df[c].iloc[i].item() for c in bp.features}
            assert_allclose(proba[i], ve_posterior(model, target, ev, bp.classes), rtol=1e-9, atol=1e-12)
    bp = BatchPosterior(model, "c")
    assert bp.classes == [0, 1, 2]
    assert all(type(v) is int for v in bp.predict(df))
    # "1" (str) is not the state 1 (int), True is not 1
    with pytest.raises(ValueError, match=r"Column 'k' has value '5' at row 0 that is not a state of this node"):
        bp.predict_proba(df.assign(k=df["k"].astype(str)))


def test_latent_target_matches_variable_elimination():
    """Latent-class model: the cluster variable H never appears in the data."""
    rng = np.random.default_rng(5)
    feats = {"f1": 3, "f2": 2, "f3": 4}
    model = DiscreteBayesianNetwork([("H", f) for f in feats] + [("f1", "f2")], latents={"H"})
    cpds = [TabularCPD("H", 3, rng.dirichlet(np.ones(3))[:, None], state_names={"H": ["c0", "c1", "c2"]})]
    for f, card in feats.items():
        ev = ["f1", "H"] if f == "f2" else ["H"]
        evc = [3, 3] if f == "f2" else [3]
        cpds.append(TabularCPD(f, card, rng.dirichlet(np.ones(card), size=int(np.prod(evc))).T, evidence=ev,
                               evidence_card=evc, state_names={f: list(range(card)), "H": ["c0", "c1", "c2"],
                                                               **({"f1": [0, 1, 2]} if f == "f2" else {})}))
    model.add_cpds(*cpds)
    assert model.check_model()
    df = pd.DataFrame({f: rng.integers(0, c, size=30) for f, c in feats.items()})
    bp = BatchPosterior(model, "H")
    assert bp.features == ["f1", "f2", "f3"]
    assert bp.classes == ["c0", "c1", "c2"]
    proba = bp.predict_proba(df)
    for i in range(len(df)):
        ev = {f: int(df[f].iloc[i]) for f in feats}
        assert_allclose(proba[i], ve_posterior(model, "H", ev, bp.classes), rtol=1e-9, atol=1e-12)


def test_log_likelihood_log_proba_and_log_joint(asia_model, asia_df):
    bp = BatchPosterior(asia_model, "dysp")
    rows = asia_df.iloc[:10]
    lj = bp.log_joint(rows)
    ll = bp.log_likelihood(rows)
    for i in range(len(rows)):
        full = {c: rows[c].iloc[i] for c in rows.columns}
        joint = [asia_model.get_state_probability({**full, "dysp": s}) for s in bp.classes]
        assert_allclose(np.exp(lj[i]), joint, rtol=1e-9)
        assert_allclose(np.exp(ll[i]), sum(joint), rtol=1e-9)
    assert_allclose(np.exp(bp.log_proba(rows)), bp.predict_proba(rows), rtol=1e-12)


def test_predict_is_argmax_in_class_order(asia_model, asia_df):
    bp = BatchPosterior(asia_model, "either")
    rows = asia_df.iloc[:50]
    proba = bp.predict_proba(rows)
    assert_array_equal(bp.predict(rows), np.array(bp.classes, dtype=object)[proba.argmax(axis=1)])


def test_evidence_order_and_state_order_inside_cpds_do_not_matter():
    """A child CPD whose evidence is unsorted and whose copy of a parent's states is permuted (invalid for
    check_model, but well defined) gives the same answers as the canonical model."""
    sn_a, sn_b = ["x", "y"], [0, 1, 2]
    canon = DiscreteBayesianNetwork([("A", "C"), ("B", "C")])
    vals = np.random.default_rng(0).dirichlet(np.ones(2), size=6).T  # (C, A, B) C-order: columns over (A, B)
    canon.add_cpds(TabularCPD("A", 2, [[0.3], [0.7]], state_names={"A": sn_a}),
                   TabularCPD("B", 3, [[0.2], [0.3], [0.5]], state_names={"B": sn_b}),
                   TabularCPD("C", 2, vals, evidence=["A", "B"], evidence_card=[2, 3],
                              state_names={"C": ["n", "y"], "A": sn_a, "B": sn_b}))
    # same CPD written with evidence (B, A) and B's states listed as [2, 0, 1]
    v3 = vals.reshape(2, 2, 3).transpose(0, 2, 1)[:, [2, 0, 1], :]
    other = DiscreteBayesianNetwork([("A", "C"), ("B", "C")])
    other.add_cpds(canon.get_cpds("A").copy(), canon.get_cpds("B").copy(),
                   TabularCPD("C", 2, v3.reshape(2, 6), evidence=["B", "A"], evidence_card=[3, 2],
                              state_names={"C": ["n", "y"], "A": sn_a, "B": [2, 0, 1]}))
    df = pd.DataFrame({"A": ["x", "y", "y", "x"], "B": [0, 1, 2, 2], "C": ["n", "y", "n", "y"]})
    for target in ["A", "B", "C"]:
        assert_allclose(BatchPosterior(other, target).predict_proba(df),
                        BatchPosterior(canon, target).predict_proba(df), rtol=1e-13)
    net = compile_network(other, "A")
    assert net.layout.families[net.layout.node_index("C")] == ("C", "B", "A")
    assert_allclose(net.tables()["C"], vals.reshape(2, 2, 3).transpose(0, 2, 1), rtol=1e-13)


def test_encoded_data_input_with_other_state_order(asia_model, asia_df):
    bp = BatchPosterior(asia_model, "dysp")  # asia's CPDs list states as ['yes', 'no']
    data = encode(asia_df.iloc[:40])  # category order ['no', 'yes']
    assert data.states[data.index("xray")] == ["no", "yes"]
    assert_array_equal(bp.predict_proba(data), bp.predict_proba(asia_df.iloc[:40]))
    # a state the model does not know
    bad = encode(pd.DataFrame({c: ["maybe"] if c == "xray" else ["yes"] for c in asia_df.columns}))
    with pytest.raises(ValueError, match=r"Column 'xray' has value 'maybe' at row 0 that is not a state"):
        bp.predict_proba(bad)


def test_unseen_state_and_missing_column_errors(asia_model, asia_df):
    bp = BatchPosterior(asia_model, "dysp")
    rows = asia_df.iloc[:3].astype(object)
    rows.loc[rows.index[2], "smoke"] = "sometimes"
    with pytest.raises(ValueError, match=r"Column 'smoke' has value 'sometimes' at row 2 that is not a state of "
                                         r"this node in the model \(known: \['yes', 'no'\]\)"):
        bp.predict_proba(rows)
    with pytest.raises(ValueError, match=r"the data lacks columns \['xray'\]"):
        bp.predict_proba(asia_df.drop(columns=["xray"]))
    with pytest.raises(ValueError, match="target 'nope' is not a node of the model"):
        BatchPosterior(asia_model, "nope")
    with pytest.raises(ValueError, match=r"missing == 'drop', must be one of"):
        BatchPosterior(asia_model, "dysp", missing="drop")
    with pytest.raises(TypeError, match="X must be a pandas DataFrame or an EncodedData"):
        bp.predict_proba(np.zeros((2, 7)))
    nocpd = DiscreteBayesianNetwork([("a", "b")])
    with pytest.raises(ValueError, match="node 'a' has no CPD"):
        BatchPosterior(nocpd, "b")


def test_missing_leaves_are_summed_out_with_skip(asia_df):
    nb = build_network({"dysp": [], **{c: ["dysp"] for c in asia_df.columns if c != "dysp"}}, encode(asia_df),
                       alpha=1.0)
    rows = asia_df.iloc[:8].astype(object)
    rows.iloc[0, rows.columns.get_loc("xray")] = None
    rows.iloc[3, rows.columns.get_loc("smoke")] = np.nan
    rows.iloc[3, rows.columns.get_loc("asia")] = None
    with pytest.raises(ValueError, match="Column 'asia' has a missing value"):
        BatchPosterior(nb, "dysp").predict_proba(rows)
    bp = BatchPosterior(nb, "dysp", missing="skip")
    proba = bp.predict_proba(rows)
    for i in range(len(rows)):
        ev = {c: rows[c].iloc[i] for c in bp.features if not pd.isna(rows[c].iloc[i])}
        assert_allclose(proba[i], ve_posterior(nb, "dysp", ev, bp.classes), rtol=1e-9, atol=1e-12)


def test_missing_parent_with_observed_child_is_summed_out_exactly(asia_model, asia_df):
    """missing="skip" sums a missing node out exactly even when its children are observed (asia's smoke: lung and
    bronc observed): the posterior equals VariableElimination with smoke left out of the evidence."""
    rows = asia_df.iloc[:2].astype(object)
    rows.iloc[1, rows.columns.get_loc("smoke")] = None
    got = BatchPosterior(asia_model, "dysp", missing="skip").predict_proba(rows)
    ev = {c: v for c, v in rows.iloc[1].items() if c != "dysp" and v is not None}
    q = VariableElimination(asia_model).query(["dysp"], evidence=ev, show_progress=False)
    want = np.asarray(q.values)[[q.state_names["dysp"].index(c) for c in BatchPosterior(asia_model, "dysp").classes]]
    np.testing.assert_allclose(got[1], want, rtol=1e-9)
    np.testing.assert_allclose(got[0], BatchPosterior(asia_model, "dysp").predict_proba(rows.iloc[:1])[0], rtol=1e-12)


def test_zero_probability_rows_warn_and_are_nan(asia_model):
    bp = BatchPosterior(asia_model, "dysp")
    row = {"asia": "no", "tub": "yes", "smoke": "no", "lung": "no", "bronc": "no", "either": "no", "xray": "no"}
    df = pd.DataFrame([row, {**row, "either": "yes"}])
    with pytest.warns(RuntimeWarning, match=r"1 row\(s\) have probability 0 under the model"):
        proba = bp.predict_proba(df)
    assert np.isnan(proba[0]).all()
    assert np.isfinite(proba[1]).all()


def test_threads_give_identical_results(asia_model, asia_df):
    a = BatchPosterior(asia_model, "lung").predict_proba(asia_df)
    b = BatchPosterior(asia_model, "lung", n_jobs=2).predict_proba(asia_df)
    assert_array_equal(a, b)


def test_empty_frame_and_extra_columns(asia_model, asia_df):
    bp = BatchPosterior(asia_model, "dysp")
    assert bp.predict_proba(asia_df.iloc[:0]).shape == (0, 2)
    with_extra = asia_df.iloc[:5].assign(extra=1)
    assert_array_equal(bp.predict_proba(with_extra), bp.predict_proba(asia_df.iloc[:5]))


def test_compiled_columns_may_include_the_target_and_extras(asia_model, asia_df):
    data = encode(asia_df.assign(extra=0))
    net = compile_network(asia_model, "dysp", columns=data.columns)
    assert net.columns == data.columns
    with pytest.raises(ValueError, match=r"columns must contain every node except the target 'dysp'; missing"):
        compile_network(asia_model, "dysp", columns=["asia"])


# ----------------------------------------------------------------------------------------------- categorical codes
def _cat_frame(seed: int = 0, n: int = 50):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return pd.DataFrame({
        "A": pd.Categorical(rng.choice(["lo", "mid", "hi"], n), categories=["hi", "lo", "mid"]),
        "B": pd.Categorical(rng.integers(0, 3, n), categories=[0, 1, 2]),
        "C": pd.Categorical(np.where(y == 1, "yes", "no"), categories=["no", "yes"]),
    })


def test_categorical_codes_fast_path_equals_the_general_encoder():
    df = _cat_frame()
    bp = BatchPosterior(build_network({"C": [], "A": ["C"], "B": ["A", "C"]}, encode(df), alpha=1.0), "C")
    fast = bp.encode(df)
    assert fast.dtype == np.int32
    assert fast.flags.c_contiguous
    assert bp._category_codes(df) is not None  # the fast path was taken
    general = bp.encode(df.astype(object))  # no categories: goes through encode()
    assert bp._category_codes(df.astype(object)) is None
    assert_array_equal(fast, general)
    # categories in another order, or with an extra unused category: the general path remaps, same codes
    other = df.assign(A=df["A"].cat.reorder_categories(["mid", "lo", "hi"]),
                      B=df["B"].cat.add_categories([7]))
    assert bp._category_codes(other) is None
    assert_array_equal(bp.encode(other), general)
    assert_array_equal(bp.predict_proba(other), bp.predict_proba(df))


def test_categorical_codes_fast_path_leaves_missing_cells_to_the_general_encoder():
    df = _cat_frame()
    bp = BatchPosterior(build_network({"C": [], "A": ["C"], "B": ["C"]}, encode(df), alpha=1.0), "C")
    holes = df.copy()
    holes.loc[7, "B"] = np.nan
    assert bp._category_codes(holes) is None
    with pytest.raises(ValueError, match=r"Column 'B' has a missing value .* at row 7"):
        bp.encode(holes)
    skip = BatchPosterior(bp.model, "C", missing="skip")
    codes = skip.encode(holes)
    assert codes[7, skip.features.index("B")] == -1
    assert_array_equal(np.delete(codes, 7, axis=0), np.delete(bp.encode(df), 7, axis=0))

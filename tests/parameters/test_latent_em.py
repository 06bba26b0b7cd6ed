"""LatentEM: the pgmpy face of EM with one latent node (drop-in for pgmpy's DiscreteEM)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from pgmpy_ext._compat import DiscreteBayesianNetwork, TabularCPD
from pgmpy_ext.clustering import LatentClassEM, em_m_step, latent_class_data
from pgmpy_ext.data import encode
from pgmpy_ext.parameters import LatentEM
from pgmpy_ext.stats import latent_class_estep


def lc_data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    h = rng.integers(0, 2, n)
    return pd.DataFrame({c: np.where(rng.random(n) < 0.85, h, 1 - h) for c in "ABC"}), h


def random_cpds(model, cards, seed):
    rng = np.random.default_rng(seed)
    out = {}
    for v in model.nodes():
        par = sorted(model.get_parents(v))
        q = int(np.prod([cards[p] for p in par])) if par else 1
        out[v] = TabularCPD(v, cards[v], rng.dirichlet(np.ones(cards[v]), size=q).T, evidence=par or None,
                            evidence_card=[cards[p] for p in par] or None,
                            state_names={u: list(range(cards[u])) for u in [v, *par]})
    return out


def test_fits_inside_pgmpy_and_log_likelihood_never_decreases():
    df, _ = lc_data()
    bn = DiscreteBayesianNetwork([("H", c) for c in "ABC"], latents={"H"})
    est = LatentEM(random_state=1, max_iter=200)
    bn.fit(df, estimator=est)
    assert bn.check_model()
    assert np.all(np.diff(est.ll_trace_) >= -1e-9 * np.abs(est.ll_trace_[1:]))
    assert est.converged_
    assert sorted(c.variable for c in bn.get_cpds()) == ["A", "B", "C", "H"]


def test_one_step_equals_the_latent_class_engine():
    """From the same CPDs, one LatentEM iteration is exactly one latent-class EM step of the clustering engine."""
    df, _ = lc_data(seed=2)
    model = DiscreteBayesianNetwork([("H", c) for c in "ABC"], latents={"H"})
    init = random_cpds(model, {"H": 2, "A": 2, "B": 2, "C": 2}, seed=3)
    est = LatentEM(init_cpds=init, max_iter=1, tol=0.0)
    with pytest.warns(Warning, match="did not converge"):
        est.fit(model, df)
    enc = encode(df[list("ABC")])
    data = latent_class_data(enc.codes, enc.cards)
    lay = data.layout(2)
    theta = np.vstack([init[c].get_values() for c in "ABC"])
    res = latent_class_estep(lay, data.codes, data.weights, np.log(theta), np.log(init["H"].get_values()[:, 0]))
    new_theta, new_w = em_m_step(lay, res.counts, res.cluster_counts, 0.0)
    got = {c.variable: c.get_values() for c in est.parameters_}
    assert_allclose(got["H"][:, 0], new_w, rtol=1e-12)
    assert_allclose(np.vstack([got[c] for c in "ABC"]), new_theta, rtol=1e-12)
    assert_allclose(est.ll_trace_[0], res.loglik, rtol=1e-12)


def test_fixed_point_of_latent_class_em_is_a_fixed_point_of_latent_em():
    df, _ = lc_data(seed=4)
    lc = LatentClassEM(2, alpha=0.0, n_init=2, tol=0.0, max_iter=3000, random_state=0).fit(df)
    init = {c.variable.replace(lc.cluster_node_, "H"): c for c in lc.model_.get_cpds()}
    cpds = {}
    for v, c in init.items():
        c = c.copy()
        if v != "H":
            c = TabularCPD(v, 2, c.get_values(), evidence=["H"], evidence_card=[2],
                           state_names={v: c.state_names[v], "H": [0, 1]})
        else:
            c = TabularCPD("H", 2, c.get_values(), state_names={"H": [0, 1]})
        cpds[v] = c
    model = DiscreteBayesianNetwork([("H", c) for c in "ABC"], latents={"H"})
    est = LatentEM(init_cpds=cpds, max_iter=5, tol=1e-7).fit(model, df)
    assert est.n_iter_ == 1
    assert_allclose(est.ll_trace_[-1], lc.log_likelihood_, rtol=1e-10)


@pytest.mark.parametrize("edges", [
    [("H", "A"), ("H", "B"), ("H", "C")],
    [("H", "A"), ("H", "B"), ("A", "B"), ("H", "C")],          # latent TAN-like
    [("P", "H"), ("H", "A"), ("H", "B"), ("P", "B")],          # a latent with an observed parent
], ids=["latent_class", "latent_tan", "latent_with_parent"])
def test_same_trajectory_as_pgmpy_discrete_em_with_its_floor(edges):
    from pgmpy.parameter_estimator import DiscreteEM

    rng = np.random.default_rng(5)
    n = 120
    df = pd.DataFrame({v: rng.integers(0, 2, n) for v in "ABCP"})
    model = DiscreteBayesianNetwork(edges, latents={"H"})
    df = df[[v for v in model.nodes() if v != "H"]]
    init = random_cpds(model, dict.fromkeys("HABCP", 2), seed=6)
    ours = LatentEM(init_cpds=init, max_iter=6, tol=0.0, min_prob=1e-10)
    with pytest.warns(Warning, match="did not converge"):
        ours.fit(model, df)
    theirs = DiscreteEM(init_cpds={v: c.copy() for v, c in init.items()}, max_iter=6, atol=0.0,
                        show_progress=False).fit(model, df)
    for a, b in zip(ours.parameters_, theirs.parameters_):
        assert a.variable == b.variable
        assert_allclose(a.get_values(), b.get_values(), rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize(("model", "df", "match"), [
    (DiscreteBayesianNetwork([("H", "A"), ("G", "A")], latents={"H", "G"}), pd.DataFrame({"A": [0, 1]}),
     "exactly one latent node"),
    (DiscreteBayesianNetwork([("H", "A"), ("H", "B")], latents={"H"}), pd.DataFrame({"A": [0, 1], "B": [1, None]}),
     "column 'B' is missing at row 1"),
], ids=["two_latents", "missing_cell"])
def test_clear_errors(model, df, match):
    before = df.copy()
    with pytest.raises(ValueError, match=match):
        LatentEM().fit(model, df)
    pd.testing.assert_frame_equal(df, before)

"""Posterior kernels: hand-computed cases, hypothesis properties against the numpy reference, invariants, errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from pgmpy_ext._core import _posterior
from pgmpy_ext.stats import (
    HIDDEN,
    NetworkLayout,
    conditional_log_likelihood,
    estep_accumulate,
    log_joint_batch,
    posterior_batch,
    unique_rows,
)
from tests.reference_posterior import cll_ref, estep_ref, log_joint_brute_force_ref, log_joint_ref, posterior_ref

# ----------------------------------------------------------------------------------------------- hand-computed
# Naive Bayes: class C (K=2) with features A (3 states, column 1) and B (2 states, column 0).
NB_PARENTS = {"C": [], "A": ["C"], "B": ["C"]}
NB_CARDS = {"C": 2, "A": 3, "B": 2}
NB_TABLES = {
    "C": [0.6, 0.4],
    "A": [[0.5, 0.1], [0.3, 0.1], [0.2, 0.8]],  # (A, C): P(A | C=0) = .5 .3 .2, P(A | C=1) = .1 .1 .8
    "B": [[0.9, 0.2], [0.1, 0.8]],
}


def nb_layout():
    return NetworkLayout.build(NB_PARENTS, NB_CARDS, ["B", "A"], "C")


def test_layout_arrays_hand():
    lay = nb_layout()
    assert lay.nodes == ("C", "A", "B")
    assert_array_equal(lay.fam_offsets, [0, 1, 3, 5])
    assert_array_equal(lay.fam_cols, [HIDDEN, 1, HIDDEN, 0, HIDDEN])
    assert_array_equal(lay.fam_cards, [2, 3, 2, 2, 2])
    assert_array_equal(lay.fam_strides, [1, 2, 1, 2, 1])
    assert_array_equal(lay.tab_offsets, [0, 2, 8, 12])
    assert_array_equal(lay.h_stride, [1, 1, 1])
    assert lay.size == 12
    assert lay.hidden_card == 2


def test_nb_posterior_hand():
    lay = nb_layout()
    log_cpt = lay.pack(NB_TABLES, log=True)
    # row (B=1, A=2): p(C=0, x) = .6 * .2 * .1 = .012 ; p(C=1, x) = .4 * .8 * .8 = .256 ; p(x) = .268
    # row (B=0, A=0): p(C=0, x) = .6 * .5 * .9 = .27  ; p(C=1, x) = .4 * .1 * .2 = .008 ; p(x) = .278
    X = np.array([[1, 2], [0, 0]], dtype=np.int32)
    assert_allclose(np.exp(log_joint_batch(lay, log_cpt, X)), [[0.012, 0.256], [0.27, 0.008]], rtol=1e-13)
    resp, ll = posterior_batch(lay, log_cpt, X)
    assert_allclose(resp, [[3 / 67, 64 / 67], [135 / 139, 4 / 139]], rtol=1e-13)
    assert_allclose(ll, np.log([0.268, 0.278]), rtol=1e-13)


def test_nb_estep_hand_weighted():
    lay = nb_layout()
    log_cpt = lay.pack(NB_TABLES, log=True)
    X = np.array([[1, 2], [0, 0]], dtype=np.int32)
    res = estep_accumulate(lay, log_cpt, X, weights=[2.0, 0.5], return_resp=True)
    assert_allclose(res.loglik, 2 * np.log(0.268) + 0.5 * np.log(0.278), rtol=1e-13)
    c = lay.unpack(res.counts)
    p1, p2 = np.array([3 / 67, 64 / 67]), np.array([135 / 139, 4 / 139])
    assert_allclose(c["C"], 2 * p1 + 0.5 * p2, rtol=1e-13)
    expected_a = np.zeros((3, 2))
    expected_a[2] += 2 * p1
    expected_a[0] += 0.5 * p2
    assert_allclose(c["A"], expected_a, rtol=1e-13, atol=1e-15)
    assert_allclose(c["B"][1], 2 * p1, rtol=1e-13)
    assert_allclose(c["B"][0], 0.5 * p2, rtol=1e-13)
    assert_allclose(res.resp, [p1, p2], rtol=1e-13)
    assert res.n_zero == 0


def test_nb_cll_hand():
    lay = nb_layout()
    log_cpt = lay.pack(NB_TABLES, log=True)
    X = np.array([[1, 2], [0, 0]], dtype=np.int32)
    res = conditional_log_likelihood(lay, log_cpt, X, [1, 1], weights=[1.0, 3.0], return_posterior=True,
                                     return_gradient=True)
    assert_allclose(res.cll, np.log(64 / 67) + 3 * np.log(4 / 139), rtol=1e-13)
    g = lay.unpack(res.gradient)
    # class block: row 1 (y=1): (0 - 3/67, 1 - 64/67); row 2 (y=1, w=3): 3 * (0 - 135/139, 1 - 4/139)
    assert_allclose(g["C"], [-3 / 67 - 3 * 135 / 139, 3 / 67 + 3 * 135 / 139], rtol=1e-13)
    assert_allclose(g["A"][2], [-3 / 67, 3 / 67], rtol=1e-13)
    assert_allclose(g["A"][0], [-3 * 135 / 139, 3 * 135 / 139], rtol=1e-13)
    assert_allclose(g["A"][1], [0.0, 0.0])
    assert_allclose(res.posterior, [[3 / 67, 64 / 67], [135 / 139, 4 / 139]], rtol=1e-13)


def test_hidden_with_parent_hand():
    """A -> H -> B with H hidden: H's block is (H, A), so H has stride 2 there."""
    lay = NetworkLayout.build({"A": [], "H": ["A"], "B": ["H"]}, {"A": 2, "H": 2, "B": 2}, ["A", "B"], "H")
    assert_array_equal(lay.h_stride, [0, 2, 1])  # B's block is (B, H): H last, stride 1
    log_cpt = lay.pack({"A": [0.3, 0.7], "H": [[0.9, 0.4], [0.1, 0.6]], "B": [[0.8, 0.3], [0.2, 0.7]]}, log=True)
    # row (A=1, B=0): p(h=0, x) = .7 * .4 * .8 = .224 ; p(h=1, x) = .7 * .6 * .3 = .126 ; p(x) = .35
    res = estep_accumulate(lay, log_cpt, np.array([[1, 0]]), return_resp=True)
    assert_allclose(res.resp, [[0.64, 0.36]], rtol=1e-13)
    assert_allclose(res.loglik, np.log(0.35), rtol=1e-13)
    c = lay.unpack(res.counts)
    assert_array_equal(c["A"], [0.0, 1.0])  # no H in the family: exactly the weight
    assert_allclose(c["H"], [[0.0, 0.64], [0.0, 0.36]], rtol=1e-13, atol=0)
    assert_allclose(c["B"], [[0.64, 0.36], [0.0, 0.0]], rtol=1e-13, atol=0)


def test_cardinality_one_and_empty():
    lay = NetworkLayout.build({"C": [], "A": ["C"]}, {"C": 1, "A": 1}, ["A"], "C")
    log_cpt = lay.pack({"C": [1.0], "A": [[1.0]]}, log=True)
    resp, ll = posterior_batch(lay, log_cpt, np.zeros((3, 1), dtype=np.int32))
    assert_array_equal(resp, np.ones((3, 1)))
    assert_array_equal(ll, np.zeros(3))
    res = estep_accumulate(lay, log_cpt, np.zeros((0, 1), dtype=np.int32), return_resp=True)
    assert res.loglik == 0.0
    assert res.resp.shape == (0, 1)
    assert_array_equal(res.counts, np.zeros(2))
    assert log_joint_batch(lay, log_cpt, np.zeros((0, 1), dtype=np.int32)).shape == (0, 1)


def test_zero_probability_row_is_nan_and_counted():
    lay = NetworkLayout.build({"C": [], "A": ["C"]}, {"C": 2, "A": 2}, ["A"], "C")
    log_cpt = lay.pack({"C": [0.5, 0.5], "A": [[1.0, 1.0], [0.0, 0.0]]}, log=True)
    X = np.array([[0], [1]], dtype=np.int32)
    res = estep_accumulate(lay, log_cpt, X, return_resp=True)
    assert res.n_zero == 1
    assert res.loglik == -np.inf
    assert np.isnan(res.resp[1]).all()
    assert_allclose(res.resp[0], [0.5, 0.5], rtol=1e-13)
    assert_array_equal(lay.unpack(res.counts)["A"], [[0.5, 0.5], [0.0, 0.0]])
    # a zero-weight impossible row changes nothing
    res0 = estep_accumulate(lay, log_cpt, X, weights=[1.0, 0.0])
    assert res0.loglik == pytest.approx(np.log(1.0))
    assert res0.n_zero == 1
    cll = conditional_log_likelihood(lay, log_cpt, X, [0, 0], return_posterior=True)
    assert cll.cll == -np.inf
    assert cll.n_zero == 1
    assert np.isnan(cll.posterior[1]).all()
    resp, ll = posterior_batch(lay, log_cpt, X)
    assert ll[1] == -np.inf
    assert np.isnan(resp[1]).all()


def test_missing_values_policy_hand():
    lay = nb_layout()
    log_cpt = lay.pack(NB_TABLES, log=True)
    X = np.array([[1, -1], [-1, -1]], dtype=np.int32)
    with pytest.raises(ValueError, match=r"row 0: 'A' \(family of 'A'\) is missing"):
        log_joint_batch(lay, log_cpt, X)
    lj = log_joint_batch(lay, log_cpt, X, skip_missing=True)
    # row 0: A summed out -> p(C, B=1) = (.6 * .1, .4 * .8); row 1: everything summed out -> p(C)
    assert_allclose(np.exp(lj), [[0.06, 0.32], [0.6, 0.4]], rtol=1e-13)
    res = estep_accumulate(lay, log_cpt, X, skip_missing=True)
    c = lay.unpack(res.counts)
    assert_allclose(c["A"].sum(), 0.0)  # A never observed: no expected counts
    assert_allclose(c["B"].sum(), 1.0)  # B observed once
    assert_allclose(c["C"].sum(), 2.0)


def test_missing_parent_of_observed_child_raises():
    lay = NetworkLayout.build({"A": [], "H": ["A"], "B": ["H", "A"]}, {"A": 2, "H": 2, "B": 2}, ["A", "B"], "H")
    log_cpt = lay.pack({"A": [0.5, 0.5], "H": [[0.5, 0.5], [0.5, 0.5]],
                        "B": np.full((2, 2, 2), 0.5)}, log=True)
    # A's children are H (never missing) and B: A cannot be summed out by dropping its factor
    with pytest.raises(ValueError, match=r"row 0: parent 'A' of 'H' is missing but 'H' is not"):
        log_joint_batch(lay, log_cpt, np.array([[-1, 0]], dtype=np.int32), skip_missing=True)
    with pytest.raises(ValueError, match=r"row 0: parent 'A' of 'H' is missing"):
        log_joint_batch(lay, log_cpt, np.array([[-1, -1]], dtype=np.int32), skip_missing=True)
    # the leaf B missing is fine: p(h, A=0) = .5 * .5
    lj = log_joint_batch(lay, log_cpt, np.array([[0, -1]], dtype=np.int32), skip_missing=True)
    assert_allclose(np.exp(lj), [[0.25, 0.25]], rtol=1e-13)


# ------------------------------------------------------------------------------------------ random networks
@st.composite
def networks(draw, max_vars: int = 4, naive_bayes: bool = False, zeros: bool = False):
    """A random network over H and 1..max_vars observed variables (cards 1-8), rows, weights, class codes."""
    m = draw(st.integers(1, max_vars))
    K = draw(st.integers(1, 8))
    cards = {"H": K, **{f"X{i}": draw(st.integers(1, 8)) for i in range(m)}}
    n = draw(st.integers(0, 300))
    weighted = draw(st.booleans())
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    names = ["H"] + [f"X{i}" for i in range(m)]
    families = {}
    if naive_bayes:
        families["H"] = ("H",)
        for v in names[1:]:
            families[v] = (v, "H")
    else:
        order = [names[i] for i in rng.permutation(len(names))]
        for i, v in enumerate(order):
            k = int(rng.integers(0, min(2, i) + 1))
            pa = [order[j] for j in rng.choice(i, size=k, replace=False)] if k else []
            families[v] = (v, *pa)
    tables = {}
    for v, fam in families.items():
        shape = [cards[u] for u in fam]
        t = rng.dirichlet(np.ones(shape[0]), size=int(np.prod(shape[1:], dtype=int))).T
        if zeros:
            t[rng.random(t.shape) < 0.25] = 0.0
            dead = t.sum(axis=0) == 0
            t[0, dead] = 1.0
            t = t / t.sum(axis=0, keepdims=True)
        tables[v] = t.reshape(shape)
    n_cols = m + int(rng.integers(0, 2))
    perm = rng.permutation(n_cols)
    col_of = {f"X{i}": int(perm[i]) for i in range(m)}
    columns = [f"extra{k}" for k in range(n_cols)]
    for v, c in col_of.items():
        columns[c] = v
    codes = np.zeros((n, n_cols), dtype=np.int32)
    for c in range(n_cols):
        card = cards.get(columns[c], 3)
        codes[:, c] = rng.integers(0, card, size=n)
    weights = None
    if weighted:
        weights = rng.random(n) * 3
        weights[rng.random(n) < 0.1] = 0.0
    y = rng.integers(0, K, size=n).astype(np.int32)
    parents = {v: fam[1:] for v, fam in families.items()}
    layout = NetworkLayout.build(parents, cards, columns, "H")
    return {"layout": layout, "families": families, "tables": tables, "col_of": col_of, "K": K, "codes": codes,
                "weights": weights, "y": y, "cards": cards, "rng": rng}


def _ref_args(net):
    return net["families"], net["tables"], net["col_of"], "H", net["K"]


@given(networks(zeros=True))
def test_log_joint_matches_reference(net):
    lay = net["layout"]
    log_cpt = lay.pack(net["tables"], log=True)
    got = log_joint_batch(lay, log_cpt, net["codes"])
    assert_allclose(got, log_joint_ref(net["codes"], *_ref_args(net)), rtol=1e-12)


@given(networks(zeros=True))
def test_posterior_matches_reference_and_sums_to_one(net):
    lay = net["layout"]
    log_cpt = lay.pack(net["tables"], log=True)
    resp, ll = posterior_batch(lay, log_cpt, net["codes"])
    ref_resp, ref_ll = posterior_ref(net["codes"], *_ref_args(net))
    assert_allclose(resp, ref_resp, rtol=1e-12, atol=1e-15, equal_nan=True)
    assert_allclose(ll, ref_ll, rtol=1e-12, atol=1e-12)  # log-likelihoods near 0 (e.g. 1.7e-16) need an atol
    ok = np.isfinite(ll)
    assert_allclose(resp[ok].sum(axis=1), 1.0, rtol=1e-12)


@given(networks(zeros=True))
def test_estep_matches_reference(net):
    lay = net["layout"]
    log_cpt = lay.pack(net["tables"], log=True)
    res = estep_accumulate(lay, log_cpt, net["codes"], net["weights"], return_resp=True)
    ll, counts, resp, n_zero = estep_ref(net["codes"], *_ref_args(net), weights=net["weights"])
    assert res.n_zero == n_zero
    assert_allclose(res.loglik, ll, rtol=1e-12, atol=1e-12)
    assert_allclose(res.resp, resp, rtol=1e-12, atol=1e-15, equal_nan=True)
    got = lay.unpack(res.counts)
    for node in lay.nodes:
        assert_allclose(got[node], counts[node], rtol=1e-12, atol=1e-12)


@given(networks())
def test_expected_counts_sum_to_total_weight(net):
    lay = net["layout"]
    log_cpt = lay.pack(net["tables"], log=True)
    res = estep_accumulate(lay, log_cpt, net["codes"], net["weights"])
    total = net["codes"].shape[0] if net["weights"] is None else net["weights"].sum()
    for node, block in lay.unpack(res.counts).items():
        assert_allclose(block.sum(), total, rtol=1e-12, atol=1e-12)


@given(networks(zeros=True))
def test_cll_matches_reference(net):
    lay = net["layout"]
    log_cpt = lay.pack(net["tables"], log=True)
    res = conditional_log_likelihood(lay, log_cpt, net["codes"], net["y"], net["weights"], return_posterior=True,
                                     return_gradient=True)
    cll, resp, grad, n_zero = cll_ref(net["codes"], net["y"], *_ref_args(net), weights=net["weights"])
    assert res.n_zero == n_zero
    assert_allclose(res.cll, cll, rtol=1e-12, atol=1e-12)
    assert_allclose(res.posterior, resp, rtol=1e-12, atol=1e-15, equal_nan=True)
    got = lay.unpack(res.gradient)
    for node in lay.nodes:
        assert_allclose(got[node], grad[node], rtol=1e-12, atol=1e-12)


@given(networks())
def test_cll_gradient_is_the_derivative(net):
    """Finite differences of the CLL along a random direction in log-CPT space match <gradient, direction>."""
    lay = net["layout"]
    log_cpt = lay.pack(net["tables"], log=True)
    res = conditional_log_likelihood(lay, log_cpt, net["codes"], net["y"], net["weights"], return_gradient=True)
    d = net["rng"].standard_normal(lay.size)
    eps = 1e-6
    up = conditional_log_likelihood(lay, log_cpt + eps * d, net["codes"], net["y"], net["weights"]).cll
    down = conditional_log_likelihood(lay, log_cpt - eps * d, net["codes"], net["y"], net["weights"]).cll
    assert_allclose((up - down) / (2 * eps), res.gradient @ d, rtol=1e-5, atol=1e-5)


@given(networks())
def test_row_order_invariance(net):
    lay = net["layout"]
    log_cpt = lay.pack(net["tables"], log=True)
    codes, w, y = net["codes"], net["weights"], net["y"]
    perm = net["rng"].permutation(codes.shape[0])
    a = estep_accumulate(lay, log_cpt, codes, w, return_resp=True)
    b = estep_accumulate(lay, log_cpt, codes[perm], None if w is None else w[perm], return_resp=True)
    assert_allclose(b.loglik, a.loglik, rtol=1e-12, atol=1e-12)
    assert_allclose(b.counts, a.counts, rtol=1e-12, atol=1e-12)
    assert_array_equal(b.resp, a.resp[perm])
    c1 = conditional_log_likelihood(lay, log_cpt, codes, y, w, return_gradient=True)
    c2 = conditional_log_likelihood(lay, log_cpt, codes[perm], y[perm], None if w is None else w[perm],
                                    return_gradient=True)
    assert_allclose(c2.cll, c1.cll, rtol=1e-12, atol=1e-12)
    assert_allclose(c2.gradient, c1.gradient, rtol=1e-12, atol=1e-12)


@given(networks())
def test_unique_row_compression_gives_the_same_totals(net):
    lay = net["layout"]
    log_cpt = lay.pack(net["tables"], log=True)
    codes, w, y = net["codes"], net["weights"], net["y"]
    full = estep_accumulate(lay, log_cpt, codes, w)
    card_cols = np.array([max(4, net["cards"].get(c, 4)) for c in lay.columns])
    u = unique_rows(codes, card_cols, w)
    comp = estep_accumulate(lay, log_cpt, u.codes, u.counts)
    assert_allclose(comp.loglik, full.loglik, rtol=1e-12, atol=1e-12)
    assert_allclose(comp.counts, full.counts, rtol=1e-12, atol=1e-12)
    # CLL: compress (features, class) together
    xy = np.column_stack([codes, y]).astype(np.int32)
    uxy = unique_rows(xy, np.append(card_cols, net["K"]), w)
    c_full = conditional_log_likelihood(lay, log_cpt, codes, y, w, return_gradient=True)
    c_comp = conditional_log_likelihood(lay, log_cpt, np.ascontiguousarray(uxy.codes[:, :-1]), uxy.codes[:, -1],
                                        uxy.counts, return_gradient=True)
    assert_allclose(c_comp.cll, c_full.cll, rtol=1e-12, atol=1e-12)
    assert_allclose(c_comp.gradient, c_full.gradient, rtol=1e-12, atol=1e-12)


@given(networks())
def test_threads_are_bit_identical(net):
    lay = net["layout"]
    log_cpt = lay.pack(net["tables"], log=True)
    assert_array_equal(log_joint_batch(lay, log_cpt, net["codes"], n_jobs=2),
                       log_joint_batch(lay, log_cpt, net["codes"], n_jobs=1))
    r1, l1 = posterior_batch(lay, log_cpt, net["codes"], n_jobs=1)
    r2, l2 = posterior_batch(lay, log_cpt, net["codes"], n_jobs=3)
    assert_array_equal(r1, r2)
    assert_array_equal(l1, l2)


@given(networks(naive_bayes=True, max_vars=3))
def test_skip_missing_is_exact_marginalisation_for_barren_nodes(net):
    lay = net["layout"]
    log_cpt = lay.pack(net["tables"], log=True)
    codes = net["codes"].copy()
    mask = net["rng"].random(codes.shape) < 0.3
    codes[mask] = -1
    codes = codes[:40]  # the brute-force reference enumerates completions
    got = log_joint_batch(lay, log_cpt, codes, skip_missing=True)
    ref = log_joint_brute_force_ref(codes, *_ref_args(net), net["cards"])
    assert_allclose(got, ref, rtol=1e-10, atol=1e-12)
    assert_allclose(got, log_joint_ref(codes, *_ref_args(net), skip_missing=True), rtol=1e-12)


def test_accumulate_into_existing_counts():
    lay = nb_layout()
    log_cpt = lay.pack(NB_TABLES, log=True)
    X = np.array([[1, 2], [0, 0]], dtype=np.int32)
    acc = np.zeros(lay.size)
    estep_accumulate(lay, log_cpt, X[:1], counts=acc)
    out = estep_accumulate(lay, log_cpt, X[1:], counts=acc)
    assert out.counts is acc
    assert_allclose(acc, estep_accumulate(lay, log_cpt, X).counts, rtol=1e-13)


# ------------------------------------------------------------------------------------------ layout helpers
def test_pack_unpack_normalize():
    lay = nb_layout()
    flat = lay.pack(NB_TABLES)
    back = lay.unpack(flat)
    assert_array_equal(back["A"], NB_TABLES["A"])
    assert back["A"].shape == (3, 2)
    assert_allclose(lay.unpack(lay.pack(NB_TABLES, log=True), exp=True)["B"], NB_TABLES["B"], rtol=1e-15)
    counts = lay.pack({"C": [3.0, 1.0], "A": [[2.0, 0.0], [0.0, 0.0], [2.0, 0.0]], "B": [[1.0, 0.0], [3.0, 0.0]]})
    p = lay.unpack(lay.normalize(counts))
    assert_allclose(p["C"], [0.75, 0.25])
    assert_allclose(p["A"], [[0.5, 1 / 3], [0.0, 1 / 3], [0.5, 1 / 3]])  # never-seen C=1 column: uniform
    p1 = lay.unpack(lay.normalize(counts, alpha=1.0))
    assert_allclose(p1["B"], [[2 / 6, 0.5], [4 / 6, 0.5]])
    with np.errstate(divide="ignore"):
        assert_allclose(lay.normalize(counts, log=True), np.log(lay.normalize(counts)))
    assert lay.block(flat, "B").base is not None
    assert lay.block_shape("A") == (3, 2)


def test_layout_build_errors():
    with pytest.raises(ValueError, match="neither the hidden/class variable 'C' nor a column of X"):
        NetworkLayout.build(NB_PARENTS, NB_CARDS, ["B"], "C")
    with pytest.raises(ValueError, match="cards has no cardinality for 'A'"):
        NetworkLayout.build(NB_PARENTS, {"C": 2, "B": 2}, ["B", "A"], "C")
    with pytest.raises(ValueError, match="cannot be its own parent"):
        NetworkLayout.build({"C": [], "A": ["A"]}, NB_CARDS, ["A"], "C")
    with pytest.raises(ValueError, match="repeated parents"):
        NetworkLayout.build({"C": [], "A": ["C", "C"]}, NB_CARDS, ["A"], "C")
    with pytest.raises(ValueError, match="no cardinality for the hidden/class variable 'Z'"):
        NetworkLayout.build(NB_PARENTS, NB_CARDS, ["B", "A"], "Z")
    with pytest.raises(ValueError, match="appears twice"):
        NetworkLayout.build(NB_PARENTS, NB_CARDS, ["B", "B"], "C")
    lay = nb_layout()
    with pytest.raises(ValueError, match="tables has no entry for nodes"):
        lay.pack({"C": [0.5, 0.5]})
    with pytest.raises(ValueError, match="table of 'A' has 4 entries, expected 6"):
        lay.pack({**NB_TABLES, "A": [[0.5, 0.5], [0.5, 0.5]]})
    with pytest.raises(ValueError, match=r"alpha == -1.0, must be >= 0."):
        lay.normalize(np.zeros(lay.size), alpha=-1.0)
    with pytest.raises(KeyError, match="is not a node of this layout"):
        lay.block_shape("Q")



def test_layout_is_a_block_layout_keyed_by_node():
    """NetworkLayout speaks the one flat-buffer protocol (stats._layout.BlockLayout): block v is node v's table."""
    from pgmpy_ext.stats._layout import BlockLayout
    from pgmpy_ext.utils import normalize_columns

    lay = NetworkLayout.build({"C": [], "A": ["C"], "B": ["A", "C"]}, {"C": 2, "A": 3, "B": 4}, ["A", "B"], "C")
    assert isinstance(lay, BlockLayout)
    assert lay.block_offsets is lay.tab_offsets
    assert lay.block_shapes == ((2,), (3, 2), (4, 3, 2))
    assert lay.block_shapes == tuple(lay.block_shape(n) for n in lay.nodes)
    assert (lay.n_blocks, lay.size) == (3, 2 + 6 + 24)
    rng = np.random.default_rng(0)
    tables = {n: rng.random(shape) for n, shape in zip(lay.nodes, lay.block_shapes)}
    flat = lay.pack(tables)
    assert_array_equal(flat, lay.pack_blocks([tables[n] for n in lay.nodes]))
    for n, t in lay.unpack(flat).items():
        assert_array_equal(t, tables[n])
        assert_array_equal(lay.block(flat, n), tables[n])
    counts = flat.copy()
    lay.block(counts, "B")[:, 0, 0] = 0.0  # an empty parent configuration of B (the view writes through)
    for alpha in (0.0, 0.5):
        probs = lay.normalize(counts, alpha)
        for v, n in enumerate(lay.nodes):
            r = lay.block_shapes[v][0]
            want = normalize_columns(lay.block(counts, n).reshape(r, -1), alpha)
            assert_array_equal(lay.block(probs, n).reshape(r, -1), want)
    assert_array_equal(lay.block(lay.normalize(counts), "B")[:, 0, 0], np.full(4, 0.25))
    with pytest.raises(ValueError, match=r"counts has shape \(5,\), expected \(32,\)"):
        lay.normalize(np.zeros(5))

def test_wrapper_errors_name_the_variables():
    lay = nb_layout()
    log_cpt = lay.pack(NB_TABLES, log=True)
    with pytest.raises(ValueError, match=r"row 1: code 3 of 'A' is outside 0..2 \(family of 'A'\)"):
        log_joint_batch(lay, log_cpt, np.array([[0, 0], [0, 3]]))
    with pytest.raises(ValueError, match=r"row 0: code 2 of 'B' is outside 0..1"):
        estep_accumulate(lay, log_cpt, np.array([[2, 0]]))
    with pytest.raises(ValueError, match=r"log_cpt has shape \(3,\), expected \(12,\)"):
        posterior_batch(lay, np.zeros(3), np.array([[0, 0]]))
    with pytest.raises(ValueError, match="log_cpt contains NaN"):
        posterior_batch(lay, np.full(12, np.nan), np.array([[0, 0]]))
    with pytest.raises(ValueError, match=r"y must have shape \(1,\)"):
        conditional_log_likelihood(lay, log_cpt, np.array([[0, 0]]), [0, 1])
    with pytest.raises(ValueError, match=r"y\[0\] == 2, must be a class code in 0..1"):
        conditional_log_likelihood(lay, log_cpt, np.array([[0, 0]]), [2])
    with pytest.raises(ValueError, match="weights must be a 1-D array of length n_rows = 1"):
        estep_accumulate(lay, log_cpt, np.array([[0, 0]]), weights=[1.0, 2.0])
    with pytest.raises(ValueError, match="weights must be finite and >= 0"):
        estep_accumulate(lay, log_cpt, np.array([[0, 0]]), weights=[-1.0])
    with pytest.raises(ValueError, match=r"counts must be a float64 array of shape \(12,\)"):
        estep_accumulate(lay, log_cpt, np.array([[0, 0]]), counts=np.zeros(3))
    acc = np.ones(lay.size)
    with pytest.raises(ValueError, match="outside"):
        estep_accumulate(lay, log_cpt, np.array([[0, 0], [0, 9]]), counts=acc)
    assert_array_equal(acc, np.ones(lay.size))  # untouched when the kernel raises


# ------------------------------------------------------------------------------------------ raw kernel checks
def _raw(lay):
    return [np.array(a, copy=True) for a in lay.kernel_args()]


def test_kernel_layout_checks():
    lay = nb_layout()
    log_cpt = lay.pack(NB_TABLES, log=True)
    X = np.zeros((2, 2), dtype=np.int32)
    out = np.empty((2, 2))

    def call(args, lc=log_cpt, o=out):
        _posterior.log_joint_batch(X, *args, lc, o)

    call(_raw(lay))  # the unmodified layout passes
    a = _raw(lay)
    a[3][1] = 5  # fam_strides
    with pytest.raises(ValueError, match="expected the C-order stride"):
        call(a)
    a = _raw(lay)
    a[1][1] = 7  # fam_cols
    with pytest.raises(ValueError, match="column index 7 out of range for X with 2 columns"):
        call(a)
    a = _raw(lay)
    a[1][1] = -1  # two hidden entries in A's family; the card check fires first (A has 3 states, K = 2)
    with pytest.raises(ValueError, match="hidden variable has cardinality 3"):
        call(a)
    a = _raw(lay)
    a[5][0] = 0  # h_stride
    with pytest.raises(ValueError, match=r"h_stride\[0\] == 0, expected 1"):
        call(a)
    a = _raw(lay)
    a[4][1] = 3  # tab_offsets
    with pytest.raises(ValueError, match="block length"):
        call(a)
    with pytest.raises(ValueError, match="tab_offsets must start at 0 and end at len"):
        call(_raw(lay), lc=log_cpt[:-1])
    with pytest.raises(ValueError, match="out has 3 rows, expected n_rows = 2"):
        call(_raw(lay), o=np.empty((3, 2)))
    with pytest.raises(ValueError, match="the hidden variable has cardinality 2 in the family but K == 3"):
        call(_raw(lay), o=np.empty((2, 3)))
    with pytest.raises(ValueError, match="fam_offsets has length"):
        _posterior.log_joint_batch(X, lay.fam_offsets[:-1], *lay.kernel_args()[1:], log_cpt, out)
    with pytest.raises(ValueError, match="K \\(cardinality of the hidden/class variable\\) == 0"):
        call(_raw(lay), o=np.empty((2, 0)))
    # the code matrix is a fused int8/int16/int32 memoryview: another dtype matches no specialisation
    with pytest.raises(TypeError, match="No matching signature found"):
        _posterior.log_joint_batch(X.astype(np.int64), *lay.kernel_args(), log_cpt, out)


def test_kernel_buffer_shape_checks():
    lay = nb_layout()
    log_cpt = lay.pack(NB_TABLES, log=True)
    X = np.zeros((2, 2), dtype=np.int32)
    args = lay.kernel_args()
    e0, r0 = np.empty(0), np.empty((0, 2))
    with pytest.raises(ValueError, match="weights has length 3, expected n_rows = 2"):
        _posterior.estep_accumulate(X, np.ones(3), *args, 2, log_cpt, e0, r0)
    with pytest.raises(ValueError, match="counts has length 5, expected len"):
        _posterior.estep_accumulate(X, e0, *args, 2, log_cpt, np.zeros(5), r0)
    with pytest.raises(ValueError, match=r"resp has shape \(2, 3\), expected \(2, 2\)"):
        _posterior.estep_accumulate(X, e0, *args, 2, log_cpt, e0, np.empty((2, 3)))
    y = np.zeros(2, dtype=np.int32)
    with pytest.raises(ValueError, match="y has length 1, expected n_rows = 2"):
        _posterior.conditional_log_likelihood(X, y[:1], e0, *args, 2, log_cpt, r0, e0)
    with pytest.raises(ValueError, match="grad has length 2, expected len"):
        _posterior.conditional_log_likelihood(X, y, e0, *args, 2, log_cpt, r0, np.zeros(2))
    with pytest.raises(ValueError, match="resp has 1 rows and loglik 2"):
        _posterior.posterior_batch(X, *args, log_cpt, np.empty((1, 2)), np.empty(2))
    with pytest.raises(_posterior.KernelInputError, match="row 0: column 1 .* is missing"):
        _posterior.estep_accumulate(np.array([[0, -1]], dtype=np.int32), e0, *args, 2, log_cpt, e0, r0)


# ----------------------------------------------------------------------------------------------- complete-data path
# log_joint_batch adds complete rows block by block (256 rows, node-major) and sends any block with a missing or
# out-of-range code through the generic row-by-row path. Both must give bit-identical values on complete rows.
@given(networks(naive_bayes=True, max_vars=4), st.integers(0, 255))
def test_complete_block_path_is_bit_identical_to_the_generic_path(net, offset):
    lay = net["layout"]
    log_cpt = lay.pack(net["tables"], log=True)
    codes = np.tile(net["codes"], (3, 1))  # up to 900 rows: several blocks, a partial last one
    fast = log_joint_batch(lay, log_cpt, codes)  # complete: every block on the fast path
    assert_allclose(fast, log_joint_ref(codes, *_ref_args(net)), rtol=1e-12)
    # one missing feature per block sends every block through the generic path (skip_missing sums it out)
    mixed = codes.copy()
    hit = np.arange(offset, codes.shape[0], 256)
    mixed[hit, net["col_of"]["X0"]] = -1
    generic = log_joint_batch(lay, log_cpt, mixed, skip_missing=True)
    keep = np.ones(codes.shape[0], dtype=bool)
    keep[hit] = False
    assert_array_equal(generic[keep], fast[keep])
    assert_allclose(generic, log_joint_ref(mixed, *_ref_args(net), skip_missing=True), rtol=1e-12)
    # and a missing value in only some blocks: the complete blocks stay on the fast path, same values
    part = codes.copy()
    part[hit[:1], net["col_of"]["X0"]] = -1
    assert_array_equal(log_joint_batch(lay, log_cpt, part, skip_missing=True)[keep], fast[keep])


@pytest.mark.parametrize("threads", [1, 2], ids=["1thread", "2threads"])
@pytest.mark.parametrize(("bad_code", "kind"), [(-1, "missing"), (5, "range")], ids=["missing", "out_of_range"])
def test_first_bad_row_is_reported_from_a_later_block(threads, bad_code, kind):
    lay = nb_layout()
    log_cpt = lay.pack(NB_TABLES, log=True)
    rng = np.random.default_rng(0)
    codes = np.column_stack([rng.integers(0, 2, 1000), rng.integers(0, 3, 1000)]).astype(np.int32)
    codes[[700, 900], 1] = bad_code
    with pytest.raises(ValueError, match=r"row 700\b") as info:
        _posterior.log_joint_batch(codes, *lay.kernel_args(), log_cpt, np.empty((1000, 2)), False, threads)
    assert info.value.kind == kind

"""Exact marginalisation of missing cells: the forest kernel (one-dependence networks, CL multinets) and the numpy
variable elimination, against hand values, the brute-force enumeration reference, each other and pgmpy's
``VariableElimination``."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from pgmpy_ext._compat import DiscreteBayesianNetwork, TabularCPD, VariableElimination
from pgmpy_ext._core import _marginal
from pgmpy_ext.models import compile_network, marginal_log_joint, variable_elimination_log_joint
from pgmpy_ext.stats import (
    MultinetLayout,
    NetworkLayout,
    forest_plan,
    log_joint_batch,
    log_joint_marginal,
    multinet_forest_plan,
    multinet_log_joint,
    multinet_log_joint_marginal,
)
from tests.reference_posterior import log_joint_brute_force_ref

# ----------------------------------------------------------------------------------------------- random networks


def _random_table(rng, shape, zeros=False):
    t = rng.gamma(0.7, size=shape) + 1e-3
    if zeros:
        t[rng.random(shape) < 0.15] = 0.0
        first = t[:1]  # a view: a column of zeros gets one non-zero entry
        first[np.asarray(t.sum(axis=0) == 0)[None]] = 1.0
    return t / t.sum(axis=0, keepdims=True)


def random_network(rng, n_feat, K, max_parents=1, h_parent=False, zeros=False):
    """(parents, cards, tables, columns, families): features F0..F{m-1}, class "H"; each feature has up to
    ``max_parents`` earlier features (in a random order) as parents and usually H; tables in random axis order.
    ``h_parent``: H gets a root feature (one without H) as parent. Columns: shuffled, plus an unused column "Z"."""
    names = [f"F{i}" for i in range(n_feat)]
    perm = list(rng.permutation(n_feat))
    cards = {"H": K, **{n: int(rng.integers(1, 5)) for n in names}}
    parents = {}
    no_h_roots = []
    for pos, i in enumerate(perm):
        k = int(rng.integers(0, max_parents + 1)) if pos else 0
        pa = [names[j] for j in rng.choice(perm[:pos], size=min(k, pos), replace=False)] if pos else []
        with_h = rng.random() < 0.85
        if not pa and not with_h:
            no_h_roots.append(names[i])
        if with_h:
            pa.append("H")
        parents[names[i]] = [pa[j] for j in rng.permutation(len(pa))]
    hp = [no_h_roots[0]] if h_parent and no_h_roots else []
    parents = {"H": hp, **parents}
    tables = {n: _random_table(rng, [cards[n]] + [cards[p] for p in pa], zeros) for n, pa in parents.items()}
    columns = [names[j] for j in rng.permutation(n_feat)]
    columns.insert(int(rng.integers(0, n_feat + 1)), "Z")
    return parents, cards, tables, columns


def random_codes(rng, cards, columns, n, p_missing):
    codes = np.empty((n, len(columns)), dtype=np.int32)
    for k, c in enumerate(columns):
        codes[:, k] = rng.integers(0, cards.get(c, 3), size=n)
    codes[rng.random(codes.shape) < p_missing] = -1
    return codes


def _brute(parents, cards, tables, columns, codes):
    families = {n: (n, *pa) for n, pa in parents.items()}
    col_of = {c: k for k, c in enumerate(columns) if c in cards}
    return log_joint_brute_force_ref(codes, families, tables, col_of, "H", cards["H"],
                                     {c: cards[c] for c in col_of})


def _build(parents, cards, tables, columns):
    lay = NetworkLayout.build(parents, cards, columns, "H")
    return lay, lay.pack(tables, log=True)


# ----------------------------------------------------------------------------------------------- hand cases
def test_naive_bayes_hand():
    # P(C) = (.6, .4); P(A | C) columns (.5 .3 .2), (.1 .1 .8); P(B | C) columns (.9 .1), (.2 .8)
    lay = NetworkLayout.build({"C": [], "A": ["C"], "B": ["C"]}, {"C": 2, "A": 3, "B": 2}, ["B", "A"], "C")
    log_cpt = lay.pack({"C": [0.6, 0.4], "A": [[0.5, 0.1], [0.3, 0.1], [0.2, 0.8]], "B": [[0.9, 0.2], [0.1, 0.8]]},
                       log=True)
    X = np.array([[1, -1], [-1, 2], [-1, -1], [1, 2]], dtype=np.int32)
    expect = [[0.6 * 0.1, 0.4 * 0.8], [0.6 * 0.2, 0.4 * 0.8], [0.6, 0.4], [0.6 * 0.1 * 0.2, 0.4 * 0.8 * 0.8]]
    assert_allclose(np.exp(log_joint_marginal(lay, log_cpt, X)), expect, rtol=1e-13)


def test_tan_chain_hand():
    # C -> A, B; A -> B -> D. Missing B between observed A and D: sum_b P(b | a, c) P(d | b, c).
    lay = NetworkLayout.build({"C": [], "A": ["C"], "B": ["A", "C"], "D": ["C", "B"]},
                              {"C": 2, "A": 2, "B": 2, "D": 2}, ["A", "B", "D"], "C")
    pc = np.array([0.3, 0.7])
    pa = np.array([[0.9, 0.2], [0.1, 0.8]])                   # (A, C)
    pb = np.array([[[0.7, 0.4], [0.5, 0.1]], [[0.3, 0.6], [0.5, 0.9]]])  # (B, A, C)
    pd = np.array([[[0.6, 0.1], [0.25, 0.5]], [[0.4, 0.9], [0.75, 0.5]]])  # (D, C, B)
    log_cpt = lay.pack({"C": pc, "A": pa, "B": pb, "D": pd}, log=True)
    X = np.array([[1, -1, 0], [-1, 1, -1], [-1, -1, 1]], dtype=np.int32)
    e0 = [pc[c] * pa[1, c] * sum(pb[b, 1, c] * pd[0, c, b] for b in range(2)) for c in range(2)]
    e1 = [pc[c] * sum(pa[a, c] * pb[1, a, c] for a in range(2)) for c in range(2)]
    e2 = [pc[c] * sum(pa[a, c] * pb[b, a, c] * pd[1, c, b] for a in range(2) for b in range(2)) for c in range(2)]
    got = np.exp(log_joint_marginal(lay, log_cpt, X))
    assert_allclose(got, [e0, e1, e2], rtol=1e-13)
    assert_allclose(np.exp(variable_elimination_log_joint(lay, log_cpt, X)), [e0, e1, e2], rtol=1e-13)


def test_class_with_a_feature_parent_hand():
    # P(A), P(C | A), P(B | C): A missing -> sum_a P(a) P(c | a)
    lay = NetworkLayout.build({"A": [], "C": ["A"], "B": ["C"]}, {"C": 2, "A": 2, "B": 2}, ["A", "B"], "C")
    pA, pC, pB = np.array([0.25, 0.75]), np.array([[0.9, 0.4], [0.1, 0.6]]), np.array([[0.8, 0.3], [0.2, 0.7]])
    log_cpt = lay.pack({"A": pA, "C": pC, "B": pB}, log=True)
    got = np.exp(log_joint_marginal(lay, log_cpt, np.array([[-1, 1], [0, -1]])))
    assert_allclose(got, [[(pA @ pC.T)[c] * pB[1, c] for c in range(2)], [pA[0] * pC[c, 0] for c in range(2)]],
                    rtol=1e-13)


def test_cardinality_one_and_empty_rows():
    lay = NetworkLayout.build({"C": [], "A": ["C"], "B": ["A", "C"]}, {"C": 3, "A": 1, "B": 2}, ["A", "B"], "C")
    rng = np.random.default_rng(0)
    tables = {"C": _random_table(rng, [3]), "A": _random_table(rng, [1, 3]), "B": _random_table(rng, [2, 1, 3])}
    log_cpt = lay.pack(tables, log=True)
    X = np.array([[-1, 1], [0, -1]], dtype=np.int32)
    assert_allclose(np.exp(log_joint_marginal(lay, log_cpt, X)),
                    [tables["C"] * tables["B"][1, 0], tables["C"]], rtol=1e-13)
    assert log_joint_marginal(lay, log_cpt, np.zeros((0, 2), dtype=np.int32)).shape == (0, 3)


def test_multinet_hand():
    # cluster 0: A -> B; cluster 1: B -> A. P(k) = (.4, .6)
    lay = MultinetLayout.build([[-1, 0], [1, -1]], [2, 2])
    a0, b0 = np.array([0.3, 0.7]), np.array([[0.9, 0.2], [0.1, 0.8]])   # P0(A), P0(B | A)
    a1, b1 = np.array([[0.6, 0.5], [0.4, 0.5]]), np.array([0.35, 0.65])  # P1(A | B), P1(B)
    log_cpt = np.log(np.concatenate([a0, b0.ravel(), a1.ravel(), b1]))
    lp = np.log([0.4, 0.6])
    got = np.exp(multinet_log_joint_marginal(lay, log_cpt, lp, np.array([[-1, 1], [1, -1], [0, 0]])))
    assert_allclose(got[0], [0.4 * (a0 @ b0[1]), 0.6 * b1[1]], rtol=1e-13)
    assert_allclose(got[1], [0.4 * a0[1], 0.6 * (a1[1] @ b1)], rtol=1e-13)
    complete = np.array([[0, 0]], dtype=np.int32)
    assert_array_equal(multinet_log_joint_marginal(lay, log_cpt, lp, complete),
                       multinet_log_joint(lay, log_cpt, lp, complete))


# ----------------------------------------------------------------------------------------------- properties
@given(seed=st.integers(0, 2**32 - 1), n_feat=st.integers(1, 6), K=st.integers(1, 3), n=st.integers(0, 25),
       p_missing=st.sampled_from([0.0, 0.2, 0.5, 1.0]), h_parent=st.booleans(), zeros=st.booleans())
def test_forest_equals_brute_force(seed, n_feat, K, n, p_missing, h_parent, zeros):
    rng = np.random.default_rng(seed)
    parents, cards, tables, columns = random_network(rng, n_feat, K, 1, h_parent, zeros)
    lay, log_cpt = _build(parents, cards, tables, columns)
    codes = random_codes(rng, cards, columns, n, p_missing)
    got = log_joint_marginal(lay, log_cpt, codes)
    ref = _brute(parents, cards, tables, columns, codes)
    assert_allclose(got, ref, rtol=1e-11, atol=1e-12)
    assert_array_equal(np.isneginf(got), np.isneginf(ref))
    assert_allclose(variable_elimination_log_joint(lay, log_cpt, codes), ref, rtol=1e-11, atol=1e-12)
    # rows without a missing cell (the unused column "Z" does not count) are bit-identical to the complete kernel
    z = columns.index("Z")
    complete = ~(np.delete(codes, z, axis=1) < 0).any(axis=1)
    if complete.any():
        assert_array_equal(got[complete], log_joint_batch(lay, log_cpt, np.ascontiguousarray(codes[complete])))


@given(seed=st.integers(0, 2**32 - 1), n_feat=st.integers(2, 6), K=st.integers(1, 3), n=st.integers(1, 20),
       max_parents=st.integers(2, 3))
def test_variable_elimination_general_equals_brute_force(seed, n_feat, K, n, max_parents):
    rng = np.random.default_rng(seed)
    parents, cards, tables, columns = random_network(rng, n_feat, K, max_parents)
    lay, log_cpt = _build(parents, cards, tables, columns)
    codes = random_codes(rng, cards, columns, n, 0.4)
    ref = _brute(parents, cards, tables, columns, codes)
    got = marginal_log_joint(lay, log_cpt, codes)
    assert_allclose(got, ref, rtol=1e-11, atol=1e-12)
    assert_allclose(marginal_log_joint(lay, log_cpt, codes, method="ve"), ref, rtol=1e-11, atol=1e-12)


def _random_multinet(rng, K, m):
    cards = rng.integers(1, 4, size=m)
    parents = np.full((K, m), -1)
    for k in range(K):
        perm = rng.permutation(m)
        for pos in range(1, m):
            if rng.random() < 0.8:
                parents[k, perm[pos]] = perm[rng.integers(0, pos)]
    lay = MultinetLayout.build(parents, cards)
    blocks = []
    for k in range(K):
        for i in range(m):
            pc = cards[parents[k, i]] if parents[k, i] >= 0 else 1
            blocks.append(_random_table(rng, (cards[i], pc)).ravel())
    lp = np.log(_random_table(rng, (K,)))
    return lay, np.log(np.concatenate(blocks)), lp


@given(seed=st.integers(0, 2**32 - 1), K=st.integers(1, 3), m=st.integers(1, 5), n=st.integers(0, 20))
def test_multinet_equals_brute_force(seed, K, m, n):
    rng = np.random.default_rng(seed)
    lay, log_cpt, lp = _random_multinet(rng, K, m)
    cols = rng.permutation(m + 1)[:m]  # column m (or another) is unused
    codes = rng.integers(0, 3, size=(n, m + 1)).astype(np.int32)
    codes[:, cols] = np.minimum(codes[:, cols], lay.cards - 1)
    codes[rng.random(codes.shape) < 0.35] = -1
    got = multinet_log_joint_marginal(lay, log_cpt, lp, codes, cols)
    for r in range(n):
        miss = [i for i in range(m) if codes[r, cols[i]] < 0]
        terms = []
        for combo in itertools.product(*[range(int(lay.cards[i])) for i in miss]):
            row = codes[r:r + 1].copy()
            row[0, cols[miss]] = combo
            row[0, np.setdiff1d(np.arange(m + 1), cols)] = 0
            terms.append(multinet_log_joint(lay, log_cpt, lp, row, cols)[0])
        ref = np.logaddexp.reduce(np.array(terms), axis=0)
        assert_allclose(got[r], ref, rtol=1e-11, atol=1e-12)


def test_thousand_features_do_not_underflow():
    rng = np.random.default_rng(1)
    m = 1000
    names = [f"F{i}" for i in range(m)]
    parents = {"H": [], **{n: (["H", names[i - 1]] if i else ["H"]) for i, n in enumerate(names)}}  # a TAN chain
    cards = {"H": 2, **dict.fromkeys(names, 3)}
    tables = {n: _random_table(rng, [cards[n]] + [cards[p] for p in pa]) for n, pa in parents.items()}
    lay, log_cpt = _build(parents, cards, tables, names)
    codes = random_codes(rng, cards, names, 20, 0.5)
    got = log_joint_marginal(lay, log_cpt, codes)
    assert np.isfinite(got).all()
    assert (got < -300).all()  # p(x) far below the smallest double
    assert_allclose(got, variable_elimination_log_joint(lay, log_cpt, codes), rtol=1e-9)


def test_n_jobs_bit_identical():
    rng = np.random.default_rng(5)
    parents, cards, tables, columns = random_network(rng, 6, 3)
    lay, log_cpt = _build(parents, cards, tables, columns)
    codes = random_codes(rng, cards, columns, 500, 0.3)
    assert_array_equal(log_joint_marginal(lay, log_cpt, codes, n_jobs=1),
                       log_joint_marginal(lay, log_cpt, codes, n_jobs=2))


# ----------------------------------------------------------------------------------------------- pgmpy
def _pgmpy_model(parents, cards, tables):
    bn = DiscreteBayesianNetwork()
    bn.add_nodes_from(parents)
    bn.add_edges_from([(p, c) for c, pa in parents.items() for p in pa])
    bn.add_cpds(*[TabularCPD(n, cards[n], np.asarray(t).reshape(cards[n], -1), evidence=list(pa) or None,
                             evidence_card=[cards[p] for p in pa] or None) for n, (pa, t) in
                  ((n, (parents[n], tables[n])) for n in parents)])
    return bn


@pytest.mark.parametrize("max_parents", [1, 2], ids=["one-dependence", "two-parents"])
def test_equals_pgmpy_variable_elimination(max_parents):
    rng = np.random.default_rng(11 + max_parents)
    parents, cards, tables, columns = random_network(rng, 6, 3, max_parents)
    bn = _pgmpy_model(parents, cards, tables)
    net = compile_network(bn, "H", columns=columns)
    codes = random_codes(rng, cards, columns, 30, 0.4)
    lj = marginal_log_joint(net.layout, net.log_cpt, codes)
    post = np.exp(lj - np.logaddexp.reduce(lj, axis=1, keepdims=True))
    ve = VariableElimination(bn)
    for r in range(codes.shape[0]):
        ev = {c: int(codes[r, k]) for k, c in enumerate(columns) if c != "Z" and codes[r, k] >= 0}
        q = ve.query(["H"], evidence=ev or None, show_progress=False)
        assert_allclose(post[r], q.values, rtol=1e-9)


# ----------------------------------------------------------------------------------------------- errors
def test_out_of_range_code_is_reported():
    lay = NetworkLayout.build({"C": [], "A": ["C"], "B": ["A", "C"]}, {"C": 2, "A": 2, "B": 3}, ["A", "B"], "C")
    log_cpt = lay.normalize(np.ones(lay.size), log=True)
    with pytest.raises(ValueError, match=r"row 1: code 3 of 'B' is outside 0\.\.2"):
        log_joint_marginal(lay, log_cpt, np.array([[-1, 0], [-1, 3]]))
    with pytest.raises(ValueError, match=r"row 1: code 3 of 'B' is outside 0\.\.2"):
        variable_elimination_log_joint(lay, log_cpt, np.array([[-1, 0], [-1, 3]]))


def test_not_one_dependence_is_refused_by_the_forest_pass():
    lay = NetworkLayout.build({"C": [], "A": ["C"], "B": ["C"], "D": ["A", "B", "C"]},
                              {"C": 2, "A": 2, "B": 2, "D": 2}, ["A", "B", "D"], "C")
    assert forest_plan(lay) is None
    log_cpt = lay.normalize(np.ones(lay.size), log=True)
    with pytest.raises(ValueError, match="two or more feature parents"):
        log_joint_marginal(lay, log_cpt, np.array([[-1, 0, 1]]))
    with pytest.raises(ValueError, match="two or more feature parents"):
        marginal_log_joint(lay, log_cpt, np.array([[-1, 0, 1]]), method="forest")


def test_kernel_checks_the_plan():
    lay = MultinetLayout.build([[-1, 0]], [2, 2])
    plan = multinet_forest_plan(lay, np.zeros(1))
    args = list(plan.kernel_args())
    X = np.zeros((1, 2), dtype=np.int32)
    out = np.empty((1, 1))
    bad_order = args.copy()
    bad_order[3] = np.array([[0, 1]], dtype=np.intp)  # parent 0 before its child 1
    with pytest.raises(ValueError, match="puts node 0 before its child 1"):
        _marginal.forest_log_joint(X, np.zeros(1, dtype=np.intp), *bad_order, np.zeros(lay.size), out)
    with pytest.raises(ValueError, match="outside log_cpt"):
        _marginal.forest_log_joint(X, np.zeros(1, dtype=np.intp), *args, np.zeros(lay.size - 1), out)
    with pytest.raises(ValueError, match=r"rows\[0\] == 1 is outside 0\.\.0"):
        _marginal.forest_log_joint(X, np.ones(1, dtype=np.intp), *args, np.zeros(lay.size), out)

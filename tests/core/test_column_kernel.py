"""The column kernel (``log_joint_columns``): the log-joint read straight from one code array per column.

Complete rows are bit-identical to ``log_joint_batch`` for every column dtype and layout (int8 / int16 / int32,
contiguous or a strided column of a matrix, read-only views); rows with a missing code are marked (NaN in column 0)
and counted; out-of-range codes raise; threads and node chunks do not change a bit.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_array_equal

from pgmpy_ext.stats import ColumnPlan, NetworkLayout, log_joint_batch, log_joint_columns
from tests.core.test_posterior_kernel import networks
from tests.reference import log_joint_columns_ref

DTYPES = (np.int8, np.int16, np.int32)


def _columns(codes, rng, strided=True):
    """One array per column, each in a random form: int8 / int16 / int32, contiguous, read-only, or a strided
    column of a C-order matrix."""
    out = []
    wide = np.ascontiguousarray(codes, dtype=np.int32)
    for c in range(codes.shape[1]):
        kind = int(rng.integers(0, 5 if strided else 4))
        if kind == 4:
            out.append(wide[:, c])
            continue
        a = np.ascontiguousarray(codes[:, c], dtype=DTYPES[kind % 3])
        if kind == 3:
            a.flags.writeable = False
        out.append(a)
    return out


@given(networks(zeros=True), st.booleans())
def test_complete_rows_are_bit_identical_to_log_joint_batch(net, permute):
    lay = net["layout"]
    log_cpt = lay.pack(net["tables"], log=True)
    rng = net["rng"]
    order = rng.permutation(lay.hidden_card) if permute else None
    plan = ColumnPlan.build(lay, log_cpt, class_order=order)
    cols = _columns(net["codes"], rng)
    out, n_marked = log_joint_columns(plan, cols)
    ref = log_joint_batch(lay, log_cpt, net["codes"])
    assert n_marked == 0
    assert_array_equal(out, ref if order is None else ref[:, order])
    ref_np, marked = log_joint_columns_ref(cols, lay, log_cpt)
    assert marked == 0
    np.testing.assert_allclose(out, ref_np if order is None else ref_np[:, order], rtol=1e-12, atol=0)


@given(networks(), st.floats(0.0, 0.6))
def test_missing_rows_are_marked_and_the_others_unchanged(net, p_missing):
    lay = net["layout"]
    log_cpt = lay.pack(net["tables"], log=True)
    rng = net["rng"]
    codes = net["codes"].copy()
    codes[rng.random(codes.shape) < p_missing] = -1
    cols = _columns(codes, rng)
    out, n_marked = log_joint_columns(ColumnPlan.build(lay, log_cpt), cols)
    ref, ref_marked = log_joint_columns_ref(cols, lay, log_cpt)
    used = np.unique(lay.fam_cols[lay.fam_cols >= 0])
    missing = (codes[:, used] < 0).any(axis=1) if used.size else np.zeros(codes.shape[0], dtype=bool)
    assert n_marked == ref_marked == int(missing.sum())
    assert_array_equal(np.isnan(out[:, 0]), missing)
    if (~missing).any():
        complete = np.ascontiguousarray(net["codes"][~missing])
        assert_array_equal(out[~missing], log_joint_batch(lay, log_cpt, complete))


def _wide_nb(n_features=75, n_rows=1000, K=3, seed=0):
    """A naive Bayes over more features than one node chunk and more rows than one row block."""
    rng = np.random.default_rng(seed)
    cards = {"C": K, **{f"X{i}": int(rng.integers(1, 9)) for i in range(n_features)}}
    parents = {"C": [], **{f"X{i}": (["C", f"X{i - 1}"] if i % 3 else ["C"]) for i in range(n_features)}}
    lay = NetworkLayout.build(parents, cards, [f"X{i}" for i in range(n_features)], "C")
    log_cpt = np.log(lay.normalize(rng.random(lay.size) + 0.01))
    codes = np.stack([rng.integers(0, cards[f"X{i}"], n_rows) for i in range(n_features)], 1).astype(np.int8)
    return lay, log_cpt, codes, rng


@pytest.mark.parametrize("K", [1, 2, 3, 4, 5, 9], ids=lambda k: f"K={k}")
def test_threads_chunks_and_blocks_are_bit_identical(K):
    lay, log_cpt, codes, rng = _wide_nb(K=K)
    codes[rng.random(codes.shape) < 0.002] = -1
    cols = [np.ascontiguousarray(codes[:, c]) for c in range(codes.shape[1])]
    plan = ColumnPlan.build(lay, log_cpt)
    one, m1 = log_joint_columns(plan, cols, n_jobs=1)
    two, m2 = log_joint_columns(plan, cols, n_jobs=2)
    assert m1 == m2 > 0
    assert_array_equal(one, two)
    ok = ~np.isnan(one[:, 0])
    assert_array_equal(one[ok], log_joint_batch(lay, log_cpt, np.ascontiguousarray(codes[ok])))


def test_hand_computed_naive_bayes_and_a_missing_row():
    lay = NetworkLayout.build({"C": [], "A": ["C"], "B": ["C", "A"]}, {"C": 2, "A": 2, "B": 3}, ["A", "B"], "C")
    tables = {"C": [0.25, 0.75], "A": [[0.5, 0.1], [0.5, 0.9]],
              "B": [[[0.2, 0.3], [0.1, 0.6]], [[0.2, 0.3], [0.8, 0.2]], [[0.6, 0.4], [0.1, 0.2]]]}
    log_cpt = lay.pack(tables, log=True)
    cols = [np.array([1, 0, -1], dtype=np.int8), np.array([2, 1, 0], dtype=np.int16)]
    out, n_marked = log_joint_columns(ColumnPlan.build(lay, log_cpt), cols)
    # B's table is indexed [b][c][a]. Row 0 (A=1, B=2): C=0: .25 * P(A=1 | C=0) * P(B=2 | C=0, A=1) = .25 * .5 * .4;
    # C=1: .75 * .9 * .2. Row 1 (A=0, B=1): C=0: .25 * .5 * .2; C=1: .75 * .1 * .8.
    np.testing.assert_allclose(np.exp(out[0]), [0.25 * 0.5 * 0.4, 0.75 * 0.9 * 0.2], rtol=1e-14)
    np.testing.assert_allclose(np.exp(out[1]), [0.25 * 0.5 * 0.2, 0.75 * 0.1 * 0.8], rtol=1e-14)
    assert n_marked == 1
    assert np.isnan(out[2, 0])


def test_errors_name_the_row_and_the_arrays():
    lay, log_cpt, codes, _ = _wide_nb(n_features=4, n_rows=600)
    plan = ColumnPlan.build(lay, log_cpt)
    cols = [np.ascontiguousarray(codes[:, c]) for c in range(4)]
    bad = [c.copy() for c in cols]
    bad[2][517] = 120
    with pytest.raises(ValueError, match=r"row 517: code 120 of code array 2 is outside"):
        log_joint_columns(plan, bad, n_jobs=2)
    with pytest.raises(ValueError, match=r"expected 4 code arrays"):
        log_joint_columns(plan, cols[:3])
    with pytest.raises(ValueError, match=r"dtype int64; the column kernel reads int8, int16 or int32"):
        log_joint_columns(plan, [cols[0].astype(np.int64), *cols[1:]])
    with pytest.raises(ValueError, match=r"code array 3 must be 1-D with n_rows = 600 entries"):
        log_joint_columns(plan, [*cols[:3], cols[3][:5]])
    with pytest.raises(ValueError, match=r"class_order must be a permutation"):
        ColumnPlan.build(lay, log_cpt, class_order=[0, 0, 1])
    out, n_marked = log_joint_columns(plan, [c[:0] for c in cols])
    assert out.shape == (0, 3)
    assert n_marked == 0


@given(networks(), st.booleans())
def test_column_plan_equals_the_node_by_node_reference(net, permute):
    from tests.reference import column_plan_ref

    lay = net["layout"]
    log_cpt = lay.pack(net["tables"], log=True)
    order = net["rng"].permutation(lay.hidden_card) if permute else None
    plan = ColumnPlan.build(lay, log_cpt, class_order=order)
    for got, ref in zip(plan.kernel_args(), column_plan_ref(lay, log_cpt, order)):
        assert_array_equal(got, ref)

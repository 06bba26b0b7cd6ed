"""The row log-sum-exp helpers give numpy's own reductions bit for bit, on any layout, with -inf and NaN rows."""

from __future__ import annotations

import numpy as np
import pytest

from pgmpy_ext.utils import LOG_TINY, log_normalize_rows, logsumexp_rows
from tests.reference import log_normalize_rows_ref, logsumexp_rows_ref


def _data(n, k, seed, order):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(n, k)) * rng.uniform(0.1, 400) - rng.uniform(0, 800)
    if n > 6:
        a[1, :] = -np.inf           # an impossible row
        a[2, 0] = -np.inf           # one impossible class
        a[3, k // 2] = np.nan
        a[4, :] = LOG_TINY * 3      # every entry below the floor
        a[5, 0] = np.inf
    return np.asfortranarray(a) if order == "F" else (a.T.copy().T if order == "T" else a)


@pytest.mark.parametrize("order", ["C", "F", "T"], ids=["c-order", "f-order", "transposed"])
@pytest.mark.parametrize("k", [1, 2, 3, 5, 7, 8, 9, 16, 26, 130], ids=lambda k: f"K={k}")
def test_logsumexp_rows_is_numpys_reduction_bit_for_bit(k, order):
    for seed in range(4):
        a = _data(300, k, seed, order)
        np.testing.assert_array_equal(logsumexp_rows(a), logsumexp_rows_ref(a))
        np.testing.assert_array_equal(log_normalize_rows(a, floor=LOG_TINY), log_normalize_rows_ref(a, LOG_TINY))
        np.testing.assert_array_equal(log_normalize_rows(a), log_normalize_rows_ref(a))


def test_log_normalize_rows_in_place_and_empty():
    a = _data(50, 3, 7, "C")
    ref = log_normalize_rows_ref(a, LOG_TINY)
    b = a.copy()
    out = log_normalize_rows(b, floor=LOG_TINY, out=b)
    assert out is b
    np.testing.assert_array_equal(out, ref)
    assert logsumexp_rows(np.zeros((0, 3))).shape == (0,)
    assert log_normalize_rows(np.zeros((0, 2))).shape == (0, 2)


def test_threaded_normalisation_is_bit_identical_and_thresholds_hold():
    import pgmpy_ext.utils._math as math_mod
    import pgmpy_ext.utils.validation as val_mod
    from pgmpy_ext.utils import normalize_rows_in_threads, threads_for_rows

    a = _data(5000, 3, 3, "C")
    ref = np.exp(log_normalize_rows_ref(a, LOG_TINY))
    for n_threads in (1, 2, 3):
        got = normalize_rows_in_threads(a.copy(), floor=LOG_TINY, exp=True, n_threads=n_threads)
        np.testing.assert_array_equal(got, ref)
    assert math_mod._MIN_THREAD_ROWS == 1  # tests run every thread path (conftest)
    val_mod.MIN_ROWS_PER_THREAD = 32768
    try:
        assert threads_for_rows(2, 1_000_000) == 2
        assert threads_for_rows(2, 60_000) == 1
        assert threads_for_rows(None, 1_000_000) == 1
    finally:
        val_mod.MIN_ROWS_PER_THREAD = 1

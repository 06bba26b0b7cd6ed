"""Issue 24 item 5: the exact-inference fallback (variable elimination over missing or unseen cells) never allocates
without a size check: rows are processed in chunks under ``MAX_ELIMINATION_BYTES`` (the same numbers), and a pattern
that needs more than that for one row is refused with a clear error, before anything is allocated."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import pgmpy_ext.models._marginal as marg
from pgmpy_ext.models import marginal_log_joint, variable_elimination_log_joint
from pgmpy_ext.stats import NetworkLayout


def _star(card=12, n_parents=4, n=30, seed=0):
    """An observed child with ``n_parents`` parents of ``card`` states each (all given the class): when the parents
    are missing, summing them out couples all of them in one factor."""
    rng = np.random.default_rng(seed)
    parents = {"C": [], **{f"P{i}": ["C"] for i in range(n_parents)}, "Y": ["C", *[f"P{i}" for i in range(n_parents)]]}
    cards = {"C": 2, "Y": 3, **{f"P{i}": card for i in range(n_parents)}}
    cols = [f"P{i}" for i in range(n_parents)] + ["Y"]
    lay = NetworkLayout.build(parents, cards, cols, "C")
    log_cpt = np.log(lay.normalize(rng.random(lay.size) + 0.05))
    codes = np.column_stack([rng.integers(0, cards[c], n) for c in cols]).astype(np.int32)
    codes[:, :n_parents] = -1  # every parent missing (e.g. unseen at predict), the child observed
    return lay, log_cpt, codes


def test_rows_are_chunked_under_the_limit_with_the_same_numbers(monkeypatch):
    lay, log_cpt, codes = _star(card=8, n_parents=3, n=40)
    full = variable_elimination_log_joint(lay, log_cpt, codes)
    # the plan runs on scopes only: eliminating P0 from one factor holds the operand and the result
    assert marg._elimination_peak([("P0",)], {"P0": 8}) == 16
    monkeypatch.setattr(marg, "MAX_ELIMINATION_BYTES", 8 * 8**3 * 2 * 6)  # a few rows per chunk
    chunked = variable_elimination_log_joint(lay, log_cpt, codes)
    assert_allclose(chunked, full, rtol=1e-12)
    assert_array_equal(marginal_log_joint(lay, log_cpt, codes, method="ve"), chunked)


def test_a_pattern_too_large_for_one_row_is_refused_before_allocating():
    """Five missing 60-state parents, every pair of them with an observed child: small CPTs (3 x 2 x 3,600 cells
    each), but summing the parents out couples them all (60**4 x 2 cells and more per row)."""
    rng = np.random.default_rng(1)
    ps = [f"P{i}" for i in range(5)]
    kids = {f"Y{i}{j}": ["C", ps[i], ps[j]] for i in range(5) for j in range(i + 1, 5)}
    parents = {"C": [], **{p: ["C"] for p in ps}, **kids}
    cards = {"C": 2, **dict.fromkeys(ps, 60), **dict.fromkeys(kids, 3)}
    cols = ps + list(kids)
    lay = NetworkLayout.build(parents, cards, cols, "C")
    log_cpt = np.log(lay.normalize(rng.random(lay.size) + 0.05))
    codes = np.column_stack([rng.integers(0, cards[c], 4) for c in cols]).astype(np.int32)
    codes[:, :5] = -1
    with pytest.raises(ValueError, match=r"row 0: summing out its missing or unseen cells \('P0', 'P1', 'P2', 'P3', "
                                         r"'P4'\) exactly needs a factor of [\d,]+ cells .* more than "
                                         r"pgmpy_ext.models._marginal.MAX_ELIMINATION_BYTES = 1.0 GiB; it is refused "
                                         r"before allocating.*UnseenValuesWarning"):
        variable_elimination_log_joint(lay, log_cpt, codes)


def test_default_limit_lets_ordinary_patterns_through():
    lay, log_cpt, codes = _star(card=5, n_parents=3, n=200)
    out = variable_elimination_log_joint(lay, log_cpt, codes)
    assert np.isfinite(out).all()
    assert marg.MAX_ELIMINATION_BYTES == 1 << 30

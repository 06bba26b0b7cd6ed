r"""Statistical comparison of learners (Santafé 2007, chapter 3), built on scipy.

Two learners on one data set, from their per-fold scores ``a_i, b_i`` (``i = 1..k``, the same folds for both when
the test is paired):

* :func:`paired_t_test` (thesis Eq. 3.9 with its missing 1/k restored: ``p̄ = (1/k) Σ p_i``), k−1 d.f.;
* :func:`unpaired_t_test` (Eq. 3.10), ``2(k−1)`` d.f. (the thesis gives none; spec recommendation);
* :func:`wilcoxon_signed_rank` (Eqs. 3.11–3.13) with zeros split between the signs (``zero_method="zsplit"``);
* :func:`mann_whitney_u` (Eq. 3.14), two-sided (the thesis does not say), the test of the thesis's Tables 5.2 and 5.3.

Several learners over several data sets (Demšar 2006; an extra outside the thesis):
:func:`friedman_test` (Friedman χ², Iman–Davenport F, average ranks) and :func:`nemenyi_critical_difference`.
:func:`pairwise_tests` runs the two-learner tests on every pair of a :func:`cross_validate_learners` result.
Every test is two-sided and returns a small frozen dataclass naming what was computed.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from pgmpy_ext.utils import check_option

__all__ = ["NEMENYI_Q", "RANK_DECIMALS", "FriedmanResult", "MannWhitneyResult", "TTestResult", "WilcoxonResult",
           "friedman_test", "mann_whitney_u", "nemenyi_critical_difference", "nemenyi_q", "paired_t_test",
           "pairwise_tests", "unpaired_t_test", "wilcoxon_signed_rank"]

#: Critical values q_alpha of the two-tailed Nemenyi test for k = 2..10 learners (Demšar 2006, Table 5a):
#: the studentized range statistic for infinite d.f. divided by sqrt(2).
NEMENYI_Q = {
    0.05: (1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164),
    0.10: (1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920),
}

#: Scores (and differences) are rounded to this many decimals before ranking, so that values equal up to
#: floating-point noise tie: 0.9 - 0.8 and 0.8 - 0.7 are the same difference of fold accuracies.
RANK_DECIMALS = 12

#: Wilcoxon: below this many pairs, a sample with zeros or ties gets the exact sign-flip permutation p-value
#: (2**13 = 8192 patterns); the same threshold as scipy's ``method="auto"``.
_WILCOXON_PERMUTATION_MAX_N = 13


# ---------------------------------------------------------------------------------------------- results
@dataclass(frozen=True)
class TTestResult:
    """Result of :func:`paired_t_test` or :func:`unpaired_t_test`.

    Attributes
    ----------
    test : str
        ``"paired t"`` or ``"unpaired t"``.
    statistic : float
        The t statistic (positive when ``a`` has the larger mean).
    pvalue : float
        Two-sided p-value from Student's t with ``df`` degrees of freedom.
    df : int
        ``k - 1`` (paired) or ``2 (k - 1)`` (unpaired).
    mean_difference : float
        ``mean(a) - mean(b)``.
    std_error : float
        The denominator of ``statistic``.
    n : int
        ``k``, the number of values per learner.
    """

    test: str
    statistic: float
    pvalue: float
    df: int
    mean_difference: float
    std_error: float
    n: int


@dataclass(frozen=True)
class WilcoxonResult:
    """Result of :func:`wilcoxon_signed_rank`.

    Attributes
    ----------
    statistic : float
        ``W = min(W+, W-)``.
    pvalue : float
        Two-sided p-value.
    w_plus, w_minus : float
        Rank sums of the positive and negative differences ``a - b``, each with half the ranks of the zeros.
    n : int
        Number of pairs (zeros included, as zsplit ranks them).
    n_zeros : int
        Number of zero differences.
    method : str
        ``"exact"`` (scipy's exact null distribution: no ties, no zeros), ``"permutation"`` (all ``2**n`` sign
        flips enumerated: zeros or ties and ``n <= 13``) or ``"asymptotic"`` (normal approximation with the tie
        correction of the variance).
    zstatistic : float
        The standardised ``W+`` for ``"asymptotic"``, NaN otherwise.
    zero_method : str
        Always ``"zsplit"``.
    """

    statistic: float
    pvalue: float
    w_plus: float
    w_minus: float
    n: int
    n_zeros: int
    method: str
    zstatistic: float = float("nan")
    zero_method: str = "zsplit"


@dataclass(frozen=True)
class MannWhitneyResult:
    """Result of :func:`mann_whitney_u`.

    Attributes
    ----------
    statistic : float
        ``U_a = R_a - n_a (n_a + 1) / 2`` (scipy's convention: the number of pairs in which ``a`` wins, ties
        counting one half).
    pvalue : float
        Two-sided p-value.
    u_a, u_b : float
        ``U_a`` and ``U_b = n_a n_b - U_a``. The thesis's Eq. 3.14 ``U = k^2 + k(k+1)/2 - R_A`` is ``u_b``.
    rank_sum_a : float
        ``R_a``: the sum of the mid-ranks of ``a`` among all values.
    n_a, n_b : int
    method : str
        ``"exact"`` or ``"asymptotic"`` (normal approximation, tie-corrected variance).
    use_continuity : bool
        Whether the asymptotic p-value used the continuity correction.
    """

    statistic: float
    pvalue: float
    u_a: float
    u_b: float
    rank_sum_a: float
    n_a: int
    n_b: int
    method: str
    use_continuity: bool


@dataclass(frozen=True)
class FriedmanResult:
    """Result of :func:`friedman_test`.

    Attributes
    ----------
    statistic : float
        Friedman's ``χ²_F``.
    pvalue : float
        From the χ² distribution with ``df = k - 1``.
    df : int
    f_statistic : float
        Iman–Davenport ``F_F`` (``inf`` when every data set ranks the learners identically).
    f_pvalue : float
        From the F distribution with ``f_df = (k - 1, (k - 1)(N_d - 1))``.
    f_df : tuple of int
    average_ranks : pandas.Series
        ``R_j`` per learner (rank 1 = best), in the input column order.
    n_datasets, n_learners : int
        ``N_d`` and ``k``.
    alpha : float
        Significance level of the critical difference.
    q_alpha : float
        Nemenyi critical value (:func:`nemenyi_q`).
    critical_difference : float
        Nemenyi ``CD = q_alpha sqrt(k (k + 1) / (6 N_d))``: two learners whose average ranks differ by at least CD
        are significantly different.
    tie_correction : bool
        Whether ``χ²_F`` was divided by the tie correction (scipy's ``friedmanchisquare``).
    """

    statistic: float
    pvalue: float
    df: int
    f_statistic: float
    f_pvalue: float
    f_df: tuple
    average_ranks: pd.Series = field(repr=False)
    n_datasets: int
    n_learners: int
    alpha: float
    q_alpha: float
    critical_difference: float
    tie_correction: bool


# ---------------------------------------------------------------------------------------------- helpers
def _vector(x, name: str) -> np.ndarray:
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D sequence of scores, got shape {arr.shape}.")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} has a NaN or infinite score; every score must be finite.")
    return arr


def _paired(a, b, minimum: int = 2) -> tuple[np.ndarray, np.ndarray]:
    a, b = _vector(a, "a"), _vector(b, "b")
    if a.shape != b.shape:
        raise ValueError(f"a paired test needs one score per fold for both learners; got {a.shape[0]} and "
                         f"{b.shape[0]} scores.")
    if a.shape[0] < minimum:
        raise ValueError(f"a paired test needs at least {minimum} pairs of scores, got {a.shape[0]}.")
    return a, b


def _t_two_sided(t: float, df: int) -> float:
    if math.isnan(t):
        return float("nan")
    return float(2.0 * stats.t.sf(abs(t), df))


# ---------------------------------------------------------------------------------------------- t tests
def paired_t_test(a, b) -> TTestResult:
    r"""k-fold cross-validated paired t-test (Santafé 2007, Eq. 3.9, with the missing 1/k restored).

    Parameters
    ----------
    a, b : array-like of shape (k,)
        Scores of two learners on the same ``k`` folds (same partition for both).

    Returns
    -------
    TTestResult

    Notes
    -----
    With :math:`p_i = a_i - b_i` and :math:`\bar p = \frac1k \sum_i p_i`,

    .. math:: t = \frac{\bar p \sqrt{k}}{\sqrt{\sum_i (p_i - \bar p)^2 / (k-1)}}, \qquad k - 1 \text{ d.f.}

    This equals ``scipy.stats.ttest_rel(a, b)``. When every difference is equal the statistic is ``±inf``
    (``pvalue`` 0), or NaN when they are all 0 (as in scipy).

    Examples
    --------
    >>> r = paired_t_test([0.80, 0.85, 0.90, 0.75], [0.78, 0.80, 0.86, 0.74])
    >>> round(r.statistic, 4), r.df, round(r.pvalue, 4)
    (3.2863, 3, 0.0462)
    """
    a, b = _paired(a, b)
    k = a.shape[0]
    p = a - b
    p_bar = float(p.sum() / k)
    s = math.sqrt(float(((p - p_bar) ** 2).sum()) / (k - 1))
    se = s / math.sqrt(k)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = float(np.float64(p_bar) / np.float64(se))
    return TTestResult("paired t", t, _t_two_sided(t, k - 1), k - 1, p_bar, se, k)


def unpaired_t_test(a, b) -> TTestResult:
    r"""Unpaired two-sample t-test on fold scores (Santafé 2007, Eq. 3.10), ``2(k-1)`` degrees of freedom.

    Parameters
    ----------
    a, b : array-like of shape (k,)
        Scores of two learners over ``k`` folds each (the folds may differ).

    Returns
    -------
    TTestResult

    Notes
    -----
    .. math:: t = \frac{(\bar a - \bar b)\sqrt{k}}{\sqrt{\big(\sum_i (a_i-\bar a)^2 + \sum_i (b_i-\bar b)^2\big)/(k-1)}}

    which is the pooled-variance t of ``scipy.stats.ttest_ind(a, b)`` for equal sample sizes. The thesis gives no
    degrees of freedom; ``2(k-1)`` is the spec's recommendation (and scipy's).

    Examples
    --------
    >>> r = unpaired_t_test([0.80, 0.85, 0.90, 0.75], [0.78, 0.80, 0.86, 0.74])
    >>> round(r.statistic, 4), r.df
    (0.7348, 6)
    """
    a, b = _paired(a, b)
    k = a.shape[0]
    ss = float(((a - a.mean()) ** 2).sum() + ((b - b.mean()) ** 2).sum())
    diff = float(a.mean() - b.mean())
    se = math.sqrt(ss / (k - 1)) / math.sqrt(k)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = float(np.float64(diff) / np.float64(se))
    df = 2 * (k - 1)
    return TTestResult("unpaired t", t, _t_two_sided(t, df), df, diff, se, k)


# ---------------------------------------------------------------------------------------------- Wilcoxon
def _wilcoxon_method(d: np.ndarray, ranks_have_ties: bool, n_zeros: int) -> str:
    n = d.shape[0]
    if n > 50:
        return "asymptotic"
    if not ranks_have_ties and n_zeros == 0:
        return "exact"
    return "permutation" if n <= _WILCOXON_PERMUTATION_MAX_N else "asymptotic"


def _sign_flip_pvalue(ranks: np.ndarray, nonzero: np.ndarray, w_plus: float) -> float:
    """Two-sided p of W+ under all 2**n equally likely sign patterns of the nonzero differences (zeros keep half
    their rank on each side whatever their sign), computed as scipy's ``permutation_test`` does."""
    base = float(ranks[~nonzero].sum()) / 2.0
    r = ranks[nonzero]
    m = r.shape[0]
    patterns = (np.arange(2**m, dtype=np.int64)[:, None] >> np.arange(m, dtype=np.int64)) & 1
    null = base + patterns @ r
    gamma = abs(w_plus) * np.finfo(np.float64).eps * 100  # scipy's relative tolerance for equal statistics
    less = np.mean(null <= w_plus + gamma)
    greater = np.mean(null >= w_plus - gamma)
    return float(min(1.0, 2.0 * min(less, greater)))


def wilcoxon_signed_rank(a, b, *, method: str = "auto", correction: bool = False) -> WilcoxonResult:
    r"""Wilcoxon signed-rank test on paired fold scores with zeros split between the signs (Santafé 2007,
    Eqs. 3.11–3.13).

    Parameters
    ----------
    a, b : array-like of shape (k,)
        Scores of two learners on the same folds (or, across data sets, their mean scores per data set).
    method : {"auto", "exact", "permutation", "asymptotic"}, default "auto"
        ``"auto"``: exact when there are neither ties nor zeros (and ``k <= 50``); the exact sign-flip
        permutation distribution when there are and ``k <= 13``; otherwise the normal approximation. This is the
        rule of ``scipy.stats.wilcoxon(method="auto")``, made explicit so the result can say which one was used.
    correction : bool, default False
        Continuity correction of the normal approximation (scipy's default is False too).

    Returns
    -------
    WilcoxonResult

    Notes
    -----
    Rank :math:`|p_i|` (``p_i = a_i - b_i``, zeros included, average ranks for ties); then

    .. math:: W^+ = \sum_{p_i>0} R_i + \tfrac12 \sum_{p_i=0} R_i, \quad
              W^- = \sum_{p_i<0} R_i + \tfrac12 \sum_{p_i=0} R_i, \quad W = \min(W^+, W^-),

    and for large ``k`` :math:`z = (W^+ - k(k+1)/4) / \sigma` with
    :math:`\sigma^2 = k(k+1)(2k+1)/24` minus the tie term :math:`\sum_t (t^3 - t)/48`. This is
    ``scipy.stats.wilcoxon(a - b, zero_method="zsplit")`` on the differences rounded to ``RANK_DECIMALS`` (12)
    decimals, so that differences equal up to floating-point noise tie; the exact and asymptotic p-values come
    from scipy.

    Examples
    --------
    >>> r = wilcoxon_signed_rank([0.8, 0.7, 0.9, 0.6, 0.85], [0.7, 0.7, 0.8, 0.65, 0.8])
    >>> r.w_plus, r.w_minus, r.statistic, r.method
    (12.0, 3.0, 3.0, 'permutation')
    >>> round(r.pvalue, 4)
    0.375
    """
    check_option(method, "method", ("auto", "exact", "permutation", "asymptotic"))
    a, b = _paired(a, b, minimum=1)
    d = np.round(a - b, RANK_DECIMALS)
    n = d.shape[0]
    ranks = stats.rankdata(np.abs(d), method="average")
    nonzero = d != 0
    n_zeros = int((~nonzero).sum())
    half_zero = float(ranks[~nonzero].sum()) / 2.0
    w_plus = float(ranks[d > 0].sum()) + half_zero
    w_minus = float(ranks[d < 0].sum()) + half_zero
    ties = np.unique(np.abs(d)).shape[0] < n
    used = _wilcoxon_method(d, ties, n_zeros) if method == "auto" else method
    if used == "exact" and (ties or n_zeros):
        raise ValueError(f"method='exact' needs scores without ties or zero differences ({n_zeros} zeros, ties: "
                         f"{bool(ties)}); use method='permutation' or 'auto'.")
    z = float("nan")
    if used == "permutation":
        if n > 20:
            raise ValueError(f"method='permutation' enumerates 2**n sign patterns and is limited to n <= 20 pairs, "
                             f"got n = {n}; use method='auto' or 'asymptotic'.")
        p = _sign_flip_pvalue(ranks, nonzero, w_plus)
    else:
        res = stats.wilcoxon(d, zero_method="zsplit", correction=correction, method=used)
        p = float(res.pvalue)
        if used == "asymptotic":
            z = float(res.zstatistic)
    return WilcoxonResult(min(w_plus, w_minus), p, w_plus, w_minus, n, n_zeros, used, z)


# ---------------------------------------------------------------------------------------------- Mann-Whitney
def mann_whitney_u(a, b, *, method: str = "auto", use_continuity: bool = True) -> MannWhitneyResult:
    r"""Two-sided Mann–Whitney U test on two sets of fold scores (Santafé 2007, Eq. 3.14; two-sided, as the thesis
    does not say).

    Parameters
    ----------
    a, b : array-like
        Scores of two learners; the folds need not be the same (for LOO: the ``N`` 0/1 outcomes of each).
    method : {"auto", "exact", "asymptotic"}, default "auto"
        scipy's rule: exact when one sample has at most 8 values and there are no ties, else the normal
        approximation with the tie-corrected variance.
    use_continuity : bool, default True
        Continuity correction of the normal approximation (scipy's default).

    Returns
    -------
    MannWhitneyResult

    Notes
    -----
    Rank all values jointly (mid-ranks for ties); with :math:`R_a` the rank sum of ``a``,
    :math:`U_a = R_a - n_a(n_a+1)/2` and :math:`U_b = n_a n_b - U_a`. The thesis's
    :math:`U = k^2 + k(k+1)/2 - R_A` is :math:`U_b`. For large samples
    :math:`z = (U - n_a n_b/2)/\sqrt{n_a n_b (n_a+n_b+1)/12}` (before the tie and continuity corrections).
    The p-value is ``scipy.stats.mannwhitneyu(a, b, method=...)`` on the scores rounded to 12 decimals (equal
    accuracies computed in floating point tie).

    Examples
    --------
    >>> r = mann_whitney_u([0.91, 0.85, 0.88], [0.80, 0.83, 0.86])
    >>> r.u_a, r.u_b, r.rank_sum_a, r.method, round(r.pvalue, 4)
    (8.0, 1.0, 14.0, 'exact', 0.2)
    """
    check_option(method, "method", ("auto", "exact", "asymptotic"))
    a, b = np.round(_vector(a, "a"), RANK_DECIMALS), np.round(_vector(b, "b"), RANK_DECIMALS)
    if a.shape[0] == 0 or b.shape[0] == 0:
        raise ValueError(f"Mann-Whitney needs at least one score per learner, got {a.shape[0]} and {b.shape[0]}.")
    ranks = stats.rankdata(np.concatenate([a, b]), method="average")
    n_a, n_b = a.shape[0], b.shape[0]
    r_a = float(ranks[:n_a].sum())
    u_a = r_a - n_a * (n_a + 1) / 2.0
    ties = np.unique(ranks).shape[0] < ranks.shape[0]
    used = method
    if method == "auto":
        used = "asymptotic" if (n_a > 8 and n_b > 8) or ties else "exact"
    res = stats.mannwhitneyu(a, b, use_continuity=use_continuity, alternative="two-sided", method=used)
    return MannWhitneyResult(float(res.statistic), float(res.pvalue), u_a, n_a * n_b - u_a, r_a, n_a, n_b, used,
                             bool(use_continuity))


# ---------------------------------------------------------------------------------------------- Friedman, Nemenyi
def nemenyi_q(k: int, alpha: float = 0.05) -> float:
    """Critical value ``q_alpha`` of the Nemenyi test for ``k`` learners.

    The spec's table (:data:`NEMENYI_Q`, Demšar 2006) for ``alpha`` in {0.05, 0.10} and ``k = 2..10``; otherwise
    the studentized range quantile for infinite degrees of freedom divided by sqrt(2)
    (``scipy.stats.studentized_range.ppf(1 - alpha, k, inf) / sqrt(2)``), which reproduces the table to 3
    decimals.

    Examples
    --------
    >>> nemenyi_q(4), nemenyi_q(4, alpha=0.10), round(nemenyi_q(12), 3)
    (2.569, 2.291, 3.268)
    """
    if not isinstance(k, (int, np.integer)) or k < 2:
        raise ValueError(f"k == {k!r}, must be an integer >= 2 (the number of learners compared).")
    if not (0.0 < alpha < 1.0):
        raise ValueError(f"alpha == {alpha!r}, must be in (0, 1).")
    for level, table in NEMENYI_Q.items():
        if math.isclose(alpha, level) and k <= 1 + len(table):
            return table[k - 2]
    return float(stats.studentized_range.ppf(1.0 - alpha, k, np.inf) / math.sqrt(2.0))


def nemenyi_critical_difference(k: int, n_datasets: int, alpha: float = 0.05) -> float:
    r"""Nemenyi critical difference ``CD = q_alpha sqrt(k (k + 1) / (6 N_d))`` (Demšar 2006).

    Parameters
    ----------
    k : int
        Number of learners (>= 2).
    n_datasets : int
        Number of data sets ``N_d`` (>= 1).
    alpha : float, default 0.05

    Examples
    --------
    >>> round(nemenyi_critical_difference(4, 10), 4)
    1.4832
    """
    if not isinstance(n_datasets, (int, np.integer)) or n_datasets < 1:
        raise ValueError(f"n_datasets == {n_datasets!r}, must be an integer >= 1.")
    return nemenyi_q(k, alpha) * math.sqrt(k * (k + 1) / (6.0 * n_datasets))


def friedman_test(scores, *, learners: Sequence | None = None, alpha: float = 0.05, higher_is_better: bool = True,
                  tie_correction: bool = False) -> FriedmanResult:
    r"""Friedman test over data sets with the Iman–Davenport F and the Nemenyi critical difference (Demšar 2006).

    Parameters
    ----------
    scores : DataFrame or array-like of shape (n_datasets, k)
        One row per data set, one column per learner (e.g. mean CV accuracies). A DataFrame's columns name the
        learners.
    learners : sequence of str, optional
        Learner names for an array (default ``"0", "1", ...``).
    alpha : float, default 0.05
        Level of the critical difference.
    higher_is_better : bool, default True
        Rank 1 goes to the highest score (accuracy); False ranks the lowest first (error rates).
    tie_correction : bool, default False
        Divide ``χ²_F`` by ``1 - Σ(t³ - t) / (N_d k (k² - 1))`` as ``scipy.stats.friedmanchisquare`` does. Demšar's
        formula (the spec's) has no correction; both agree when no data set has tied scores.

    Returns
    -------
    FriedmanResult

    Notes
    -----
    With average ranks :math:`R_j` (ties get average ranks),

    .. math::

        \chi^2_F = \frac{12 N_d}{k(k+1)}\Big[\sum_j R_j^2 - \frac{k(k+1)^2}{4}\Big], \qquad
        F_F = \frac{(N_d - 1)\chi^2_F}{N_d(k-1) - \chi^2_F}, \qquad
        CD = q_\alpha \sqrt{\frac{k(k+1)}{6 N_d}},

    with :math:`k-1` and :math:`(k-1, (k-1)(N_d-1))` degrees of freedom.

    Examples
    --------
    >>> import pandas as pd
    >>> acc = pd.DataFrame({"NB": [0.80, 0.70, 0.90], "TAN": [0.85, 0.75, 0.88], "SBN": [0.86, 0.76, 0.91]})
    >>> r = friedman_test(acc)
    >>> r.average_ranks.round(3).to_dict()
    {'NB': 2.667, 'TAN': 2.333, 'SBN': 1.0}
    >>> round(r.statistic, 4), round(r.pvalue, 4), round(r.critical_difference, 4)
    (4.6667, 0.097, 1.9131)
    """
    if isinstance(scores, pd.DataFrame):
        names = [str(c) for c in scores.columns]
        mat = scores.to_numpy(dtype=np.float64)
    else:
        mat = np.asarray(scores, dtype=np.float64)
        names = None
    if mat.ndim != 2:
        raise ValueError(f"scores must be 2-D (n_datasets, n_learners), got shape {mat.shape}.")
    nd, k = mat.shape
    if k < 2 or nd < 2:
        raise ValueError(f"the Friedman test needs at least 2 data sets and 2 learners, got {nd} data sets and {k} "
                         "learners.")
    if not np.all(np.isfinite(mat)):
        raise ValueError("scores has a NaN or infinite value; every learner needs a score on every data set.")
    if names is None:
        names = [str(x) for x in learners] if learners is not None else [str(j) for j in range(k)]
    if len(names) != k:
        raise ValueError(f"got {len(names)} learner names for {k} columns of scores.")
    mat = np.round(mat, RANK_DECIMALS)  # equal scores up to floating-point noise tie
    ranks = stats.rankdata(-mat if higher_is_better else mat, method="average", axis=1)
    avg = ranks.mean(axis=0)
    chi2 = 12.0 * nd / (k * (k + 1)) * (float((avg**2).sum()) - k * (k + 1) ** 2 / 4.0)
    if tie_correction:
        t_term = 0.0
        for row in ranks:
            _, counts = np.unique(row, return_counts=True)
            t_term += float((counts**3 - counts).sum())
        c = 1.0 - t_term / (k * (k * k - 1) * nd)
        chi2 = chi2 / c if c > 0 else float("nan")
    chi2 = max(chi2, 0.0) if not math.isnan(chi2) else chi2
    p = float(stats.chi2.sf(chi2, k - 1))
    denom = nd * (k - 1) - chi2
    f_df = (k - 1, (k - 1) * (nd - 1))
    if denom <= 1e-12 * max(1.0, nd * (k - 1)):
        f_stat, f_p = float("inf"), 0.0
    else:
        f_stat = (nd - 1) * chi2 / denom
        f_p = float(stats.f.sf(f_stat, *f_df))
    q = nemenyi_q(k, alpha)
    cd = q * math.sqrt(k * (k + 1) / (6.0 * nd))
    return FriedmanResult(float(chi2), p, k - 1, float(f_stat), f_p, f_df, pd.Series(avg, index=names, name="rank"),
                          nd, k, alpha, q, cd, bool(tie_correction))


# ---------------------------------------------------------------------------------------------- pairwise
_PAIRWISE = {
    "ttest": ("paired t", lambda a, b: paired_t_test(a, b), 2),
    "unpaired_ttest": ("unpaired t", lambda a, b: unpaired_t_test(a, b), 2),
    "wilcoxon": ("Wilcoxon", lambda a, b: wilcoxon_signed_rank(a, b), 1),
    "mannwhitney": ("Mann-Whitney", lambda a, b: mann_whitney_u(a, b), 1),
}


def pairwise_tests(results: pd.DataFrame, *, metric: str = "accuracy",
                   tests: Sequence[str] = ("ttest", "wilcoxon", "mannwhitney"),
                   pairs: Sequence[tuple] | None = None) -> pd.DataFrame:
    """Two-learner tests on every pair of learners of a :func:`cross_validate_learners` result.

    Scores are paired by ``(repeat, fold)``, so every learner must have been run on the same folds (which
    :func:`cross_validate_learners` guarantees).

    Parameters
    ----------
    results : DataFrame
        Tidy per-fold results with columns ``learner, repeat, fold`` and ``metric``.
    metric : str, default "accuracy"
        The per-fold score compared (e.g. ``"test_cll"``).
    tests : sequence of {"ttest", "unpaired_ttest", "wilcoxon", "mannwhitney"}
        Default: paired t, Wilcoxon signed-rank (zsplit) and Mann–Whitney U, all two-sided.
    pairs : sequence of (str, str), optional
        Pairs to compare (default: every pair, in the order the learners first appear).

    Returns
    -------
    DataFrame
        One row per pair: ``learner_a, learner_b, n, mean_a, mean_b, mean_difference`` and, per test,
        ``<test>_statistic`` and ``<test>_p`` (NaN when there are too few folds: 2 for the t-tests, 1 otherwise).
    """
    for col in ("learner", "repeat", "fold", metric):
        if col not in results.columns:
            raise ValueError(f"results lacks column {col!r}; pass the DataFrame returned by cross_validate_learners.")
    for t in tests:
        check_option(t, "test", tuple(_PAIRWISE))
    wide = results.pivot_table(index=["repeat", "fold"], columns="learner", values=metric, aggfunc="first",
                               sort=True)
    names = list(dict.fromkeys(results["learner"]))
    if pairs is None:
        pairs = list(itertools.combinations(names, 2))
    rows = []
    for la, lb in pairs:
        for name in (la, lb):
            if name not in wide.columns:
                raise ValueError(f"learner {name!r} is not in the results (learners: {names!r}).")
        ab = wide[[la, lb]]
        if ab.isna().any().any():
            raise ValueError(f"learners {la!r} and {lb!r} were not run on the same folds ({metric} is missing for "
                             "some (repeat, fold)); paired tests need identical folds.")
        a, b = ab[la].to_numpy(dtype=float), ab[lb].to_numpy(dtype=float)
        row = {"learner_a": la, "learner_b": lb, "n": a.shape[0], "mean_a": float(a.mean()),
               "mean_b": float(b.mean()), "mean_difference": float(a.mean() - b.mean())}
        for t in tests:
            _, fn, minimum = _PAIRWISE[t]
            if a.shape[0] < minimum or not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
                row[f"{t}_statistic"], row[f"{t}_p"] = float("nan"), float("nan")
                continue
            r = fn(a, b)
            row[f"{t}_statistic"], row[f"{t}_p"] = float(r.statistic), float(r.pvalue)
        rows.append(row)
    cols = ["learner_a", "learner_b", "n", "mean_a", "mean_b", "mean_difference"]
    cols += [f"{t}_{s}" for t in tests for s in ("statistic", "p")]
    return pd.DataFrame(rows, columns=cols)

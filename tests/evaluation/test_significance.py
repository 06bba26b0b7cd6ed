"""Statistical tests: equality with scipy and with hand computations from the spec's formulas (seed 001 §3.3)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from pgmpy_ext.evaluation import (
    NEMENYI_Q,
    friedman_test,
    mann_whitney_u,
    nemenyi_critical_difference,
    nemenyi_q,
    paired_t_test,
    pairwise_tests,
    unpaired_t_test,
    wilcoxon_signed_rank,
)

A4 = [0.80, 0.85, 0.90, 0.75]
B4 = [0.78, 0.80, 0.86, 0.74]


def _phi_two_sided(z: float) -> float:
    return math.erfc(abs(z) / math.sqrt(2.0))


# ---------------------------------------------------------------------------------------------- t tests
def test_paired_t_by_hand_uses_mean_not_sum():
    # p = (0.02, 0.05, 0.04, 0.01): mean 0.03, sum of squared deviations 0.001, s = sqrt(0.001/3)
    r = paired_t_test(A4, B4)
    t_hand = 0.03 * math.sqrt(4) / math.sqrt(0.001 / 3)
    assert r.statistic == pytest.approx(t_hand, rel=1e-10)  # 3.2863...; the thesis's misprint would give 4x this
    assert r.statistic == pytest.approx(3.286335345, rel=1e-9)
    assert r.df == 3
    assert r.n == 4
    assert r.test == "paired t"
    assert r.mean_difference == pytest.approx(0.03)
    assert r.pvalue == pytest.approx(2 * stats.t.sf(t_hand, 3), rel=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_paired_t_equals_scipy(seed):
    rng = np.random.default_rng(seed)
    a, b = rng.random(10), rng.random(10)
    r, ref = paired_t_test(a, b), stats.ttest_rel(a, b)
    assert r.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-10)


def test_paired_t_constant_differences():
    assert paired_t_test([0.9, 0.8, 0.7], [0.8, 0.7, 0.6]).pvalue == pytest.approx(0.0, abs=1e-12)
    r = paired_t_test([0.9, 0.8], [0.9, 0.8])
    assert math.isnan(r.statistic)
    assert math.isnan(r.pvalue)


def test_unpaired_t_by_hand_and_scipy():
    # SS_a = 0.0125, SS_b = 0.0075, diff = 0.03: t = 0.03 * 2 / sqrt(0.02 / 3)
    r = unpaired_t_test(A4, B4)
    assert r.statistic == pytest.approx(0.06 / math.sqrt(0.02 / 3), rel=1e-10)
    assert r.df == 6
    ref = stats.ttest_ind(A4, B4)
    assert r.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-10)


@pytest.mark.parametrize(("a", "b", "match"), [
    ([0.1, 0.2], [0.1], "one score per fold"),
    ([0.1], [0.2], "at least 2 pairs"),
    ([0.1, float("nan")], [0.2, 0.3], "NaN or infinite"),
    ([[0.1, 0.2]], [[0.2, 0.3]], "1-D"),
], ids=["length", "too-few", "nan", "2d"])
def test_t_input_errors(a, b, match):
    with pytest.raises(ValueError, match=match):
        paired_t_test(a, b)


# ---------------------------------------------------------------------------------------------- Wilcoxon
def test_wilcoxon_zsplit_by_hand_small():
    # d = (0.1, 0, 0.1, -0.05, 0.05); ranks of |d|: 0 -> 1, 0.05 -> 2.5, 0.1 -> 4.5
    r = wilcoxon_signed_rank([0.8, 0.7, 0.9, 0.6, 0.85], [0.7, 0.7, 0.8, 0.65, 0.8])
    assert (r.w_plus, r.w_minus, r.statistic) == (12.0, 3.0, 3.0)
    assert r.n == 5
    assert r.n_zeros == 1
    assert r.method == "permutation"
    # the 16 sign patterns of (4.5, 4.5, 2.5, 2.5): 3 give W+ >= 12, so p = 2 * 3/16
    assert r.pvalue == pytest.approx(6 / 16, rel=1e-12)
    ref = stats.wilcoxon(np.round(np.array([0.8, 0.7, 0.9, 0.6, 0.85]) - [0.7, 0.7, 0.8, 0.65, 0.8], 12),
                         zero_method="zsplit")
    assert r.statistic == ref.statistic
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-12)


def test_wilcoxon_normal_approximation_by_hand():
    # 20 pairs: one zero (rank 1), |d| = 1..19 (ranks 2..20), negative at 2, 5 and 11 (ranks 3, 6, 12)
    d = np.array([0.0] + [(-i if i in (2, 5, 11) else i) for i in range(1, 20)], dtype=float)
    r = wilcoxon_signed_rank(d, np.zeros(20))
    assert (r.w_plus, r.w_minus) == (188.5, 21.5)
    assert r.method == "asymptotic"
    z = (188.5 - 20 * 21 / 4) / math.sqrt(20 * 21 * 41 / 24)
    assert r.zstatistic == pytest.approx(-abs(z), rel=1e-12)
    assert r.pvalue == pytest.approx(_phi_two_sided(z), rel=1e-9)


@pytest.mark.parametrize("case", ["exact-no-ties", "permutation-ties", "asymptotic-zeros", "all-zero"])
def test_wilcoxon_equals_scipy_zsplit(case):
    rng = np.random.default_rng(7)
    if case == "exact-no-ties":
        a, b, method = rng.random(10), rng.random(10), "exact"
    elif case == "permutation-ties":
        a = np.array([0.9, 0.8, 0.7, 0.85, 0.6, 0.75, 0.95, 0.8])
        b = np.array([0.8, 0.8, 0.6, 0.75, 0.7, 0.75, 0.85, 0.7])
        method = "permutation"
    elif case == "asymptotic-zeros":
        a = np.round(rng.random(30), 1)
        b = np.round(rng.random(30), 1)
        b[:4] = a[:4]
        method = "asymptotic"
    else:
        a = b = np.full(6, 0.5)
        method = "permutation"
    r = wilcoxon_signed_rank(a, b)
    ref = stats.wilcoxon(np.round(a - b, 12), zero_method="zsplit")  # scipy's method="auto"
    assert r.method == method
    assert r.statistic == pytest.approx(float(ref.statistic), rel=1e-12)
    assert r.pvalue == pytest.approx(float(ref.pvalue), rel=1e-9)


def test_wilcoxon_float_noise_ties():
    # 0.9 - 0.8 and 0.8 - 0.7 differ in the last bit; as fold-accuracy differences they are the same
    r = wilcoxon_signed_rank([0.9, 0.8, 0.6], [0.8, 0.7, 0.5])
    assert r.w_plus == 6.0
    assert r.method == "permutation"


def test_wilcoxon_exact_refuses_ties():
    with pytest.raises(ValueError, match="method='exact' needs scores without ties"):
        wilcoxon_signed_rank([0.9, 0.8, 0.7], [0.9, 0.7, 0.6], method="exact")


# ---------------------------------------------------------------------------------------------- Mann-Whitney
def test_mann_whitney_by_hand_exact():
    r = mann_whitney_u([0.91, 0.85, 0.88], [0.80, 0.83, 0.86])
    # joint ranks: a at 3, 5, 6 -> R_a = 14; thesis U = k^2 + k(k+1)/2 - R_A = 9 + 6 - 14 = 1
    assert (r.rank_sum_a, r.u_a, r.u_b) == (14.0, 8.0, 1.0)
    assert r.method == "exact"
    assert r.pvalue == pytest.approx(2 * 2 / 20, rel=1e-12)  # P(U_a >= 8) = 2 of the C(6,3) = 20 orders


def test_mann_whitney_by_hand_normal():
    a, b = np.arange(1, 20, 2, dtype=float), np.arange(2, 21, 2, dtype=float)  # R_a = 100, U_a = 45
    r = mann_whitney_u(a, b, use_continuity=False)
    assert (r.rank_sum_a, r.u_a, r.u_b, r.method) == (100.0, 45.0, 55.0, "asymptotic")
    z = (55 - 100 / 2) / math.sqrt(100 * 21 / 12)
    assert r.pvalue == pytest.approx(_phi_two_sided(z), rel=1e-9)


@pytest.mark.parametrize(("na", "nb", "ties"), [(5, 5, False), (5, 5, True), (12, 15, True), (128, 128, True)],
                         ids=["exact", "ties-asymptotic", "large", "loo-01"])
def test_mann_whitney_equals_scipy(na, nb, ties):
    rng = np.random.default_rng(3)
    if na == 128:
        a, b = (rng.random(na) < 0.84).astype(float), (rng.random(nb) < 0.9).astype(float)
    else:
        a, b = rng.random(na), rng.random(nb)
        if ties:
            a, b = np.round(a, 1), np.round(b, 1)
    r = mann_whitney_u(a, b)
    ref = stats.mannwhitneyu(a, b, method="auto")
    assert r.statistic == pytest.approx(float(ref.statistic), rel=1e-12)
    assert r.pvalue == pytest.approx(float(ref.pvalue), rel=1e-10)


# ---------------------------------------------------------------------------------------------- Friedman, Nemenyi
def _ranked_scores() -> pd.DataFrame:
    ranks = [(1, 2, 3, 4)] * 8 + [(3, 4, 2, 1), (4, 3, 2, 1)]  # column means 1.5, 2.3, 2.8, 3.4
    return pd.DataFrame([[1 - r / 10 for r in row] for row in ranks], columns=["A", "B", "C", "D"])


def test_friedman_by_hand_k4_nd10():
    r = friedman_test(_ranked_scores())
    assert r.average_ranks.to_dict() == pytest.approx({"A": 1.5, "B": 2.3, "C": 2.8, "D": 3.4})
    chi2 = 12 * 10 / (4 * 5) * (1.5**2 + 2.3**2 + 2.8**2 + 3.4**2 - 4 * 25 / 4)  # = 6 * 1.94 = 11.64
    assert r.statistic == pytest.approx(11.64, rel=1e-10)
    assert chi2 == pytest.approx(11.64)
    assert r.df == 3
    assert r.pvalue == pytest.approx(stats.chi2.sf(11.64, 3), rel=1e-10)
    f = 9 * 11.64 / (10 * 3 - 11.64)  # Iman-Davenport: 5.70588...
    assert r.f_statistic == pytest.approx(f, rel=1e-10)
    assert r.f_df == (3, 27)
    assert r.f_pvalue == pytest.approx(stats.f.sf(f, 3, 27), rel=1e-10)
    cd = 2.569 * math.sqrt(4 * 5 / (6 * 10))  # 1.48321
    assert r.critical_difference == pytest.approx(cd, rel=1e-12)
    assert r.q_alpha == 2.569
    assert nemenyi_critical_difference(4, 10) == pytest.approx(1.4832, abs=5e-5)
    assert friedman_test(_ranked_scores(), alpha=0.10).critical_difference == pytest.approx(
        2.291 * math.sqrt(1 / 3), rel=1e-12)


def test_friedman_equals_scipy_without_ties():
    rng = np.random.default_rng(0)
    m = rng.random((8, 5))
    r = friedman_test(m)
    ref = stats.friedmanchisquare(*m.T)
    assert r.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-10)
    assert list(r.average_ranks.index) == ["0", "1", "2", "3", "4"]


def test_friedman_ties_with_and_without_correction():
    m = np.array([[0.8, 0.8, 0.7], [0.9, 0.85, 0.85], [0.7, 0.6, 0.65], [0.75, 0.75, 0.75], [0.9, 0.8, 0.7]])
    ref = stats.friedmanchisquare(*m.T)
    corrected = friedman_test(m, tie_correction=True)
    assert corrected.statistic == pytest.approx(ref.statistic, rel=1e-12)
    plain = friedman_test(m)
    ranks = np.array([[1.5, 1.5, 3], [1, 2.5, 2.5], [1, 3, 2], [2, 2, 2], [1, 2, 3]]).mean(axis=0)
    assert plain.statistic == pytest.approx(12 * 5 / 12 * ((ranks**2).sum() - 3 * 16 / 4), rel=1e-12)
    assert plain.statistic < corrected.statistic


def test_friedman_lower_is_better_and_perfect_agreement():
    errors = np.array([[0.1, 0.2, 0.3]] * 4)
    r = friedman_test(errors, learners=["x", "y", "z"], higher_is_better=False)
    assert r.average_ranks.to_dict() == {"x": 1.0, "y": 2.0, "z": 3.0}
    assert r.statistic == pytest.approx(4 * 2)  # chi2 = Nd (k - 1) when every data set agrees
    assert r.f_statistic == math.inf
    assert r.f_pvalue == 0.0


@pytest.mark.parametrize("alpha", [0.05, 0.10])
def test_nemenyi_table_matches_studentized_range(alpha):
    for k in range(2, 11):
        q = stats.studentized_range.ppf(1 - alpha, k, np.inf) / math.sqrt(2)
        assert NEMENYI_Q[alpha][k - 2] == pytest.approx(q, abs=1.5e-3)
        assert nemenyi_q(k, alpha) == NEMENYI_Q[alpha][k - 2]
    assert nemenyi_q(12, alpha) == pytest.approx(stats.studentized_range.ppf(1 - alpha, 12, np.inf) / math.sqrt(2))


@pytest.mark.parametrize(("call", "match"), [
    (lambda: friedman_test(np.ones((1, 3))), "at least 2 data sets"),
    (lambda: friedman_test(np.ones(3)), "must be 2-D"),
    (lambda: friedman_test([[0.1, np.nan], [0.2, 0.3]]), "NaN or infinite"),
    (lambda: friedman_test(np.ones((3, 2)), learners=["a"]), "1 learner names for 2 columns"),
    (lambda: nemenyi_q(1), "must be an integer >= 2"),
    (lambda: nemenyi_q(3, alpha=1.5), r"must be in \(0, 1\)"),
    (lambda: nemenyi_critical_difference(3, 0), "n_datasets == 0"),
], ids=["one-dataset", "1d", "nan", "names", "k1", "alpha", "nd0"])
def test_friedman_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# ---------------------------------------------------------------------------------------------- pairwise
def _results(values: dict) -> pd.DataFrame:
    rows = [{"learner": name, "repeat": 0, "fold": i, "accuracy": v} for name, vs in values.items()
            for i, v in enumerate(vs)]
    return pd.DataFrame(rows)


def test_pairwise_tests_match_the_single_tests():
    res = _results({"NB": A4, "TAN": B4, "SBN": [0.7, 0.9, 0.8, 0.85]})
    pw = pairwise_tests(res, tests=("ttest", "unpaired_ttest", "wilcoxon", "mannwhitney"))
    assert list(zip(pw["learner_a"], pw["learner_b"])) == [("NB", "TAN"), ("NB", "SBN"), ("TAN", "SBN")]
    row = pw.iloc[0]
    assert row["ttest_p"] == pytest.approx(paired_t_test(A4, B4).pvalue, rel=1e-12)
    assert row["unpaired_ttest_p"] == pytest.approx(unpaired_t_test(A4, B4).pvalue, rel=1e-12)
    assert row["wilcoxon_p"] == pytest.approx(wilcoxon_signed_rank(A4, B4).pvalue, rel=1e-12)
    assert row["mannwhitney_p"] == pytest.approx(mann_whitney_u(A4, B4).pvalue, rel=1e-12)
    assert row["mean_difference"] == pytest.approx(0.03)
    assert row["n"] == 4


def test_pairwise_tests_single_fold_gives_nan_and_mismatch_raises():
    one = pairwise_tests(_results({"a": [0.8], "b": [0.7]}))
    assert math.isnan(one.loc[0, "ttest_p"])
    assert not math.isnan(one.loc[0, "wilcoxon_p"])
    res = pd.concat([_results({"a": [0.8, 0.7]}), _results({"b": [0.7]})])
    with pytest.raises(ValueError, match="not run on the same folds"):
        pairwise_tests(res)
    with pytest.raises(ValueError, match="test == 'sign'"):
        pairwise_tests(_results({"a": [0.8], "b": [0.7]}), tests=("sign",))

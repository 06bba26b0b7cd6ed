r"""Partition comparisons and model measures of seed 001 chapter 7 (spec ``docs/decisions/seed001-ema-popgen.md``
sections 1.5 and 7.1-7.4): the co-membership Hamming distance, matched accuracy, win/draw/loss counts with the
two-sided Wilcoxon marks of Tables 7.1-7.6, the independence measure :math:`I_P` (7.34) and the KL divergence in
bits between naive-Bayes mixtures by full enumeration (Figs 7.2/7.3).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from pgmpy_ext.evaluation._metrics import _contingency, clustering_accuracy
from pgmpy_ext.evaluation._significance import wilcoxon_signed_rank

__all__ = ["WinDrawLoss", "comembership_hamming", "comembership_hamming_naive", "enumerate_nb_log_joint",
           "independence_measure", "kl_divergence_bits", "matched_accuracy", "win_draw_loss"]


def comembership_hamming(labels_a, labels_b, *, matrix: str = "full") -> int:
    r"""Hamming distance between the co-membership (cluster) matrices of two partitions, in O(N + r_a r_b).

    Santafé (2007), section 7.5.3.1: :math:`a_{dd'} = 1` iff rows d and d' share a cluster; the score is the number of
    entries where the two matrices differ. It is invariant to relabelling either partition.

    Parameters
    ----------
    labels_a, labels_b : array-like of shape (N,)
        Two partitions (any hashable labels).
    matrix : {"full", "upper"}, default "full"
        Count over the whole N x N matrix (the thesis's :math:`D_H`) or over the pairs d < d' only (half of it;
        the diagonal always agrees). The choice never changes which of two models wins.

    Notes
    -----
    With :math:`n_{ab}` the contingency table and :math:`a_\cdot, b_\cdot` its margins (Rand-index identity),

    .. math:: D_H^{upper} = \sum_a \binom{n_{a\cdot}}{2} + \sum_b \binom{n_{\cdot b}}{2}
              - 2 \sum_{ab} \binom{n_{ab}}{2}, \qquad D_H^{full} = 2 D_H^{upper}.

    Examples
    --------
    >>> comembership_hamming([0, 0, 1, 1], [5, 5, 7, 7])      # the same partition under other labels
    0
    >>> comembership_hamming([0, 0, 1, 1], [0, 1, 1, 1]), comembership_hamming([0, 0, 1, 1], [0, 1, 1, 1],
    ...                                                                        matrix="upper")
    (6, 3)
    """
    if matrix not in ("full", "upper"):
        raise ValueError(f"matrix == {matrix!r}, expected 'full' or 'upper'.")
    table, _, _ = _contingency(labels_a, labels_b)

    def pairs(x):
        x = np.asarray(x, dtype=np.int64)
        return int((x * (x - 1) // 2).sum())

    upper = pairs(table.sum(axis=1)) + pairs(table.sum(axis=0)) - 2 * pairs(table)
    return 2 * upper if matrix == "full" else upper


def comembership_hamming_naive(labels_a, labels_b) -> int:
    """The O(N^2) definition of :func:`comembership_hamming` (full matrix), for tests and small data.

    Examples
    --------
    >>> comembership_hamming_naive([0, 0, 1, 1], [0, 1, 1, 1])
    6
    """
    a, b = np.asarray(labels_a), np.asarray(labels_b)
    return int(((a[:, None] == a[None, :]) != (b[:, None] == b[None, :])).sum())


def matched_accuracy(y_true, labels_pred) -> float:
    """Fraction of rows correctly assigned under the best cluster-to-class bijection (the accuracy of Santafé 2007,
    Tables 7.3-7.6).

    This is :func:`pgmpy_ext.evaluation.clustering_accuracy` with ``mapping="one-to-one"`` (Hungarian matching on
    the contingency table), under the name the thesis's chapter 7 uses.

    Examples
    --------
    >>> matched_accuracy([0, 0, 0, 1, 1, 1], [1, 1, 0, 0, 0, 0])
    0.8333333333333334
    """
    return clustering_accuracy(y_true, labels_pred, mapping="one-to-one")


@dataclass(frozen=True)
class WinDrawLoss:
    """Result of :func:`win_draw_loss`: counts of the first method's wins, draws and losses, the two-sided
    Wilcoxon p-value (zsplit, normal approximation; 1.0 when every pair is a draw), and the marks of the thesis's
    tables (``bold``: p < ``alpha_bold``; ``strong``: p < ``alpha_strong``, the grey box lost in the extraction).
    ``str()`` gives ``"24/17/9*"`` (``*`` bold, ``**`` also strong)."""

    wins: int
    draws: int
    losses: int
    pvalue: float
    bold: bool
    strong: bool

    def __str__(self) -> str:
        return f"{self.wins}/{self.draws}/{self.losses}" + ("**" if self.strong else "*" if self.bold else "")


def win_draw_loss(scores_a, scores_b, *, lower_is_better: bool = False, alpha_bold: float = 0.10,
                  alpha_strong: float = 0.01) -> WinDrawLoss:
    r"""Wins/draws/losses of method A over method B on paired scores, with the Wilcoxon marks of Tables 7.1-7.6.

    Santafé (2007), section 7.5.3.1: the signed-rank test with zero differences split between the
    signs (``zero_method="zsplit"``), two-sided, normal approximation (:func:`wilcoxon_signed_rank` with
    ``method="asymptotic"``); bold at p < 0.10 and a second mark at p < 0.01.

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (k,)
        Paired per-model scores (e.g. Hamming distances to the true partition, or accuracies).
    lower_is_better : bool, default False
        True for distances (A wins when its score is lower).
    alpha_bold, alpha_strong : float

    Examples
    --------
    >>> r = win_draw_loss([1, 2, 3, 4, 0, 0] * 5, [2, 3, 4, 5, 0, 1] * 5, lower_is_better=True)
    >>> (r.wins, r.draws, r.losses), str(r)
    ((25, 5, 0), '25/5/0**')
    """
    a = np.asarray(scores_a, dtype=np.float64)
    b = np.asarray(scores_b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"scores_a and scores_b must be 1-D and paired; got shapes {a.shape} and {b.shape}.")
    d = (b - a) if lower_is_better else (a - b)   # > 0: A better
    d = np.round(d, 12)
    wins, draws, losses = int((d > 0).sum()), int((d == 0).sum()), int((d < 0).sum())
    if wins + losses == 0:
        p = 1.0
    else:
        p = float(wilcoxon_signed_rank(d, np.zeros_like(d), method="asymptotic").pvalue)
    return WinDrawLoss(wins, draws, losses, p, p < alpha_bold, p < alpha_strong)


def independence_measure(class_prior, cpts) -> np.ndarray:
    r"""The independence measure :math:`I_P(X_i)` of Santafé (2007), Eq. (7.34), in nats, for a naive Bayes.

    .. math:: I_P(X_i) = \frac{1}{r_C} \sum_j D_{KL}\big(p(X_i) \,\|\, p(X_i | c^j)\big), \qquad
              p(X_i = k) = \sum_j \theta_{C-j} \theta_{ijk}.

    It is 0 for a variable whose CPT does not depend on C and is label-invariant.

    Parameters
    ----------
    class_prior : array-like of shape (r_C,)
    cpts : sequence of arrays of shape (r_i, r_C)
        :math:`P(X_i = k | C = j)`, columns summing to 1.

    Returns
    -------
    ndarray of shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> ip = independence_measure([0.5, 0.5], [np.array([[0.2, 0.8], [0.8, 0.2]]), np.array([[0.5, 0.5]] * 2)])
    >>> np.round(ip, 4).tolist()
    [0.2231, 0.0]
    """
    prior = np.asarray(class_prior, dtype=np.float64)
    out = np.empty(len(cpts))
    for i, t in enumerate(cpts):
        t = np.asarray(t, dtype=np.float64)
        marg = t @ prior
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(marg[:, None] > 0, marg[:, None] * (np.log(marg[:, None]) - np.log(t)), 0.0)
        out[i] = terms.sum() / prior.shape[0]
    return out


def enumerate_nb_log_joint(class_prior, cpts) -> np.ndarray:
    """``log p(x, c)`` of a naive Bayes on every configuration ``x`` (``itertools.product`` order, first variable
    slowest): shape ``(prod r_i, r_C)``. Intended for n <= 12 binary variables (the brute-force reference of Santafé
    2007, section 7.5.1).

    Examples
    --------
    >>> import numpy as np
    >>> lj = enumerate_nb_log_joint([0.5, 0.5], [np.array([[0.9, 0.1], [0.1, 0.9]])])
    >>> np.round(np.exp(lj), 3).tolist()
    [[0.45, 0.05], [0.05, 0.45]]
    """
    prior = np.asarray(class_prior, dtype=np.float64)
    cards = [np.asarray(t).shape[0] for t in cpts]
    if int(np.prod(cards)) > 2 ** 22:
        raise ValueError(f"enumerating {int(np.prod(cards))} configurations is too large; this is meant for n <= 12 "
                         "binary variables.")
    out = np.broadcast_to(np.log(prior), (1, prior.shape[0])).copy()
    for t in cpts:
        lt = np.log(np.asarray(t, dtype=np.float64))            # (r_i, r_C)
        out = (out[:, None, :] + lt[None, :, :]).reshape(-1, prior.shape[0])
    return out


def kl_divergence_bits(log_p, log_q, *, align_labels: bool = True) -> float:
    r"""KL divergence :math:`D_{KL}(P \| Q)` in bits between two joint distributions over (x, c), given as
    tables of log-probabilities of shape (n_configurations, r_C) (e.g. from :func:`enumerate_nb_log_joint`).

    With ``align_labels=True`` (default), the minimum over the r_C! relabellings of Q's cluster axis: cluster
    labels are arbitrary in unsupervised models, and the thesis's comparison of P_BF with P_EMA (section 7.5.1)
    is only meaningful up to relabelling (spec AMBIG-10).

    Examples
    --------
    >>> import numpy as np
    >>> p = enumerate_nb_log_joint([0.3, 0.7], [np.array([[0.9, 0.2], [0.1, 0.8]])])
    >>> kl_divergence_bits(p, p[:, ::-1]), kl_divergence_bits(p, p[:, ::-1], align_labels=False) > 0
    (0.0, True)
    """
    lp = np.asarray(log_p, dtype=np.float64)
    lq = np.asarray(log_q, dtype=np.float64)
    if lp.shape != lq.shape:
        raise ValueError(f"log_p and log_q must have the same shape; got {lp.shape} and {lq.shape}.")
    lp = lp - logsumexp(lp)
    lq = lq - logsumexp(lq)
    p = np.exp(lp)
    perms = itertools.permutations(range(lp.shape[1])) if align_labels else [tuple(range(lp.shape[1]))]
    best = np.inf
    for perm in perms:
        lqp = lq[:, list(perm)]
        with np.errstate(invalid="ignore"):
            val = float(np.sum(np.where(p > 0, p * (lp - lqp), 0.0)) / np.log(2.0))
        best = min(best, val)
    return max(best, 0.0)

"""Closed-form leave-one-out accuracy of naive Bayes on feature subsets (wrapper around the ``_selective`` kernels)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from pgmpy_ext._core import _selective
from pgmpy_ext.data import EncodedData
from pgmpy_ext.stats._counting import family_counts
from pgmpy_ext.utils.validation import effective_n_threads

__all__ = ["LOO_LOG_FLOOR", "LOO_TIE_RTOL", "LeaveOneOutNB"]

#: Default floor of every log factor: log(1e-300), the classifiers' prediction floor.
LOO_LOG_FLOOR = float(np.log(1e-300))
#: Two class scores closer than this (relative to ``1 + |max|``) are a tie, won by the lowest class index.
LOO_TIE_RTOL = 1e-10


class LeaveOneOutNB:
    r"""Leave-one-out accuracy of naive Bayes on growing feature subsets, in closed form.

    The counting part of the selective naive Bayes wrapper (Langley & Sage 1994;
    ``docs/decisions/seed001-tm-classifiers.md`` section 4.2). Full-data counts ``N_c`` and ``N_j[x, c]`` are
    taken once; scoring row ``d`` with ``d``'s own contribution removed from them gives exactly the naive Bayes
    refitted without ``d``, so evaluating one candidate feature costs ``O(n_rows K)`` (the scores of the features
    selected so far are kept in an ``(n_rows, K)`` matrix).

    Parameters
    ----------
    data : EncodedData
        Complete data (no missing values); optional row weights (``data.weights``).
    class_node : label
        The class column.
    features : sequence of labels
        The candidate features (positions in this list are the indices used below).
    alpha : float, default 0.0
        Dirichlet pseudo-count per CPT cell (bnclassify's ``smooth``, pgmpy's ``pseudo_counts``); 0 is maximum
        likelihood.
    log_floor : float, default log(1e-300)
        Floor of every log factor (finite).
    tie_rtol : float, default 1e-10
        Class scores within ``tie_rtol * (1 + |max|)`` of the best are tied; the lowest class index wins.
    n_jobs : int, default 1
        Threads over candidates in :meth:`candidate_scores` (results do not depend on it).

    Attributes
    ----------
    scores : numpy.ndarray of float64, shape (n_rows, K)
        LOO log scores of the current subset (log prior plus one factor per selected feature).
    selected : list of int
        Indices (into ``features``) of the selected features, in the order they were added.
    total_weight : float
        ``sum_d w_d``, the denominator of the accuracy.

    Notes
    -----
    Row :math:`d` with class :math:`y_d` and weight :math:`w_d` (1 if unweighted) gets, for each class :math:`c`
    and with :math:`\delta = w_d [c = y_d]`,

    .. math::

        s_{dc} = \ell\!\left(\frac{N_c - \delta + \alpha}{N - w_d + K\alpha}\right)
            + \sum_{j \in F} \ell\!\left(\frac{N_j[x_{dj}, c] - \delta + \alpha}{N_c - \delta + r_j \alpha}\right),
        \qquad \ell(p) = \max(\log p, \mathrm{floor})

    with a uniform factor :math:`1/r` when a denominator is 0. The prediction is the lowest class
    within the tie tolerance of :math:`\max_c s_{dc}`, and the LOO accuracy is
    :math:`\sum_d w_d [\hat y_d = y_d] / \sum_d w_d`. A weighted row is left out with its whole weight; two
    identical rows are two rows (each is left out on its own).

    Examples
    --------
    >>> import pandas as pd
    >>> from pgmpy_ext.data import encode
    >>> df = pd.DataFrame({"A": [0, 0, 1, 1, 1, 1], "B": [0, 1, 0, 1, 0, 1], "C": [0, 0, 1, 1, 1, 1]})
    >>> loo = LeaveOneOutNB(encode(df), "C", ["A", "B"], alpha=1.0)
    >>> round(loo.accuracy(), 4)    # no feature: each held-out row gets the majority class of the other rows
    0.6667
    >>> (loo.candidate_scores() / loo.total_weight).round(4).tolist()   # adding A, adding B
    [1.0, 0.6667]
    >>> loo.add(0)
    >>> loo.accuracy(), loo.selected
    (1.0, [0])
    """

    def __init__(self, data: EncodedData, class_node, features: Sequence, *, alpha: float = 0.0,
                 log_floor: float = LOO_LOG_FLOOR, tie_rtol: float = LOO_TIE_RTOL, n_jobs: int = 1):
        if not isinstance(data, EncodedData):
            raise TypeError(f"data must be an EncodedData (pgmpy_ext.data.encode(df)), got {type(data).__name__}.")
        alpha = float(alpha)
        if not math.isfinite(alpha) or alpha < 0:
            raise ValueError(f"alpha == {alpha!r}, must be >= 0.")
        if not math.isfinite(log_floor):
            raise ValueError(f"log_floor == {log_floor!r}, must be a finite number (e.g. log(1e-300)).")
        if not math.isfinite(tie_rtol) or tie_rtol < 0:
            raise ValueError(f"tie_rtol == {tie_rtol!r}, must be >= 0.")
        if data.has_missing:
            raise ValueError("the data have missing values; leave-one-out naive Bayes needs complete data.")
        self.features = list(features)
        self.class_node = class_node
        self.alpha, self.log_floor, self.tie_rtol = alpha, float(log_floor), float(tie_rtol)
        self.n_jobs = n_jobs
        self._codes = data.codes
        self._y_col = data.index(class_node)
        self._cols = data.indices(self.features)
        self._cards = np.ascontiguousarray(data.cards[self._cols], dtype=np.intp)
        self._w = data.kernel_weights()
        self.total_weight = data.total_weight()
        self._class_totals = np.ascontiguousarray(family_counts(data, class_node), dtype=np.float64)
        K = self._class_totals.shape[0]
        tables = [family_counts(data, f, [class_node], sort_parents=False).reshape(-1) for f in self.features]
        self._offsets = np.zeros(len(tables) + 1, dtype=np.intp)
        np.cumsum([t.size for t in tables], out=self._offsets[1:])
        self._counts = np.ascontiguousarray(np.concatenate(tables) if tables else np.zeros(0), dtype=np.float64)
        self.scores = np.empty((data.n_rows, K), dtype=np.float64)
        _selective.loo_prior(self.scores, self._codes, self._y_col, self._w, self._class_totals, self.alpha,
                             self.log_floor)
        self.selected: list[int] = []

    def correct(self) -> np.ndarray:
        """Boolean (n_rows,): rows the current subset classifies correctly when they are left out."""
        out = np.empty(self._codes.shape[0], dtype=np.uint8)
        _selective.loo_correct(self.scores, self._codes, self._y_col, self._w, self.tie_rtol, out)
        return out.astype(bool)

    def correct_weight(self) -> float:
        """``sum_d w_d [row d correct]`` for the current subset."""
        out = np.empty(self._codes.shape[0], dtype=np.uint8)
        return float(_selective.loo_correct(self.scores, self._codes, self._y_col, self._w, self.tie_rtol, out))

    def accuracy(self) -> float:
        """LOO accuracy of the current subset (weighted fraction of correct rows)."""
        return self.correct_weight() / self.total_weight

    def candidate_scores(self, candidates: Sequence[int] | None = None) -> np.ndarray:
        """Weighted number of LOO-correct rows after adding each candidate (indices into ``features``).

        Default: every feature not selected yet, in index order. Divide by ``total_weight`` for accuracies.
        """
        if candidates is None:
            candidates = [t for t in range(len(self.features)) if t not in self.selected]
        cand = np.asarray(candidates, dtype=np.intp).reshape(-1)
        if cand.size and (cand.min() < 0 or cand.max() >= len(self.features)):
            raise ValueError(f"candidate indices must be in 0..{len(self.features) - 1}, got {cand.tolist()!r}.")
        sizes = self._offsets[cand + 1] - self._offsets[cand]
        offsets = np.zeros(cand.size + 1, dtype=np.intp)
        np.cumsum(sizes, out=offsets[1:])
        counts = (np.concatenate([self._counts[self._offsets[t]:self._offsets[t + 1]] for t in cand])
                  if cand.size else np.zeros(0))
        out = np.empty(cand.size, dtype=np.float64)
        _selective.loo_candidates(self.scores, self._codes, np.ascontiguousarray(self._cols[cand]),
                                  np.ascontiguousarray(self._cards[cand]), self._y_col, self._w,
                                  np.ascontiguousarray(counts, dtype=np.float64), offsets, self._class_totals,
                                  self.alpha, self.log_floor, self.tie_rtol, out, effective_n_threads(self.n_jobs))
        return out

    def add(self, index: int) -> None:
        """Add feature ``features[index]`` to the subset (its LOO factors are added to ``scores``)."""
        index = int(index)
        if not 0 <= index < len(self.features):
            raise ValueError(f"feature index {index} is out of range 0..{len(self.features) - 1}.")
        if index in self.selected:
            raise ValueError(f"feature {self.features[index]!r} is already selected.")
        block = np.ascontiguousarray(self._counts[self._offsets[index]:self._offsets[index + 1]])
        _selective.loo_add_feature(self.scores, self._codes, int(self._cols[index]), int(self._cards[index]),
                                   self._y_col, self._w, block, self._class_totals, self.alpha, self.log_floor)
        self.selected.append(index)

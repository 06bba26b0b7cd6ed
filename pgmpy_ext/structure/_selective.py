"""Selective naive Bayes (forward wrapper of Langley & Sage 1994) with closed-form leave-one-out, and its pgmpy face."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pgmpy_ext._compat import DAG, show_progress_enabled
from pgmpy_ext.data import EncodedData
from pgmpy_ext.stats import LOO_LOG_FLOOR, LeaveOneOutNB
from pgmpy_ext.structure._base import ClassifierSearchBase, ClassifierStructure, check_class_node

__all__ = ["SelectiveNBSearch", "fit_selective_nb"]


def fit_selective_nb(data: EncodedData, class_node, *, features: Sequence | None = None, alpha: float = 0.0,
                     log_floor: float = LOO_LOG_FLOOR, n_jobs: int = 1,
                     show_progress: bool = False) -> ClassifierStructure:
    """Selective naive Bayes (Santafé 2007, section 4.2): forward selection on closed-form leave-one-out accuracy.

    Start from no feature (the LOO accuracy of the class prior alone); at each step add the feature whose addition
    gives the highest LOO accuracy of naive Bayes on the training data (ties: lowest feature index), and stop when
    the best addition does not *strictly* improve it (or no feature is left). Unselected features keep no parents.
    The LOO model, its zero-count convention and its tie rule are those of :class:`pgmpy_ext.stats.LeaveOneOutNB`.

    ``trace`` holds ``"loo_accuracy"`` (the LOO accuracy after each step, starting with the empty set, so it has
    ``len(selected) + 1`` entries), ``"order"`` (labels of the selected features in the order they were added) and
    ``"candidate_accuracy"`` (per step, an array over ``features`` with the LOO accuracy of adding each one, NaN for
    those already selected).
    """
    features = check_class_node(data, class_node, features)
    loo = LeaveOneOutNB(data, class_node, features, alpha=alpha, log_floor=log_floor, n_jobs=n_jobs)
    m = len(features)
    total = loo.total_weight
    best_weight = loo.correct_weight()
    acc_trace = [best_weight / total if total > 0 else 0.0]
    cand_trace = []
    bar = None
    if show_progress_enabled(show_progress):
        from tqdm.auto import tqdm

        bar = tqdm(total=m, desc="selective NB")
    try:
        while len(loo.selected) < m:
            remaining = [t for t in range(m) if t not in loo.selected]
            weights = loo.candidate_scores(remaining)
            step = np.full(m, np.nan)
            step[remaining] = weights / total if total > 0 else 0.0
            cand_trace.append(step)
            b = int(np.argmax(weights))  # first maximum: the lowest feature index among ties
            if not weights[b] > best_weight:
                break
            loo.add(remaining[b])
            best_weight = float(weights[b])
            acc_trace.append(best_weight / total)
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    chosen = set(loo.selected)
    parents = {f: ([class_node] if k in chosen else []) for k, f in enumerate(features)}
    trace = {"loo_accuracy": acc_trace, "order": [features[t] for t in loo.selected],
             "candidate_accuracy": cand_trace}
    return ClassifierStructure(class_node, features, parents, trace)


class SelectiveNBSearch(ClassifierSearchBase):
    r"""Selective naive Bayes structure (Langley & Sage 1994), pgmpy face:
    ``SelectiveNBSearch(df).estimate(class_node="C", alpha=0.0) -> DAG``.

    Forward feature selection wrapped around naive Bayes, scored by leave-one-out (LOO) accuracy on the training
    data, as in ``docs/decisions/seed001-tm-classifiers.md`` ("Selective naive Bayes"; Santafé 2007, Fig. 4.3). The LOO
    accuracy is
    computed in closed form (each row is scored with its own counts removed) by the ``_selective`` Cython kernels,
    so one candidate costs :math:`O(N K)` and the whole search :math:`O(n^2 N K)`.

    Parameters
    ----------
    data : pandas.DataFrame
        Discrete data, the class column included (no missing values).
    state_names : dict, optional
        ``{column: [states]}`` (pgmpy's convention). Declared states enter the cardinalities (``r_j``).
    n_jobs : int, default 1
        Threads over candidate features (results do not depend on it).

    Attributes
    ----------
    result_ : ClassifierStructure
        After ``estimate``: ``result_.selected`` and the ``trace`` of :func:`fit_selective_nb` (LOO accuracy after
        each step).

    See Also
    --------
    pgmpy_ext.stats.LeaveOneOutNB : the closed-form LOO computation.
    pgmpy_ext.classifiers.SelectiveNBClassifier : the scikit-learn face.

    Notes
    -----
    Model (Eq. 4.2-4.3): :math:`p(c \mid x) \propto p(c) \prod_{j \in F} p(x_j \mid c)`; a feature outside
    :math:`F` is independent of the class and stays in the DAG as an isolated node. With :math:`\delta =
    w_d [c = y_d]`, row :math:`d` is scored by

    .. math::

        s_{dc} = \ell\!\left(\frac{N_c - \delta + \alpha}{N - w_d + K\alpha}\right)
            + \sum_{j \in F} \ell\!\left(\frac{N_j[x_{dj}, c] - \delta + \alpha}{N_c - \delta + r_j \alpha}\right),
        \qquad \ell(p) = \max(\log p, \log 10^{-300})

    and predicted as the lowest class within :math:`10^{-10}(1 + |\max_c s_{dc}|)` of the best. The LOO accuracy is
    :math:`\sum_d w_d [\hat y_d = y_d] / \sum_d w_d`; with :math:`F = \emptyset` it is the LOO accuracy of the prior
    (majority class of the other rows). The search adds the best feature while this strictly increases.

    Departures and choices: the thesis leaves the zero-count case open (section 4.2 points to section 5.6); we
    follow the choices of ``docs/decisions/seed000-sbn-cem-nbm.md`` for Ruz's classifiers: maximum likelihood by default
    (``alpha = 0``; ``alpha > 0`` adds a Dirichlet
    pseudo-count per cell), a parent configuration with no data left gets a uniform factor, and every log factor is
    floored at :math:`\log 10^{-300}` (the classifiers' prediction floor), which keeps the argmax defined. The tie
    tolerance makes exact-arithmetic ties go to the lowest class regardless of rounding.

    References
    ----------
    .. [1] P. Langley and S. Sage, "Induction of selective Bayesian classifiers", UAI 1994, pp. 399-406.
    .. [2] G. Santafé, PhD thesis (2007), section 4 (Fig. 4.3).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> c = rng.integers(0, 2, 300)
    >>> df = pd.DataFrame({"C": c, "A": c ^ (rng.random(300) < 0.1), "B": rng.integers(0, 3, 300),
    ...                    "D": c ^ (rng.random(300) < 0.3)})
    >>> search = SelectiveNBSearch(df)
    >>> sorted(search.estimate(class_node="C").edges())
    [('C', 'A')]
    >>> search.result_.selected
    ['A']
    """

    def estimate(self, class_node=None, alpha: float = 0.0, show_progress: bool = False) -> DAG:
        """Return the selective naive Bayes DAG (unselected features are isolated nodes)."""
        return self._estimate(fit_selective_nb, class_node, alpha=alpha, show_progress=show_progress)

"""Forest-augmented naive Bayes structure engines: FAN (fixed edge count), SBN (Bayesian complexity monitor) and
ABN (MDL-optimal forest), with their pgmpy faces.

All three run Kruskal on class-conditional pair statistics that come from the Cython kernels
(:func:`pgmpy_ext.stats.pairwise_counts` + :func:`pgmpy_ext.stats.cmi_matrix`); they differ only in the edge
weight and in where the walk stops. No pgmpy object is built here except the DAG the faces return.

* FAN (Santafé 2007, section 4.4): the first ``n_edges`` Kruskal edges on I(Xi; Xj | C).
* SBN (Ruz, PhD thesis, chapter 3): the Kruskal prefix on I(Xi; Xj | C) cut by the Bayes-factor monitor
  ``k_e = 2 log2(n + 1) - N I_2(Xu; Xv | C)`` (bits).
* ABN (Hamine & Helman 2004; ``docs/decisions/seed002-003-abn-pena.md``, "Recommended algorithm"): Kruskal on the net
  MDL gain ``w = N I - (log N / 2) |C| (|Xi| - 1)(|Xj| - 1)``,
  keeping only ``w > 0``: the MDL-optimal forest for any cardinalities.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

import numpy as np
import pandas as pd
from sklearn.utils import check_scalar

from pgmpy_ext._compat import DAG
from pgmpy_ext.data import EncodedData
from pgmpy_ext.stats import cmi_matrix, family_counts, local_score, pairwise_counts
from pgmpy_ext.structure._base import ClassifierSearchBase, ClassifierStructure, check_class_node
from pgmpy_ext.structure._trees import (  # the SBN monitor lives with the other spanning-tree helpers
    SBN_STOPPING,
    maximum_spanning_forest,
    orient_forest,
    root_index,
    sbn_code_length,
    sbn_monitor,
    sbn_walk,
)
from pgmpy_ext.utils import check_option

__all__ = ["ABNSearch", "ABN_WEIGHTS", "FANSearch", "MONITOR_COLUMNS", "SBNSearch", "SBN_STOPPING", "abn_forest",
           "check_abn_params", "check_fan_params", "check_sbn_params", "fit_abn", "fit_fan", "fit_sbn",
           "labelled_matrix", "mdl_gains", "monitor_frame", "sbn_code_length", "sbn_monitor"]

#: Valid Kruskal weights of ABN (seed 002 decision A.11-1).
ABN_WEIGHTS = ("mdl_gain", "cmi")
#: Columns of the SBN monitor trace, one row per Kruskal edge.
MONITOR_COLUMNS = ("step", "edge", "cmi_bits", "k_bits", "K_bits", "accepted")


# ---------------------------------------------------------------------------------------------------- shared pieces
def _class_cmi(data: EncodedData, class_node, features: list, n_jobs: int) -> np.ndarray:
    """(m, m) I(Xi; Xj | C) in nats, features in ``features`` order (pairwise-count and CMI kernels)."""
    return cmi_matrix(pairwise_counts(data, features, cond=class_node, n_jobs=n_jobs))


def _forest_structure(class_node, features: list, edges: list, root, trace: dict) -> ClassifierStructure:
    """Orient the forest ``edges`` (feature indices) from ``root`` / lowest index per tree, add C -> every feature."""
    parents_idx = orient_forest(len(features), edges, root_index(features, root))
    parents = {f: [class_node] for f in features}
    for k, p in enumerate(parents_idx):
        if p >= 0:
            parents[features[k]].append(features[p])
    trace["edges"] = [(features[i], features[j]) for i, j in edges]
    return ClassifierStructure(class_node, features, parents, trace)


def _check_max_count(value, name: str):
    """None, or an integer >= 0 (edge counts)."""
    if value is not None:
        check_scalar(value, name, numbers.Integral, min_val=0)
    return value


# ---------------------------------------------------------------------------------------------------- FAN
def check_fan_params(n_edges):
    """Validate FAN's options (shared by the engine and the classifier)."""
    if n_edges is None:
        raise ValueError("n_edges is required: the number of augmenting edges of the forest (0 gives naive Bayes, "
                         "n_features - 1 gives TAN).")
    check_scalar(n_edges, "n_edges", numbers.Integral, min_val=0)


def fit_fan(data: EncodedData, class_node, *, features: Sequence | None = None, n_edges: int, root=None,
            n_jobs: int = 1) -> ClassifierStructure:
    """FAN (forest-augmented naive Bayes, Lucas 2004; Santafé 2007, section 4.4): Kruskal on I(Xi; Xj | C)
    stopped after ``n_edges`` edges, each tree oriented away from ``root`` (default: its lowest-index feature).

    ``n_edges`` larger than ``n_features - 1`` is clipped (the spanning tree, i.e. TAN). ``trace`` holds ``"cmi"``
    (the (m, m) weights in nats, ``features`` order) and ``"edges"`` (the forest edges in Kruskal order).
    """
    check_fan_params(n_edges)
    features = check_class_node(data, class_node, features)
    w = _class_cmi(data, class_node, features, n_jobs)
    edges = maximum_spanning_forest(w, max_edges=int(n_edges))
    return _forest_structure(class_node, features, edges, root, {"cmi": w})


# ---------------------------------------------------------------------------------------------------- SBN
def check_sbn_params(stopping, integer_code_length, penalty_bits, max_edges):
    """Validate SBN's options (shared by the engine and the classifier)."""
    check_option(stopping, "stopping", SBN_STOPPING)
    check_scalar(integer_code_length, "integer_code_length", (bool, np.bool_))
    if penalty_bits is not None:
        check_scalar(penalty_bits, "penalty_bits", numbers.Real, min_val=0.0)
        if math.isnan(penalty_bits):
            raise ValueError("penalty_bits == nan, must be >= 0 (use math.inf for naive Bayes).")
    _check_max_count(max_edges, "max_edges")


def monitor_frame(trace) -> pd.DataFrame:
    """The SBN monitor trace (a list of records, as in ``ClassifierStructure.trace["monitor"]``) as a DataFrame
    with columns ``step, edge, cmi_bits, k_bits, K_bits, accepted`` (ready for ``df.plot(x="step", y="K_bits")``,
    the thesis's Fig. 3.7)."""
    return pd.DataFrame.from_records(list(trace), columns=list(MONITOR_COLUMNS))


def fit_sbn(data: EncodedData, class_node, *, features: Sequence | None = None, stopping: str = "marginal",
            integer_code_length: bool = False, penalty_bits: float | None = None, max_edges: int | None = None,
            root=None, n_jobs: int = 1) -> ClassifierStructure:
    """SBN (Ruz & Pham 2009; Ruz's thesis, chapter 3 and "Build Network" of Fig. 4.6): the Kruskal prefix on
    I(Xi; Xj | C) accepted by the Bayesian complexity monitor, oriented away from ``root`` per tree.

    See :class:`SBNSearch` for the options. ``trace`` holds ``"cmi"`` ((m, m), nats), ``"edges"`` (the accepted
    edges), ``"monitor"`` (one record per Kruskal edge of the full spanning-tree walk: ``step``, ``edge`` (u, v)
    labels, ``cmi_bits``, ``k_bits`` = k_e, ``K_bits`` = K_e, ``accepted``), ``"penalty_bits"``,
    ``"code_length_bits"`` (m), ``"n_rows"`` (N) and ``"stopping"``.
    """
    check_sbn_params(stopping, integer_code_length, penalty_bits, max_edges)
    features = check_class_node(data, class_node, features)
    w = _class_cmi(data, class_node, features, n_jobs)
    m_bits = sbn_code_length(len(features), integer_code_length)
    penalty = 2.0 * m_bits if penalty_bits is None else float(penalty_bits)
    n_rows = data.total_weight()
    # The whole Kruskal sequence (the TAN tree in acceptance order). The SBN forest is a prefix of it; the rest is
    # kept in the trace so the monitor curve can be drawn past the stopping point (Fig. 3.7).
    walk = sbn_walk(w, n_rows, penalty, stopping, max_edges)
    sequence, n_acc, cmi_bits, k, K = walk.sequence, walk.n_accepted, walk.cmi_bits, walk.k, walk.K
    records = [{"step": e + 1, "edge": (features[i], features[j]), "cmi_bits": float(cmi_bits[e]),
                "k_bits": float(k[e]), "K_bits": float(K[e]), "accepted": e < n_acc}
               for e, (i, j) in enumerate(sequence)]
    trace = {"cmi": w, "monitor": records, "penalty_bits": penalty, "code_length_bits": m_bits, "n_rows": n_rows,
             "stopping": stopping}
    return _forest_structure(class_node, features, sequence[:n_acc], root, trace)


# ---------------------------------------------------------------------------------------------------- ABN
def mdl_gains(cmi: np.ndarray, cards, n_classes: int, n_rows: float) -> tuple[np.ndarray, np.ndarray]:
    r"""Net MDL gains and per-edge thresholds of every feature pair (Hamine & Helman 2004, eqs. 1-8), in nats.

    Parameters
    ----------
    cmi : ndarray of shape (m, m)
        I(Xi; Xj | C) in nats.
    cards : array-like of shape (m,)
        Feature cardinalities :math:`|X_i|`.
    n_classes : int
        :math:`|C|`.
    n_rows : float
        N.

    Returns
    -------
    gains : ndarray of shape (m, m)
        :math:`w(i, j) = N I(X_i; X_j | C) - \frac{\log N}{2} |C| (|X_i| - 1)(|X_j| - 1)`; zero diagonal.
    thresholds : ndarray of shape (m, m)
        :math:`T_R(i, j) = |C| (|X_i| - 1)(|X_j| - 1) \log N / (2N)`; an edge pays for itself iff
        :math:`I > T_R`, i.e. ``gains > 0``. Zero diagonal.

    Examples
    --------
    The worked example of ``docs/decisions/seed002-003-abn-pena.md``, "MDL score and its decomposition"
    (:math:`|C| = 2`, binary attributes, N = 1000):

    >>> import numpy as np
    >>> gains, thresholds = mdl_gains(np.zeros((2, 2)), [2, 2], 2, 1000)
    >>> round(float(thresholds[0, 1]), 7)
    0.0069078
    """
    cmi = np.asarray(cmi, dtype=np.float64)
    r1 = np.asarray(cards, dtype=np.float64) - 1.0
    n_rows = float(n_rows)
    penalties = 0.5 * math.log(n_rows) * float(n_classes) * np.outer(r1, r1)
    np.fill_diagonal(penalties, 0.0)
    gains = n_rows * cmi - penalties
    np.fill_diagonal(gains, 0.0)
    return gains, penalties / n_rows


def abn_forest(cmi: np.ndarray, cards, n_classes: int, n_rows: float, *,
               weight: str = "mdl_gain") -> list[tuple[int, int]]:
    """The ABN forest (feature-index edges in Kruskal order) from the CMI matrix (Hamine & Helman 2004).

    Only edges with a strictly positive MDL gain are candidates. ``weight="mdl_gain"`` runs Kruskal on the
    gains (MDL-optimal); ``weight="cmi"`` runs it on I(Xi; Xj | C) (the paper's algorithm, optimal only
    when the penalties inside each component are equal). Ties: ``(-key, i, j)``. The reasoning is in
    ``docs/decisions/seed002-003-abn-pena.md`` ("Recommended algorithm", "Optimality argument, and its gap").

    Examples
    --------
    The counterexample of that note's "Optimality argument, and its gap" (attributes A, B binary and D with 10 states,
    :math:`|C| = 2`, N = 1000):

    >>> import numpy as np
    >>> cmi = np.array([[0, .05, .10], [.05, 0, .09], [.10, .09, 0]])
    >>> abn_forest(cmi, [2, 2, 10], 2, 1000)                 # AB + AD: gain 80.92, optimal
    [(0, 1), (0, 2)]
    >>> abn_forest(cmi, [2, 2, 10], 2, 1000, weight="cmi")   # AD + BD: gain 65.66
    [(0, 2), (1, 2)]
    """
    check_option(weight, "weight", ABN_WEIGHTS)
    gains, _ = mdl_gains(cmi, cards, n_classes, n_rows)
    if weight == "mdl_gain":
        return maximum_spanning_forest(gains, min_weight=0.0)
    # gains > 0 implies I > 0 (the penalty is >= 0), so -1 marks the filtered-out pairs unambiguously.
    key = np.where(gains > 0.0, np.asarray(cmi, dtype=np.float64), -1.0)
    return maximum_spanning_forest(key, min_weight=0.0)


def check_abn_params(weight):
    """Validate ABN's options (shared by the engine and the classifier)."""
    check_option(weight, "weight", ABN_WEIGHTS)


def fit_abn(data: EncodedData, class_node, *, features: Sequence | None = None, weight: str = "mdl_gain", root=None,
            n_jobs: int = 1) -> ClassifierStructure:
    """ABN (Hamine & Helman 2004; ``docs/decisions/seed002-003-abn-pena.md``, "Recommended algorithm"): the
    maximum-weight forest of the net MDL gains (only
    positive gains), i.e. the augmented naive Bayes with the lowest MDL, oriented away from ``root`` per tree.

    See :class:`ABNSearch` for the options. ``trace`` holds ``"cmi"``, ``"gains"`` and ``"thresholds"`` ((m, m),
    nats, ``features`` order), ``"edges"``, ``"weight"``, ``"n_rows"`` and ``"mdl"``: the MDL (= -BIC, nats) of the
    naive Bayes, TAN and ABN structures, ``{"nb": ..., "tan": ..., "abn": ...}``.
    """
    check_abn_params(weight)
    features = check_class_node(data, class_node, features)
    if data.has_missing:  # A.11-7: the MDL decomposition needs complete data
        raise ValueError("ABN needs complete data (seed 002 A.11-7); drop or impute the rows with missing values.")
    n_rows = data.total_weight()
    cmi = _class_cmi(data, class_node, features, n_jobs)
    cards = data.cards[data.indices(features)]
    n_classes = data.card(class_node)
    gains, thresholds = mdl_gains(cmi, cards, n_classes, n_rows)
    edges = abn_forest(cmi, cards, n_classes, n_rows, weight=weight)
    # Absolute MDL of NB from the family tables; TAN and ABN differ from it by their summed gains (section A.3).
    mdl_nb = -local_score("bic", family_counts(data, class_node), n_rows)
    mdl_nb -= sum(local_score("bic", family_counts(data, f, [class_node]), n_rows) for f in features)
    tan = maximum_spanning_forest(cmi)
    mdl = {"nb": float(mdl_nb), "tan": float(mdl_nb - sum(gains[i, j] for i, j in tan)),
           "abn": float(mdl_nb - sum(gains[i, j] for i, j in edges))}
    trace = {"cmi": cmi, "gains": gains, "thresholds": thresholds, "weight": weight, "n_rows": n_rows, "mdl": mdl}
    return _forest_structure(class_node, features, edges, root, trace)


# ---------------------------------------------------------------------------------------------------- pgmpy faces
def labelled_matrix(matrix: np.ndarray, features: list) -> pd.DataFrame:
    """An (m, m) feature-pair matrix as a DataFrame indexed and labelled by feature."""
    return pd.DataFrame(matrix, index=pd.Index(features, dtype=object), columns=pd.Index(features, dtype=object))


class FANSearch(ClassifierSearchBase):
    """Forest-augmented naive Bayes with a fixed number of edges, pgmpy face (Santafé 2007, section 4.4; Lucas 2004).

    ``FANSearch(df).estimate(class_node="C", n_edges=k)`` returns the DAG with C -> every feature plus the first
    ``k`` edges of Kruskal's maximum spanning tree on I(Xi; Xj | C), each tree oriented away from its root.
    ``n_edges=0`` is naive Bayes and ``n_edges=n_features - 1`` is TAN.

    Parameters
    ----------
    data : pandas.DataFrame
        Discrete data, the class column included; no missing values.
    state_names : dict, optional
        ``{column: [states]}`` (pgmpy's convention).
    n_jobs : int, default 1
        Threads for the counting kernels (results do not depend on it).

    Attributes
    ----------
    result_ : ClassifierStructure
        Set by :meth:`estimate`; ``result_.trace["cmi"]`` is the CMI matrix (nats).

    See Also
    --------
    SBNSearch, ABNSearch : forests whose size is chosen from the data.
    pgmpy_ext.classifiers.FANClassifier : the scikit-learn face.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> c = rng.integers(0, 2, 300)
    >>> a = c ^ (rng.random(300) < 0.2)
    >>> df = pd.DataFrame({"C": c, "A": a, "B": a ^ (rng.random(300) < 0.1), "D": rng.integers(0, 3, 300)})
    >>> sorted(FANSearch(df).estimate(class_node="C", n_edges=1).edges())
    [('A', 'B'), ('C', 'A'), ('C', 'B'), ('C', 'D')]
    """

    def estimate(self, class_node=None, n_edges: int | None = None, root=None, show_progress: bool = False) -> DAG:
        """Return the FAN DAG with ``n_edges`` augmenting edges (required; clipped at ``n_features - 1``)."""
        return self._estimate(fit_fan, class_node, n_edges=n_edges, root=root)


class SBNSearch(ClassifierSearchBase):
    r"""Simple Bayesian Network (SBN) classifier structure, pgmpy face (Ruz & Pham 2009; Ruz's thesis, chapter 3).

    Kruskal's walk on I(Xi; Xj | C) is cut by a Bayesian complexity monitor, so the feature forest lies between
    naive Bayes (no edge) and TAN (``n - 1`` edges) with a size set by the amount of data.

    Parameters
    ----------
    data : pandas.DataFrame
        Discrete data, the class column included; no missing values.
    state_names : dict, optional
        ``{column: [states]}`` (pgmpy's convention).
    n_jobs : int, default 1
        Threads for the counting kernels (results do not depend on it).

    Attributes
    ----------
    result_ : ClassifierStructure
        Set by :meth:`estimate`; see :func:`fit_sbn` for ``result_.trace``.
    trace_ : list of dict
        The monitor, one record per Kruskal edge (``step, edge, cmi_bits, k_bits, K_bits, accepted``); the
        walk continues past the stopping point so the whole curve can be plotted. :meth:`monitor_frame` returns
        it as a DataFrame.

    See Also
    --------
    pgmpy_ext.classifiers.SBNClassifier : the scikit-learn face, with the formulas and departures.

    Notes
    -----
    An edge (u, v) added to the current forest changes the log2 posterior odds by (Ruz's thesis, eq. 3.6, via the MLE
    identity of ``docs/decisions/seed000-sbn-cem-nbm.md``, "Bayesian complexity monitor")

    .. math::

        k_e = 2 \log_2(n + 1) - N \hat I_2(X_u; X_v \mid C), \qquad K_e = \sum_{i \le e} k_i .

    Examples
    --------
    >>> from pgmpy_ext.datasets import make_corral
    >>> df = make_corral(return_X_y=False)
    >>> est = SBNSearch(df)
    >>> dag = est.estimate(class_node="class")
    >>> sorted(est.result_.augmenting_edges())
    [('A0', 'A1'), ('A0', 'B0'), ('B0', 'B1')]
    >>> est.monitor_frame()[["edge", "k_bits", "K_bits", "accepted"]].round(2)
                   edge  k_bits  K_bits  accepted
    0          (A0, A1)  -15.96  -15.96      True
    1          (B0, B1)  -15.96  -31.92      True
    2          (A0, B0)   -3.88  -35.80      True
    3  (A0, Irrelevant)    5.61  -30.19     False
    4  (A0, Correlated)    5.61  -24.57     False
    """

    def estimate(self, class_node=None, stopping: str = "marginal", integer_code_length: bool = False,
                 penalty_bits: float | None = None, max_edges: int | None = None, root=None,
                 show_progress: bool = False) -> DAG:
        """Return the SBN DAG.

        Parameters
        ----------
        class_node : label
            The class column.
        stopping : {"marginal", "cumulative"}, default "marginal"
            ``"marginal"``: stop at the first Kruskal edge with ``k_e >= 0`` (the MAP cut). ``"cumulative"``:
            the thesis's literal rule, stop when ``K_e >= 0``.
        integer_code_length : bool, default False
            Use ``m = ceil(log2(n + 1))`` instead of the real ``log2(n + 1)``.
        penalty_bits : float, optional
            Cost of one edge in bits (default ``2 m``). ``math.inf`` gives naive Bayes; ``0`` gives TAN whenever
            every Kruskal edge has a positive CMI (an edge with zero CMI is never added).
        max_edges : int, optional
            At most this many edges.
        root : label, optional
            Root of the tree that contains it; other trees are rooted at their first feature.
        show_progress : bool, default False
            Unused (no long loop).
        """
        dag = self._estimate(fit_sbn, class_node, stopping=stopping, integer_code_length=integer_code_length,
                             penalty_bits=penalty_bits, max_edges=max_edges, root=root)
        self.trace_ = self.result_.trace["monitor"]
        return dag

    def monitor_frame(self) -> pd.DataFrame:
        """The monitor trace of the last :meth:`estimate` as a DataFrame (one row per Kruskal edge)."""
        if not hasattr(self, "trace_"):
            raise AttributeError("SBNSearch has no monitor trace yet; call estimate(class_node=...) first.")
        return monitor_frame(self.trace_)


class ABNSearch(ClassifierSearchBase):
    r"""MDL-optimal augmented naive Bayes (ABN/FAN) structure, pgmpy face (Hamine & Helman 2004).

    Parameters
    ----------
    data : pandas.DataFrame
        Discrete data, the class column included; no missing values (the MDL decomposition needs complete data).
    state_names : dict, optional
        ``{column: [states]}`` (pgmpy's convention). Declared but unobserved states count in the MDL penalty.
    n_jobs : int, default 1
        Threads for the counting kernels (results do not depend on it).

    Attributes
    ----------
    result_ : ClassifierStructure
        Set by :meth:`estimate`; see :func:`fit_abn` for ``result_.trace`` (CMI, gains, thresholds, MDL of NB,
        TAN and ABN).
    gains_ : pandas.DataFrame of shape (m, m)
        Net MDL gain w(i, j) in nats of every feature pair, labelled by feature (zero diagonal).
    thresholds_ : pandas.DataFrame of shape (m, m)
        Per-edge CMI thresholds T_R(i, j) in nats.

    See Also
    --------
    pgmpy_ext.classifiers.ABNClassifier : the scikit-learn face, with the formulas and departures.

    Notes
    -----
    .. math::

        w(i, j) = N \hat I(X_i; X_j \mid C) - \frac{\log N}{2} |C| (|X_i| - 1)(|X_j| - 1)

    MDL(B_F) = MDL(NB) - sum of w over the forest F, so Kruskal on w restricted to w > 0 minimises MDL.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> c = rng.integers(0, 2, 500)
    >>> a = c ^ (rng.random(500) < 0.2)
    >>> df = pd.DataFrame({"C": c, "A": a, "B": a ^ (rng.random(500) < 0.1), "D": rng.integers(0, 3, 500)})
    >>> est = ABNSearch(df)
    >>> sorted(est.estimate(class_node="C").edges())   # D is independent: no edge pays for itself
    [('A', 'B'), ('C', 'A'), ('C', 'B'), ('C', 'D')]
    >>> bool(est.gains_.loc["A", "B"] > 0), bool(est.gains_.loc["A", "D"] < 0)
    (True, True)
    """

    def estimate(self, class_node=None, weight: str = "mdl_gain", root=None, show_progress: bool = False) -> DAG:
        """Return the ABN DAG.

        Parameters
        ----------
        class_node : label
            The class column.
        weight : {"mdl_gain", "cmi"}, default "mdl_gain"
            Kruskal key among the edges with positive gain: the gain itself (MDL-optimal) or the CMI (the paper's
            algorithm; sub-optimal with mixed cardinalities).
        root : label, optional
            Root of the tree that contains it; other trees are rooted at their first feature.
        show_progress : bool, default False
            Unused (no long loop).
        """
        dag = self._estimate(fit_abn, class_node, weight=weight, root=root)
        features = self.result_.features
        self.gains_ = labelled_matrix(self.result_.trace["gains"], features)
        self.thresholds_ = labelled_matrix(self.result_.trace["thresholds"], features)
        return dag

"""Chow-Liu multinet (one Chow-Liu tree per class) structure engine and its pgmpy face."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from pgmpy_ext._compat import DAG
from pgmpy_ext.data import EncodedData
from pgmpy_ext.stats import family_counts, pairwise_counts
from pgmpy_ext.structure._base import ClassifierSearchBase, check_class_node
from pgmpy_ext.structure._trees import (
    TreeResult,
    chow_liu_trees_per_class,
    orient_forest,
    root_index,
)

__all__ = ["CLMultinetSearch", "MultinetStructure", "fit_cl_multinet"]


@dataclass
class MultinetStructure:
    """The structure of a Bayesian multinet classifier: one feature network per class state.

    Attributes
    ----------
    class_node : label
    features : list
        The features, in data order; every per-class network is over all of them.
    classes : list
        The class states, in code order (``data.states`` of the class).
    trees : list of TreeResult
        ``trees[k]``: the Chow-Liu tree of the rows of class ``classes[k]`` (``weights`` is its MI matrix in
        nats, ``class_node`` is None).
    class_counts : numpy.ndarray (K,)
        Weighted number of rows per class.
    trace : dict
        Diagnostics (empty for now).
    """

    class_node: object
    features: list
    classes: list
    trees: list
    class_counts: np.ndarray
    trace: dict = field(default_factory=dict)

    def parent_sets(self, k: int) -> dict:
        """``{feature: [parent]}`` of class ``classes[k]``'s tree (the form ``build_network`` takes)."""
        return self.trees[k].parent_sets()

    def edges(self, k: int) -> list:
        """Directed edges (parent, child) of class ``classes[k]``'s tree."""
        return self.trees[k].edge_list()

    def to_dags(self) -> dict:
        """``{class state: pgmpy DAG over the features}``."""
        out = {}
        for k, state in enumerate(self.classes):
            dag = DAG()
            dag.add_nodes_from(self.features)
            dag.add_edges_from(self.edges(k))
            out[state] = dag
        return out


def fit_cl_multinet(data: EncodedData, class_node, *, features: Sequence | None = None, root=None,
                    n_jobs: int = 1) -> MultinetStructure:
    """CL multinet (Friedman, Geiger & Goldszmidt 1997; Ruz's thesis, section 4.2): a Chow-Liu tree
    per class.

    For every class state ``k``, the maximum spanning tree of the mutual information ``I_k(X_i; X_j)`` estimated on
    the rows of class ``k`` only (deterministic Kruskal, ties by ``(-w, i, j)``), oriented away from
    ``root`` (default: the first feature). All per-class pair counts come from one pass of the
    pairwise counting kernel conditioned on the class (:func:`~pgmpy_ext.structure.chow_liu_trees_per_class`, the
    helper CEM-CL's M-step uses too). A declared class state without rows gets the all-zero MI matrix, hence the
    tie-broken star ``(0, 1), (0, 2), ...``.
    """
    features = check_class_node(data, class_node, features)
    root_idx = root_index(features, root)
    m = len(features)
    K = data.card(class_node)
    class_counts = family_counts(data, class_node).reshape(-1)
    if m > 1:
        pc = pairwise_counts(data, features, cond=class_node, n_jobs=n_jobs)
        trees = chow_liu_trees_per_class(pc, root=root_idx)
    else:  # no pairs: the one-node "tree" of every class
        trees = [TreeResult(features, orient_forest(m, [], root_idx), [], np.zeros((m, m), dtype=np.float64), None)
                 for _ in range(K)]
    classes = list(data.states[data.index(class_node)])
    return MultinetStructure(class_node, features, classes, trees, class_counts)


class CLMultinetSearch(ClassifierSearchBase):
    r"""Chow-Liu multinet structure: one Chow-Liu tree over the features per class state, pgmpy face.

    ``CLMultinetSearch(df).estimate(class_node="C") -> {class state: DAG}``. Unlike the other searches this returns
    a dict, because a multinet is not a single Bayesian network: each class has its own tree over the features.
    Specification: ``docs/decisions/seed000-sbn-cem-nbm.md``, "CL multinet classifier" (Ruz's supervised
    baseline and the M-step of CEM-CL), with its tie and root rules (Kruskal ties by ``(-w, i, j)``, the first
    feature as root).

    Parameters
    ----------
    data : pandas.DataFrame
        Discrete data, the class column included (no missing values).
    state_names : dict, optional
        ``{column: [states]}`` (pgmpy's convention). The dict returned by ``estimate`` has one entry per class
        state, declared or observed.
    n_jobs : int, default 1
        Threads for the pairwise counting kernel (results do not depend on it).

    Attributes
    ----------
    result_ : MultinetStructure
        After ``estimate``: per-class trees with their MI matrices, and the class counts.

    See Also
    --------
    pgmpy_ext.classifiers.CLMultinetClassifier : the scikit-learn face, with per-class CPDs.
    pgmpy.estimators.TreeSearch : ``estimator_type="chow-liu"`` on one class's rows gives the same skeleton.

    Notes
    -----
    For class :math:`k` with rows :math:`D_k`, the weight of edge :math:`\{i, j\}` is

    .. math:: \hat I_k(X_i; X_j) = \sum_{x,y:\, N^k_{xy} > 0} \frac{N^k_{xy}}{n_k} \log\frac{N^k_{xy} n_k}{N^k_x N^k_y}

    and the maximum spanning tree maximises the class's log-likelihood
    :math:`LL_k = n_k \sum_i \hat I_k(X_i; X_{\pi_k(i)}) - n_k \sum_i \hat H_k(X_i)` (Eq. 4.18). The classifier is
    :math:`\arg\max_k \log \alpha_k + \sum_i \log P_k(x_i \mid x_{\pi_k(i)})` (Eq. 4.5).

    References
    ----------
    .. [1] C. K. Chow and C. N. Liu, "Approximating discrete probability distributions with dependence trees",
       IEEE Trans. Information Theory 14 (1968) 462-467.
    .. [2] N. Friedman, D. Geiger and M. Goldszmidt, "Bayesian network classifiers", Machine Learning 29 (1997)
       131-163.
    .. [3] G. A. Ruz, PhD thesis, Cardiff University (2008), section 4.2.

    Examples
    --------
    Two classes with the chains A - B - D (class 0) and A - D - B (class 1):

    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> c, a = rng.integers(0, 2, 400), rng.integers(0, 2, 400)
    >>> x = a ^ (rng.random(400) < 0.1)
    >>> y = x ^ (rng.random(400) < 0.1)
    >>> df = pd.DataFrame({"C": c, "A": a, "B": np.where(c == 0, x, y), "D": np.where(c == 0, y, x)})
    >>> dags = CLMultinetSearch(df).estimate(class_node="C")
    >>> {k: sorted(g.edges()) for k, g in dags.items()}
    {0: [('A', 'B'), ('B', 'D')], 1: [('A', 'D'), ('D', 'B')]}
    """

    def estimate(self, class_node=None, root=None, show_progress: bool = False) -> dict:
        """Return ``{class state: DAG}``, each DAG a Chow-Liu tree over the features rooted at ``root`` (default: the
        first feature)."""
        if class_node is None:
            raise ValueError("class_node is required: the name of the class column.")
        self.result_ = fit_cl_multinet(self.encoded_, class_node, root=root, n_jobs=self.n_jobs)
        return self.result_.to_dags()

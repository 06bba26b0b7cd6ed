"""cTAN and structural-TM classifiers (scikit-learn faces of seed 001 A14 and A15)."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils import check_scalar

from pgmpy_ext.classifiers._base import BNClassifierBase
from pgmpy_ext.parameters import TMEstimator, check_tm_params
from pgmpy_ext.structure import fit_ctan, fit_structural_tm

__all__ = ["CTANClassifier", "StructuralTMClassifier"]


class CTANClassifier(BNClassifierBase):
    """Conditional TAN: a TAN tree over explaining-away residuals (seed 001 A14, spec 5.9).

    The tree maximises the sum of ``EAR(X_i, X_j) = I(X_i; X_j | C) - I(X_i; X_j)`` (Kruskal), a proxy for the
    gain in conditional log-likelihood of an arc, instead of TAN's ``I(X_i; X_j | C)``. Parameters are
    maximum-likelihood counts ("cTAN") or, with ``estimator=TMEstimator(...)``, discriminative ("cTAN-TM").

    Parameters
    ----------
    root : label, optional
        Root of the feature tree (default: the first feature; the CLL the TM reaches does not depend on it).
    drop_negative_edges : bool, default False
        Remove tree edges with negative EAR (a forest). The thesis keeps the whole spanning tree.
    alpha : float, default 1.0
        Dirichlet pseudo-count per CPT cell (0 = maximum likelihood, the thesis); ignored with ``estimator``.
    estimator : pgmpy DiscreteParameterEstimator, optional
        E.g. ``TMEstimator()`` for cTAN-TM; a fresh copy is fitted into ``estimator_``.
    n_jobs : int, default 1
        Threads for the pairwise counting and posterior kernels (results do not depend on it).
    random_state : None, int or numpy Generator
        Unused (the construction is deterministic); kept for a common signature.
    show_progress : bool, default False
        Unused.
    handle_unknown : {"ignore", "error"}, default "ignore"
        A feature value at predict time that was not seen at fit: ``"ignore"`` treats the cell as a missing
        observation and sums it out exactly (the posterior equals pgmpy's ``VariableElimination`` with that feature
        left out of the evidence); ``"error"`` raises a ValueError naming the column, the value and the row by its
        index label. The default is ``"ignore"`` because a rare value often falls in one cross-validation test fold
        only, and ``"error"`` would then stop the whole cross-validation of raw columns.
    missing : {"available_case", "error"}, default "available_case"
        NaN/None feature cells. ``"available_case"``: at fit every count uses the rows where its family is observed
        (pgmpy's and bnclassify's rule; a learner whose structure search needs complete data says so), at predict
        missing features are summed out exactly. ``"error"``: refused at fit and at predict.

    Attributes
    ----------
    model_, structure_, classes_, class_node_, encoder_, estimator_, n_features_in_, feature_names_in_
        See :class:`pgmpy_ext.classifiers.BNClassifierBase`. ``structure_.trace`` holds the EAR matrix.

    See Also
    --------
    pgmpy_ext.structure.CTANSearch : the pgmpy face (``estimate() -> DAG``).

    References
    ----------
    Santafé, G. (2007). PhD thesis, University of the Basque Country, section 5.3.1.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from pgmpy_ext.parameters import TMEstimator
    >>> rng = np.random.default_rng(0)
    >>> a, b = rng.integers(0, 2, 400), rng.integers(0, 2, 400)
    >>> X = pd.DataFrame({"A": a, "B": b, "D": rng.integers(0, 3, 400)})
    >>> clf = CTANClassifier(estimator=TMEstimator()).fit(X, pd.Series(a ^ b, name="C"))
    >>> clf.score(X, a ^ b)
    1.0
    """

    def __init__(self, *, root=None, drop_negative_edges=False, alpha=1.0, estimator=None, n_jobs=1,
                 random_state=None, show_progress=False, handle_unknown="ignore",
                 missing="available_case"):
        self.root = root
        self.drop_negative_edges = drop_negative_edges
        self.alpha = alpha
        self.estimator = estimator
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.show_progress = show_progress
        self.handle_unknown = handle_unknown
        self.missing = missing

    def _check_params(self):
        super()._check_params()
        check_scalar(self.drop_negative_edges, "drop_negative_edges", (bool, np.bool_))

    def _fit_structure(self, data, class_node, rng):
        return fit_ctan(data, class_node, root=self.root, drop_negative_edges=self.drop_negative_edges,
                        n_jobs=self.n_jobs or 1)


class StructuralTMClassifier(BNClassifierBase):
    """Structural TM: greedy arc addition scored by conditional BIC with TM parameters (seed 001 A15, spec 5.10).

    From the empty graph, every legal arc ("TAN complexity": ``C -> X_i``, or a first feature parent for a child
    of the class) is tried; each candidate gets TM parameters and the score ``CLL - (log N / 2) dim_cond`` (the
    dimension of the conditional model); the best arc is kept while it strictly improves the score. The final
    network carries the TM parameters of the selected structure; features never selected stay in ``model_`` as
    isolated nodes with maximum-likelihood marginals (they do not affect ``p(c | x)``).

    Parameters
    ----------
    alpha : float, default 0.0
        Dirichlet pseudo-count of the TM's starting counts (0 = the thesis's maximum-likelihood start).
    tol : float, default 1e-3
        TM stopping rule on the total training CLL (thesis: 0.001).
    max_iter : int, default 1000
        TM iterations per candidate.
    line_search : {"grid", "backtracking"}, default "grid"
        TM step-size rule (``solver="tm"``); see :class:`~pgmpy_ext.parameters.TMEstimator`.
    solver : {"tm", "lbfgs"}, default "tm"
        ``"lbfgs"`` reaches the same TM optima with far fewer evaluations (not the thesis's iteration).
    warm_start : bool, default False
        Start each candidate's TM from the current model's counts (spec 5.10 [REC]; off in the thesis).
    n_jobs : int, default 1
        Candidates scored in parallel (threads); results do not depend on it.
    random_state : None, int or numpy Generator
        Unused (the search is deterministic); kept for a common signature.
    show_progress : bool, default False
        A progress bar over the greedy steps.
    handle_unknown : {"ignore", "error"}, default "ignore"
        A feature value at predict time that was not seen at fit: ``"ignore"`` treats the cell as a missing
        observation and sums it out exactly (the posterior equals pgmpy's ``VariableElimination`` with that feature
        left out of the evidence); ``"error"`` raises a ValueError naming the column, the value and the row by its
        index label. The default is ``"ignore"`` because a rare value often falls in one cross-validation test fold
        only, and ``"error"`` would then stop the whole cross-validation of raw columns.
    missing : {"error", "available_case"}, default "error"
        NaN/None feature cells. This learner's structure search needs complete training data, so ``fit`` refuses
        them either way (naming the column and the row); ``"available_case"`` accepts them at predict, where they
        are summed out exactly. ``"error"``: refused at predict too.

    Attributes
    ----------
    model_, structure_, classes_, class_node_, encoder_, estimator_, n_features_in_, feature_names_in_
        See :class:`pgmpy_ext.classifiers.BNClassifierBase`. ``structure_.trace["steps"]`` lists the accepted
        arcs with their cBIC, CLL and dimension; ``estimator_`` is the :class:`~pgmpy_ext.parameters.TMEstimator`
        fitted on the final structure (deterministic, so it equals the search's last run).
    n_iter_ : int
        TM iterations of the final structure's parameters (``estimator_.n_iter_``).

    See Also
    --------
    pgmpy_ext.structure.StructuralTMSearch : the pgmpy face (``estimate() -> DAG``).

    References
    ----------
    Santafé, G. (2007). PhD thesis, section 5.3.2.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> c = rng.integers(0, 2, 300)
    >>> X = pd.DataFrame({"A": c ^ (rng.random(300) < 0.1), "B": c ^ (rng.random(300) < 0.3),
    ...                   "D": rng.integers(0, 3, 300)})
    >>> clf = StructuralTMClassifier(solver="lbfgs").fit(X, pd.Series(c, name="C"))
    >>> sorted(clf.model_.get_children("C"))  # D is irrelevant: not selected
    ['A', 'B']
    """

    _needs_complete_data = "the TM parameter fits of every candidate arc"

    def __init__(self, *, alpha=0.0, tol=1e-3, max_iter=1000, line_search="grid", solver="tm", warm_start=False,
                 n_jobs=1, random_state=None, show_progress=False, handle_unknown="ignore",
                 missing="error"):
        self.alpha = alpha
        self.tol = tol
        self.max_iter = max_iter
        self.line_search = line_search
        self.solver = solver
        self.warm_start = warm_start
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.show_progress = show_progress
        self.handle_unknown = handle_unknown
        self.missing = missing

    def _check_params(self):
        check_tm_params(self.alpha, self.tol, self.max_iter, self.line_search, self.solver)
        check_scalar(self.warm_start, "warm_start", (bool, np.bool_))
        if self.n_jobs is not None:
            check_scalar(self.n_jobs, "n_jobs", numbers.Integral)
        super()._check_params()

    @property
    def estimator(self):
        """The parameter estimator of the final structure: a ``TMEstimator`` with this classifier's TM options."""
        return TMEstimator(alpha=self.alpha, tol=self.tol, max_iter=self.max_iter, line_search=self.line_search,
                           solver=self.solver)

    def _fit_model(self, structure, data) -> None:
        super()._fit_model(structure, data)
        self.n_iter_ = int(self.estimator_.n_iter_)

    def _fit_structure(self, data, class_node, rng):
        return fit_structural_tm(data, class_node, alpha=self.alpha, tol=self.tol, max_iter=self.max_iter,
                                 line_search=self.line_search, solver=self.solver, warm_start=self.warm_start,
                                 n_jobs=self.n_jobs or 1, show_progress=self.show_progress)

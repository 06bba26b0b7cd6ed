"""cTAN classifier: the scikit-learn face of construct-discriminative-TAN (Santafé 2007, section 5.3.1)."""

from __future__ import annotations

from pgmpy_ext.classifiers._base import BNClassifierBase
from pgmpy_ext.structure import fit_ctan
from pgmpy_ext.utils import fill_doc

__all__ = ["CTANClassifier"]


@fill_doc
class CTANClassifier(BNClassifierBase):
    """Conditional TAN: a TAN tree over explaining-away residuals (Santafé 2007, section 5.3.1).

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
    %(n_jobs)s
    show_progress : bool, default False
        Unused.
    %(handle_unknown)s
    %(missing)s

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

    def __init__(self, *, root=None, drop_negative_edges=False, alpha=1.0, estimator=None, n_jobs=None,
                 show_progress=False, handle_unknown="ignore",
                 missing="available_case"):
        self.root = root
        self.drop_negative_edges = drop_negative_edges
        self.alpha = alpha
        self.estimator = estimator
        self.n_jobs = n_jobs
        self.show_progress = show_progress
        self.handle_unknown = handle_unknown
        self.missing = missing

    _parameter_constraints = {**BNClassifierBase._parameter_constraints, "drop_negative_edges": ["boolean"]}

    def _fit_structure(self, data, class_node, rng):
        return fit_ctan(data, class_node, root=self.root, drop_negative_edges=self.drop_negative_edges,
                        n_jobs=self.n_jobs or 1)

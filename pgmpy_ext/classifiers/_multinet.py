"""Chow-Liu multinet classifier (one Chow-Liu tree per class), scikit-learn face."""

from __future__ import annotations

import numpy as np

from pgmpy_ext.classifiers._base import BNClassifierBase
from pgmpy_ext.data import EncodedData
from pgmpy_ext.models import build_network, sorted_parents
from pgmpy_ext.stats import MultinetLayout, multinet_log_joint_marginal
from pgmpy_ext.structure import MultinetStructure, fit_cl_multinet
from pgmpy_ext.utils import LOG_PROB_FLOOR, fill_doc

__all__ = ["CLMultinetClassifier"]


@fill_doc
class CLMultinetClassifier(BNClassifierBase):
    r"""Chow-Liu multinet: one Chow-Liu tree over the features per class, as a scikit-learn classifier.

    Friedman, Geiger & Goldszmidt's CL multinet, the supervised baseline of Ruz's thesis, as specified in
    ``docs/decisions/seed000-sbn-cem-nbm.md`` ("CL multinet classifier"): for each class :math:`k`, a Chow-Liu tree
    (maximum spanning tree
    of the mutual information) and its CPDs are learned from the rows of that class only, and a row is classified
    by :math:`\arg\max_k \log\alpha_k + \log P_k(x)`. Each class has its own tree, so the model is **not** one
    Bayesian network: it exposes one pgmpy network per class in ``models_`` (and no ``model_``).

    Parameters
    ----------
    alpha : float, default 1.0
        Dirichlet pseudo-count per CPT cell (bnclassify's ``smooth``, pgmpy's ``pseudo_counts``, scikit-learn
        ``CategoricalNB``'s ``alpha``) of every per-class CPD and of the class prior; 0 gives the thesis's
        maximum-likelihood frequencies (unseen parent configurations get uniform columns, and zero
        probabilities are floored at 1e-300 when predicting).
    root : label, optional
        Root of every per-class tree (default: the first feature). With ``alpha = 0`` it does not change
        :math:`P_k`; with ``alpha > 0`` it changes it slightly (smoothing depends on the orientation).
    %(n_jobs)s
    show_progress : bool, default False
        Unused.
    %(handle_unknown)s
    %(missing)s

    Attributes
    ----------
    models_ : dict
        ``{class label: DiscreteBayesianNetwork}`` over the features (the class is not a node): the class's
        Chow-Liu tree with CPDs estimated from that class's rows, in the user's labels.
    class_prior_ : numpy.ndarray of shape (n_classes,)
        :math:`\alpha_k = (n_k + \mathrm{alpha}) / (N + K\,\mathrm{alpha})`, in ``classes_`` order.
    structure_ : MultinetStructure
        The per-class trees (``structure_.trees[k].weights`` is class ``k``'s MI matrix in nats) and class counts.
    classes_ : numpy.ndarray
        Class labels in ``np.unique(y)`` order: the column order of ``predict_proba`` and the order of
        ``structure_.classes``.
    class_node_ : label
        Name of the class (``y.name`` or ``"class"``); it labels the class column of ``encoder_``.
    encoder_ : EncodedData
        The encoded training data (the class column last).
    n_features_in_, feature_names_in_ : set by scikit-learn's ``validate_data``.

    See Also
    --------
    TANClassifier : one tree shared by all classes, conditioned on the class.
    pgmpy_ext.structure.CLMultinetSearch : the pgmpy structure face (one DAG per class).

    Notes
    -----
    .. math::

        P(c = k \mid x) \propto \alpha_k \prod_i P_k(x_i \mid x_{\pi_k(i)}), \qquad
        \hat I_k(X_i; X_j) \text{ on } D_k = \{d : c_d = k\}

    Prediction runs the multinet log-joint kernel of CEM (:func:`pgmpy_ext.stats.multinet_log_joint` on a
    :class:`~pgmpy_ext.stats.MultinetLayout`, one block per class and feature) once over all classes, with every
    log-CPT entry floored at :math:`\log 10^{-300}` as in the other classifiers; no pgmpy inference is involved.
    Departure: the spec's prior is :math:`n_k / N`; ``alpha`` smooths it like every other CPT (``alpha = 0`` gives
    the spec's value).

    References
    ----------
    .. [1] N. Friedman, D. Geiger and M. Goldszmidt, "Bayesian network classifiers", Machine Learning 29 (1997)
       131-163.
    .. [2] C. K. Chow and C. N. Liu, "Approximating discrete probability distributions with dependence trees",
       IEEE Trans. Information Theory 14 (1968) 462-467.
    .. [3] G. A. Ruz, PhD thesis, Cardiff University (2008), section 4.2 (Eq. 4.5).

    Examples
    --------
    The class decides the order of a noisy copy chain: A - B - D in class 0, A - D - B in class 1.

    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> y, a = rng.integers(0, 2, 400), rng.integers(0, 2, 400)
    >>> x = a ^ (rng.random(400) < 0.1)
    >>> z = x ^ (rng.random(400) < 0.1)
    >>> X = pd.DataFrame({"A": a, "B": np.where(y == 0, x, z), "D": np.where(y == 0, z, x)})
    >>> clf = CLMultinetClassifier().fit(X, y)
    >>> {k: sorted(m.edges()) for k, m in clf.models_.items()}
    {0: [('A', 'B'), ('B', 'D')], 1: [('A', 'D'), ('D', 'B')]}
    >>> clf.class_prior_.round(3).tolist()
    [0.448, 0.552]
    >>> clf.predict_proba(pd.DataFrame({"A": [0, 0], "B": [0, 1], "D": [1, 0]})).round(3).tolist()
    [[0.971, 0.029], [0.065, 0.935]]
    """

    def __init__(self, *, alpha=1.0, root=None, n_jobs=None, show_progress=False, handle_unknown="ignore",
                 missing="available_case"):
        self.alpha = alpha
        self.root = root
        self.n_jobs = n_jobs
        self.show_progress = show_progress
        self.handle_unknown = handle_unknown
        self.missing = missing

    def _fit_structure(self, data, class_node, rng):
        return fit_cl_multinet(data, class_node, root=self.root, n_jobs=self.n_jobs or 1)

    def _fit_model(self, structure: MultinetStructure, data: EncodedData) -> None:
        """One network per class (``models_``) and their CPTs in one multinet layout (block ``(k, i)`` is
        ``P_k(X_i | X_parent)``, the ``get_values()`` of the CPD, whose evidence is the one tree parent)."""
        y = data.codes[:, data.index(structure.class_node)]
        features = structure.features
        models, tables = {}, []
        for k, label in enumerate(structure.classes):
            parents = {f: sorted_parents(ps) for f, ps in structure.parent_sets(k).items()}
            model = build_network(parents, data.take(y == k), alpha=self.alpha)
            tables.extend(np.asarray(model.get_cpds(f).get_values(), dtype=np.float64).reshape(-1) for f in features)
            models[label] = model
        layout = MultinetLayout.build([tree.parents for tree in structure.trees], [data.card(f) for f in features])
        log_cpt = np.concatenate(tables)
        with np.errstate(divide="ignore"):
            np.log(log_cpt, out=log_cpt)
        np.maximum(log_cpt, LOG_PROB_FLOOR, out=log_cpt)
        counts = np.asarray(structure.class_counts, dtype=np.float64)
        a = float(self.alpha)
        self.class_prior_ = (counts + a) / (counts.sum() + a * counts.shape[0])
        self._layout_ = layout
        self._log_cpt_ = log_cpt
        with np.errstate(divide="ignore"):
            self._log_prior_ = np.maximum(np.log(self.class_prior_), LOG_PROB_FLOOR)
        self.models_ = models

    # ------------------------------------------------------------------ predict
    def _joint_log_likelihood(self, codes: np.ndarray) -> np.ndarray:
        # the features are summed first and the class prior added last (hence the zero prior in the kernel), the
        # order of the earlier per-class scoring, so the scores are bit-identical to it
        # cells coded -1 (missing, or unseen with handle_unknown="ignore") are summed out exactly by the forest pass
        # of each class's tree; rows without one go through multinet_log_joint itself (bit-identical)
        lj = multinet_log_joint_marginal(self._layout_, self._log_cpt_, np.zeros(len(self.classes_)), codes,
                                         n_jobs=self.n_jobs or 1)
        lj += self._log_prior_
        return lj

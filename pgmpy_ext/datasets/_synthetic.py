"""Synthetic data-set generators. Each one follows a spec section exactly and documents its definition."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from pgmpy_ext.utils import check_generator

__all__ = ["CORRAL_FEATURES", "make_corral"]

#: Column names of :func:`make_corral`, in order: attributes 1..6 of the thesis.
CORRAL_FEATURES = ("A0", "A1", "B0", "B1", "Irrelevant", "Correlated")


def make_corral(*, return_X_y: bool = True, shuffle: bool = False, random_state=None):
    r"""The balanced 128-row Corral data set (John, Kohavi & Pfleger 1994), as reconstructed for Ruz's thesis.

    Six binary attributes ``A0, A1, B0, B1, Irrelevant, Correlated`` and a binary class
    ``(A0 and A1) or (B0 and B1)``. ``Irrelevant`` is independent of everything and ``Correlated`` equals the class
    in exactly 75% of the rows. This is the reconstruction of ``docs/decisions/seed000-sbn-cem-nbm.md``
    ("Corral generator"; the thesis's "P(5 | C) = 0.5 exactly"); the original MLC++/OpenML file may duplicate other
    examples.

    Parameters
    ----------
    return_X_y : bool, default True
        Return ``(X, y)``: a DataFrame of the six attributes and a Series named ``"class"``. False returns one
        DataFrame with the class as its last column.
    shuffle : bool, default False
        Permute the rows. False keeps the canonical order described in the Notes.
    random_state : None, int or numpy Generator
        Seed of the permutation; used only when ``shuffle=True`` (the data set itself is deterministic).

    Returns
    -------
    (X, y) : (pandas.DataFrame of shape (128, 6), pandas.Series of shape (128,))
        Integer 0/1 columns, when ``return_X_y=True``.
    frame : pandas.DataFrame of shape (128, 7)
        When ``return_X_y=False``.

    See Also
    --------
    pgmpy_ext.classifiers.SBNClassifier : the thesis's classifier, whose Corral structures (3 edges with the
        marginal stopping rule, 5 with the cumulative one) are checked on this data.

    Notes
    -----
    The 32 combinations of ``(A0, A1, B0, B1, Irrelevant)`` are enumerated in lexicographic order (``A0`` the
    most significant bit), and each one is repeated 4 times in consecutive rows. The class of a row is

    .. math::

        c = (A_0 \wedge A_1) \vee (B_0 \wedge B_1),

    and ``Correlated`` equals :math:`c` in the first three copies of each combination and :math:`1 - c` in the
    fourth. Hence ``Irrelevant`` is exactly independent of the other attributes and of the class, ``Correlated``
    agrees with the class in exactly 96 of the 128 rows, and 56 rows (14/32 = 0.4375) are positive.
    The thesis uses all 128 rows with the true labels in chapter 4, and a random 64/64 split in chapter 3
    (e.g. ``sklearn.model_selection.train_test_split(X, y, train_size=64, random_state=...)``).

    References
    ----------
    .. [1] G. H. John, R. Kohavi and K. Pfleger, "Irrelevant features and the subset selection problem", Proc.
       ICML 1994, pp. 121-129.
    .. [2] G. A. Ruz, "Bayesian networks for classification, clustering and high-dimensional data visualisation",
       PhD thesis, Cardiff University (c. 2008), sections 3.4 and 4.5.

    Examples
    --------
    >>> X, y = make_corral()
    >>> X.shape, int(y.sum())
    ((128, 6), 56)
    >>> float((X["Correlated"] == y).mean())
    0.75
    >>> X.iloc[:4].to_numpy().tolist()   # the four copies of (0, 0, 0, 0, 0); class 0
    [[0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 1]]
    """
    combos = np.array(list(itertools.product((0, 1), repeat=5)), dtype=np.int64)  # (32, 5), A0 most significant
    base = np.repeat(combos, 4, axis=0)                                                # (128, 5), 4 consecutive copies
    a0, a1, b0, b1 = (base[:, k] for k in range(4))
    y = ((a0 & a1) | (b0 & b1)).astype(np.int64)
    flip = np.tile(np.array([0, 0, 0, 1], dtype=np.int64), 32)                         # the fourth copy disagrees
    correlated = y ^ flip
    X = np.column_stack([base, correlated])
    if shuffle:
        order = check_generator(random_state).permutation(X.shape[0])
        X, y = X[order], y[order]
    frame = pd.DataFrame(X, columns=list(CORRAL_FEATURES))
    target = pd.Series(y, name="class")
    if return_X_y:
        return frame, target
    return frame.assign(**{"class": target.to_numpy()})

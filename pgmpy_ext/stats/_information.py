"""Mutual-information matrices from pairwise counts (wrappers around the ``_scores`` information kernels)."""

from __future__ import annotations

import numpy as np

from pgmpy_ext._core import _scores
from pgmpy_ext.stats._counting import PairwiseCounts

__all__ = ["cmi_matrix", "mi_matrix"]


def _kernel_args(pairwise: PairwiseCounts):
    if not isinstance(pairwise, PairwiseCounts):
        raise TypeError(f"expected a pgmpy_ext.stats.PairwiseCounts (from pairwise_counts), got "
                        f"{type(pairwise).__name__}.")
    flat = np.ascontiguousarray(pairwise.flat, dtype=np.float64)
    offsets = np.ascontiguousarray(pairwise.offsets, dtype=np.intp)
    cards = np.ascontiguousarray(pairwise.cards, dtype=np.intp)
    m = cards.shape[0]
    return flat, offsets, cards, int(pairwise.cond_card), np.zeros((m, m), dtype=np.float64)


def cmi_matrix(pairwise: PairwiseCounts) -> np.ndarray:
    r"""Conditional mutual information I(X_i; X_j | C) of every feature pair, in nats.

    The plug-in estimate of ``docs/decisions/seed002-003-abn-pena.md`` ("Notation") (the TAN/ABN edge
    weights), computed from the pairwise counts of :func:`pgmpy_ext.stats.pairwise_counts`.

    Parameters
    ----------
    pairwise : PairwiseCounts
        Pairwise joint counts N[i, j, x_i, x_j, c] (weighted counts allowed). Without a conditioning variable
        (``cond_card == 1``) this is the unconditional mutual information.

    Returns
    -------
    numpy.ndarray of float64, shape (m, m)
        Symmetric, ``>= 0``, zero diagonal; rows and columns follow ``pairwise.features``.

    See Also
    --------
    mi_matrix : I(X_i; X_j), marginalising C.
    pgmpy_ext.stats.pairwise_counts : builds the counts.

    Notes
    -----
    .. math::

        I(X_i; X_j \mid C) = \sum_{a,b,c:\, N_{abc} > 0} \frac{N_{abc}}{N}
            \log \frac{N_{abc} N_c}{N_{ac} N_{bc}}

    where :math:`N` is the total of the pair's own table. With missing values, each pair therefore uses the rows
    where :math:`X_i`, :math:`X_j` and :math:`C` are all observed (available-case counting). Values are clipped
    at 0 against rounding, as sklearn's ``mutual_info_score`` does. Divide by ``log(2)`` for bits.

    Examples
    --------
    >>> import pandas as pd
    >>> from pgmpy_ext.data import encode
    >>> from pgmpy_ext.stats import pairwise_counts
    >>> df = pd.DataFrame({"A": [0, 0, 1, 1], "B": [0, 0, 1, 1], "C": [0, 1, 0, 1]})
    >>> pc = pairwise_counts(encode(df), ["A", "B"], cond="C")
    >>> cmi_matrix(pc).round(6).tolist()  # B copies A within each class: I = H(A | C) = log 2
    [[0.0, 0.693147], [0.693147, 0.0]]
    """
    flat, offsets, cards, cond_card, out = _kernel_args(pairwise)
    _scores.cmi_from_counts(flat, offsets, cards, cond_card, out)
    return out


def mi_matrix(pairwise: PairwiseCounts) -> np.ndarray:
    r"""Unconditional mutual information I(X_i; X_j) of every feature pair, in nats.

    Parameters
    ----------
    pairwise : PairwiseCounts
        Pairwise joint counts. If they were taken with a conditioning variable C, the tables are summed over C
        first (so the rows where C is missing, which the counts skipped, are not included).

    Returns
    -------
    numpy.ndarray of float64, shape (m, m)
        Symmetric, ``>= 0``, zero diagonal; rows and columns follow ``pairwise.features``.

    See Also
    --------
    cmi_matrix : the conditional version.

    Notes
    -----
    .. math::

        I(X_i; X_j) = \sum_{a,b:\, N_{ab} > 0} \frac{N_{ab}}{N} \log \frac{N_{ab} N}{N_a N_b},
        \qquad N_{ab} = \sum_c N_{abc}

    This is the plug-in estimate of sklearn's ``mutual_info_score`` (the ``"mutual_info"`` edge weight of pgmpy's
    ``TreeSearch``).

    Examples
    --------
    >>> import pandas as pd
    >>> from pgmpy_ext.data import encode
    >>> from pgmpy_ext.stats import pairwise_counts
    >>> df = pd.DataFrame({"A": [0, 0, 1, 1], "B": [0, 0, 1, 1], "C": [0, 1, 0, 1]})
    >>> mi_matrix(pairwise_counts(encode(df))).round(6).tolist()  # A = B, both independent of C
    [[0.0, 0.693147, 0.0], [0.693147, 0.0, 0.0], [0.0, 0.0, 0.0]]
    """
    flat, offsets, cards, cond_card, out = _kernel_args(pairwise)
    _scores.mi_from_counts(flat, offsets, cards, cond_card, out)
    return out

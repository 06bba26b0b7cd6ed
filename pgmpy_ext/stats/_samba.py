"""SAMBA's local improvement (wrapper around the ``_samba`` kernel)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from pgmpy_ext._core import _samba

__all__ = ["SambaImprovement", "samba_improve"]


class SambaImprovement(NamedTuple):
    """Result of :func:`samba_improve`: improved memberships, their scores and the moves applied per seed."""

    props: np.ndarray  # bool (n_seeds, P)
    genes: np.ndarray  # bool (n_seeds, n)
    scores: np.ndarray  # float64 (n_seeds,)
    n_moves: np.ndarray  # int64 (n_seeds,)


def samba_improve(weights: np.ndarray, twin: np.ndarray, props: np.ndarray, genes: np.ndarray, *,
                  min_props: int = 1, min_cols: int = 1, max_iter: int = 100_000,
                  tol: float = 1e-10) -> SambaImprovement:
    """Greedy single-vertex improvement of SAMBA seeds (Tanay, Sharan & Shamir 2002;
    ``docs/decisions/seed004-bench-itdt.md``, "SAMBA", step 5).

    Each seed ``(props[s], genes[s])`` is improved independently: the best single move among adding or deleting
    one gene or one property (a sample vertex, "up" or "down") is applied while it raises
    ``sum_{p in props, v in genes} weights[p, v]`` by more than ``tol``. Deletions keep at least ``min_props``
    properties and ``min_cols`` genes; a property is never added while its opposite-sign twin is in. Ties go to
    gene moves, then to the lowest index. The caller's arrays are not modified.

    Parameters
    ----------
    weights : float64 array (P, n)
        Log-likelihood-ratio weight of every (property, gene) pair.
    twin : int array (P,)
        Opposite-sign property of each property, -1 when properties are unsigned.
    props, genes : bool arrays (n_seeds, P) and (n_seeds, n)
        The seeds.
    min_props, min_cols : int
        Smallest sizes a deletion may leave.
    max_iter : int
        Most moves per seed.
    tol : float
        Smallest gain that counts.

    Returns
    -------
    SambaImprovement

    Examples
    --------
    >>> import numpy as np
    >>> W = np.array([[1.0, 1.0, -1.0], [1.0, 1.0, -1.0], [-1.0, -1.0, 1.0]])
    >>> r = samba_improve(W, np.full(3, -1), np.array([[True, False, False]]), np.array([[True, False, False]]))
    >>> r.props.astype(int).tolist(), r.genes.astype(int).tolist(), float(r.scores[0])
    ([[1, 1, 0]], [[1, 1, 0]], 4.0)
    """
    W = np.ascontiguousarray(weights, dtype=np.float64)
    if W.ndim != 2:
        raise ValueError(f"weights must be 2-D (properties x genes), got shape {W.shape}.")
    U = np.ascontiguousarray(props, dtype=np.uint8).copy()
    V = np.ascontiguousarray(genes, dtype=np.uint8).copy()
    if U.ndim != 2 or V.ndim != 2:
        raise ValueError(f"props and genes must be 2-D (seeds x vertices), got {U.shape} and {V.shape}.")
    tw = np.ascontiguousarray(twin, dtype=np.intp)
    scores = np.zeros(U.shape[0], dtype=np.float64)
    moves = _samba.samba_improve(W, tw, U, V, scores, int(min_props), int(min_cols), int(max_iter), float(tol))
    return SambaImprovement(U.astype(bool), V.astype(bool), scores, moves)

"""Wrapper around the naive Bayes map kernels (``pgmpy_ext._core._nbsom``): validate, allocate, call.

:class:`NBMState` holds one map's parameters (means and variances of K diagonal-Gaussian neurons on a 2-D grid)
with the two caches the kernels need, and runs online NBM steps (seed 000 section 5.4, ``docs/decisions/
seed000-sbn-cem-nbm.md``) and the batch E-step on them.
"""

from __future__ import annotations

import numpy as np

from pgmpy_ext._core import _nbsom

__all__ = ["NBMState", "grid_coordinates"]


def grid_coordinates(grid: tuple[int, int]) -> np.ndarray:
    """Integer lattice positions ``(row, col)`` of the ``L1 * L2`` neurons, neuron ``k = row * L2 + col``.

    Examples
    --------
    >>> grid_coordinates((2, 3)).tolist()
    [[0.0, 0.0], [0.0, 1.0], [0.0, 2.0], [1.0, 0.0], [1.0, 1.0], [1.0, 2.0]]
    """
    L1, L2 = (int(g) for g in grid)
    rows, cols = np.divmod(np.arange(L1 * L2), L2)
    return np.column_stack([rows, cols]).astype(np.float64)


def _c64(a) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(a, dtype=np.float64))


class NBMState:
    """Parameters of one naive Bayes map and the online learning rule.

    Parameters
    ----------
    means, variances : array (K, n)
        Initial neuron means and variances (copied; variances must be > 0).
    grid_xy : array (K, 2)
        Output-grid coordinates of the neurons (:func:`grid_coordinates`).
    j : int, default 0
        Number of samples already presented (the j counter of eq. 5.17).

    Examples
    --------
    >>> st = NBMState(np.zeros((4, 1)), np.ones((4, 1)), grid_coordinates((2, 2)))
    >>> st.steps(np.array([[1.0]]), np.array([0]), sigma=1.0, alpha=1.0, var_floor=1e-6, exact=False)
    >>> st.j, st.means.ravel().tolist()          # at j = 0 every eta is 1: every mean jumps to the sample
    (1, [1.0, 1.0, 1.0, 1.0])
    """

    def __init__(self, means, variances, grid_xy, j: int = 0):
        self.means = _c64(means).copy()
        self.variances = _c64(variances).copy()
        grid_xy = _c64(grid_xy)
        K, n = self.means.shape
        if self.variances.shape != (K, n) or grid_xy.shape != (K, 2):
            raise ValueError(f"variances must be ({K}, {n}) and grid_xy ({K}, 2), got {self.variances.shape} and "
                             f"{grid_xy.shape}.")
        if not (self.variances > 0).all():
            raise ValueError("variances must all be > 0.")
        diff = grid_xy[:, None, :] - grid_xy[None, :, :]
        self.grid_d2 = np.ascontiguousarray((diff**2).sum(-1))
        self.inv_var = np.empty((K, n))
        self.logdet = np.empty(K)
        self._lp = np.empty(K)
        _nbsom.refresh_cache(self.variances, self.inv_var, self.logdet)
        self.j = int(j)

    @property
    def n_neurons(self) -> int:
        return self.means.shape[0]

    def steps(self, X, order, *, sigma, alpha, var_floor: float, exact: bool) -> None:
        """Present ``X[order[s]]`` for s = 0, 1, ... (``sigma`` and ``alpha``: scalars or one value per step)."""
        X = _c64(X)
        order = np.ascontiguousarray(order, dtype=np.intp)
        T = order.shape[0]
        sig = np.ascontiguousarray(np.broadcast_to(np.asarray(sigma, dtype=np.float64), (T,)))
        alp = np.ascontiguousarray(np.broadcast_to(np.asarray(alpha, dtype=np.float64), (T,)))
        self.j = int(_nbsom.online_steps(X, order, sig, alp, self.grid_d2, self.means, self.variances, self.inv_var,
                                         self.logdet, self._lp, self.j, float(var_floor), bool(exact)))

    def log_density(self, X) -> np.ndarray:
        """``(N, K)`` array of ``log p(x_r | k)``."""
        X = _c64(X)
        out = np.empty((X.shape[0], self.n_neurons))
        _nbsom.log_density(X, self.means, self.inv_var, self.logdet, out)
        return out

"""Plain-numpy reference for the SAMBA local-improvement kernel (slow, obviously correct)."""

from __future__ import annotations

import numpy as np


def samba_improve_ref(W, twin, props, genes, *, min_props=1, min_cols=1, max_iter=100_000, tol=1e-10):
    """Same moves and tie rule as ``pgmpy_ext.stats.samba_improve``, recomputing every gain from scratch."""
    W = np.asarray(W, dtype=np.float64)
    P, n = W.shape
    U_all = np.array(props, dtype=bool, copy=True)
    V_all = np.array(genes, dtype=bool, copy=True)
    scores = np.zeros(U_all.shape[0])
    for s in range(U_all.shape[0]):
        U, V = U_all[s], V_all[s]
        for _ in range(max_iter):
            cands = []  # (gain, kind, index) in the kernel's scan order
            for v in range(n):
                g = W[U, v].sum()
                if V[v]:
                    if V.sum() > min_cols:
                        cands.append((-g, 1, v))
                else:
                    cands.append((g, 0, v))
            for p in range(P):
                g = W[p, V].sum()
                if U[p]:
                    if U.sum() > min_props:
                        cands.append((-g, 3, p))
                elif twin[p] < 0 or not U[twin[p]]:
                    cands.append((g, 2, p))
            best, kind, idx = tol, -1, -1
            for g, k, i in cands:  # strict > keeps the first maximum in scan order
                if g > best:
                    best, kind, idx = g, k, i
            if kind < 0:
                break
            if kind in (0, 1):
                V[idx] = kind == 0
            else:
                U[idx] = kind == 2
        scores[s] = W[np.ix_(U, V)].sum()
    return U_all, V_all, scores

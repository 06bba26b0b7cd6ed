"""SAMBA local improvement (Tanay, Sharan & Shamir 2002): greedy single-vertex moves on a weighted bipartite graph.

Spec: ``docs/decisions/seed004-bench-itdt.md`` section 7, step 5.

Layouts
-------
* ``W`` : float64 ``(P, n)``: weight of the pair (property ``p``, gene ``v``): ``log(p_c / p_pv)`` for an edge,
  ``log((1 - p_c) / (1 - p_pv))`` for a non-edge. Properties are sample vertices: with signed properties, rows
  ``0 .. m-1`` are "up" (``u``) and ``m .. 2m-1`` are "down" (``u + m``), and ``twin[p]`` is the other sign of the
  same sample (``-1`` when unsigned).
* ``U`` : uint8 ``(n_seeds, P)`` IN/OUT, ``V`` : uint8 ``(n_seeds, n)`` IN/OUT: the seeds' property and gene
  memberships (1 = in the bicluster), improved in place.
* ``scores`` : float64 ``(n_seeds,)`` OUT: ``sum_{p in U, v in V} W[p, v]`` after improvement.

Moves
-----
Per iteration, with ``colsum[v] = sum_{p in U} W[p, v]`` and ``rowsum[p] = sum_{v in V} W[p, v]``, the gain of
adding a gene is ``colsum[v]`` (v not in V), of deleting one ``-colsum[v]`` (v in V, only while ``|V| >
min_cols``), of adding a property ``rowsum[p]`` (p not in U and its twin not in U), of deleting one
``-rowsum[p]`` (p in U, only while ``|U| > min_props``). The single best move with gain ``> tol`` is applied
(ties: gene moves before property moves, then the lowest index); the seed stops when no move gains more than
``tol`` or after ``max_iter`` moves. Every applied move raises the score by more than ``tol``, so the search ends.
"""
import numpy as np

from _typedefs cimport float64_t, intp_t


def samba_improve(const float64_t[:, ::1] W,
                  const intp_t[::1] twin,
                  unsigned char[:, ::1] U,
                  unsigned char[:, ::1] V,
                  float64_t[::1] scores,
                  intp_t min_props,
                  intp_t min_cols,
                  intp_t max_iter,
                  double tol):
    """Improve every seed ``(U[s], V[s])`` in place by greedy single-vertex moves (module docstring).

    Parameters
    ----------
    W : float64 (P, n) IN
    twin : intp (P,) IN, the opposite-sign property of each property, -1 if none
    U : uint8 (n_seeds, P) IN/OUT
    V : uint8 (n_seeds, n) IN/OUT
    scores : float64 (n_seeds,) OUT
    min_props, min_cols : smallest property and gene set sizes a deletion may leave
    max_iter : most moves per seed
    tol : smallest gain that counts as an improvement (>= 0)

    Returns
    -------
    n_moves : int64 ndarray (n_seeds,), the number of moves applied per seed.
    """
    cdef intp_t P = W.shape[0]
    cdef intp_t n = W.shape[1]
    cdef intp_t S = U.shape[0]
    cdef intp_t s, p, v, it, n_u, n_v, best_kind, best_idx
    cdef double best, g, total
    if twin.shape[0] != P:
        raise ValueError(f"twin has {twin.shape[0]} entries, expected P = {P}.")
    if U.shape[1] != P or V.shape[0] != S or V.shape[1] != n or scores.shape[0] != S:
        raise ValueError(f"U {U.shape[0], U.shape[1]}, V {V.shape[0], V.shape[1]} and scores "
                         f"({scores.shape[0]},) do not match W {P, n}.")
    if tol < 0:
        raise ValueError(f"tol == {tol}, must be >= 0.")
    for p in range(P):
        if twin[p] < -1 or twin[p] >= P:
            raise ValueError(f"twin[{p}] == {twin[p]}, must be -1 or a property index < {P}.")
    colsum_arr = np.zeros(n, dtype=np.float64)
    rowsum_arr = np.zeros(P, dtype=np.float64)
    moves_arr = np.zeros(S, dtype=np.int64)
    cdef float64_t[::1] colsum = colsum_arr
    cdef float64_t[::1] rowsum = rowsum_arr
    cdef long long[::1] moves = moves_arr
    with nogil:
        for s in range(S):
            # sums and sizes of this seed
            n_u = 0
            n_v = 0
            for v in range(n):
                colsum[v] = 0.0
                n_v += V[s, v]
            for p in range(P):
                rowsum[p] = 0.0
                if U[s, p]:
                    n_u += 1
                    for v in range(n):
                        colsum[v] += W[p, v]
            for p in range(P):
                for v in range(n):
                    if V[s, v]:
                        rowsum[p] += W[p, v]
            it = 0
            while it < max_iter:
                best = tol
                best_kind = -1
                best_idx = -1
                for v in range(n):  # gene moves (kind 0 add, 1 delete)
                    if V[s, v]:
                        if n_v > min_cols:
                            g = -colsum[v]
                            if g > best:
                                best = g
                                best_kind = 1
                                best_idx = v
                    else:
                        g = colsum[v]
                        if g > best:
                            best = g
                            best_kind = 0
                            best_idx = v
                for p in range(P):  # property moves (kind 2 add, 3 delete)
                    if U[s, p]:
                        if n_u > min_props:
                            g = -rowsum[p]
                            if g > best:
                                best = g
                                best_kind = 3
                                best_idx = p
                    elif twin[p] < 0 or not U[s, twin[p]]:
                        g = rowsum[p]
                        if g > best:
                            best = g
                            best_kind = 2
                            best_idx = p
                if best_kind < 0:
                    break
                if best_kind == 0 or best_kind == 1:
                    v = best_idx
                    if best_kind == 0:
                        V[s, v] = 1
                        n_v += 1
                        for p in range(P):
                            rowsum[p] += W[p, v]
                    else:
                        V[s, v] = 0
                        n_v -= 1
                        for p in range(P):
                            rowsum[p] -= W[p, v]
                else:
                    p = best_idx
                    if best_kind == 2:
                        U[s, p] = 1
                        n_u += 1
                        for v in range(n):
                            colsum[v] += W[p, v]
                    else:
                        U[s, p] = 0
                        n_u -= 1
                        for v in range(n):
                            colsum[v] -= W[p, v]
                it += 1
            moves[s] = it
            total = 0.0
            for p in range(P):
                if U[s, p]:
                    for v in range(n):
                        if V[s, v]:
                            total += W[p, v]
            scores[s] = total
    return moves_arr

"""Wrappers around the constructive-induction kernels (``pgmpy_ext._core._constructive``): the completed-data K2
score of a supernode naive Bayes, one E-step with the hard completion, class-by-value counts, and the score of a
candidate join computed from the two nodes' codes without building the joined column.

Seed 003 (``docs/decisions/seed002-003-abn-pena.md`` B.2, B.4, B.10). Scores are natural logs inside; the functions
that take ``base`` convert at the boundary (``base=10`` gives the paper's log10 units). Every node's cardinality in
the score is its FULL product cardinality ``r_j`` (decision 9), never the number of observed combinations.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

import numpy as np

from pgmpy_ext._core import _constructive

__all__ = ["SupernodeEStep", "class_log_ml", "completed_log_ml", "join_log_ml", "node_log_ml", "supernode_counts",
           "supernode_estep", "supernode_offsets", "to_base"]

#: Largest dense scratch (cells) a join is scored in directly; larger joins are compacted first.
_DENSE_CAP = 1 << 22


def to_base(value: float, base) -> float:
    """A natural-log value in ``base`` units (``None`` or ``math.e``: unchanged)."""
    if base is None or base == math.e:
        return float(value)
    return float(value) / math.log(base)


def supernode_offsets(u, L: int) -> np.ndarray:
    """Block offsets (R + 1,) of tables with ``L`` class rows over nodes with ``u`` compact values each.

    >>> supernode_offsets([3, 2], 2).tolist()
    [0, 6, 10]
    """
    u = np.asarray(u, dtype=np.intp)
    return np.concatenate([[0], np.cumsum(L * u)]).astype(np.intp)


def _codes2d(nodes) -> np.ndarray:
    return np.ascontiguousarray(nodes, dtype=np.int32)


def _f64(a) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float64)


def supernode_counts(nodes, u, labels, mult, L: int) -> np.ndarray:
    """Flat class-by-value counts (``L`` class rows per node; rows labelled -1 are skipped).

    >>> nodes = np.array([[0, 1], [1, 1], [0, 0]], dtype=np.int32)
    >>> supernode_counts(nodes, [2, 2], np.array([0, 1, 1], dtype=np.int32), np.ones(3), 2).tolist()
    [1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0]
    """
    offsets = supernode_offsets(u, L)
    out = np.zeros(int(offsets[-1]), dtype=np.float64)
    _constructive.supernode_counts(_codes2d(nodes), offsets, np.ascontiguousarray(labels, dtype=np.int32),
                                   _f64(mult), int(L), out)
    return out


@dataclass(frozen=True)
class SupernodeEStep:
    """What one E-step returns: the hard completion ``labels`` (int32, smallest class on ties), ``max_post`` (the
    largest posterior of every row), ``loglik`` (observed-data log-likelihood, natural log) and, when accumulated,
    the expected ``counts`` (flat, K class rows per node) and ``class_counts`` (K,)."""

    labels: np.ndarray
    max_post: np.ndarray
    loglik: float
    counts: np.ndarray | None
    class_counts: np.ndarray | None


def supernode_estep(nodes, u, log_theta, log_prior, mult, *, accumulate: bool = True) -> SupernodeEStep:
    """E-step of the supernode naive Bayes on distinct rows with multiplicities ``mult``.

    ``log_theta`` is flat (K class rows per node, ``supernode_offsets(u, K)``) and must be finite (floor zeros
    first); ``log_prior`` has K entries.

    >>> nodes = np.array([[0], [1]], dtype=np.int32)
    >>> e = supernode_estep(nodes, [2], np.log([0.9, 0.1, 0.2, 0.8]), np.log([0.5, 0.5]), np.ones(2))
    >>> e.labels.tolist(), e.max_post.round(3).tolist(), e.class_counts.round(3).tolist()
    ([0, 1], [0.818, 0.889], [0.929, 1.071])
    """
    nodes = _codes2d(nodes)
    log_prior = _f64(log_prior)
    K = log_prior.shape[0]
    n = nodes.shape[0]
    offsets = supernode_offsets(u, K)
    labels = np.empty(n, dtype=np.int32)
    max_post = np.empty(n, dtype=np.float64)
    counts = np.zeros(int(offsets[-1]), dtype=np.float64)
    class_counts = np.zeros(K, dtype=np.float64)
    ll = _constructive.supernode_estep(nodes, offsets, _f64(log_theta), log_prior, _f64(mult), labels, max_post,
                                       counts, class_counts, bool(accumulate))
    if not accumulate:
        counts = class_counts = None
    return SupernodeEStep(labels, max_post, float(ll), counts, class_counts)


class _Scratch(threading.local):
    """A zero buffer reused across score calls (the kernels leave it zeroed); one per thread, so runs in threads
    (joblib's threading backend) never share it."""

    def __init__(self):
        self.buf = np.zeros(0, dtype=np.float64)
        self.cls = np.zeros(0, dtype=np.float64)

    def get(self, size: int, K: int) -> tuple[np.ndarray, np.ndarray]:
        if self.buf.shape[0] < size:
            self.buf = np.zeros(max(size, 2 * self.buf.shape[0]), dtype=np.float64)
        if self.cls.shape[0] < K:
            self.cls = np.zeros(K, dtype=np.float64)
        return self.buf, self.cls


_SCRATCH = _Scratch()


def node_log_ml(node, u: int, r, labels, mult, K: int) -> float:
    """Natural-log K2 family term of one node given hard labels: ``sum_c [lgamma(r) - lgamma(n_c + r)] +
    sum_cells lgamma(N_cv + 1)`` with ``r`` the full cardinality (Peña et al. 1999, eq. 6).

    >>> labels = np.array([0, 0, 1], dtype=np.int32)
    >>> round(node_log_ml(np.array([0, 1, 1], dtype=np.int32), 2, 2, labels, np.ones(3), 2), 6)  # log(1/6 * 1/2)
    -2.484907
    """
    scratch, cls = _SCRATCH.get(int(K) * int(u), int(K))
    return float(_constructive.node_family_loglik(np.ascontiguousarray(node, dtype=np.int32),
                                                  np.ascontiguousarray(labels, dtype=np.int32), _f64(mult),
                                                  int(u), int(K), float(r), scratch, cls))


def join_log_ml(node_a, u_a: int, node_b, u_b: int, r, labels, mult, K: int) -> float:
    """Natural-log K2 family term of the join of two nodes (joined value ``v_a * u_b + v_b``, cardinality
    ``r = r_a * r_b``), from their codes, without building the joined column; when ``K * u_a * u_b`` is too large
    for a dense scratch the pair is compacted first. Equal to :func:`node_log_ml` of the joined column.
    """
    size = int(K) * int(u_a) * int(u_b)
    labels = np.ascontiguousarray(labels, dtype=np.int32)
    node_a = np.ascontiguousarray(node_a, dtype=np.int32)
    node_b = np.ascontiguousarray(node_b, dtype=np.int32)
    if size <= _DENSE_CAP:
        scratch, cls = _SCRATCH.get(size, int(K))
        return float(_constructive.pair_family_loglik(node_a, node_b, int(u_a), int(u_b), labels, _f64(mult),
                                                      int(K), float(r), scratch, cls))
    _, inv = np.unique(node_a.astype(np.int64) * int(u_b) + node_b, return_inverse=True)
    inv = inv.reshape(-1).astype(np.int32)
    return node_log_ml(inv, int(inv.max()) + 1 if inv.size else 1, r, labels, mult, K)


def class_log_ml(labels, mult, K: int) -> float:
    """Natural-log K2 term of the class node: ``lgamma(K) - lgamma(N + K) + sum_c lgamma(n_c + 1)``."""
    n_c = np.bincount(np.asarray(labels, dtype=np.intp), weights=_f64(mult), minlength=int(K))
    N = float(n_c.sum())
    return float(math.lgamma(K) - math.lgamma(N + K) + sum(math.lgamma(v + 1.0) for v in n_c))


def completed_log_ml(nodes, u, r, labels, mult, K: int, *, base=None) -> float:
    """K2 (Cooper-Herskovits, all Dirichlet hyperparameters 1) log marginal likelihood of the hard-completed data
    under the supernode naive Bayes: the class family plus every node family (Peña et al. 1999, eq. 6).

    ``nodes`` (n, R) compact codes, ``u`` (R,) compact sizes, ``r`` (R,) full cardinalities, ``labels`` (n,) the
    completion, ``mult`` (n,) multiplicities. ``base=10`` gives the paper's log10 units; ``None`` natural log.

    Examples
    --------
    Two binary attributes, four rows, every row in one cluster of K = 2:

    >>> nodes = np.array([[0, 0], [0, 1], [1, 1], [1, 1]], dtype=np.int32)
    >>> labels = np.zeros(4, dtype=np.int32)
    >>> round(completed_log_ml(nodes, [2, 2], [2, 2], labels, np.ones(4), 2), 6)  # log(1/5 * 1/30 * 1/20)
    -8.006368
    """
    nodes = _codes2d(nodes)
    total = class_log_ml(labels, mult, K)
    for j in range(nodes.shape[1]):
        total += node_log_ml(nodes[:, j], int(u[j]), float(r[j]), labels, mult, K)
    return to_base(total, base)

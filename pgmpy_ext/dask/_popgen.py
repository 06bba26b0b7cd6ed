"""SNP dosages in a dask array: the passes of ``PopulationEMA`` (issue 28), one map-reduce each.

A :class:`DaskDosages` wraps a 2-d dask array of dosages (individuals x SNPs; chunks of individuals, every SNP of a
chunk in one block) without computing it. Each pass submits one task per chunk of individuals, which computes its
chunk (from the user's graph: a file read, a generator), runs a ``pgmpy_ext.stats`` dosage function on it and
returns a small table; the tables are summed in the fixed tree over the chunk index (``split_every=8``), never in
completion order. So a worker holds one chunk (int8) plus float blocks of :data:`~pgmpy_ext.stats.DOSAGE_BLOCK`
SNPs at a time, the parameters travel once per worker (a graph node of their own), and the client keeps only the
parameters and the memberships (N x K). The M step, the SVD algebra and the convergence test run on the client, in
the same code as the in-memory fit (``pgmpy_ext.popgen``), so a fit on a dask array equals the in-memory fit up to
the summation order of floats (tested to 1e-10).
"""

from __future__ import annotations

import numpy as np

from pgmpy_ext.dask import _tasks
from pgmpy_ext.dask._data import _compute, _tree, require_dask
from pgmpy_ext.stats import (
    check_dosages,
    dosage_allele_totals,
    dosage_band_products,
    dosage_counts_from_resp,
    dosage_estep,
    dosage_loo_log_posterior,
    dosage_slot_sums,
    dosage_std_matmul,
    dosage_std_rmatmul,
)

__all__ = ["DaskDosages"]


# ------------------------------------------------------------------------------------------------ tasks
def _chunk(block, cols, ploidy: int) -> np.ndarray:
    """One chunk as checked int8 dosages (negative = missing -> -1), restricted to ``cols`` when given."""
    G = np.asarray(block)
    if G.dtype.kind == "f":
        G = np.where(np.isnan(G), -1, G)
        if np.any(G != np.round(G)):
            bad = G[G != np.round(G)][0]
            raise ValueError(f"dosage {bad} is not a whole number; dosages count copies of allele 1.")
        G = G.astype(np.int16)
    if G.dtype != np.int8 or (G.size and G.min() < -1):  # int8 with -1 for missing is used as it is (no copy)
        G = np.where(G < 0, -1, G)
    G = check_dosages(G, ploidy)
    return G if cols is None else np.ascontiguousarray(G[:, cols])


def _totals_task(block, cols, ploidy):
    G = _chunk(block, cols, ploidy)
    ones, copies = dosage_allele_totals(G, ploidy)
    zeros = (G == 0).sum(axis=0, dtype=np.int64).astype(np.float64)
    return np.stack([ones, copies, zeros])


def _estep_task(block, cols, ploidy, table, log_prior, want_resp):
    res = dosage_estep(_chunk(block, cols, ploidy), table, log_prior, return_resp=want_resp, check=False)
    return res.loglik, res.sums, res.cluster_counts, res.n_zero, res.resp


def _add_esteps(*parts):
    ll, sums, nc, nz = parts[0][0], parts[0][1].copy(), parts[0][2].copy(), parts[0][3]
    for p in parts[1:]:
        ll += p[0]
        sums += p[1]
        nc += p[2]
        nz += p[3]
    return ll, sums, nc, nz, None


def _resp_task(part):
    return part[4]


def _joint_task(block, cols, ploidy, table, log_prior, q):
    G = _chunk(block, cols, ploidy)
    res = dosage_estep(G, table, log_prior, return_resp=True, counts=False, log_joint=True, check=False)
    return res.resp, dosage_slot_sums(G, q, ploidy)


def _first(pair):
    return pair[0]


def _second(pair):
    return pair[1]


def _counts_task(block, cols, ploidy, resp):
    return dosage_counts_from_resp(_chunk(block, cols, ploidy), resp, ploidy)


def _matmul_task(block, cols, ploidy, mean, scale, B):
    return dosage_std_matmul(_chunk(block, cols, ploidy), mean, scale, B)


def _rmatmul_task(block, cols, ploidy, mean, scale, Y):
    return dosage_std_rmatmul(_chunk(block, cols, ploidy), mean, scale, Y)


def _band_task(block, cols, ploidy, mean, scale, window):
    return dosage_band_products(_chunk(block, cols, ploidy), mean, scale, window)


def _loo_task(block, cols, ploidy, A1, A0, q):
    return dosage_loo_log_posterior(_chunk(block, cols, ploidy), A1, A0, q, ploidy, check=False)


# ------------------------------------------------------------------------------------------------ the data
class DaskDosages:
    """A dask array of dosages as the data of a population fit.

    Parameters
    ----------
    X : dask.array.Array (n_individuals, n_snps)
        Copies of allele 1 (``0..ploidy``; negative or NaN = missing genotype), any integer or float dtype (int8 is
        the compact choice). Chunks of individuals; a chunking along the SNPs is merged (``rechunk({1: -1})``).
    ploidy : int, default 2
    cols : index array, optional
        Keep these SNPs (applied inside every task).
    """

    def __init__(self, X, ploidy: int = 2, cols=None):
        require_dask()
        if X.ndim != 2:
            raise ValueError(f"dosages must be a 2-d dask array (individuals, SNPs), got {X.ndim} dimensions.")
        if len(X.chunks[1]) > 1:
            X = X.rechunk({1: -1})
        self.X, self.ploidy, self.cols = X, int(ploidy), None if cols is None else np.asarray(cols, dtype=np.intp)
        self.blocks = list(X.to_delayed().ravel())
        self.rows = np.concatenate([[0], np.cumsum(X.chunks[0])]).astype(np.intp)
        self.n_rows = int(X.shape[0])
        self.n_snps = int(X.shape[1]) if self.cols is None else len(self.cols)
        self._totals = None

    def _map(self, task, *args):
        dask = require_dask()
        args = [dask.delayed(a, pure=True) if isinstance(a, np.ndarray) and a.nbytes > 65536 else a for a in args]
        return [dask.delayed(task, pure=True)(b, self.cols, self.ploidy, *args) for b in self.blocks]

    def _row_map(self, task, per_row: np.ndarray, *args):
        """Tasks that also take their chunk's rows of ``per_row`` (N, ...)."""
        dask = require_dask()
        shared = [dask.delayed(a, pure=True) if isinstance(a, np.ndarray) and a.nbytes > 65536 else a for a in args]
        return [dask.delayed(task, pure=True)(b, self.cols, self.ploidy, *shared,
                                              np.ascontiguousarray(per_row[r0:r1]))
                for b, r0, r1 in zip(self.blocks, self.rows[:-1], self.rows[1:])]

    def subset(self, mask) -> DaskDosages:
        """The same data restricted to the SNPs of a boolean mask (of the current SNPs)."""
        idx = np.flatnonzero(np.asarray(mask))
        cols = idx if self.cols is None else self.cols[idx]
        out = DaskDosages(self.X, self.ploidy, cols)
        if self._totals is not None:
            out._totals = self._totals[:, idx]
        return out

    def _all_totals(self) -> np.ndarray:
        if self._totals is None:
            self._totals = _compute(_tree(self._map(_totals_task), _tasks.add_tables))
        return self._totals

    @property
    def polymorphic(self) -> np.ndarray:
        """SNPs with both alleles observed (one pass, shared with :meth:`allele_totals`)."""
        ones, copies, zeros = self._all_totals()
        return (ones > 0) & ((copies - ones) > 0)

    def allele_totals(self) -> tuple[np.ndarray, np.ndarray]:
        """Copies of allele 1 and observed copies per SNP."""
        ones, copies, _ = self._all_totals()
        return ones, copies

    def estep(self, table, log_prior, *, want_resp: bool = False):
        """``(loglik, sums (M, P + 2, K), cluster_counts, resp (N, K) or None)`` (``pgmpy_ext.stats.dosage_estep``
        over every chunk)."""
        dask = require_dask()
        leaves = self._map(_estep_task, np.ascontiguousarray(table), np.ascontiguousarray(log_prior), want_resp)
        total = _tree(leaves, _add_esteps)
        if not want_resp:
            ll, sums, nc, _, _ = _compute(total)
            return ll, sums, nc, None
        (ll, sums, nc, _, _), resps = dask.compute(total, [dask.delayed(_resp_task)(leaf) for leaf in leaves])
        return ll, sums, nc, np.concatenate(resps, axis=0)

    def log_joint_and_sums(self, table, log_prior, q) -> tuple[np.ndarray, np.ndarray]:
        """``(log joints (N, K), sums (M, P + 2, K) of q per SNP and dosage)`` in one pass."""
        dask = require_dask()
        parts = self._row_map(_joint_task, q, np.ascontiguousarray(table), np.ascontiguousarray(log_prior))
        Ls, sums = dask.compute([dask.delayed(_first, pure=True)(p) for p in parts],
                                _tree([dask.delayed(_second, pure=True)(p) for p in parts], _tasks.add_tables))
        return np.concatenate(Ls, axis=0), sums

    def counts_from_resp(self, resp: np.ndarray) -> np.ndarray:
        return _compute(_tree(self._row_map(_counts_task, resp), _tasks.add_tables))

    def std_matmul(self, mean, scale, B) -> np.ndarray:
        dask = require_dask()
        parts = self._map(_matmul_task, mean, scale, np.ascontiguousarray(B))
        return np.concatenate(dask.compute(*parts), axis=0)

    def std_rmatmul(self, mean, scale, Y) -> np.ndarray:
        return _compute(_tree(self._row_map(_rmatmul_task, Y, mean, scale), _tasks.add_tables))

    def band_products(self, mean, scale, window: int) -> np.ndarray:
        """Products of every SNP with its ``window`` right-hand neighbours, summed over the chunks
        (``pgmpy_ext.stats.dosage_band_products``; the linkage pruning's pass)."""
        return _compute(_tree(self._map(_band_task, mean, scale, int(window)), _tasks.add_tables))

    def loo_log_posterior(self, A1, A0, q) -> np.ndarray:
        dask = require_dask()
        parts = self._row_map(_loo_task, q, np.ascontiguousarray(A1), np.ascontiguousarray(A0))
        return np.concatenate(dask.compute(*parts), axis=0)

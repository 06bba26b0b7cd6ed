"""Passes of the latent-class engines (EM, EMA) over a dask DataFrame's persisted per-partition distinct rows.

:class:`LatentClassPasses` is what ``pgmpy_ext.clustering``'s latent-class engine calls instead of a pass over
in-memory codes: the E step of every iteration (:func:`~pgmpy_ext.dask.latent_class_estep`), and, once per fit, the
label-alignment gains and log-likelihood of a multi-start combination and the constant-posterior test of EMA's
degenerate fixed point. Each call is one map-reduce: one task per partition with the kB-sized parameters inside,
the results summed in the fixed tree over the partition index. The M step and the model-averaging step run on the
client, in memory.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pgmpy_ext.dask import _tasks
from pgmpy_ext.dask._data import DaskEncodedData, _compute, _tree, latent_class_estep, require_dask

__all__ = ["LatentClassPasses"]


class LatentClassPasses:
    """The row passes of the latent-class engines over persisted distinct rows (:func:`persist_distinct` data).

    Parameters
    ----------
    data : DaskEncodedData
        Per-partition distinct rows with their multiplicities as weights, persisted (on the workers under
        ``distributed``).

    Tested against the in-memory engine in ``tests/dask/test_dask.py`` (no doctest: dask is an optional extra).
    """

    def __init__(self, data: DaskEncodedData):
        self.data = data

    def _leaves(self, task, *args) -> list:
        dask = require_dask()
        return [dask.delayed(task, pure=True)(p, *args) for p in self.data.parts]

    def estep(self, layout, log_theta, log_prior, *, theta=None, missing: str = "impute"):
        """Log-likelihood, expected counts and cluster counts of the whole data (no posteriors)."""
        return latent_class_estep(self.data, layout, log_theta, log_prior, theta=theta, missing=missing)

    def alignment_gains(self, layout, log_params: Sequence) -> np.ndarray:
        """``G[m] = sum_d w_d q^ref_d q^m_d^T`` (K, K) for ``log_params = [(log_theta, log_prior)]`` of the reference
        and then of M other parameter sets: shape (M, K, K)."""
        log_params = [(np.ascontiguousarray(lt), np.ascontiguousarray(lp)) for lt, lp in log_params]
        return _compute(_tree(self._leaves(_tasks.gains_partition, layout, log_params), _tasks.add_tables))

    def posterior_range(self, layout, log_theta, log_prior) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(first, low, high)``: the posteriors of the lexicographically first distinct row of the whole data and
        the smallest and largest posterior of every cluster (see
        :func:`pgmpy_ext.clustering.posteriors_constant`)."""
        merged = _compute(_tree(self._leaves(_tasks.posterior_range_partition, layout, np.ascontiguousarray(log_theta),
                                             np.ascontiguousarray(log_prior)), _tasks.merge_posterior_ranges))
        if merged is None:
            raise ValueError("the dask data has no rows.")
        return merged[1], merged[2], merged[3]

    def mixture_loglik(self, layout, components) -> float:
        """Observed-data log-likelihood of a mixture of joints ``(mix, thetas, weights)``."""
        mix, thetas, weights = components
        components = (np.asarray(mix), np.ascontiguousarray(thetas), np.ascontiguousarray(weights))
        return float(_compute(_tree(self._leaves(_tasks.mixture_loglik_partition, layout, components),
                                    _tasks.add_tables))[0])

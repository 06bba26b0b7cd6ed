"""Larger-than-memory and distributed data through Dask (optional extra ``pgmpy-ext[dask]``).

Design note: ``docs/decisions/scale-out.md``. A dask DataFrame is encoded
partition by partition against declared or scanned states; the existing Cython kernels run per partition and
their tables are summed in a fixed tree over the partition index, so results are identical to the in-memory path.
:func:`compress` turns the data into its distinct rows with multiplicities, a weighted in-memory
:class:`~pgmpy_ext.data.EncodedData` on which every weight-aware learner runs unchanged.

The classifiers accept a dask DataFrame directly: ``TANClassifier().fit(dask_X, dask_y)`` returns the usual
in-memory estimator, and its ``predict``/``predict_proba`` map over a dask DataFrame's partitions. Nothing
dask-related is stored on a fitted estimator, and the default dask scheduler (a ``distributed`` client if one
exists) runs the work.

This package imports neither dask (imported when a function runs) nor pgmpy; the worker-side task functions live
in :mod:`pgmpy_ext.dask._tasks`.

Which learners accept a dask DataFrame (each through :func:`compress`, then the in-memory engine on the weighted
distinct rows; tested equal to the in-memory fit): NaiveBayes, TAN, FAN, SBN, ABN, kDB, BAN, cTAN, CL multinet and
structural TM classifiers, with the built-in counts or any parameter estimator that accepts row weights
(``TMEstimator``, pgmpy's ``DiscreteMLE``/``DiscreteBayesianEstimator``). ``SelectiveNBClassifier`` refuses dask
data: its leave-one-out would leave out all copies of a distinct row together. ``LatentClassEM`` and
``EMAClustering`` fit a dask DataFrame with one map-reduce per EM iteration over the persisted distinct rows (each
partition's distinct rows, runs of consecutive partitions merged into parts of about 1M rows spread evenly over
the workers: :func:`persist_distinct`, :class:`LatentClassPasses`), the M step (EMA's model-averaging step), the
restarts and the convergence test on the client; EMA's start alignment and combination ("uniform"/"averaging",
parameters or joints) and its degenerate test take one more map-reduce each. They then have no ``labels_``
(``predict`` on the computed partitions you need). The other clusterers (CEM mixtures, constructive induction,
EMA-TAN, maps) keep per-row state across passes and take no row weights: they do not accept dask data; compute
the frame (or a sample) first.

``PopulationEMA`` (``pgmpy_ext.popgen``) fits a 2-d dask **array** of SNP dosages (chunks of individuals):
:class:`DaskDosages` runs each pass of the fit (allele totals, the products of the SVD start, one E step per EM
iteration, the leave-one-out memberships) as one map-reduce over the chunks, so a worker holds one chunk at a time.

Note that dask turns object columns into strings by default (``dataframe.convert-string``): an object column of
integers becomes states ``'0', '1', ...`` on the dask side; give such columns an integer or categorical dtype.
"""

from pgmpy_ext.dask._data import (
    DaskEncodedData,
    compress,
    distinct_values,
    encode,
    family_counts_many,
    infer_states,
    is_dask_collection,
    labels_of,
    latent_class_estep,
    map_log_joint,
    pairwise_counts,
    persist_distinct,
    require_dask,
)
from pgmpy_ext.dask._latent import LatentClassPasses
from pgmpy_ext.dask._popgen import DaskDosages

__all__ = ["DaskDosages", "DaskEncodedData", "LatentClassPasses", "compress", "distinct_values", "encode",
           "family_counts_many",
           "infer_states", "is_dask_collection", "labels_of", "latent_class_estep", "map_log_joint", "pairwise_counts",
           "persist_distinct", "require_dask"]

"""PopulationEMA on a dask array of dosages (issue 28): one map-reduce per pass, equal to the in-memory fit."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

dask = pytest.importorskip("dask", reason="pgmpy_ext.dask needs dask: pip install 'pgmpy-ext[dask]'")
da = pytest.importorskip("dask.array", reason="PopulationEMA on dask needs dask.array")

from pgmpy_ext.datasets import make_balding_nichols  # noqa: E402
from pgmpy_ext.popgen import THESIS_SETTINGS, PopulationEMA  # noqa: E402


def _dosages(seed=0, n=90, m=300, K=3):
    a, pop = make_balding_nichols(n_individuals=n, n_populations=K, n_loci=m, fst=0.04, missing_rate=0.03,
                                  random_state=seed)
    G = np.where((a < 0).any(axis=2), -1, a.sum(axis=2)).astype(np.int8)
    G[:, 5] = 0  # a monomorphic SNP: dropped by both
    return G, pop


@pytest.fixture
def threads_scheduler():
    with dask.config.set(scheduler="threads"):
        yield


def _same(mem, got):
    assert_array_equal(got.loci_mask_, mem.loci_mask_)
    assert_array_equal(got.ld_pruned_, mem.ld_pruned_)
    assert_array_equal(got.labels_, mem.labels_)
    assert_allclose(got.q_, mem.q_, rtol=1e-10, atol=1e-12)
    assert_allclose(got.theta_, mem.theta_, rtol=1e-10, atol=1e-13)
    assert got.log_likelihood_ == pytest.approx(mem.log_likelihood_, rel=1e-12)
    assert got.n_iter_ == mem.n_iter_
    assert got.fst_ == pytest.approx(mem.fst_, rel=1e-10)
    assert_allclose(got.drift_, mem.drift_, rtol=1e-9)


@pytest.mark.parametrize("settings", [{}, {"n_init": 2, **THESIS_SETTINGS}], ids=["default", "thesis"])
@pytest.mark.usefixtures("threads_scheduler")
def test_dask_fit_equals_the_in_memory_fit(settings):
    G, _ = _dosages()
    mem = PopulationEMA(n_clusters=3, random_state=0, **settings).fit(G)
    X = da.from_array(G, chunks=((20, 35, 1, 34), (100, 200)))  # uneven chunks, also along the SNPs
    got = PopulationEMA(n_clusters=3, random_state=0, **settings).fit(X)
    _same(mem, got)
    assert_allclose(got.predict_proba(G), mem.predict_proba(G), rtol=1e-10, atol=1e-12)


@pytest.mark.usefixtures("threads_scheduler")
def test_dask_fit_prunes_linked_snps_as_the_in_memory_fit():
    G, _ = _dosages(m=60)
    G = np.repeat(G, 3, axis=1)  # every SNP three times: perfectly linked neighbours
    G[:, 1::3][np.random.default_rng(0).random((len(G), 60)) < 0.1] = -1
    mem = PopulationEMA(n_clusters=3, random_state=0).fit(G)
    assert 0 < mem.ld_pruned_.sum() < G.shape[1]
    got = PopulationEMA(n_clusters=3, random_state=0).fit(da.from_array(G, chunks=((40, 50), -1)))
    _same(mem, got)


@pytest.mark.usefixtures("threads_scheduler")
def test_dask_fit_refuses_what_needs_the_rows_in_memory():
    X = da.from_array(_dosages()[0], chunks=(30, 300))
    with pytest.raises(ValueError, match="keeps the best start only"):
        PopulationEMA(n_clusters=3, n_init=2, policy="uniform").fit(X)
    with pytest.raises(ValueError, match="init='pca-kmeans' needs the genotypes in memory"):
        PopulationEMA(n_clusters=3, init="pca-kmeans").fit(X)
    with pytest.raises(ValueError, match="dosage 3 at row"):
        PopulationEMA(n_clusters=3).fit(da.from_array(np.full((6, 4), 3, dtype=np.int8), chunks=(3, 4)))
    with pytest.raises(ValueError, match="is not a whole number"):
        PopulationEMA(n_clusters=3).fit(da.from_array(np.full((6, 4), 0.5), chunks=(3, 4)))


@pytest.mark.usefixtures("threads_scheduler")
def test_float_dosages_with_nan_are_missing_genotypes():
    G, _ = _dosages(seed=2, n=60, m=150, K=2)
    F = np.where(G < 0, np.nan, G.astype(float))
    mem = PopulationEMA(n_clusters=2, random_state=0).fit(F)
    got = PopulationEMA(n_clusters=2, random_state=0).fit(da.from_array(F, chunks=(20, 150)))
    _same(mem, got)


def test_dask_fit_on_a_local_cluster_without_pgmpy_on_workers():
    distributed = pytest.importorskip("distributed", reason="the LocalCluster test needs distributed")
    G, _ = _dosages(seed=1, n=60, m=200, K=2)
    mem = PopulationEMA(n_clusters=2, random_state=3).fit(G)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit="1GiB",
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        got = PopulationEMA(n_clusters=2, random_state=3).fit(da.from_array(G, chunks=(16, 200)))
        loaded = client.run(lambda: sorted({m.split(".")[0] for m in sys.modules} & {"pgmpy", "sklearn"}))
        ran = client.run(lambda: "pgmpy_ext.stats" in sys.modules)
    _same(mem, got)
    assert all(v == [] for v in loaded.values()), loaded
    assert all(ran.values())

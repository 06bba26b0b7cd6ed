"""pgmpy_ext.dask: counts, compress(), classifiers' CPDs and predict_proba, latent-class EM on dask DataFrames equal
the in-memory results, on random uneven partitionings (empty partitions, partitions missing states, per-partition
category orders, weights, missing cells), on the threads scheduler and on a 2-process LocalCluster (no pgmpy on
the workers; a restarted worker's lost partitions are recomputed to the identical result).

Skipped, with a message, when dask is not installed (``pip install 'pgmpy-ext[dask]'``)."""

from __future__ import annotations

import os
import pickle
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

dask = pytest.importorskip("dask", reason="pgmpy_ext.dask needs dask: pip install 'pgmpy-ext[dask]'")
dd = pytest.importorskip("dask.dataframe", reason="pgmpy_ext.dask needs dask[dataframe]")

from pgmpy.parameter_estimator import DiscreteMLE  # noqa: E402, I001  (after pgmpy_ext._compat)

import pgmpy_ext.dask as pdask  # noqa: E402
from pgmpy_ext import classifiers as clf  # noqa: E402
from pgmpy_ext._compat import DiscreteParameterEstimator  # noqa: E402
from pgmpy_ext.data import encode  # noqa: E402
from pgmpy_ext.parameters import TMEstimator  # noqa: E402
from pgmpy_ext.stats import family_counts_many, pairwise_counts, unique_rows  # noqa: E402


def _frame(seed: int, n: int = 400, missing: float = 0.0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    c = rng.integers(0, 3, n)
    df = pd.DataFrame({
        "a": (c + rng.integers(0, 2, n)) % 4,                                   # int, 4 states
        "b": np.array(["x", "y", "z"], dtype=object)[(c + rng.integers(0, 2, n)) % 3],
        "f": rng.random(n) < 0.3,                                               # bool
        "g": np.array(["lo", "hi"], dtype=object)[rng.integers(0, 2, n)],
        "y": np.array(["u", "v", "w"], dtype=object)[c],
    })
    if missing:  # 'a' becomes float with NaN; 'b' object with None (dask turns object columns into strings,
        # so the object column must hold strings to mean the same in memory and in dask)
        df["a"] = df["a"].where(rng.random(n) >= missing)
        df["b"] = df["b"].where(rng.random(n) >= missing, None)
    return df


def _uneven(df: pd.DataFrame, seed: int):
    """Random uneven partitions, some empty; sorted on 'b' first, so that some partitions miss states of 'b'."""
    rng = np.random.default_rng(seed)
    df = df.sort_values("b", kind="stable", na_position="last").reset_index(drop=True)
    cuts = np.sort(rng.integers(0, len(df) + 1, 6))
    divisions = sorted({0, *cuts.tolist(), len(df)})
    parts = [df.iloc[lo:hi] for lo, hi in zip(divisions[:-1], divisions[1:])]
    parts.insert(2, df.iloc[0:0])  # an empty partition
    return dd.from_map(_part, parts, meta=df.iloc[0:0], enforce_metadata=False), df


def _part(frame: pd.DataFrame) -> pd.DataFrame:
    return frame


@pytest.fixture
def threads_scheduler():
    """The threads scheduler even while the module's LocalCluster client exists (it becomes dask's default
    scheduler): these tests pickle functions of this module, which a worker would import, pgmpy with it."""
    with dask.config.set(scheduler="threads"):
        yield


@pytest.fixture(params=[0, 1, 2], ids=lambda s: f"seed{s}")
def split(request):
    return _uneven(_frame(request.param), request.param)


def test_counts_and_compress_equal_in_memory(split):
    ddf, df = split
    data = pdask.encode(ddf)
    mem = encode(df)
    assert data.states == mem.states  # scanned states sorted like the in-memory encoder
    fams = [("a", ["b", "y"]), ("g", []), ("f", ["a"])]
    for got, ref in zip(pdask.family_counts_many(data, fams), family_counts_many(mem, fams)):
        assert_array_equal(got, ref)
    assert_array_equal(pdask.pairwise_counts(data, cond="y").flat, pairwise_counts(mem, cond="y").flat)
    comp = pdask.compress(data)
    u = unique_rows(mem.codes, mem.cards)
    assert_array_equal(comp.codes, u.codes)
    assert_array_equal(comp.weights, u.counts)


def test_weights_missing_cells_and_shuffled_categories():
    df = _frame(5, missing=0.1)
    df["w"] = np.random.default_rng(5).random(len(df)) * 2
    ddf, df = _uneven(df, 5)
    # every partition a categorical with its own (shuffled) category order: unknown categoricals, encoded by value
    cats = ["z", "x", "y"]

    def shuffle_cats(p, seed=[0]):  # noqa: B006  (a counter across partitions)
        seed[0] += 1
        order = list(np.random.default_rng(seed[0]).permutation(cats))
        return p.assign(b=pd.Categorical(p["b"], categories=order))

    ddf = ddf.map_partitions(shuffle_cats, meta=df.iloc[0:0].assign(b=pd.Categorical([], categories=cats)))
    ddf = ddf.assign(b=ddf["b"].cat.as_unknown())  # as parquet gives them
    data = pdask.encode(ddf, weights="w", missing="skip")
    mem = encode(df.drop(columns="w"), states=data.state_names, weights=df["w"].to_numpy(), missing="skip")
    assert data.state_names["b"] == ["x", "y", "z"]
    fams = [("a", ["b", "y"]), ("b", ["g"])]
    for got, ref in zip(pdask.family_counts_many(data, fams), family_counts_many(mem, fams)):
        assert_allclose(got, ref, rtol=1e-12)
    comp = pdask.compress(data)
    u = unique_rows(mem.codes, mem.cards, mem.weights)
    assert_array_equal(comp.codes, u.codes)
    assert_allclose(comp.weights, u.counts, rtol=1e-12)
    assert comp.missing == "skip"


def test_declared_and_known_categorical_states_need_no_scan():
    df = _frame(3)
    df["b"] = pd.Categorical(df["b"], categories=["z", "y", "x"])
    ddf = dd.from_pandas(df, npartitions=3)
    data = pdask.encode(ddf.drop(columns="g"), states={"a": [3, 2, 1, 0], "y": ["w", "v", "u"]}, scan=False)
    assert data.state_names["b"] == ["z", "y", "x"]  # known categorical: category order, as in memory
    assert data.state_names["a"] == [3, 2, 1, 0]
    with pytest.raises(ValueError, match=r"Column 'a' has dtype int64 in the dask DataFrame, so its states cannot be "
                                         r"known without a pass .*states=\{'a': \[\.\.\.\]\}"):
        pdask.encode(ddf, scan=False)


def test_unseen_value_names_column_value_and_partition():
    df = _frame(4, n=60)
    df.loc[45, "b"] = "q"
    ddf = dd.from_pandas(df, npartitions=3)
    data = pdask.encode(ddf, states={"b": ["x", "y", "z"]})
    with pytest.raises(ValueError, match=r"In partition 2 of the dask DataFrame: Column 'b' has value 'q' at row 45"):
        pdask.compress(data)


CLASSIFIERS = [clf.NaiveBayesClassifier(), clf.TANClassifier(), clf.FANClassifier(), clf.SBNClassifier(),
               clf.ABNClassifier(), clf.KDBClassifier(k=2), clf.BANClassifier(random_state=0),
               clf.CLMultinetClassifier(), clf.CTANClassifier(),
               clf.StructuralTMClassifier(), clf.NaiveBayesClassifier(estimator=DiscreteMLE()),
               clf.TANClassifier(estimator=TMEstimator())]


def _cpds(model):
    return {c.variable: (c.get_evidence(), c.state_names, c.get_values()) for c in model.get_cpds()}


def _id(est) -> str:
    inner = getattr(est, "estimator", None)
    return type(est).__name__ + (f"-{type(inner).__name__}" if inner is not None else "")


@pytest.mark.parametrize(("est", "seed"), [(e, k % 3) for k, e in enumerate(CLASSIFIERS)],
                         ids=[_id(e) for e in CLASSIFIERS])
def test_classifier_fit_on_dask_equals_in_memory(est, seed):
    missing = 0.05 * (seed == 1 and not est._complete_data_reason())  # missing cells where the learner takes them
    ddf, df = _uneven(_frame(seed, missing=missing), seed)
    X, y = ddf.drop(columns="y"), ddf["y"]
    ref = clone(est).fit(df.drop(columns="y"), df["y"])
    got = clone(est).fit(X, y)
    assert_array_equal(got.classes_, ref.classes_)
    models = getattr(ref, "models_", None)
    if isinstance(models, dict):
        pairs = [(got.models_[k], models[k]) for k in models]
    else:
        pairs = zip(got.models_, models) if models is not None else [(got.model_, ref.model_)]
    for m_got, m_ref in pairs:
        assert sorted(m_got.edges()) == sorted(m_ref.edges())
        a, b = _cpds(m_got), _cpds(m_ref)
        assert a.keys() == b.keys()
        for v in a:
            assert a[v][0] == b[v][0]
            assert a[v][1] == b[v][1]
            assert_allclose(a[v][2], b[v][2], rtol=1e-12, atol=0)
    assert_allclose(got.predict_proba(df.drop(columns="y")), ref.predict_proba(df.drop(columns="y")), rtol=1e-12)
    assert "dask" not in pickle.dumps(got).decode("latin-1")


class _UnweightedMLE(DiscreteParameterEstimator):
    """A pgmpy parameter estimator that does not accept row weights (pgmpy's default tag)."""

    def fit(self, model, data, sample_weight=None):  # pragma: no cover - refused before it is called
        raise AssertionError("must not be called")


def test_estimator_without_weights_is_refused_on_dask():
    ddf = dd.from_pandas(_frame(9, n=60), npartitions=2)
    with pytest.raises(TypeError, match=r"_UnweightedMLE does not accept row weights .*supports_weighted_data"):
        clf.TANClassifier(estimator=_UnweightedMLE()).fit(ddf.drop(columns="y"), ddf["y"])


def test_selective_nb_refuses_dask_data():
    ddf = dd.from_pandas(_frame(9, n=60), npartitions=2)
    with pytest.raises(TypeError, match=r"SelectiveNBClassifier cannot fit a dask DataFrame: its leave-one-out"):
        clf.SelectiveNBClassifier().fit(ddf.drop(columns="y"), ddf["y"])


def test_complete_data_learner_refuses_missing_cell_naming_partition():
    ddf = dd.from_pandas(_frame(8, n=80, missing=0.2), npartitions=2)
    with pytest.raises(ValueError, match=r"In partition \d of the dask DataFrame: Column '[ab]' has a missing value"):
        clf.ABNClassifier().fit(ddf.drop(columns="y"), ddf["y"])


@pytest.mark.parametrize("est", [clf.TANClassifier(), clf.KDBClassifier(k=2)], ids=lambda e: type(e).__name__)
def test_predict_over_dask_partitions(est, split):
    ddf, df = split
    X = df.drop(columns="y")
    fitted = est.fit(X, df["y"])
    proba = fitted.predict_proba(ddf.drop(columns="y"))
    assert dask.is_dask_collection(proba)
    assert_array_equal(proba.compute(), fitted.predict_proba(X))
    assert_array_equal(fitted.predict(ddf.drop(columns="y")).compute(), fitted.predict(X))


def test_predict_sums_missing_cells_out_per_partition():
    df = _frame(6, missing=0.15)
    ddf = dd.from_pandas(df, npartitions=4)
    X = df.drop(columns="y")
    fitted = clf.TANClassifier().fit(X, df["y"])
    assert_array_equal(fitted.predict_log_proba(ddf.drop(columns="y")).compute(), fitted.predict_log_proba(X))


# ------------------------------------------------------------------------ a 2-process LocalCluster (one fixture)
@pytest.fixture(scope="module")
def cluster_client():
    distributed = pytest.importorskip("distributed", reason="the LocalCluster test needs distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit="1GiB",
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        yield client


def test_local_cluster_fit_predict_without_pgmpy_on_workers(cluster_client):
    # from_pandas, not _uneven: a function of this test module would be pickled by reference, and a worker would
    # import this module (hence pgmpy) to call it
    df = _frame(7, missing=0.05)
    ddf = dd.from_pandas(df, npartitions=5)
    X, y = ddf.drop(columns="y"), ddf["y"]
    got = clf.TANClassifier().fit(X, y)  # runs on the default client: the cluster
    ref = clf.TANClassifier().fit(df.drop(columns="y"), df["y"])
    for a, b in zip(sorted(got.model_.get_cpds(), key=lambda c: c.variable),
                    sorted(ref.model_.get_cpds(), key=lambda c: c.variable)):
        assert_allclose(a.get_values(), b.get_values(), rtol=1e-12)
    assert_array_equal(got.predict_proba(X).compute(), ref.predict_proba(df.drop(columns="y")))
    loaded = cluster_client.run(lambda: sorted({m.split(".")[0] for m in sys.modules} & {"pgmpy", "sklearn"}))
    assert len(loaded) == 2
    assert all(v == [] for v in loaded.values()), loaded
    ran = cluster_client.run(lambda: "pgmpy_ext.stats" in sys.modules)
    assert all(ran.values())  # the tasks did run there


# ------------------------------------------------------------------------ latent-class EM, one map-reduce per iteration
@pytest.mark.parametrize("method", ["em", "ema"])
@pytest.mark.usefixtures("threads_scheduler")
def test_latent_class_em_over_persisted_partitions_equals_in_memory(method):
    from functools import partial

    from pgmpy_ext.clustering import latent_class_data, latent_class_single_start

    df = _frame(11, n=500, missing=0.1).drop(columns="y")
    ddf, df = _uneven(df, 11)
    data = pdask.encode(ddf, missing="skip")
    mem = encode(df, states=data.state_names, missing="skip")
    parts = pdask.persist_distinct(data)
    prepared = latent_class_data(mem.codes, mem.cards)
    kw = {"method": method, "alpha": 1.0, "max_iter": 5, "tol": None}
    ref = latent_class_single_start(prepared, 3, np.random.default_rng(0), **kw)
    got = latent_class_single_start(prepared, 3, np.random.default_rng(0), estep=partial(pdask.latent_class_estep,
                                                                                          parts), **kw)
    assert got.n_iter == ref.n_iter == 5
    # the same E step summed in another order (per-partition distinct rows, then the tree): float round-off only
    assert_allclose(got.ll_trace, ref.ll_trace, rtol=1e-10)
    assert_allclose(got.theta, ref.theta, rtol=1e-8, atol=1e-12)
    assert got.resp is None
    # and bit-identical from run to run (the fixed tree)
    again = latent_class_single_start(prepared, 3, np.random.default_rng(0), estep=partial(pdask.latent_class_estep,
                                                                                            parts), **kw)
    assert_array_equal(again.ll_trace, got.ll_trace)


@pytest.mark.usefixtures("threads_scheduler")
def test_latent_class_em_face_fits_a_dask_frame():
    from pgmpy_ext.clustering import EMAClustering, LatentClassEM

    ddf, df = _uneven(_frame(12, n=400, missing=0.1).drop(columns="y"), 12)
    params = {"n_clusters": 3, "n_init": 2, "max_iter": 8, "random_state": 0}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # max_iter=8 keeps the test short
        ref = LatentClassEM(**params).fit(df)
        got = LatentClassEM(**params).fit(ddf)
    assert got.converged_ == ref.converged_
    assert got.n_iter_ == ref.n_iter_
    assert_allclose(got.ll_trace_, ref.ll_trace_, rtol=1e-10)
    assert_allclose(got.log_likelihood_, ref.log_likelihood_, rtol=1e-12)
    assert_allclose(got.theta_, ref.theta_, rtol=1e-8, atol=1e-12)
    assert_allclose(got.predict_proba(df), ref.predict_proba(df), rtol=1e-7, atol=1e-12)
    assert not hasattr(got, "labels_")
    assert "dask" not in pickle.dumps(got).decode("latin-1")
    with pytest.raises(ValueError, match=r"structure_prior has 2 entries for 4 features"):
        EMAClustering(n_clusters=2, structure_prior=[0.5, 0.5]).fit(ddf)


def _assert_same_latent_fit(got, ref):
    assert got.converged_ == ref.converged_
    assert got.n_iter_ == ref.n_iter_
    assert got.degenerate_ == ref.degenerate_
    assert_allclose(got.start_scores_, ref.start_scores_, rtol=1e-10)
    assert_allclose(got.ll_trace_, ref.ll_trace_, rtol=1e-10)
    assert_allclose(got.log_likelihood_, ref.log_likelihood_, rtol=1e-10)
    assert_allclose(got.theta_, ref.theta_, rtol=1e-7, atol=1e-10)
    assert_allclose(got.weights_, ref.weights_, rtol=1e-7, atol=1e-10)
    assert_allclose(got.arc_posterior_, ref.arc_posterior_, rtol=1e-7, atol=1e-10)
    assert sorted(got.model_.edges()) == sorted(ref.model_.edges())
    assert not hasattr(got, "labels_")
    assert "dask" not in pickle.dumps(got).decode("latin-1")


EMA_POLICIES = [("best", "parameters"), ("uniform", "parameters"), ("averaging", "parameters"),
                ("averaging", "joints")]


@pytest.mark.parametrize(("policy", "combine"), EMA_POLICIES, ids=[f"{p}-{c}" for p, c in EMA_POLICIES])
@pytest.mark.usefixtures("threads_scheduler")
def test_ema_clustering_fits_a_dask_frame(policy, combine):
    """EMA over persisted per-partition distinct rows (uneven and empty partitions, missing cells): the model-averaging
    step in memory, one map-reduce per iteration; multi-start alignment and combination over the partitions."""
    from pgmpy_ext.clustering import EMAClustering

    ddf, df = _uneven(_frame(14, n=500, missing=0.1).drop(columns="y"), 14)
    params = {"n_clusters": 3, "n_init": 3, "max_iter": 30, "random_state": 1, "policy": policy, "combine": combine}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ref = EMAClustering(**params).fit(df)
        got = EMAClustering(**params).fit(ddf)
    _assert_same_latent_fit(got, ref)
    assert (got._components_ is None) == (combine == "parameters")
    assert_allclose(got.predict_proba(df), ref.predict_proba(df), rtol=1e-6, atol=1e-10)
    if policy != "best":  # the starts really differ, so the alignment and the combination did something
        assert np.ptp(ref.start_scores_) > 1e-6


@pytest.mark.usefixtures("threads_scheduler")
def test_ema_degenerate_test_over_dask_rows():
    """EMA's constant-posterior test (spec 4.8) from the range of the posteriors over the dask rows gives the in-memory
    verdict: one cluster (every arc posterior stays at its prior 0.5, every posterior is 1: degenerate) and a
    structured two-cluster fit (not degenerate)."""
    from pgmpy_ext.clustering import EMAClustering

    ddf, df = _uneven(_frame(15, n=400, missing=0.1).drop(columns="y"), 15)
    for k, expected in [(1, True), (2, False)]:
        ref = EMAClustering(n_clusters=k, n_init=2, random_state=0).fit(df)
        got = EMAClustering(n_clusters=k, n_init=2, random_state=0).fit(ddf)
        assert ref.degenerate_ is expected
        assert np.nanmax(ref.arc_posterior_) > 1e-6  # so the verdict came from the posteriors, not the arcs
        _assert_same_latent_fit(got, ref)


def test_local_cluster_ema_equals_in_memory(cluster_client):
    """EMA (likelihood-weighted averaging of 3 starts, mixture of joints) on the 2-process cluster, over uneven
    partitions with an empty one and missing cells; the workers never load pgmpy."""
    from pgmpy_ext.clustering import EMAClustering

    df = _frame(16, n=500, missing=0.1).drop(columns="y")
    rng = np.random.default_rng(16)
    cuts = sorted({0, *rng.integers(0, len(df), 4).tolist(), len(df)})
    parts = [df.iloc[lo:hi] for lo, hi in zip(cuts[:-1], cuts[1:])]
    parts.insert(1, df.iloc[0:0])
    # pd.DataFrame.copy, not a function of this module: the workers must not import the test module (nor pgmpy)
    ddf = dd.from_map(pd.DataFrame.copy, parts, meta=df.iloc[0:0], enforce_metadata=False)
    params = {"n_clusters": 3, "n_init": 3, "max_iter": 20, "random_state": 2, "policy": "averaging",
              "combine": "joints"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ref = EMAClustering(**params).fit(df)
        got = EMAClustering(**params).fit(ddf)
    _assert_same_latent_fit(got, ref)
    loaded = cluster_client.run(lambda: sorted({m.split(".")[0] for m in sys.modules} & {"pgmpy", "sklearn"}))
    assert all(v == [] for v in loaded.values()), loaded


def test_local_cluster_lost_worker_gives_identical_counts(cluster_client):
    """Encoded partitions persisted on both workers; one worker is restarted (its memory is lost); the next pass
    recomputes the lost partitions from the graph and gives the identical tables and compressed rows."""
    df = _frame(13, n=600)
    ddf = dd.from_pandas(df, npartitions=6)
    data = pdask.encode(ddf).persist()
    before_tabs = pdask.family_counts_many(data, [("a", ["b", "y"]), ("g", ["f"])])
    before = pdask.compress(data)
    workers = sorted(cluster_client.scheduler_info()["workers"])
    held = cluster_client.has_what()
    assert all(held[w] for w in workers)  # both workers hold encoded partitions
    pids = set(cluster_client.run(os.getpid).values())
    cluster_client.restart_workers([workers[0]])
    assert len(set(cluster_client.run(os.getpid).values()) - pids) == 1  # one worker process was replaced
    after_tabs = pdask.family_counts_many(data, [("a", ["b", "y"]), ("g", ["f"])])
    after = pdask.compress(data)
    for a, b in zip(after_tabs, before_tabs):
        assert_array_equal(a, b)
    assert_array_equal(after.codes, before.codes)
    assert_array_equal(after.weights, before.weights)
    mem = encode(df, states=data.state_names)
    assert_array_equal(after_tabs[0], family_counts_many(mem, [("a", ["b", "y"])])[0])


def test_posteriors_constant_from_a_range_equals_allclose():
    """The summary form (first row, per-cluster min and max) gives np.allclose(resp, resp[:1], atol=1e-9) exactly."""
    from pgmpy_ext.clustering import posteriors_constant

    rng = np.random.default_rng(0)
    for scale in [0.0, 1e-12, 1e-9, 3e-6, 1e-5, 1e-3]:
        for _ in range(20):
            base = rng.dirichlet(np.ones(3))
            resp = base + scale * rng.standard_normal((50, 3))
            got = posteriors_constant(first=resp[0], low=resp.min(axis=0), high=resp.max(axis=0))
            assert got == posteriors_constant(resp) == bool(np.allclose(resp, resp[:1], atol=1e-9))

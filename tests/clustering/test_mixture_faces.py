"""Every fitted mixture speaks the same vocabulary: the same fitted attributes, ``handle_unknown`` and ``missing``
with the same values, numpy scalars accepted, bad options refused with one clear message, dask input either
supported or refused with a clear message (issue 24)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from pgmpy_ext.clustering import (
    BruteForceSNBAveraging,
    CEMClustering,
    ConstructiveInductionClustering,
    EMAClustering,
    EMATANClustering,
    EMCompleteBNClustering,
    EMTANClustering,
    LatentClassEM,
)


def _data(n=120, seed=0, m=4):
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 2, n)
    return pd.DataFrame({f"x{i}": np.where(rng.random(n) < 0.85, z, 1 - z) for i in range(m)})


FAST = {
    "LatentClassEM": lambda **kw: LatentClassEM(2, n_init=2, random_state=0, **kw),
    "EMAClustering": lambda **kw: EMAClustering(2, n_init=2, random_state=0, **kw),
    "EMATANClustering": lambda **kw: EMATANClustering(2, n_init=2, order="columns", random_state=0, **kw),
    "EMTANClustering": lambda **kw: EMTANClustering(2, n_init=2, random_state=0, **kw),
    "EMCompleteBNClustering": lambda **kw: EMCompleteBNClustering(2, n_init=2, order="columns", random_state=0,
                                                                  **kw),
    "ConstructiveInductionClustering": lambda **kw: ConstructiveInductionClustering(2, random_state=0, **kw),
    "BruteForceSNBAveraging": lambda **kw: BruteForceSNBAveraging(n_init=2, n_burn=5, n_gibbs=10, random_state=0,
                                                                  **kw),
    "CEMClustering": lambda **kw: CEMClustering(2, n_init=2, n_stochastic_steps=5, random_state=0, **kw),
    "CEMClustering-tan": lambda **kw: CEMClustering(2, model="tan", n_init=2, n_stochastic_steps=5, random_state=0,
                                                    **kw),
}
ATTRIBUTES = ("labels_", "weights_", "model_", "log_likelihood_", "ll_trace_", "n_iter_", "converged_")


@pytest.mark.parametrize("name", sorted(FAST))
def test_every_mixture_exposes_the_same_fitted_attributes(name):
    X = _data()
    est = FAST[name]().fit(X)
    for attr in ATTRIBUTES:
        assert hasattr(est, attr), attr
    assert est.labels_.shape == (len(X),)
    assert_allclose(est.weights_.sum(), 1.0, rtol=1e-12)
    assert est.model_.latents == {est.cluster_node_}
    assert np.isfinite(est.log_likelihood_)
    assert est.ll_trace_.ndim == 1
    assert isinstance(est.n_iter_, int)
    assert isinstance(est.converged_, bool)
    if name != "BruteForceSNBAveraging":  # one fit per structure, no restarts of the whole model
        assert est.start_scores_.shape == (2,) or name == "ConstructiveInductionClustering"
    # the training log-likelihood is what score() gives on the training rows (the same predict-time model)
    assert_allclose(est.log_likelihood_, est.score(X) * len(X), rtol=1e-9)


@pytest.mark.parametrize("name", sorted(FAST))
def test_handle_unknown_is_one_option_everywhere(name):
    X = _data()
    est = FAST[name]().fit(X)
    new = X.head(3).copy()
    new.loc[new.index[0], "x1"] = 7  # a value never seen at fit
    p = est.predict_proba(new)
    assert_allclose(p.sum(axis=1), 1.0, rtol=1e-12)
    # "ignore" treats the unseen cell as missing: the same posterior as with the cell missing
    missing = new.astype(float)
    missing.loc[missing.index[0], "x1"] = np.nan
    assert_allclose(p, est.predict_proba(missing), rtol=1e-9, atol=1e-12)
    strict = FAST[name](handle_unknown="error").fit(X)
    with pytest.raises(ValueError, match=r"Column 'x1' has value 7 at row 0 that was not seen during fit"):
        strict.predict_proba(new)


@pytest.mark.parametrize("name", sorted(set(FAST) - {"LatentClassEM", "EMAClustering"}))
def test_missing_error_refuses_nan_at_predict(name):
    X = _data()
    est = FAST[name](missing="error").fit(X)
    new = X.head(2).astype(float)
    new.iloc[1, 2] = np.nan
    with pytest.raises(ValueError, match=r"Column 'x2' has a missing value \(NaN/None\) at row 1"):
        est.predict(new)
    with pytest.raises(ValueError, match=r"cannot fit on missing values"):
        FAST[name]().fit(new)


@pytest.mark.parametrize(("make", "error", "match"), [
    (lambda: BruteForceSNBAveraging(n_clusters=2.5), TypeError, r"n_clusters == 2.5, must be an int >= 1"),
    (lambda: EMCompleteBNClustering(alpha=math.nan), ValueError, r"alpha == nan, must be a finite number > 0"),
    (lambda: ConstructiveInductionClustering(interleave="no"), TypeError, r"interleave == 'no', must be a bool"),
    (lambda: EMTANClustering(tol=-1.0), ValueError, r"tol == -1.0, must be >= 0"),
    (lambda: EMATANClustering(policy="mean"), ValueError, r"policy == 'mean', must be one of"),
    (lambda: LatentClassEM(missing="ignore"), ValueError, r"missing == 'ignore', must be one of \('impute', "
                                                          r"'available_case'\)"),
    (lambda: CEMClustering(missing="impute"), ValueError, r"missing == 'impute', must be one of "
                                                          r"\('available_case', 'error'\)"),
    (lambda: EMAClustering(handle_unknown="skip"), ValueError, r"handle_unknown == 'skip', must be one of"),
    (lambda: EMAClustering(n_jobs=1.5), TypeError, r"n_jobs == 1.5, must be None or a non-zero int"),
], ids=["bf-float", "nan-alpha", "interleave-str", "tol-neg", "policy", "lc-missing", "cem-missing",
        "handle-unknown", "n_jobs"])
def test_bad_options_get_one_clear_message(make, error, match):
    with pytest.raises(error, match=match):
        make().fit(_data(40))


def test_numpy_scalars_are_accepted():
    X = _data(80, m=3)
    a = BruteForceSNBAveraging(n_clusters=np.int64(2), n_init=np.int64(2), n_burn=5, n_gibbs=10,
                               random_state=np.int64(0)).fit(X)
    b = BruteForceSNBAveraging(n_clusters=2, n_init=2, n_burn=5, n_gibbs=10, random_state=0).fit(X)
    assert_array_equal(a.labels_, b.labels_)
    c = EMTANClustering(np.int32(2), alpha=np.float32(1.0), tol=np.float64(1e-6), n_init=np.int64(2),
                        random_state=0).fit(X)
    assert c.n_iter_ >= 1


def test_same_seed_same_result_for_n_jobs_1_and_2():
    X = _data()
    for name in ("LatentClassEM", "EMATANClustering", "ConstructiveInductionClustering", "CEMClustering"):
        one = FAST[name](n_jobs=1).fit(X)
        two = FAST[name](n_jobs=2).fit(X)
        assert_array_equal(one.labels_, two.labels_)
        assert_array_equal(one.ll_trace_, two.ll_trace_)


def test_complete_data_clusterers_refuse_dask_with_a_clear_message():
    dd = pytest.importorskip("dask.dataframe", reason="the dask extra is not installed")
    ddf = dd.from_pandas(_data(), npartitions=2)
    for name in ("EMATANClustering", "EMTANClustering", "EMCompleteBNClustering", "ConstructiveInductionClustering",
                 "BruteForceSNBAveraging", "CEMClustering"):
        with pytest.raises(TypeError, match=r"does not fit on a dask DataFrame: its fit needs the rows in memory\. "
                                            r"Compute the frame"):
            FAST[name]().fit(ddf)

"""Every classifier family and the latent-class clusterers fit and predict identically on narrow-coded data.

``pgmpy_ext.data._encoded.CODES_DTYPE = "auto"`` makes every ``encode`` store int8 / int16 codes: the fused kernels
(counting, unique rows, E steps, posteriors) then read them directly, every other consumer gets int32 from
``EncodedData.codes``. The fitted networks and the predictions must be exactly those of int32 codes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_array_equal

import pgmpy_ext.classifiers as clf_mod
import pgmpy_ext.data._encoded as encoded_mod
from pgmpy_ext.classifiers import BNClassifierBase
from pgmpy_ext.clustering import CEMClustering, EMAClustering, EMATANClustering, LatentClassEM
from pgmpy_ext.data import EncodedData
from tests.classifier_data import mixed_frame

_OVERRIDES = {"FANClassifier": {"n_edges": 2}}
CLASSIFIERS = [getattr(clf_mod, n)(**_OVERRIDES.get(n, {})) for n in clf_mod.__all__
               if isinstance(getattr(clf_mod, n), type) and issubclass(getattr(clf_mod, n), BNClassifierBase)
               and getattr(clf_mod, n) is not BNClassifierBase]


def _xy(n=500, seed=3, wide=False):
    rng = np.random.default_rng(seed)
    X, y, base = mixed_frame(rng, n)
    # 128 declared states (codes up to 127, the top of int8), or 150 (int16)
    k = 150 if wide else 128
    X["e"] = pd.Categorical((base * 40 + rng.integers(0, 8, n)) % k, categories=list(range(k)))
    return X, pd.Series(y, name="level")


def _fit(est, X, y, monkeypatch, dtype):
    monkeypatch.setattr(encoded_mod, "CODES_DTYPE", dtype)
    # NB and TAN store narrow training codes whatever CODES_DTYPE says (their engines read them through the
    # kernels only); the int32 reference switches that off
    monkeypatch.setattr(type(est), "_narrow_training_codes", dtype == "auto" and
                        getattr(type(est), "_narrow_training_codes", False), raising=False)
    return clone_fit(est, X, y)


def clone_fit(est, X, y):
    from sklearn.base import clone

    est = clone(est)
    if "random_state" in est.get_params(deep=False):
        est.set_params(random_state=0)  # e.g. BAN draws its K2 ordering at random
    return est.fit(X, y) if y is not None else est.fit(X)


def _cpd_values(est) -> dict:
    models = getattr(est, "models_", None) or [est.model_]
    models = models if isinstance(models, list) else list(models.values())
    return {(k, cpd.variable): cpd.get_values() for k, m in enumerate(models) for cpd in m.get_cpds()}


def _assert_same_models(a, b):
    va, vb = _cpd_values(a), _cpd_values(b)
    assert va.keys() == vb.keys()
    for key in va:
        assert_array_equal(va[key], vb[key])


@pytest.mark.parametrize("wide", [False, True], ids=["int8", "int16"])
@pytest.mark.parametrize("est", CLASSIFIERS, ids=[type(c).__name__ for c in CLASSIFIERS])
def test_classifier_on_narrow_codes_equals_int32(est, wide, monkeypatch):
    X, y = _xy(wide=wide)
    ref = _fit(est, X, y, monkeypatch, "int32")
    got = _fit(est, X, y, monkeypatch, "auto")
    if isinstance(getattr(got, "encoder_", None), EncodedData):
        assert got.encoder_.codes_dtype == (np.int16 if wide else np.int8)  # the narrow path was taken
        assert ref.encoder_.codes_dtype == np.int32
    Xt = X.iloc[::7]
    assert_array_equal(got.predict_proba(Xt), ref.predict_proba(Xt))
    assert_array_equal(got.predict(Xt), ref.predict(Xt))
    _assert_same_models(got, ref)


CLUSTERERS = [LatentClassEM(3, n_init=2, random_state=0), EMAClustering(3, n_init=2, random_state=0),
              CEMClustering(3, n_init=2, random_state=0), EMATANClustering(3, n_init=2, random_state=0)]


@pytest.mark.parametrize("est", CLUSTERERS, ids=[type(c).__name__ for c in CLUSTERERS])
def test_clusterer_on_narrow_codes_equals_int32(est, monkeypatch):
    X, _ = _xy(n=300)
    X = X.drop(columns="e")  # the EM-TAN mixtures' pair tables stay small
    ref = _fit(est, X, None, monkeypatch, "int32")
    got = _fit(est, X, None, monkeypatch, "auto")
    assert got.encoder_.codes_dtype == np.int8
    assert_array_equal(got.predict_proba(X), ref.predict_proba(X))
    assert_array_equal(got.labels_, ref.labels_)
    _assert_same_models(got, ref)

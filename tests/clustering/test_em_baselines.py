"""The chapter-7 EM baselines: mEM-TAN (structural EM with TAN re-learned every iteration) and mEM-BNET (EM for the
complete network given an order)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from joblib import parallel_config
from numpy.testing import assert_allclose, assert_array_equal

from pgmpy_ext._compat import VariableElimination
from pgmpy_ext.classifiers import TANClassifier
from pgmpy_ext.clustering import (
    EMCompleteBNClustering,
    EMTANClustering,
    complete_bn_single_start,
    emtan_single_start,
    prepare_complete_bn,
    prepare_emtan,
)
from pgmpy_ext.datasets import make_random_tan

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


@pytest.fixture(scope="module")
def tan_data():
    X, z = make_random_tan(250, 5, 2, random_state=3)[:2]
    return pd.DataFrame(X), np.asarray(z)


def _undirected(edges):
    return {frozenset(e) for e in edges}


def test_emtan_first_tree_from_true_labels_is_supervised_tan(tan_data):
    """From the true labels as responsibilities, the first M step learns the supervised TAN's tree (same CMI, same
    Kruskal)."""
    X, z = tan_data
    codes = np.stack([pd.factorize(X[c], sort=True)[0] for c in X.columns], 1)
    cards = codes.max(0) + 1
    data = prepare_emtan(codes, cards, 2)
    q = np.zeros((data.codes.shape[0], 2))
    np.add.at(q, data.inverse, np.eye(2)[z])
    q /= q.sum(1, keepdims=True)  # label fractions per distinct row: the expected counts are the labelled counts
    start = emtan_single_start(data, np.random.default_rng(0), max_iter=1, init=q)
    ours = {frozenset((X.columns[i], X.columns[p])) for i, p in enumerate(start.parents) if p >= 0}
    tan = TANClassifier().fit(X, pd.Series(z, name="class"))
    theirs = _undirected((u, v) for u, v in tan.model_.edges() if "class" not in (u, v))
    assert ours == theirs


@pytest.mark.parametrize("cls", [EMTANClustering, EMCompleteBNClustering], ids=["mEM-TAN", "mEM-BNET"])
def test_predict_proba_equals_variable_elimination(cls, tan_data):
    X, _ = tan_data
    est = cls(2, n_init=2, max_iter=30, random_state=0).fit(X)
    est.model_.check_model()
    ve = VariableElimination(est.model_)
    rows = pd.concat([X.head(4), pd.DataFrame([{c: X[c].iloc[0] for c in X.columns}])])
    rows.iloc[-1, 2] = X.iloc[:, 2].max()  # possibly an unseen parent configuration
    proba = est.predict_proba(rows)
    for r in range(len(rows)):
        post = ve.query([est.cluster_node_], evidence=rows.iloc[r].to_dict(), show_progress=False)
        assert_allclose(proba[r], post.values, rtol=1e-9)
    row = rows.iloc[0].to_dict()
    miss = pd.DataFrame([{**row, X.columns[1]: None}])
    post = ve.query([est.cluster_node_], evidence={k: v for k, v in row.items() if k != X.columns[1]},
                    show_progress=False)
    assert_allclose(est.predict_proba(miss)[0], post.values, rtol=1e-9)
    assert_allclose(est.score(X) * len(X), est.log_likelihood_, rtol=1e-10)


def test_complete_bn_stores_only_observed_configurations(tan_data):
    X, _ = tan_data
    codes = np.stack([pd.factorize(X[c], sort=True)[0] for c in X.columns], 1)
    cards = codes.max(0) + 1
    data = prepare_complete_bn(codes, cards, 2)
    full = [int(np.prod(cards[:i])) for i in range(len(cards))]
    assert data.n_prefix[0] == 1
    assert all(p <= min(f, data.codes.shape[0]) for p, f in zip(data.n_prefix, full))
    start = complete_bn_single_start(data, np.random.default_rng(1), max_iter=20)
    assert sum(t.shape[0] for t in start.log_theta) == sum(p * c for p, c in zip(data.n_prefix, cards))
    # every stored CPT column is a distribution
    for i, t in enumerate(start.log_theta):
        assert_allclose(np.exp(t).reshape(data.n_prefix[i], cards[i], 2).sum(1), 1.0, rtol=1e-12)


@pytest.mark.parametrize("cls", [EMTANClustering, EMCompleteBNClustering], ids=["mEM-TAN", "mEM-BNET"])
def test_same_seed_same_result_and_errors(cls, tan_data):
    X, _ = tan_data
    X0 = X.copy()
    a = cls(2, n_init=3, max_iter=20, random_state=4).fit(X)
    with parallel_config(backend="threading"):  # processes are covered by test_ematan; threads keep this fast
        b = cls(2, n_init=3, max_iter=20, random_state=4, n_jobs=2).fit(X)
    assert_array_equal(a.start_scores_, b.start_scores_)
    assert_array_equal(a.labels_, b.labels_)
    with pytest.raises(ValueError, match="alpha == 0"):
        cls(2, alpha=0.0).fit(X)
    with pytest.raises(ValueError, match="n_clusters == 0"):
        cls(0).fit(X)
    bad = X.astype(object)
    bad.iloc[3, 1] = None
    with pytest.raises(ValueError, match=f"column {X.columns[1]!r} is missing at row 3"):
        cls(2).fit(bad)
    pd.testing.assert_frame_equal(X, X0)

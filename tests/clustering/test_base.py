"""BaseBNMixture and best_of_starts: the restart loop, the prediction surface and the export, on a toy subclass."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.exceptions import ConvergenceWarning

from pgmpy_ext._compat import DiscreteBayesianNetwork, TabularCPD
from pgmpy_ext.clustering import CEMClustering
from pgmpy_ext.clustering._base import BaseBNMixture, best_of_starts


class _Draw:
    """A start that only draws one uniform from its generator (picklable, for the process backend)."""

    def __call__(self, rng):
        return float(rng.random())


def _identity(x):
    return x


def test_best_of_starts_keeps_the_best_and_ties_go_to_the_first():
    starts, scores, best = best_of_starts(_Draw(), 5, 3, _identity)
    expected = [float(c.random()) for c in np.random.default_rng(3).spawn(5)]
    assert starts == expected
    assert_array_equal(scores, expected)
    assert best == int(np.argmax(expected))
    _, scores, best = best_of_starts(_Draw(), 4, 0, lambda s: 1.0)
    assert scores.tolist() == [1.0] * 4
    assert best == 0


class _ToyMixture(BaseBNMixture):
    """Two clusters, one binary attribute: P(x, k) fixed by ``table``; a start returns its generator's draw."""

    def __init__(self, *, converge=True, multinet=False, n_init=2, random_state=None, n_jobs=None,
                 show_progress=False):
        self.converge = converge
        self.multinet = multinet
        self.n_init = n_init
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.show_progress = show_progress

    table = np.log(np.array([[0.3, 0.1], [0.2, 0.4]]))  # rows: x = 0, 1; columns: k

    def _check_params(self):
        pass

    def _single_start(self, prepared, rng):
        return float(rng.random())

    def _start_score(self, result):
        return result

    def _not_converged_message(self, result):
        return None if self.converge else "toy start did not converge"

    def _set_fitted(self, result, scores):
        self.best_draw_ = result
        self.start_scores_ = scores
        self.weights_ = np.array([0.5, 0.5])
        self.labels_ = np.zeros(self.encoder_.n_rows, dtype=np.intp)

    def _joint_log_likelihood(self, codes):
        return self.table[codes[:, 0]]

    def _build_models(self):
        col = self.encoder_.columns[0]
        if self.multinet:
            self.models_ = {}
            for k in range(2):
                net = DiscreteBayesianNetwork()
                net.add_node(col)
                net.add_cpds(TabularCPD(col, 2, np.exp(self.table[:, [k]]) / np.exp(self.table[:, k]).sum(),
                                        state_names={col: [0, 1]}))
                self.models_[k] = net
        else:
            self.model_ = DiscreteBayesianNetwork([(self.cluster_node_, col)])


X = pd.DataFrame({"a": [0, 1, 1, 0, 1]})


def test_prediction_surface_comes_from_the_joint_log_likelihood():
    toy = _ToyMixture(random_state=0).fit(X)
    lj = toy.table[X["a"].to_numpy()]
    assert_array_equal(toy.predict_joint_log_proba(X), lj)
    assert_allclose(toy.predict_proba(X), np.exp(lj) / np.exp(lj).sum(axis=1, keepdims=True), rtol=1e-12)
    assert_array_equal(toy.predict(X), [0, 1, 1, 0, 1])
    assert_allclose(toy.score_samples(X), np.log(np.exp(lj).sum(axis=1)), rtol=1e-12)
    assert toy.score(X) == pytest.approx(np.log(np.exp(lj).sum(axis=1)).mean(), rel=1e-12)
    assert_array_equal(toy.fit_predict(X), toy.labels_)


def test_best_start_and_scores_are_the_best_of_starts_ones():
    toy = _ToyMixture(n_init=4, random_state=5).fit(X)
    starts, scores, best = best_of_starts(_Draw(), 4, 5, _identity)
    assert toy.best_draw_ == starts[best]
    assert_array_equal(toy.start_scores_, scores)


def test_convergence_warning_from_the_hook():
    with pytest.warns(ConvergenceWarning, match="toy start did not converge"):
        _ToyMixture(converge=False, random_state=0).fit(X)


def test_cluster_node_avoids_feature_names_and_export():
    toy = _ToyMixture(random_state=0).fit(pd.DataFrame({"cluster": X["a"]}))
    assert toy.cluster_node_ == "cluster_"
    assert toy.to_network() is toy.model_


def test_refit_drops_the_other_export():
    toy = _ToyMixture(random_state=0).fit(X)
    toy.set_params(multinet=True).fit(X)
    assert not hasattr(toy, "model_")
    net = toy.to_network()
    assert net.latents == {"cluster"}
    assert_allclose(net.get_cpds("cluster").values.ravel(), [0.5, 0.5])


def _ve_posterior(model, X):
    from pgmpy_ext._compat import VariableElimination

    ve = VariableElimination(model)
    out = []
    for _, row in X.iterrows():
        q = ve.query(["cluster"], evidence=row.to_dict(), show_progress=False)
        out.append(q.values)
    return np.array(out)


def test_cem_clustering_is_a_bn_mixture():
    cem = CEMClustering(2, model="tan", n_init=2, n_stochastic_steps=3, random_state=0)
    assert isinstance(cem, BaseBNMixture)
    X2 = pd.DataFrame({"a": [0, 0, 1, 1] * 10, "b": [0, 1, 1, 0] * 10, "c": [0, 0, 1, 1] * 10})
    cem.fit(X2)
    assert_array_equal(cem.fit_predict(X2), cem.labels_)
    assert_array_equal(cem.predict_joint_log_proba(X2).argmax(axis=1), cem.predict(X2))
    cem.set_params(model="cl").fit(X2)
    assert sorted(cem.models_) == [0, 1]
    assert cem.model_.latents == {"cluster"}  # the multinet as one network, exact
    assert_allclose(cem.predict_proba(X2), _ve_posterior(cem.model_, X2), rtol=1e-9, atol=1e-12)

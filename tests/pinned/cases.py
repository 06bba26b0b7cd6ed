"""Fixed-seed runs of every EM-type learner on small data, whose traces were recorded at the branch point of the
iterative-fit driver (commit 2a19a5f, before any learner moved onto it) in ``traces.json``.

Each case returns a dict of plain numbers and lists (traces, iteration counts, labels, log-likelihoods); the test
compares them with the recorded values, so moving a learner onto the shared driver, the shared random start or the
shared restart runner must leave every recorded trace where it was. The option names in the cases are today's
(the vocabulary of issue 24); the numbers are the branch point's.

Regenerate (only when a change of numbers is intended and explained): ``python -m tests.pinned.cases``.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

PINS = Path(__file__).with_name("traces.json")


def _floats(a) -> list:
    return [float(v) for v in np.asarray(a, dtype=np.float64).ravel()]


def _ints(a) -> list:
    return [int(v) for v in np.asarray(a).ravel()]


def _blobs(n=240, n_features=5, seed=0, missing=0.0):
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 2, n)
    X = pd.DataFrame({f"x{i}": np.where(rng.random(n) < 0.8, z, rng.integers(0, 3, n)) for i in range(n_features)})
    X["copy"] = np.where(rng.random(n) < 0.9, X["x0"], rng.integers(0, 3, n))
    X["noise"] = rng.integers(0, 3, n)
    if missing:
        X = X.mask(rng.random(X.shape) < missing)
    return X


def _mixture(est) -> dict:
    out = {"ll_trace": _floats(est.ll_trace_), "n_iter": int(est.n_iter_), "converged": bool(est.converged_),
           "log_likelihood": float(est.log_likelihood_), "weights": _floats(est.weights_)}
    if hasattr(est, "labels_"):
        out["labels"] = _ints(est.labels_)
    return out


def latent_class_em():
    from pgmpy_ext.clustering import LatentClassEM

    est = LatentClassEM(2, n_init=3, random_state=1).fit(_blobs(missing=0.1))
    return _mixture(est)


def latent_class_em_ml():
    from pgmpy_ext.clustering import LatentClassEM

    est = LatentClassEM(3, alpha=0.0, n_init=2, tol=1e-8, max_iter=40, random_state=2).fit(_blobs(seed=3))
    return _mixture(est)


def ema():
    from pgmpy_ext.clustering import EMAClustering

    est = EMAClustering(2, n_init=3, random_state=1).fit(_blobs(missing=0.1))
    return {**_mixture(est), "arc_posterior": _floats(est.arc_posterior_)}


def ema_averaging_joints():
    from pgmpy_ext.clustering import EMAClustering

    est = EMAClustering(2, n_init=3, policy="averaging", combine="joints", random_state=4).fit(_blobs(seed=1))
    return {**_mixture(est), "arc_posterior": _floats(est.arc_posterior_)}


def latent_engine_em_both_rules():
    """The chapter-7 reproductions' EM: the relative log-likelihood rule and the parameter rule together."""
    from pgmpy_ext.clustering import latent_class_data, latent_class_single_start

    X = _blobs(seed=5).to_numpy(dtype=np.int32)
    data = latent_class_data(X, X.max(axis=0) + 1)
    out = {}
    for k, rng in enumerate(np.random.default_rng(6).spawn(3)):
        s = latent_class_single_start(data, 2, rng, method="em", alpha=1.0, criterion=("objective", "params"),
                                      tol=(1e-6, 0.01), max_iter=1000)
        out[f"start{k}"] = {"ll_trace": _floats(s.ll_trace), "n_iter": int(s.n_iter), "converged": bool(s.converged)}
    return out


def ematan():
    from pgmpy_ext.clustering import EMATANClustering

    est = EMATANClustering(2, n_init=3, order="columns", random_state=0).fit(_blobs(seed=7))
    return {**_mixture(est), "start_logliks": _floats(est.start_scores_)}


def ematan_uniform():
    from pgmpy_ext.clustering import EMATANClustering

    est = EMATANClustering(2, n_init=3, policy="uniform", random_state=8).fit(_blobs(seed=8, n_features=3))
    return _mixture(est)


def emtan():
    from pgmpy_ext.clustering import EMTANClustering

    est = EMTANClustering(2, n_init=3, random_state=0).fit(_blobs(seed=9))
    return {**_mixture(est), "n_structure_changes": int(est.n_structure_changes_),
            "start_logliks": _floats(est.start_scores_)}


def emtan_short():
    from pgmpy_ext.clustering import EMTANClustering

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = EMTANClustering(3, n_init=2, max_iter=3, random_state=10).fit(_blobs(seed=10))
    return _mixture(est)


def em_complete_bn():
    from pgmpy_ext.clustering import EMCompleteBNClustering

    est = EMCompleteBNClustering(2, n_init=3, order="columns", random_state=0).fit(_blobs(seed=11, n_features=3))
    return {**_mixture(est), "start_logliks": _floats(est.start_scores_)}


def _ci(**kw):
    from pgmpy_ext.clustering import ConstructiveInductionClustering

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = ConstructiveInductionClustering(2, **kw).fit(_blobs(seed=12, n=300))
    return {"labels": _ints(est.labels_), "n_iter": int(est.n_iter_), "converged": bool(est.converged_),
            "score_initial": float(est.score_initial_), "score_final": float(est.score_final_),
            "blocks": [list(b) for b in est.blocks_], "start_scores": _floats(est.start_scores_),
            "history_scores": _floats([h["score"] for h in est.history_]),
            "param_iter": _ints([h["param_iter"] for h in est.history_])}


def ci_em():
    return _ci(n_init=2, random_state=0)


def ci_bc_em_interleave():
    return _ci(param_search="bc+em", interleave=True, n_init=2, random_state=1)


def ci_em_loglik_converge():
    return _ci(param_search="bc+em", stopping="loglik", em_steps_per_round="converge", random_state=2)


def ci_sa():
    return _ci(search="sa", sa_stop_unchanged=30, random_state=3)


def ci_engine_traces():
    """The parameter searches themselves: score and log-likelihood traces of EM and BC+EM."""
    from pgmpy_ext.parameters import SupernodeNB, fit_bc_em, fit_supernode_em, random_parameters

    rng = np.random.default_rng(13)
    z = rng.integers(0, 2, 300)
    nodes = np.stack([np.where(rng.random(300) < 0.8, z, 1 - z) for _ in range(5)], axis=1).astype(np.int32)
    nb = SupernodeNB(nodes, np.full(5, 2), np.full(5, 2.0), np.ones(300), 2)
    out = {}
    for name, fit, kw in (("em_score", fit_supernode_em, {}), ("em_loglik", fit_supernode_em, {"stopping": "loglik"}),
                          ("bcem", fit_bc_em, {"fixing_threshold": 0.51}),
                          ("bcem_2", fit_bc_em, {"fixing_threshold": 0.6, "em_steps_per_round": 2})):
        theta, prior = random_parameters(nb, np.random.default_rng(14))
        res = fit(nb, theta, prior, **kw)
        out[name] = {"score_trace": _floats(res.score_trace), "loglik_trace": _floats(res.loglik_trace),
                     "n_iter": int(res.n_iter), "converged": bool(res.converged), "theta": _floats(res.theta)}
    return out


def brute_force():
    from pgmpy_ext.clustering import BruteForceSNBAveraging
    from pgmpy_ext.datasets import make_random_selective_nb

    X, _, _ = make_random_selective_nb(80, 3, 2, states=2, random_state=0)
    est = BruteForceSNBAveraging(n_init=2, n_burn=20, n_gibbs=40, random_state=0).fit(X)
    return {"labels": _ints(est.labels_), "weights": _floats(est.weights_),
            "structure_posterior": _floats(est.structure_posterior_), "arc_posterior": _floats(est.arc_posterior_),
            "loglik": _floats(est.result_.loglik), "log_evidence": _floats(est.result_.log_evidence)}


def population_ema():
    from pgmpy_ext.datasets import make_balding_nichols
    from pgmpy_ext.popgen import THESIS_SETTINGS, PopulationEMA

    a, _ = make_balding_nichols(n_individuals=50, n_populations=2, n_loci=40, fst=0.1, missing_rate=0.05,
                                random_state=0)
    est = PopulationEMA(n_clusters=2, n_init=3, random_state=0, **THESIS_SETTINGS).fit(a)
    return {**_mixture(est), "arc_posterior": _floats(np.nan_to_num(est.arc_posterior_, nan=-1.0)),
            "start_log_likelihoods": _floats(est.start_scores_)}


def population_ema_pca_ignore():
    from pgmpy_ext.datasets import make_balding_nichols
    from pgmpy_ext.popgen import THESIS_SETTINGS, PopulationEMA

    a, _ = make_balding_nichols(n_individuals=40, n_populations=3, n_loci=30, fst=0.1, missing_rate=0.1,
                                random_state=1)
    est = PopulationEMA(n_clusters=3, n_init=2, missing="available_case", random_state=1,
                        **{**THESIS_SETTINGS, "init": "pca-kmeans"}).fit(a)
    return _mixture(est)


def latent_em():
    from pgmpy_ext._compat import DiscreteBayesianNetwork
    from pgmpy_ext.parameters import LatentEM

    rng = np.random.default_rng(15)
    h = rng.integers(0, 2, 300)
    df = pd.DataFrame({c: np.where(rng.random(300) < 0.85, h, 1 - h) for c in "ABC"})
    df["D"] = np.where(rng.random(300) < 0.7, df["A"], rng.integers(0, 2, 300))
    out = {}
    for name, kw in (("default", {}), ("alpha_minprob", {"alpha": 1.0, "min_prob": 1e-10, "max_iter": 30})):
        bn = DiscreteBayesianNetwork([("H", "A"), ("H", "B"), ("H", "C"), ("A", "D")], latents={"H"})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = LatentEM(random_state=16, **kw)
            bn.fit(df, estimator=est)
        out[name] = {"ll_trace": _floats(est.ll_trace_), "n_iter": int(est.n_iter_),
                     "converged": bool(est.converged_),
                     "cpds": {c.variable: _floats(c.get_values()) for c in est.parameters_}}
    return out


def cem(model):
    from pgmpy_ext.clustering import CEMClustering

    # alpha=0.0: the default at the branch point (0.5 since the held-out experiment of D12)
    est = CEMClustering(2, model=model, n_init=3, n_stochastic_steps=15, alpha=0.0,
                        random_state=0).fit(_blobs(seed=17))
    return {"labels": _ints(est.labels_), "cml_trace": _floats(est.cml_trace_), "n_iter": int(est.n_iter_),
            "converged": bool(est.converged_), "best_stochastic_iter": int(est.best_stochastic_iter_),
            "start_cmls": _floats(est.start_scores_), "n_edges_trace": _ints(est.n_edges_trace_)}


def cem_reject():
    from pgmpy_ext.clustering import CEMClustering

    est = CEMClustering(3, model="tan", empty_cluster="reject", n_init=2, n_stochastic_steps=10, alpha=0.0,
                        random_state=1).fit(_blobs(seed=18, n=60))
    return {"labels": _ints(est.labels_), "cml_trace": _floats(est.cml_trace_), "n_iter": int(est.n_iter_),
            "converged": bool(est.converged_), "n_empty_events": int(est.n_empty_events_)}


def naive_bayes_map():
    from pgmpy_ext.maps import THESIS_RULE, NaiveBayesMap

    X = np.random.default_rng(19).normal(size=(60, 3))
    # recorded with the thesis's rule, the defaults until issue 27
    est = NaiveBayesMap(grid=(3, 3), n_epochs=4, n_init=3, random_state=0, **THESIS_RULE).fit(X)
    return {"ll_traces": _floats(est.ll_traces_), "labels": _ints(est.labels_), "best_init": int(est.best_init_)}


CASES = {
    "latent_class_em": latent_class_em, "latent_class_em_ml": latent_class_em_ml, "ema": ema,
    "ema_averaging_joints": ema_averaging_joints, "latent_engine_em_both_rules": latent_engine_em_both_rules,
    "ematan": ematan, "ematan_uniform": ematan_uniform, "emtan": emtan, "emtan_short": emtan_short,
    "em_complete_bn": em_complete_bn, "ci_em": ci_em, "ci_bc_em_interleave": ci_bc_em_interleave,
    "ci_em_loglik_converge": ci_em_loglik_converge, "ci_sa": ci_sa, "ci_engine_traces": ci_engine_traces,
    "brute_force": brute_force, "population_ema": population_ema,
    "population_ema_pca_ignore": population_ema_pca_ignore, "latent_em": latent_em,
    "cem_cl": lambda: cem("cl"), "cem_tan": lambda: cem("tan"), "cem_sbn": lambda: cem("sbn"),
    "cem_reject": cem_reject, "naive_bayes_map": naive_bayes_map,
}


if __name__ == "__main__":
    import time

    pins = {}
    for name, case in CASES.items():
        t0 = time.perf_counter()
        pins[name] = case()
        print(f"{name}: {time.perf_counter() - t0:.2f} s")
    PINS.write_text(json.dumps(pins, indent=0, sort_keys=True) + "\n")

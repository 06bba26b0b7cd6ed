"""Shared pieces of the seed 003 reproductions (Pena, Lozano & Larranaga 1999, constructive-induction clustering):
one run of a configuration, population-SD summaries, and the paper's numbers (spec B.11.4-B.11.7)."""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from pgmpy_ext.clustering import ConstructiveInductionClustering
from pgmpy_ext.evaluation import right_final

__all__ = ["METHODS", "Method", "load_line", "one_run", "pm0", "summarize_runs"]


@dataclass(frozen=True)
class Method:
    """A table row: ``label`` as printed in the paper and the estimator options."""

    label: str
    param_search: str
    interleave: bool = False
    tau: float | None = None
    search: str = "forward"
    em_steps: object = 1

    def options(self) -> dict:
        return {"param_search": self.param_search, "interleave": self.interleave, "fixing_threshold": self.tau,
                "search": self.search, "em_steps_per_round": self.em_steps}


METHODS = {
    "EM": Method("EM", "em"),
    "EM_int": Method("EM_int", "em", True),
    "BC+EM^0.51": Method("BC+EM^0.51", "bc+em", False, 0.51),
    "BC+EM_int^0.51": Method("BC+EM_int^0.51", "bc+em", True, 0.51),
    "BC+EM^0.75": Method("BC+EM^0.75", "bc+em", False, 0.75),
    "BC+EM_int^0.75": Method("BC+EM_int^0.75", "bc+em", True, 0.75),
    "BC+EM^0.21": Method("BC+EM^0.21", "bc+em", False, 0.21),
    "BC+EM_int^0.21": Method("BC+EM_int^0.21", "bc+em", True, 0.21),
    "BC+EM^0.21 converge": Method("BC+EM^0.21 converge", "bc+em", False, 0.21, em_steps="converge"),
    "BC+EM^0.51 converge": Method("BC+EM^0.51 converge", "bc+em", False, 0.51, em_steps="converge"),
    "SA EM": Method("EM", "em", search="sa"),
    "SA BC+EM^0.51": Method("BC+EM^0.51", "bc+em", tau=0.51, search="sa"),
    "SA BC+EM^0.21": Method("BC+EM^0.21", "bc+em", tau=0.21, search="sa"),
    "backward EM": Method("EM", "em", search="backward"),
    "backward BC+EM^0.51": Method("BC+EM^0.51", "bc+em", tau=0.51, search="backward"),
}


def one_run(X, K: int, method_key: str, seed: int, true_blocks=None, extra: dict | None = None) -> dict:
    """Fit one configuration once (one run = one random start, ``n_init=1``); wall time measured around ``fit``."""
    opts = METHODS[method_key].options()
    opts.update(extra or {})
    est = ConstructiveInductionClustering(K, random_state=seed, **opts)
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        est.fit(X)
    elapsed = time.perf_counter() - t0
    out = {"method": method_key, "seed": seed, "sc_initial": est.score_initial_, "sc_final": est.score_final_,
           "time": elapsed, "blocks": est.blocks_, "n_nonempty": est.n_nonempty_clusters_,
           "sizes": est.cluster_sizes_.tolist(), "not_converged": any(issubclass(w.category, ConvergenceWarning)
                                                                      for w in caught),
           "n_param_iter": est.n_iter_}
    if true_blocks is not None:
        right, final, ratio = right_final(est.blocks_, true_blocks)
        out.update(right=right, final=final, ratio=ratio)
    return out


def pm0(values, decimals: int = 0) -> str:
    """'mean ± S_n' with the population SD (ddof 0), as the paper reports."""
    a = np.asarray(values, dtype=np.float64)
    if a.size == 0:
        return "–"
    return f"{a.mean():,.{decimals}f} ± {a.std(ddof=0):,.{decimals}f}".replace(",", " ")


def summarize_runs(runs: list) -> dict:
    """Means and SDs of a configuration's runs."""
    def col(k):
        return np.array([r[k] for r in runs], dtype=np.float64)

    out = {"n": len(runs), "sc_initial": col("sc_initial").mean(), "sc_final": col("sc_final"),
           "time": col("time"), "n_nonempty": col("n_nonempty"),
           "not_converged": int(sum(r["not_converged"] for r in runs))}
    if runs and "right" in runs[0]:
        out.update(right=col("right"), final=col("final"), ratio=col("ratio"))
    return out


def load_line(load) -> str:
    """The report line of the machine load at the start and the end of a run (``load``: two getloadavg() tuples)."""
    if not load:
        return ""
    (a, b, c), (d, e, f) = load
    return (f"Machine load average (1/5/15 min) at the start {a:.1f}/{b:.1f}/{c:.1f}, at the end {d:.1f}/{e:.1f}/"
            f"{f:.1f} (2 cores shared with other jobs): absolute times are inflated; ratios between methods are "
            "what the comparison uses.")

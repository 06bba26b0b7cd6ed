"""Issue 28, the K = 2 miss: which structure prior (fixed, empirical-Bayes, or a refinement after EMA) on the tuning
seeds, and why EMA alone loses there (docs/decisions/issue28-population-structure.md, "The K = 2 example").

Tuning seeds only (100..119; the evaluation seeds 0-9 are ``popgen_structure.py``'s): the issue's example
(Balding-Nichols, K = 2, 100 unlinked SNPs, F 0.02) and the hard linked levels (msprime island F 0.01 and 0.02,
stepping stone F 0.01; 4 x 75 individuals, 10,000 SNPs, pruned by the default ``ld_r2=0.2``). Candidates:

* ``EMA``: ``refine=None`` (the default before this experiment: EMA's averaging with ``structure_prior=0.5``);
* ``EM``: ``structure_prior=1`` (every arc, EM's M step);
* ``EMA, empirical-Bayes prior``: the arc prior re-estimated at every M step as the Beta(1, 1) posterior mean
  of the arcs' inclusion given their Bayes factors (``pgmpy_ext.clustering.empirical_inclusion_prior``, the
  feature-saliency idea; ``structure_prior="auto"`` of ``EMAClustering``);
* ``F-model M step``: every arc, frequencies at their F-model posterior means, drifts by moments at every step
  (``pgmpy_ext.popgen._engine.fmodel_m_step``) from the start;
* ``spike and F-model slab``: EMA's averaging with the F-model as the arc-present model (drift and arc prior both
  estimated, five alternations per M step);
* ``EMA, then EM`` / ``EMA, then F-model``: ``refine="em"`` / ``refine="fmodel"``.

The experimental M steps are plugged into ``PopulationSteps`` for the duration of one fit. The mechanism section
counts, on the K = 2 seeds, the individuals EMA's iterations (plug-in labels) lose and gain against its SVD start,
and correlates EMA's arc posteriors with the per-SNP allelic chi-square of the true and of the fitted partition.

    python benchmarks/popgen_refine_tuning.py [--out benchmarks/results/popgen_refine_tuning.md]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _common import emit_report  # noqa: E402
from popgen_structure import dataset, matched, pca_kmeans  # noqa: E402

SEEDS = range(100, 120)
FAMILIES = [("bn-k2-100", 0.02), ("island", 0.01), ("island", 0.02), ("stepping", 0.01)]


def _eb_step(self, res, params=None):
    from pgmpy_ext.clustering import ma_step

    return ma_step(self.lay, res.counts, res.cluster_counts, self.alpha, "auto")


def _fmodel_step(self, res, params=None):
    from pgmpy_ext.popgen._engine import fmodel_m_step

    return fmodel_m_step(self.lay, res.counts, res.cluster_counts, self.alpha)


def _spike_fmodel_slab_step(self, res, params=None, n_rounds=5):
    """EMA's averaging between 'no arc' (the pooled frequencies) and 'arc' under the F-model prior around them;
    each cluster's slab drift by moments weighted by the arc posteriors, the arc prior by empirical Bayes."""
    from scipy.special import expit, gammaln, logit

    from pgmpy_ext.clustering import empirical_inclusion_prior

    lay, N, nc = self.lay, res.counts, res.cluster_counts
    sv, K = lay.state_var, N.shape[1]
    tot = lay.sum_by_variable(N)
    pooled = N.sum(1)
    pbar = pooled / np.maximum(lay.sum_by_variable(pooled[:, None])[sv, 0], 1e-300)
    het = 1.0 - lay.sum_by_variable(pbar[:, None] ** 2)[:, 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(tot[sv] > 0, N / tot[sv], 0.0)
    ok = (het > 1e-12) & (tot.min(1) > 0)
    dev = np.zeros((lay.n_vars, K))
    dev[ok] = lay.sum_by_variable((p - pbar[:, None]) ** 2)[ok] / het[ok][:, None]
    share = nc / nc.sum()
    A = np.diag(1.0 - 2.0 * share) + np.outer(np.ones(K), share ** 2)
    copies = tot[ok].mean(0)
    lpb = np.log(np.maximum(pbar, 1e-300))
    w = np.ones(lay.n_vars)
    for _ in range(n_rounds):
        ww = w * ok
        v = (ww[:, None] * dev).sum(0) / max(ww.sum(), 1e-300)
        F = np.clip(np.linalg.lstsq(A, v, rcond=1e-3)[0] - 1.0 / copies, 1e-6, 0.99)
        lam = (1 - F) / F
        a = pbar[:, None] * lam[None, :]
        log_bf = ((gammaln(lam)[None, :] - gammaln(lam[None, :] + tot))
                  + lay.sum_by_variable(gammaln(a + N) - gammaln(a)) - lay.sum_by_variable(N * lpb[:, None])).sum(1)
        w = expit(logit(empirical_inclusion_prior(log_bf)) + log_bf)
    theta = w[sv][:, None] * (N + a) / (tot[sv] + lam[None, :]) + (1 - w[sv])[:, None] * pbar[:, None]
    return theta, (nc + self.alpha) / (nc.sum() + K * self.alpha), w


@contextlib.contextmanager
def m_step(fn):
    from pgmpy_ext.popgen._engine import PopulationSteps

    if fn is None:
        yield
        return
    orig = PopulationSteps.m_step
    PopulationSteps.m_step = fn
    try:
        yield
    finally:
        PopulationSteps.m_step = orig


CANDIDATES = {  # name -> (PopulationEMA options, experimental M step or None)
    "EMA (refine=None)": ({"refine": None}, None),
    "EM (structure_prior=1)": ({"refine": None, "structure_prior": 1.0}, None),
    "EMA, empirical-Bayes arc prior": ({"refine": None}, _eb_step),
    "F-model M step throughout": ({"refine": None}, _fmodel_step),
    "spike and F-model slab (both estimated)": ({"refine": None}, _spike_fmodel_slab_step),
    "EMA, then EM (refine='em')": ({"refine": "em"}, None),
    "EMA, then F-model (refine='fmodel')": ({"refine": "fmodel"}, None),
}


def _chi2(G, lab):
    """Per-SNP allelic chi-square (2 x 2 table of allele copies by label)."""
    G = G.astype(float)
    n = np.array([2.0 * (lab == k).sum() for k in (0, 1)])
    a = np.array([G[lab == k].sum(axis=0) for k in (0, 1)])
    p = a.sum(0) / n.sum()
    return sum((a[k] - n[k] * p) ** 2 / (n[k] * p * (1 - p)) for k in (0, 1))


def mechanism(log) -> list[str]:
    from pgmpy_ext.popgen import PopulationEMA

    lost = gained = 0
    cors, accs = [], []
    for seed in SEEDS:
        G, pop, _ = dataset("bn-k2-100", 0.02, seed)
        names = sorted(set(pop))
        lab = np.array([names.index(p) for p in pop])

        def aligned(x):
            return x if (x == lab).mean() >= 0.5 else 1 - x

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            start = aligned(PopulationEMA(2, random_state=seed, max_iter=1, refine=None,
                                          memberships="plug-in").fit(G).labels_)
            ema = PopulationEMA(2, random_state=seed, refine=None, memberships="plug-in").fit(G)
            em = PopulationEMA(2, random_state=seed, refine=None, structure_prior=1.0, memberships="plug-in").fit(G)
        e5, e1 = aligned(ema.labels_), aligned(em.labels_)
        lost += int(((start == lab) & (e5 != lab)).sum())
        gained += int(((start != lab) & (e5 == lab)).sum())
        w = ema.arc_posterior_
        cors.append((np.corrcoef(w, _chi2(G, lab))[0, 1], np.corrcoef(w, _chi2(G, e5))[0, 1], w.mean(),
                     _chi2(G, lab).mean()))
        accs.append(((start == lab).mean(), (e5 == lab).mean(), (e1 == lab).mean()))
        log(f"mechanism seed {seed}: start {accs[-1][0]:.3f} EMA {accs[-1][1]:.3f} EM {accs[-1][2]:.3f}")
    c, a = np.mean(cors, axis=0), np.mean(accs, axis=0)
    return [f"Plug-in labels (memberships='plug-in'), seeds {SEEDS.start}-{SEEDS.stop - 1}: the SVD start (one "
            f"iteration) {a[0]:.4f}, EMA's fixed point {a[1]:.4f}, EM's {a[2]:.4f}. EMA's iterations lost {lost} "
            f"individuals the start had right and gained {gained}. Mean arc posterior {c[2]:.2f} although every SNP "
            f"is differentiated (mean allelic chi-square of the true populations {c[3]:.1f}, 1 under no "
            f"differentiation); correlation of the arc posteriors with the chi-square of the true populations "
            f"{c[0]:.2f}, with that of EMA's own partition {c[1]:.2f}."]


def main():
    from threadpoolctl import threadpool_limits

    from pgmpy_ext.popgen import PopulationEMA

    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    threadpool_limits(1)
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None)
    ap.add_argument("--cache", default=None, help="simulation cache folder (default: benchmarks/.cache/popgen)")
    args = ap.parse_args()
    if args.cache:
        import popgen_structure

        popgen_structure.CACHE = Path(args.cache)
    lines = ["# benchmarks/popgen_refine_tuning.py", "",
             f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, tuning seeds {SEEDS.start}-{SEEDS.stop - 1} "
             f"of every family, one thread. Load average before: {os.getloadavg()}.", ""]
    acc = {}  # (family, method) -> {seed: accuracy}
    maxq = {}
    cpu = {}
    for kind, level in FAMILIES:
        for seed in SEEDS:
            G, pop, _ = dataset(kind, level, seed)
            names = sorted(set(pop))
            lab = np.array([names.index(p) for p in pop])
            K = len(names)
            acc.setdefault((kind, level, "PCA + k-means"), {})[seed] = matched(lab, pca_kmeans(G, K, seed))[0]
            for name, (opts, step) in CANDIDATES.items():
                c0 = time.process_time()
                with m_step(step), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    est = PopulationEMA(n_clusters=K, random_state=seed, **opts).fit(G)
                acc.setdefault((kind, level, name), {})[seed] = matched(lab, est.q_)[0]
                maxq.setdefault((kind, level, name), {})[seed] = float(est.q_.max(axis=1).mean())
                cpu.setdefault((kind, level, name), {})[seed] = time.process_time() - c0
            print(f"{kind} {level} seed {seed}: " + ", ".join(
                f"{m} {acc[(kind, level, m)][seed]:.3f}" for m in ["PCA + k-means", *CANDIDATES]), flush=True)
    methods = ["PCA + k-means", *CANDIDATES]
    lines += ["## Accuracy (mean over the seeds; mean max q in brackets)", "",
              "| method | " + " | ".join(f"{k} {lv}" for k, lv in FAMILIES) + " | mean | CPU s (linked) |",
              "|---|" + "---|" * (len(FAMILIES) + 2)]
    for m in methods:
        cells = []
        for kind, level in FAMILIES:
            a = np.mean(list(acc[(kind, level, m)].values()))
            q = maxq.get((kind, level, m))
            cells.append(f"{a:.4f}" + (f" ({np.mean(list(q.values())):.3f})" if q else ""))
        mean = np.mean([np.mean(list(acc[(k, lv, m)].values())) for k, lv in FAMILIES])
        t = (np.mean([np.mean(list(cpu[(k, lv, m)].values())) for k, lv in FAMILIES[1:]]) if m in CANDIDATES
             else float("nan"))
        lines.append(f"| {m} | " + " | ".join(cells) + f" | {mean:.4f} | {t:.2f} |")
    lines += ["", "## Paired differences against EMA (refine=None) and PCA + k-means, mean +- standard error "
              "(better / equal / worse)", "", "| method | baseline | " + " | ".join(f"{k} {lv}" for k, lv in FAMILIES)
              + " |", "|---|---|" + "---|" * len(FAMILIES)]
    for m in methods[1:]:
        for base in ("EMA (refine=None)", "PCA + k-means"):
            if m == base:
                continue
            cells = []
            for kind, level in FAMILIES:
                x, y = acc[(kind, level, m)], acc[(kind, level, base)]
                d = np.array([x[s] - y[s] for s in SEEDS])
                cells.append(f"{d.mean():+.4f} +- {d.std(ddof=1) / np.sqrt(len(d)):.4f} "
                             f"({(d > 0).sum()}/{(d == 0).sum()}/{(d < 0).sum()})")
            lines.append(f"| {m} | {base} | " + " | ".join(cells) + " |")
    lines += ["", "## Mechanism on the K = 2 example", ""] + mechanism(print)
    lines += ["", f"Load average after: {os.getloadavg()}.", ""]
    emit_report(lines, args.out)


if __name__ == "__main__":
    main()

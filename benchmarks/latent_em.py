"""Latent-class EM and EMA iterations on alarm-100k and alarm-1M (issue 12).

Data: rows sampled from pgmpy's bundled alarm network (seed 42), all 37 variables, the cluster hidden. One iteration
= E step (posteriors, expected counts, log-likelihood) + M step (EM) or closed-form MA step (EMA), K = 3 and 10.

Compared, in one run on one thread:
* pgmpy-ext: the Cython E step on distinct rows with multiplicities (``pgmpy_ext.stats.latent_class_estep``) and
  the numpy M / MA step (``pgmpy_ext.clustering.em_m_step`` / ``ma_step``);
* a careful numpy EM (the same E and M steps: per-column gathers of log-parameters, log-sum-exp, ``np.bincount``
  scatters), on the full rows and on the distinct rows with counts; checked equal to ours;
* StepMix (``StepMix(measurement="categorical")``, optional: ``pip install stepmix``), per iteration from the
  difference of two fits (``max_iter`` 11 and 1), on the full rows (it has no weights for distinct rows);
* pgmpy ``DiscreteEM`` (one iteration on a subsample, extrapolated per distinct row: minutes on the full data).

Goals (issue 12): 100k/K=3 <= 15 ms, 1M/K=10 <= 300 ms, >= 2.5x numpy on distinct rows, >= 10x StepMix,
>= 1000x pgmpy, EMA within 1.3x of EM; from the same start, our EM and StepMix reach the same log-likelihood.

Run: ``.venv/bin/python benchmarks/latent_em.py [--sizes 100000,1000000] [--repeat 5]`` (results in
``benchmarks/results/latent_em.md``; the 1M sample is drawn once and cached in ``benchmarks/.cache``).
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
from _common import alarm_100k, best_time, fmt_ratio, load_average, machine, peak_traced_mb


# ---------------------------------------------------------------------------------------------- careful numpy EM
class NumpyEM:
    """The latent-class E and M steps in vectorised numpy (the reference the kernel is checked against)."""

    def __init__(self, codes, cards, weights, K):
        self.X, self.cards, self.w, self.K = codes, np.asarray(cards), weights, K
        self.off = np.concatenate([[0], np.cumsum(self.cards)])

    def iteration(self, theta, prior, alpha=1.0):
        X, K, off = self.X, self.K, self.off
        log_t = np.log(theta)
        L = np.broadcast_to(np.log(prior), (X.shape[0], K)).copy()
        for c in range(X.shape[1]):
            L += log_t[off[c] + X[:, c]]
        mx = L.max(axis=1, keepdims=True)
        lse = mx[:, 0] + np.log(np.exp(L - mx).sum(axis=1))
        q = np.exp(L - lse[:, None]) * self.w[:, None]
        counts = np.empty_like(theta)
        for c in range(X.shape[1]):
            r = self.cards[c]
            for j in range(K):
                counts[off[c]:off[c + 1], j] = np.bincount(X[:, c], weights=q[:, j], minlength=r)
        nc = q.sum(axis=0)
        new = np.empty_like(theta)
        for c in range(X.shape[1]):
            blk = counts[off[c]:off[c + 1]] + alpha
            new[off[c]:off[c + 1]] = blk / blk.sum(axis=0)
        return new, (nc + alpha) / (nc.sum() + K * alpha), float(self.w @ lse)


def ours_iteration(data, lay, theta, prior, method, alpha=1.0):
    from pgmpy_ext.clustering import em_m_step, ma_step
    from pgmpy_ext.stats import latent_class_estep

    res = latent_class_estep(lay, data.codes, data.weights, np.log(theta), np.log(prior), theta=theta, check=False)
    if method == "em":
        t, w = em_m_step(lay, res.counts, res.cluster_counts, alpha)
    else:
        t, w, _ = ma_step(lay, res.counts, res.cluster_counts, alpha)
    return t, w, res.loglik


# ---------------------------------------------------------------------------------------------- StepMix
def stepmix_per_iteration(codes, K, repeat=2):
    """Seconds per EM iteration of StepMix on the full rows: (fit(max_iter=11) - fit(max_iter=1)) / 10."""
    from stepmix.stepmix import StepMix

    def fit(it):
        m = StepMix(n_components=K, measurement="categorical", max_iter=it, n_init=1, random_state=0, verbose=0,
                    progress_bar=0, abs_tol=0.0, rel_tol=0.0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t0 = time.perf_counter()
            m.fit(codes)
            return time.perf_counter() - t0, m

    t1 = min(fit(1)[0] for _ in range(repeat))
    t11 = min(fit(11)[0] for _ in range(repeat))
    return max(t11 - t1, 0.0) / 10


def stepmix_vs_ours_same_start(codes, cards, K, data):
    """StepMix to convergence from its own start; ours from StepMix's first-iteration posteriors to convergence.
    Returns (StepMix LL, our LL) in nats (total), both maximum likelihood."""
    from stepmix.stepmix import StepMix

    from pgmpy_ext.clustering import latent_class_single_start

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m1 = StepMix(n_components=K, measurement="categorical", max_iter=1, n_init=1, random_state=0, verbose=0,
                     progress_bar=0).fit(codes)
        start = m1.predict_proba(codes)
        m = StepMix(n_components=K, measurement="categorical", max_iter=2000, n_init=1, random_state=0, verbose=0,
                    progress_bar=0, abs_tol=1e-10, rel_tol=1e-12).fit(codes)
        ll_stepmix = float(m.score(codes) * codes.shape[0])
    s = latent_class_single_start(data, K, np.random.default_rng(0), method="em", alpha=0.0, init=start,
                                  tol=1e-12, max_iter=2000)
    return ll_stepmix, s.loglik


# ---------------------------------------------------------------------------------------------- pgmpy
def pgmpy_seconds_per_distinct_row(df, K, n_rows=1000):
    import pgmpy_ext._compat  # noqa: F401, I001  (first: filters pgmpy's import-time FutureWarning)
    from pgmpy.models import DiscreteBayesianNetwork
    from pgmpy.parameter_estimator import DiscreteEM

    sub = df.iloc[:n_rows].copy()
    for c in sub.columns:
        sub[c] = sub[c].cat.remove_unused_categories()
    nb = DiscreteBayesianNetwork([("H", c) for c in sub.columns], latents={"H"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        DiscreteEM(latent_card={"H": K}, max_iter=1, seed=0, show_progress=False).fit(nb, sub)
        t = time.perf_counter() - t0
    return t / sub.drop_duplicates().shape[0]


# ---------------------------------------------------------------------------------------------- main
def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-stepmix", action="store_true")
    ap.add_argument("--no-pgmpy", action="store_true")
    args = ap.parse_args(argv)

    from pgmpy_ext.clustering import latent_class_data
    from pgmpy_ext.data import encode

    try:
        import stepmix  # noqa: F401

        have_stepmix = not args.no_stepmix
    except ImportError:
        have_stepmix = False
        print("StepMix is not installed (pip install stepmix): its columns are skipped.")

    out = ["# Latent-class EM / EMA iteration benchmark (issue 12)", "",
           f"machine: {machine()}; load before: {load_average()}; one thread (OMP_NUM_THREADS="
           f"{os.environ.get('OMP_NUM_THREADS', 'unset')})", ""]
    header = ("| data | K | distinct rows | ours EM | ours EMA | EMA/EM | numpy full | numpy distinct | "
              "vs numpy distinct | StepMix | vs StepMix | pgmpy (extrapolated) | vs pgmpy | peak MiB (ours) |")
    rows = [header, "|" + "---|" * 14]
    checks = []
    for n in [int(s) for s in args.sizes.split(",")]:
        t0 = time.perf_counter()
        df = alarm_100k(n)
        enc = encode(df)
        data = latent_class_data(enc.codes, enc.cards)
        load_s = time.perf_counter() - t0
        t_pg_row = pgmpy_seconds_per_distinct_row(df, 3) if not args.no_pgmpy else None
        for K in (3, 10):
            lay = data.layout(K)
            rng = np.random.default_rng(0)
            theta = np.vstack([rng.dirichlet(np.ones(r), size=K).T for r in enc.cards])  # Dirichlet(1) start
            prior = rng.dirichlet(np.ones(K))
            t_em, (t_ours, w_ours, ll_ours) = best_time(lambda: ours_iteration(data, lay, theta, prior, "em"),
                                                        args.repeat)
            t_ema, _ = best_time(lambda: ours_iteration(data, lay, theta, prior, "ema"), args.repeat)
            npd = NumpyEM(data.codes, enc.cards, data.weights, K)
            t_npd, (t_np, w_np, ll_np) = best_time(lambda: npd.iteration(theta, prior), max(2, args.repeat // 2))
            npf = NumpyEM(enc.codes, enc.cards, np.ones(enc.n_rows), K)
            t_npf, (t_np2, _, ll_np2) = best_time(lambda: npf.iteration(theta, prior), 2)
            same = (np.allclose(t_ours, t_np, rtol=1e-9, atol=1e-14) and np.allclose(w_ours, w_np, rtol=1e-9)
                    and np.isclose(ll_ours, ll_np, rtol=1e-10) and np.allclose(t_np, t_np2, rtol=1e-9)
                    and np.isclose(ll_np, ll_np2, rtol=1e-10))
            checks.append(f"n={n:,} K={K}: ours == numpy (distinct) == numpy (full rows) after one iteration: {same}")
            peak = peak_traced_mb(lambda: ours_iteration(data, lay, theta, prior, "em"))
            t_sm = stepmix_per_iteration(enc.codes, K) if have_stepmix and n <= 1_000_000 else None
            t_pg = t_pg_row * len(data.weights) * (K / 3) if t_pg_row is not None else None
            rows.append(
                f"| alarm-{n // 1000}k | {K} | {len(data.weights):,} | {t_em * 1e3:.1f} ms | {t_ema * 1e3:.1f} ms | "
                f"{t_ema / t_em:.2f} | {t_npf * 1e3:.0f} ms | {t_npd * 1e3:.1f} ms | {fmt_ratio(t_npd, t_em)} | "
                + (f"{t_sm * 1e3:.0f} ms | {fmt_ratio(t_sm, t_em)} | " if t_sm is not None else "n/a | n/a | ")
                + (f"{t_pg:.0f} s | {fmt_ratio(t_pg, t_em)} | " if t_pg is not None else "n/a | n/a | ")
                + f"{peak:.2f} |")
            print(rows[-1], flush=True)
        out.append(f"alarm-{n // 1000}k: {n:,} rows x {enc.n_cols} variables, {len(data.weights):,} distinct rows "
                   f"(sampled/loaded and compressed in {load_s:.1f} s)")
    out += ["", *rows, "", "pgmpy DiscreteEM: one iteration timed on the first 1,000 rows (K = 3), per distinct "
            "row, times the distinct rows (and K/3 for K = 10: its E step loops over latent states); it takes "
            "minutes to hours on the full data, so it is extrapolated, not run.", "",
            "StepMix: per-iteration time = (fit with max_iter=11 - fit with max_iter=1) / 10 on the full rows.", "",
            "Checks:", *[f"- {c}" for c in checks]]
    if have_stepmix:
        df = alarm_100k(100_000)
        enc = encode(df)
        data = latent_class_data(enc.codes, enc.cards)
        ll_sm, ll_us = stepmix_vs_ours_same_start(enc.codes, enc.cards, 3, data)
        out.append(f"- same start (StepMix's first-iteration posteriors), alarm-100k K=3, both ML to convergence: "
                   f"StepMix LL {ll_sm:,.3f}, ours {ll_us:,.3f} (difference {ll_us - ll_sm:+.3f} nats)")
    out += ["", f"load after: {load_average()}"]
    text = "\n".join(out) + "\n"
    print(text)
    res = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "latent_em.md")
    with open(res, "w") as fh:
        fh.write(text)


if __name__ == "__main__":
    main()

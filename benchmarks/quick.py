"""Quick ratio check (issue 25): pgmpy-ext against careful plain numpy in one run, with the machine load; exits with
status 1 when a ratio misses its goal (2 when the machine was too busy to judge). About 20-30 s.

Jobs (one thread unless a row says otherwise; best of ``--repeat`` runs, ours and numpy's taken in turn):

* alarm-100k (100,000 rows sampled offline from pgmpy's bundled alarm network, seed 42, category dtype; class BP,
  36 features), against the careful numpy TAN and NB of ``benchmarks/classifiers.py`` (class-major log-CPT tables,
  one ``take`` per class and feature; one ``bincount`` per pair for the TAN counts):
  TAN predict_proba (goal >= 2x), NB fit + predict_proba (goal >= 2x), TAN fit + predict_proba (goal >= 3x).
* alarm, 1M rows (vectorised forward sampling of the same network, seed 42): n_jobs=2 against n_jobs=1 for TAN
  predict_proba, the naive-Bayes family counts and the TAN pair tables (goal >= 1.6x each), and TAN
  predict_proba on the 100k rows (goal: not slower, >= 0.95x). The 1M-row pairs take the best of ``max(4,
  --repeat)`` rounds. After every pair a reference runs in the same rounds: numpy matrix products in two Python
  threads against one (``TwoCoreControl``, best of the same rounds). On this kind of VM the second core is at times
  shared with the host's other work, and then every two-thread ratio drops, a plain numpy one included; a reference
  under 1.6x marks the run as not judgeable (exit status 2), like a high load average. The reference is coarse: it
  catches a machine that withholds the second core for most of the run, not a burst that hits one row's rounds
  (``benchmarks/results/quick.md``, last section).
* wide: ``Pipeline(EqualFrequencyDiscretizer(), NaiveBayesClassifier())`` fit + predict_proba on a synthetic
  77 x 7,070 integer matrix shaped like the DLBCL-vs-FL microarray (``benchmarks/_common.microarray_like``; the real
  set is not in ``../shared``) (goal <= 100 ms), beside a vectorised numpy equal-frequency + naive Bayes.

Timings are wall-clock (``time.perf_counter``); ratios are taken within one run. With a load average above 1.5 the
numbers are reported as noisy and the exit status is 2 unless every goal is met anyway.

Usage: python benchmarks/quick.py [--repeat 5] [--no-threads] [--no-wide]
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _common import CACHE, alarm_100k, load_average, machine, microarray_like

CLASS = "BP"
NOISY_LOAD = 1.5


def best_pair(fa, fb, repeat: int, after=None) -> tuple[float, float]:
    """Best-of-``repeat`` seconds of ``fa`` and ``fb``, run in turn (so both see the same machine); ``after`` (if
    given) runs after every pair, the warm-up included, untimed here (a reference that keeps its own best)."""
    ta = tb = float("inf")
    fa(), fb()  # warm-up: imports, caches, page faults
    if after is not None:
        after()
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        fa()
        ta = min(ta, time.perf_counter() - t0)
        gc.collect()
        t0 = time.perf_counter()
        fb()
        tb = min(tb, time.perf_counter() - t0)
        if after is not None:
            after()
    return ta, tb


class TwoCoreControl:
    """What the machine gives two threads on compute-bound work: numpy matrix products (BLAS limited to one thread,
    which releases the GIL) in two Python threads against the same products in one. On a VM the second core is
    sometimes shared with the host's other work; then every two-thread ratio falls, ours included, and this
    reference says so. Timed in the same rounds as the ratio it qualifies."""

    def __init__(self, size: int = 192, products: int = 16):
        from concurrent.futures import ThreadPoolExecutor

        rng = np.random.default_rng(0)
        self.A = [rng.standard_normal((size, size)) for _ in range(2)]
        self.k = products
        self.pool = ThreadPoolExecutor(2)
        self.best1 = self.best2 = float("inf")

    def _work(self, i: int, k: int) -> float:
        a = self.A[i]
        b = a
        for _ in range(k):
            b = a @ a
        return float(b[0, 0])

    def one(self) -> None:
        self._work(0, 2 * self.k)

    def two(self) -> None:
        futures = [self.pool.submit(self._work, i, self.k) for i in range(2)]
        for f in futures:
            f.result()

    def time_round(self) -> None:
        for fn, attr in ((self.one, "best1"), (self.two, "best2")):
            t0 = time.perf_counter()
            fn()
            setattr(self, attr, min(getattr(self, attr), time.perf_counter() - t0))

    @property
    def ratio(self) -> float:
        return self.best1 / self.best2


def alarm_rows(n: int, seed: int = 42) -> pd.DataFrame:
    """alarm sampled by the vectorised forward sampler of benchmarks/scaleout.py (cached on disk)."""
    CACHE.mkdir(exist_ok=True)
    path = CACHE / f"alarm_fwd_{n}_{seed}.pkl"
    if path.exists():
        return pd.read_pickle(path)
    from narrow_codes import alarm_frame

    df = alarm_frame(n, seed)[0]
    df.to_pickle(path)
    return df


# ---------------------------------------------------------------------------------------------- numpy, wide
def numpy_wide_nb(X: np.ndarray, y: np.ndarray, Xt: np.ndarray, n_bins: int = 5, alpha: float = 1.0) -> np.ndarray:
    """Careful numpy: equal-frequency cut points of every column at once (``np.percentile`` along axis 0), bins of
    every cell by one broadcast comparison, naive-Bayes counts by one ``bincount``, class-major log tables and one
    ``take`` per class; returns P(class | row) of ``Xt``."""
    classes, yc = np.unique(y, return_inverse=True)
    K, m = classes.size, X.shape[1]
    edges = np.percentile(X, np.linspace(0, 100, n_bins + 1), axis=0, method="averaged_inverted_cdf")
    cuts = edges[1:-1]  # (n_bins - 1, m)

    def bins(A):
        return (A[:, None, :] >= cuts[None, :, :]).sum(axis=1)  # (n, m), 0 .. n_bins - 1

    B = bins(X)
    idx = (np.arange(m)[None, :] * n_bins + B) * K + yc[:, None]
    N = np.bincount(idx.ravel(), minlength=m * n_bins * K).reshape(m, n_bins, K) + alpha
    log_cpt = np.log(N / N.sum(axis=1, keepdims=True)).transpose(2, 0, 1).reshape(K, m * n_bins)  # class-major
    prior = np.bincount(yc, minlength=K) + alpha
    lj = np.log(prior / prior.sum())[:, None] + np.zeros((K, Xt.shape[0]))
    flat = (np.arange(m)[None, :] * n_bins + bins(Xt)).T  # (m, n)
    for k in range(K):
        lj[k] += log_cpt[k].take(flat).sum(axis=0)
    lj -= lj.max(axis=0)
    np.exp(lj, out=lj)
    lj /= lj.sum(axis=0)
    return lj.T


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-threads", action="store_true", help="skip the 1M-row n_jobs comparison")
    ap.add_argument("--no-wide", action="store_true", help="skip the 77 x 7,070 pipeline")
    args = ap.parse_args(argv)
    t_start = time.perf_counter()
    load0 = os.getloadavg()[0]

    import threadpoolctl
    from classifiers import NumpyNB, NumpyTAN

    import pgmpy_ext._compat  # noqa: F401  (filters pgmpy's import-time FutureWarning)
    from pgmpy_ext.classifiers import NaiveBayesClassifier, TANClassifier
    from pgmpy_ext.data import encode
    from pgmpy_ext.preprocessing import EqualFrequencyDiscretizer
    from pgmpy_ext.stats import family_counts_many, pairwise_counts

    threadpoolctl.threadpool_limits(limits=1, user_api="blas")
    R = args.repeat
    df = alarm_100k()
    X, y = df.drop(columns=CLASS), df[CLASS]
    rows = []  # (job, ours s, baseline s, ratio, goal text, met)

    def record(job, ours, base, ratio, goal, met, base_name="numpy"):
        rows.append((job, ours, base, base_name, ratio, goal, met))

    # ------------------------------------------------------------------ alarm-100k against numpy
    tan = TANClassifier().fit(X, y)
    ntan = NumpyTAN().fit(X, y)
    assert np.allclose(tan.predict_proba(X), ntan.predict_proba(X), rtol=1e-9, atol=1e-12)
    to, tn = best_pair(lambda: tan.predict_proba(X), lambda: ntan.predict_proba(X), R)
    record("TAN predict_proba, 100k rows", to, tn, tn / to, ">= 2x", tn / to >= 2)
    to, tn = best_pair(lambda: NaiveBayesClassifier().fit(X, y).predict_proba(X),
                       lambda: NumpyNB().fit(X, y).predict_proba(X), R)
    record("NB fit + predict_proba, 100k rows", to, tn, tn / to, ">= 2x", tn / to >= 2)
    to, tn = best_pair(lambda: TANClassifier().fit(X, y).predict_proba(X),
                       lambda: NumpyTAN().fit(X, y).predict_proba(X), max(2, R // 2))
    record("TAN fit + predict_proba, 100k rows", to, tn, tn / to, ">= 3x", tn / to >= 3, "numpy bincount")

    # ------------------------------------------------------------------ threads
    if not args.no_threads:
        control = TwoCoreControl()
        tan2 = TANClassifier(n_jobs=2).fit(X, y)
        t1, t2 = best_pair(lambda: tan.predict_proba(X), lambda: tan2.predict_proba(X), R, after=control.time_round)
        record("TAN predict_proba, 100k rows, n_jobs=2 vs 1", t2, t1, t1 / t2, ">= 0.95x (never slower)",
               t1 / t2 >= 0.95, "n_jobs=1")
        big = alarm_rows(1_000_000)
        Xb, yb = big.drop(columns=CLASS), big[CLASS]
        tan_b1 = TANClassifier(n_jobs=1).fit(Xb, yb)  # fitted on the frame it predicts: category codes read as they are
        tan_b2 = TANClassifier(n_jobs=2).fit(Xb, yb)
        assert np.array_equal(tan_b1.predict_proba(Xb), tan_b2.predict_proba(Xb))
        t1, t2 = best_pair(lambda: tan_b1.predict_proba(Xb), lambda: tan_b2.predict_proba(Xb), max(4, R),
                           after=control.time_round)
        record("TAN predict_proba, 1M rows, n_jobs=2 vs 1", t2, t1, t1 / t2, ">= 1.6x", t1 / t2 >= 1.6, "n_jobs=1")
        data = encode(big, codes_dtype="auto")
        fams = [(CLASS, [])] + [(c, [CLASS]) for c in X.columns]
        try:
            family_counts_many(data, fams, n_jobs=2)
            t1, t2 = best_pair(lambda: family_counts_many(data, fams, n_jobs=1),
                               lambda: family_counts_many(data, fams, n_jobs=2), max(4, R), after=control.time_round)
            record("NB family counts, 1M rows, n_jobs=2 vs 1", t2, t1, t1 / t2, ">= 1.6x", t1 / t2 >= 1.6, "n_jobs=1")
        except TypeError:  # a version of family_counts_many without threads
            record("NB family counts, 1M rows, n_jobs=2 vs 1", float("nan"), float("nan"), float("nan"),
                   ">= 1.6x", False, "n_jobs=1 (no n_jobs)")
        feats = list(X.columns)
        t1, t2 = best_pair(lambda: pairwise_counts(data, feats, cond=CLASS, n_jobs=1),
                           lambda: pairwise_counts(data, feats, cond=CLASS, n_jobs=2), max(4, R),
                           after=control.time_round)
        record("TAN pair tables, 1M rows, n_jobs=2 vs 1", t2, t1, t1 / t2, ">= 1.6x", t1 / t2 >= 1.6, "n_jobs=1")
        record("machine: numpy matrix products, 2 threads vs 1 (reference, same rounds)", control.best2,
               control.best1, control.ratio, ">= 1.6x (else the machine shares a core)", control.ratio >= 1.6,
               "1 thread")
        del big, Xb, yb, data

    # ------------------------------------------------------------------ wide
    if not args.no_wide:
        from sklearn.pipeline import Pipeline

        Xw, yw = microarray_like()
        Xa, ya = Xw.to_numpy(dtype=np.float64), yw.to_numpy()

        def ours():
            return Pipeline([("disc", EqualFrequencyDiscretizer()), ("nb", NaiveBayesClassifier())]).fit(
                Xw, yw).predict_proba(Xw)

        tw, tnp = best_pair(ours, lambda: numpy_wide_nb(Xa, ya, Xa), max(2, R // 2))
        record("NB pipeline (equal-frequency + NB) fit + predict, 77 x 7,070 ints", tw, tnp, tnp / tw,
               "<= 100 ms", tw <= 0.100, "numpy equal-freq + NB")

    load1 = os.getloadavg()[0]
    shared_core = any(job.startswith("machine:") and not met for job, *_, met in rows)
    noisy = max(load0, load1) > NOISY_LOAD or shared_core
    print(f"# pgmpy-ext quick ratios ({machine()})\n")
    print(f"load average (1 min): {load0:.2f} at start, {load1:.2f} at end ({load_average()})"
          + ("  -> NOISY: other processes share the cores; re-run on a quiet machine" if noisy else ""))
    if shared_core:
        print("two threads of plain numpy work ran under 1.6x one thread in the same rounds: the machine did not give "
              "this process two cores, so the n_jobs rows measure the machine, not the code; re-run")
    print()
    print("| job | ours | baseline | ratio (baseline / ours) | goal | met |")
    print("|---|---|---|---|---|---|")
    failed = []
    for job, ours, base, base_name, ratio, goal, met in rows:
        print(f"| {job} | {ours * 1e3:.1f} ms | {base * 1e3:.1f} ms ({base_name}) | {ratio:.2f}x | {goal} | "
              f"{'yes' if met else 'NO'} |")
        if not met and not job.startswith("machine:"):  # the reference only qualifies the run
            failed.append(job)
    print(f"\ntotal {time.perf_counter() - t_start:.1f} s")
    if failed:
        n_goals = sum(not job.startswith("machine:") for job, *_ in rows)
        print(f"goals missed: {len(failed)} of {n_goals}" + (" (the machine was busy)" if noisy else ""))
        return 2 if noisy else 1
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(main())

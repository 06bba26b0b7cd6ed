"""Naive Bayes maps and map-quality measures against the usual tools (issue 15 goals).

1. NBM training time per epoch and in total (one restart; the per-epoch log-likelihood included, and also the
   online steps alone) against MiniSom on the same grid, epochs and data, with the thesis's schedules. NBM also
   learns a variance per neuron and feature. Small set: pima (768 x 8); large: letter (20,000 x 16). Both z-scored.
2. Trustworthiness + continuity for every k in 1..50 at N = 5,000 and 20,000 (letter, map = PCA's first two
   components): pgmpy-ext's one-pass kernel (n_jobs 1 and 2) against scikit-learn's ``trustworthiness``, which
   builds N x N rank matrices and takes one k per call. sklearn is timed for one k (T at k = 5) and the all-k time
   is that times 100 (50 k for T and 50 for C): stated as an extrapolation. It is not run at N = 20,000 (its
   N x N int64 matrices alone need ~3.2 GB each).

Prints the machine load: the machine is shared, so ratios measured in one run are what counts.

    python benchmarks/maps.py [--epochs-small 20] [--epochs-large 3] [--out benchmarks/results/maps.md]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import load_average, machine, peak_rss_growth_mb, reset_peak_rss  # noqa: E402


def _load(name):
    from pgmpy_ext.datasets import load_dataset

    X, _ = load_dataset(name, continuous="float")
    A = X.to_numpy(dtype=np.float64)
    A = A[:, A.std(0) > 0]
    return np.ascontiguousarray((A - A.mean(0)) / A.std(0))


def time_nbm(X, epochs, grid=(10, 10)):
    from pgmpy_ext.maps import fit_nbm, sigma_schedule
    from pgmpy_ext.stats import NBMState, grid_coordinates

    t = time.perf_counter()
    cpu = time.process_time()
    fit_nbm(X, np.random.default_rng(0), grid=grid, n_epochs=epochs)
    total = time.perf_counter() - t
    total_cpu = time.process_time() - cpu
    # the online steps alone (no per-epoch log-likelihood)
    rng = np.random.default_rng(0)
    K = grid[0] * grid[1]
    st = NBMState(rng.random((K, X.shape[1])), rng.random((K, X.shape[1])) + 1e-6, grid_coordinates(grid))
    t = time.perf_counter()
    for e in range(epochs):
        st.steps(X, rng.permutation(X.shape[0]), sigma=float(sigma_schedule(5.0, e, epochs)), alpha=0.1,
                 var_floor=1e-6, exact=False)
    steps = time.perf_counter() - t
    return total, steps, total_cpu


def time_minisom(X, epochs, grid=(10, 10)):
    from minisom import MiniSom

    L1, L2 = grid
    s0 = max(L1, L2) / 2.0
    som = MiniSom(L1, L2, X.shape[1], sigma=s0, learning_rate=0.5,
                  decay_function=lambda a, t, T: 0.5 * (0.02 / 0.5) ** (t / T),
                  neighborhood_function="gaussian", random_seed=0)
    som._sigma_decay_function = lambda s, t, T: s0 * np.exp(-2 * s0 * t / T)
    som.random_weights_init(X)
    t = time.perf_counter()
    som.train(X, epochs, random_order=True, use_epochs=True)
    return time.perf_counter() - t


def time_tc(X, Y, n_jobs):
    from pgmpy_ext.evaluation import trustworthiness_continuity

    before = reset_peak_rss()
    cpu = time.process_time()
    t = time.perf_counter()
    T, C = trustworthiness_continuity(X, Y, n_neighbors=list(range(1, 51)), n_jobs=n_jobs)
    el = time.perf_counter() - t
    return el, time.process_time() - cpu, peak_rss_growth_mb(before), T, C


def time_sklearn_one(X, Y):
    from sklearn.manifold import trustworthiness

    before = reset_peak_rss()
    cpu = time.process_time()
    t = time.perf_counter()
    v = trustworthiness(X, Y, n_neighbors=5)
    el = time.perf_counter() - t
    return el, time.process_time() - cpu, peak_rss_growth_mb(before), v


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs-small", type=int, default=20)
    ap.add_argument("--epochs-large", type=int, default=3)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    lines = [f"machine: {machine()}", f"load average at start: {load_average()}", ""]

    def say(s=""):
        print(s, flush=True)
        lines.append(s)

    say("## 1. NBM vs MiniSom, 10 x 10 grid, per epoch (one restart)")
    for name, epochs in (("pima", args.epochs_small), ("letter", args.epochs_large)):
        X = _load(name)
        nbm_total, nbm_steps, nbm_cpu = time_nbm(X, epochs)
        try:
            cpu = time.process_time()
            som = time_minisom(X, epochs)
            som_cpu = time.process_time() - cpu
        except ImportError:
            som = None
        msg = (f"{name} {X.shape[0]} x {X.shape[1]}, {epochs} epochs: NBM {nbm_total / epochs * 1e3:.1f} ms/epoch "
               f"(online steps alone {nbm_steps / epochs * 1e3:.1f} ms/epoch; total {nbm_total:.2f} s)")
        if som is not None:
            msg += (f"; MiniSom {som / epochs * 1e3:.1f} ms/epoch (total {som:.2f} s); MiniSom / NBM = "
                    f"{som / nbm_total:.1f}x wall; CPU per epoch NBM {nbm_cpu / epochs * 1e3:.1f} ms vs MiniSom "
                    f"{som_cpu / epochs * 1e3:.1f} ms = {som_cpu / nbm_cpu:.1f}x")
        else:
            msg += "; MiniSom not installed"
        say(msg)
    say(f"load average: {load_average()}")
    say()
    say("## 2. trustworthiness + continuity, all k in 1..50, letter (z-scored) vs its 2-D PCA map")
    from sklearn.decomposition import PCA

    X = _load("letter")
    Y = PCA(2).fit_transform(X)
    for N in (5000, 20000):
        for nj in (1, 2):
            el, cpu, mem, T, C = time_tc(X[:N], Y[:N], nj)
            say(f"N = {N}, n_jobs = {nj}: pgmpy-ext T+C for 50 k in {el:.2f} s wall ({cpu:.2f} s CPU, all threads), "
                "peak RSS growth "
                f"{mem if mem is None else round(mem, 1)} MiB (M1(5) = {T[4]:.4f}, M2(5) = {C[4]:.4f})")
        if N <= 5000:
            el1, cpu1, mem1, v = time_sklearn_one(X[:N], Y[:N])
            say(f"N = {N}: sklearn trustworthiness, one k: {el1:.2f} s wall ({cpu1:.2f} s CPU), peak RSS growth "
                f"{mem1 if mem1 is None else round(mem1, 1)} MiB (M1(5) = {v:.4f}); for 50 k x (T + C), "
                f"extrapolated: {100 * el1:.0f} s")
        else:
            say(f"N = {N}: sklearn not run (N x N int64 rank matrices: {N * N * 8 / 2**30:.1f} GiB each)")
        say(f"load average: {load_average()}")
    if args.out:
        Path(args.out).write_text("# benchmarks/maps.py (one run, shared 2-core machine)\n\n```\n"
                                  + "\n".join(lines) + "\n```\n")


if __name__ == "__main__":
    main()

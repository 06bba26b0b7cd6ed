"""Narrow codes (issue 17, design note scale-out.md §5.6): int32 vs int8 code matrices on alarm rows.

Data: ``--rows`` rows (default 1M) sampled from pgmpy's bundled alarm network by the vectorised forward sampler of
``benchmarks/scaleout.py`` (seed 42), as a DataFrame of 37 categorical columns (2-4 states each).

Measured, int32 (``encode(df)``) against narrow (``encode(df, codes_dtype="auto")``, int8 here):

* the codes' size (``kernel_codes.nbytes``) and the peak memory of ``encode`` (tracemalloc peak, and the growth of
  the process's resident high-water mark ``VmHWM``); also the previous encoder's layout (an (n_cols, n_rows) int32
  buffer, then a C-order copy) for reference;
* best-of-``--repeat`` times (int32 and int8 runs interleaved) of the data-sized kernels on the same data: the 37
  true families of alarm (``family_counts_many``), the 630 pair tables given INTUBATION (``pairwise_counts``),
  ``unique_rows``, the latent-class E step (K = 3, all rows), and the classifier posterior (``log_joint_batch``,
  naive Bayes given INTUBATION). Each narrow result is checked identical to the int32 one.

The machine load is printed before and after; timings taken under load are not comparable across runs (ratios
measured in one run are).

Usage: python benchmarks/narrow_codes.py [--rows 1000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import gc
import os
import time

import numpy as np
import pandas as pd
from _common import (
    best_time,
    load_average,
    load_bundled_network,
    machine,
    peak_rss_growth_mb,
    peak_traced_mb,
    reset_peak_rss,
)
from scaleout import forward_sample, network_tables

MB = 1e6


def alarm_frame(rows: int, seed: int = 42) -> tuple[pd.DataFrame, object]:
    model = load_bundled_network("alarm")
    order, states, tables = network_tables(model)
    codes = forward_sample(order, tables, rows, np.random.default_rng(seed))
    columns = sorted(order)
    df = pd.DataFrame({c: pd.Categorical.from_codes(codes[c], categories=states[c]) for c in columns})
    return df, model


def old_layout_encode(df: pd.DataFrame) -> np.ndarray:
    """The previous encoder's memory layout: every column into an (n_cols, n_rows) int32 buffer, then one C-order
    copy (two full int32 matrices alive at the end)."""
    from pgmpy_ext.data._encoded import _encode_column

    codes_t = np.empty((df.shape[1], df.shape[0]), dtype=np.int32)
    for k, col in enumerate(df.columns):
        codes_t[k] = _encode_column(col, df.iloc[:, k], None, "error", df.index, 50, "error")[0]
    return np.ascontiguousarray(codes_t.T)


def memory_of(fn) -> tuple[float, float | None]:
    """(tracemalloc peak MB, VmHWM growth MB) of one call (the result is dropped afterwards)."""
    gc.collect()
    traced = peak_traced_mb(fn) * 2**20 / MB
    gc.collect()
    before = reset_peak_rss()
    out = fn()
    grown = peak_rss_growth_mb(before)
    del out
    gc.collect()
    return traced, None if grown is None else grown * 2**20 / MB


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    from pgmpy_ext.data import encode
    from pgmpy_ext.stats import (
        LatentClassLayout,
        NetworkLayout,
        family_counts_many,
        latent_class_estep,
        log_joint_batch,
        pairwise_counts,
        unique_rows,
    )

    print(f"machine: {machine()}")
    print(f"load average before: {load_average()}")
    t0 = time.perf_counter()
    df, model = alarm_frame(args.rows)
    print(f"alarm: {df.shape[0]:,} rows x {df.shape[1]} columns sampled in {time.perf_counter() - t0:.1f} s")

    # ---------------------------------------------------------------- encode: size and peak memory
    print("\n## encode")
    t_old, _ = best_time(lambda: old_layout_encode(df), args.repeat)
    t32, d32 = best_time(lambda: encode(df), args.repeat)
    t8, d8 = best_time(lambda: encode(df, codes_dtype="auto"), args.repeat)
    assert np.array_equal(d8.codes, d32.codes)
    print(f"codes dtype int32 / narrow: {d32.kernel_codes.dtype} / {d8.kernel_codes.dtype}")
    print(f"codes size: int32 {d32.kernel_codes.nbytes / MB:.1f} MB, narrow {d8.kernel_codes.nbytes / MB:.1f} MB")
    mem_old = memory_of(lambda: old_layout_encode(df))
    mem32 = memory_of(lambda: encode(df))
    mem8 = memory_of(lambda: encode(df, codes_dtype="auto"))
    print("| encoder | time (s, best) | tracemalloc peak (MB) | VmHWM growth (MB) |")
    print("|---|---|---|---|")
    for name, t, (tr, hwm) in [("previous layout: int32 (n_cols, n) buffer + C copy", t_old, mem_old),
                               ("encode(df), int32, filled in place (8-column staging)", t32, mem32),
                               ("encode(df, codes_dtype='auto'), int8", t8, mem8)]:
        hwm_s = "n/a" if hwm is None else f"{hwm:.1f}"
        print(f"| {name} | {t:.3f} | {tr:.1f} | {hwm_s} |")

    # ---------------------------------------------------------------- kernels: int32 vs int8
    print(f"\n## kernels (best of {args.repeat}; identical results checked)")
    columns = list(df.columns)
    families = [(n, sorted(model.get_parents(n))) for n in columns]
    cls = "INTUBATION"
    cards = d32.cards
    K = 3
    rng = np.random.default_rng(0)
    lay = LatentClassLayout.build(cards, K)
    theta = np.concatenate([rng.dirichlet(np.ones(c), size=K).T for c in cards])
    lt, lp = np.log(theta), np.log(np.full(K, 1.0 / K))
    feats = [c for c in columns if c != cls]
    nb = NetworkLayout.build({cls: [], **{f: [cls] for f in feats}}, dict(zip(columns, cards.tolist())), feats, cls)
    x_only = {id(d32): d32.select(feats), id(d8): d8.select(feats)}  # the features, as predict sees them
    tabs = {cls: rng.dirichlet(np.ones(int(d32.card(cls)))),
            **{f: rng.dirichlet(np.ones(int(d32.card(f))), size=int(d32.card(cls))).T for f in feats}}
    log_cpt = nb.pack(tabs, log=True)
    jobs = {
        "family_counts_many (37 alarm families)": lambda d: family_counts_many(d, families),
        "pairwise_counts (630 pairs | INTUBATION)": lambda d: pairwise_counts(d, cond=cls).flat,
        "unique_rows (37 columns)": lambda d: unique_rows(d.kernel_codes, d.cards),
        "latent_class_estep (K = 3, all rows)": lambda d: latent_class_estep(lay, d.kernel_codes, None, lt, lp,
                                                                            theta=theta, check=False),
        "log_joint_batch (NB | INTUBATION)": lambda d: log_joint_batch(nb, log_cpt, x_only[id(d)]),
    }
    print("| kernel | int32 (s) | int8 (s) | int32 / int8 | identical |")
    print("|---|---|---|---|---|")
    for name, job in jobs.items():
        ta = tb = float("inf")
        for _ in range(args.repeat):  # interleaved, so a change in the machine's load hits both alike
            t, ra = best_time(lambda: job(d32), 1)
            ta = min(ta, t)
            t, rb = best_time(lambda: job(d8), 1)
            tb = min(tb, t)
        print(f"| {name} | {ta:.3f} | {tb:.3f} | {ta / tb:.2f} | {_same(ra, rb)} |")
    print(f"\nload average after: {load_average()}")
    print(f"run queue (running/total tasks): {open('/proc/loadavg').read().split()[3]}; cores: {os.cpu_count()}")


def _same(a, b) -> bool:
    if isinstance(a, list):
        return all(_same(x, y) for x, y in zip(a, b))
    if hasattr(a, "counts") and hasattr(a, "inverse"):  # UniqueRows
        return bool(np.array_equal(a.codes, b.codes) and np.array_equal(a.counts, b.counts)
                    and np.array_equal(a.inverse, b.inverse))
    if hasattr(a, "loglik"):  # LatentEStep
        return bool(a.loglik == b.loglik and np.array_equal(a.counts, b.counts))
    return bool(np.array_equal(a, b))


if __name__ == "__main__":
    main()

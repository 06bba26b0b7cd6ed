"""Foundation benchmark on alarm-100k (100,000 rows sampled from pgmpy's bundled alarm, seed 42; class BP).

(a) all pairwise class-conditional tables N[i, j, x, y, c] of the 36 features (630 pairs, 63M increments) and
    the CMI matrix I(Xi; Xj | C): our kernel vs a numpy bincount loop vs pgmpy TreeSearch's weight computation;
(b) BIC for every empty and single-parent family (37 + 1,332): our BICScore vs pgmpy's BIC, cold caches;
(c) peak memory (tracemalloc peak of each job, and the process's max RSS).

Everything is measured in one run on this machine; ratios are printed. pgmpy's TreeSearch weights take minutes on
the full job, so by default they are measured on a subset of features (all 100k rows) and extrapolated per pair;
``--full`` measures the whole job instead.

Usage: python benchmarks/foundation.py [--full] [--repeat 5]
"""

from __future__ import annotations

import argparse
import itertools
import time
import warnings

import numpy as np
from _common import alarm_100k, best_time, codes_of, fmt_ratio, load_average, machine, max_rss_mb, peak_traced_mb

CLASS = "BP"


def numpy_pairwise_cmi(cols: list[np.ndarray], cards: np.ndarray, c: np.ndarray, n_c: int):
    """Plain numpy baseline: one bincount per pair, then the plug-in CMI."""
    m = len(cols)
    tables = {}
    for i, j in itertools.combinations(range(m), 2):
        idx = (cols[i] * cards[j] + cols[j]) * n_c + c
        tables[(i, j)] = np.bincount(idx, minlength=cards[i] * cards[j] * n_c).reshape(cards[i], cards[j], n_c)
    return tables


def numpy_cmi_from_tables(tables, m):
    w = np.zeros((m, m))
    for (i, j), t in tables.items():
        t = t.astype(np.float64)
        n = t.sum()
        n_c = t.sum(axis=(0, 1))
        n_xc = t.sum(axis=1)
        n_yc = t.sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            v = t * (np.log(t) + np.log(n_c)[None, None, :] - np.log(n_xc)[:, None, :] - np.log(n_yc)[None, :, :])
        w[i, j] = w[j, i] = np.nansum(v) / n
    return w


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--full", action="store_true", help="run pgmpy's TreeSearch weights on all 630 pairs")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--pgmpy-features", type=int, default=6, help="features in pgmpy's subset (default 6)")
    args = ap.parse_args(argv)

    import pgmpy_ext._compat  # noqa: F401, I001  (first: filters pgmpy's import-time FutureWarning)
    from pgmpy.estimators import TreeSearch
    from pgmpy.structure_score import BIC

    from pgmpy_ext.data import encode
    from pgmpy_ext.scores import BICScore
    from pgmpy_ext.stats import cmi_matrix, pairwise_counts

    t0 = time.perf_counter()
    df = alarm_100k()
    print(f"# pgmpy-ext foundation benchmark\n\nmachine: {machine()}; load average {load_average()}")
    print(f"data: alarm-100k, {df.shape[0]:,} rows x {df.shape[1]} columns "
          f"(loaded in {time.perf_counter() - t0:.1f} s)")
    features = [c for c in df.columns if c != CLASS]
    data = encode(df)
    m = len(features)
    n_pairs = m * (m - 1) // 2
    print(f"class: {CLASS} ({data.card(CLASS)} states); {m} features, {n_pairs} pairs, "
          f"{n_pairs * df.shape[0] / 1e6:.0f}M increments\n")

    # ------------------------------------------------------------------ (a) pairwise tables + CMI
    t_ours1, pc = best_time(lambda: pairwise_counts(data, features, cond=CLASS, n_jobs=1), args.repeat)
    t_ours2, _ = best_time(lambda: pairwise_counts(data, features, cond=CLASS, n_jobs=2), args.repeat)
    t_cmi, w_ours = best_time(lambda: cmi_matrix(pc), args.repeat)
    codes = codes_of(df)
    cols = [codes[:, data.index(f)].astype(np.int64) for f in features]
    cards = np.array([data.card(f) for f in features])
    cvec = codes[:, data.index(CLASS)].astype(np.int64)
    t_np_tables, tables = best_time(lambda: numpy_pairwise_cmi(cols, cards, cvec, data.card(CLASS)),
                                    max(1, args.repeat // 2))
    t_np_cmi, w_np = best_time(lambda: numpy_cmi_from_tables(tables, m), 1)
    assert np.allclose(w_ours, w_np, rtol=1e-9, atol=1e-12), "our CMI differs from the numpy baseline"

    k = m if args.full else args.pgmpy_features
    sub = df[[*features[:k], CLASS]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        w_pg = TreeSearch._get_conditional_weights(sub, CLASS, "mutual_info", n_jobs=1, show_progress=False)
        t_pg_sub = time.perf_counter() - t0
    pg_pairs = (k + 1) * k // 2  # pgmpy also weighs every feature against the class
    t_pg = t_pg_sub / pg_pairs * n_pairs
    assert np.allclose(w_pg[:k, :k], w_ours[:k, :k], rtol=1e-9, atol=1e-12), "pgmpy's weights differ from ours"
    how = "measured" if args.full else f"extrapolated from {pg_pairs} pairs on all rows ({t_pg_sub:.1f} s)"

    print("## (a) all pairwise class-conditional tables + CMI matrix\n")
    print("| implementation | tables | CMI | total | ours is faster by |")
    print("|---|---|---|---|---|")
    ours_total = t_ours1 + t_cmi
    print(f"| pgmpy-ext kernel, 1 thread | {t_ours1 * 1e3:.1f} ms | {t_cmi * 1e3:.2f} ms | "
          f"{ours_total * 1e3:.1f} ms | - |")
    print(f"| pgmpy-ext kernel, 2 threads | {t_ours2 * 1e3:.1f} ms | {t_cmi * 1e3:.2f} ms | "
          f"{(t_ours2 + t_cmi) * 1e3:.1f} ms | - |")
    print(f"| numpy bincount loop | {t_np_tables * 1e3:.1f} ms | {t_np_cmi * 1e3:.1f} ms | "
          f"{(t_np_tables + t_np_cmi) * 1e3:.1f} ms | {fmt_ratio(t_np_tables + t_np_cmi, ours_total)} |")
    print(f"| pgmpy TreeSearch weights ({how}) | - | - | {t_pg:.1f} s | {fmt_ratio(t_pg, ours_total)} |")
    print(f"\ntables only, 1 thread: {t_ours1 * 1e3:.1f} ms (goal <= 10 ms); numpy/ours on tables: "
          f"{fmt_ratio(t_np_tables, t_ours1)}; load average {load_average()}\n")

    # ------------------------------------------------------------------ (b) BIC families
    fams = [(v, ()) for v in df.columns] + [(v, (p,)) for v in df.columns for p in df.columns if p != v]

    def run(score):
        return sum(score.local_score(v, ps) for v, ps in fams)

    t0 = time.perf_counter()
    BICScore(df)  # the constructor, timed alone
    t_ours_init = time.perf_counter() - t0
    # a fresh score object for every run: BICScore counts the pair tables in bulk once a search has asked for a
    # few families, and keeps them (clearing only pgmpy's lru cache would time lookups into them)
    t_ours_bic, s_ours = float("inf"), None
    for _ in range(args.repeat):
        fresh = BICScore(df)
        t0 = time.perf_counter()
        s_ours = run(fresh)
        t_ours_bic = min(t_ours_bic, time.perf_counter() - t0)
    t0 = time.perf_counter()
    pg = BIC(df)
    t_pg_init = time.perf_counter() - t0
    t_pg_bic, s_pg = best_time(lambda: run(_fresh(pg)), 1)
    assert abs(s_ours - s_pg) <= 1e-9 * abs(s_pg), (s_ours, s_pg)
    print(f"## (b) BIC of all {len(fams):,} empty and single-parent families (cold cache)\n")
    print("| implementation | constructor | all local scores | per family | ours is faster by |")
    print("|---|---|---|---|---|")
    print(f"| pgmpy-ext BICScore | {t_ours_init * 1e3:.0f} ms | {t_ours_bic * 1e3:.1f} ms | "
          f"{t_ours_bic / len(fams) * 1e6:.1f} us | - |")
    print(f"| pgmpy BIC | {t_pg_init * 1e3:.0f} ms | {t_pg_bic:.2f} s | {t_pg_bic / len(fams) * 1e3:.2f} ms | "
          f"{fmt_ratio(t_pg_bic, t_ours_bic)} (with constructors: "
          f"{fmt_ratio(t_pg_bic + t_pg_init, t_ours_bic + t_ours_init)}) |")
    print(f"\nsum of local scores: ours {s_ours:.6f}, pgmpy {s_pg:.6f} (relative difference "
          f"{abs(s_ours - s_pg) / abs(s_pg):.1e}); goal >= 200x; load average {load_average()}\n")

    # ------------------------------------------------------------------ (c) memory
    print("## (c) peak memory (tracemalloc peak of one call)\n")
    print("| job | peak |")
    print("|---|---|")
    print(f"| encode alarm-100k | {peak_traced_mb(lambda: encode(df)):.1f} MiB |")
    print(f"| ours: pairwise tables + CMI | "
          f"{peak_traced_mb(lambda: cmi_matrix(pairwise_counts(data, features, cond=CLASS))):.2f} MiB |")
    print(f"| numpy bincount tables | "
          f"{peak_traced_mb(lambda: numpy_pairwise_cmi(cols, cards, cvec, data.card(CLASS))):.2f} MiB |")
    print(f"| ours: BIC families (incl. constructor) | {peak_traced_mb(lambda: run(BICScore(df))):.1f} MiB |")
    print(f"| pgmpy: BIC, 200 families | {peak_traced_mb(lambda: _run_some(BIC(df), fams[:200])):.1f} MiB |")
    print(f"\nprocess max RSS: {max_rss_mb():.0f} MiB")


def _fresh(score):
    """The same score object with an emptied local-score cache (pgmpy caches per instance with lru_cache)."""
    score._cached_local_score.cache_clear()
    return score


def _run_some(score, fams):
    return sum(score.local_score(v, ps) for v, ps in fams)


if __name__ == "__main__":
    main()

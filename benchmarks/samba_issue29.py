"""SAMBA for issue 29: planted-bicluster recovery, leukemia bicluster sizes and class purity, bounded kernel work.

Compares this checkout's SAMBA with the one of an older revision (``--old-rev``, loaded from ``git show``) on:

* ``planted``: ``make_planted_biclusters`` (65 samples x 500 genes, one "+", one "-" and one mixed bicluster of
  ``rows`` samples x 40 genes, each cell N(0, 1) plus ``shift`` inside a bicluster) for a grid of bicluster sizes
  and shifts (the noise level is 1 / shift). Scores are Prelic et al. (2006)'s match score on the gene sets and on
  the sample sets: recovery = mean over planted biclusters of the best Jaccard with a found one, relevance = mean
  over found biclusters of the best Jaccard with a planted one.
* ``leukemia``: SAMBA on each training fold (stratified 5-fold, seed 0) with the defaults and with the calibrated
  settings of the seed 004 reproduction: number of biclusters, samples and genes per bicluster (median, mean),
  class purity (majority-class fraction of a bicluster's samples; the fold's majority rate is the chance level).
* ``oracle``: on one leukemia training fold, the score of each class's block (the class's samples x the genes
  joined to at least half of them) and where greedy improvement takes it, beside the best biclusters found; then
  the class blocks' weight under other thresholds and ``p_c``.
* ``kernel``: ``kernel_size`` 3, 6, 10 on a 65 x 100 standard-normal matrix: seconds and peak resident memory
  (peak memory traced by ``tracemalloc``; numpy reports its buffers to it).

    nice -n 10 python benchmarks/samba_issue29.py planted leukemia kernel --old-rev 225e614
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.getcwd())  # measure the checkout we are run from

from pgmpy_ext.biclustering import SAMBA  # noqa: E402
from pgmpy_ext.datasets import make_planted_biclusters  # noqa: E402

CALIBRATED = {"threshold": 0.75, "p_c": 0.5, "min_rows": 4, "max_overlap": 0.65}


def old_samba(rev: str):
    src = subprocess.run(["git", "show", f"{rev}:pgmpy_ext/biclustering/_samba.py"], capture_output=True, text=True,
                         check=True).stdout
    path = os.path.join(tempfile.mkdtemp(), "samba_old.py")
    with open(path, "w") as f:
        f.write(src)
    spec = importlib.util.spec_from_file_location("samba_old", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.SAMBA


def match_score(a: list[set], b: list[set]) -> float:
    """Prelic et al. (2006): mean over the sets of ``a`` of the best Jaccard index with a set of ``b``."""
    if not a:
        return np.nan
    if not b:
        return 0.0
    return float(np.mean([max(len(x & y) / len(x | y) for y in b) for x in a]))


def planted(impls, seeds=(0, 1)):
    out = []
    for rows in (6, 10, 15, 25):
        for shift in (1.5, 2.0, 3.0):
            for name, cls in impls.items():
                acc = []
                for seed in seeds:
                    X, _, pl = make_planted_biclusters(n_genes=500, n_biclusters=(1, 1, 1), bicluster_rows=(rows, rows),
                                                       bicluster_cols=(40, 40), shift=shift, random_state=seed)
                    t = time.perf_counter()
                    est = cls(random_state=seed).fit(X)
                    el = time.perf_counter() - t
                    pg = [set(b["cols"].tolist()) for b in pl]
                    ps = [set(b["rows"].tolist()) for b in pl]
                    fg = [set(np.flatnonzero(c).tolist()) for c in est.columns_]
                    fs = [set(np.flatnonzero(r).tolist()) for r in est.rows_]
                    acc.append([match_score(pg, fg), match_score(ps, fs), match_score(fg, pg), match_score(fs, ps),
                                len(fg), el])
                m = np.nanmean(np.array(acc, dtype=float), axis=0)
                out.append({"rows": rows, "shift": shift, "impl": name, "gene_recovery": m[0],
                            "sample_recovery": m[1], "gene_relevance": m[2], "sample_relevance": m[3],
                            "n_found": m[4], "seconds": m[5]})
                print(json.dumps({k: (round(v, 3) if isinstance(v, float) else v) for k, v in out[-1].items()}),
                      flush=True)
    return out


def leukemia(impls, n_folds=5, settings=None, use_folds=None):
    from pgmpy_ext.experiments._seed004_bench import _load, folds

    X, y = _load("leukemia", None)
    settings = settings or {"defaults": {}, "calibrated": CALIBRATED}
    for setting, params in settings.items():
        for name, cls in impls.items():
            rows, genes, pur, chance, ks, secs = [], [], [], [], [], []
            for f, (tr, _) in enumerate(folds(y, "stratified", n_folds, 0)):
                if use_folds is not None and f not in use_folds:
                    continue
                t = time.perf_counter()
                est = cls(random_state=f, **params).fit(X[tr])
                secs.append(time.perf_counter() - t)
                yt = y[tr]
                vals, cnt = np.unique(yt, return_counts=True)
                chance.append(cnt.max() / cnt.sum())
                ks.append(len(est.rows_))
                for r, c in zip(est.rows_, est.columns_):
                    rows.append(int(r.sum()))
                    genes.append(int(c.sum()))
                    _, cc = np.unique(yt[r], return_counts=True)
                    pur.append(cc.max() / cc.sum())
            rec = {"setting": setting, "impl": name, "biclusters_per_fold": float(np.mean(ks)),
                   "rows_median": float(np.median(rows)) if rows else 0,
                   "rows_mean": float(np.mean(rows)) if rows else 0,
                   "rows_max": int(max(rows)) if rows else 0,
                   "genes_median": float(np.median(genes)) if genes else 0,
                   "genes_mean": float(np.mean(genes)) if genes else 0,
                   "purity_mean": float(np.mean(pur)) if pur else np.nan,
                   "purity_ge_0.9": float(np.mean(np.array(pur) >= 0.9)) if pur else np.nan,
                   "chance": float(np.mean(chance)), "seconds_per_fold": float(np.mean(secs)),
                   "load": os.getloadavg()}
            print(json.dumps({k: (round(v, 3) if isinstance(v, float) else v) for k, v in rec.items()}), flush=True)


def oracle(n_folds=5, fold=0):
    """Is the class a heavy subgraph? Score the class-level blocks (one class's samples, "up" or "down", x the
    genes with at least ``f`` of those samples joined) and improve them greedily as seeds."""
    from pgmpy_ext.experiments._seed004_bench import _load, folds
    from pgmpy_ext.stats import samba_improve

    X, y = _load("leukemia", None)
    tr, _ = folds(y, "stratified", n_folds, 0)[fold]
    A, yt = X[tr], y[tr]
    est = SAMBA_FOR_ORACLE(random_state=0).fit(A)
    print(f"graph: {SAMBA_FOR_ORACLE.__name__}")
    E, W, twin, _ = est._graph(A)
    m = A.shape[0]
    print(f"fold {fold}: edge density {E.mean():.3f}; the 5 best biclusters found (samples x genes, score): "
          + ", ".join(f"{int(r.sum())} x {int(c.sum())} ({s:.0f})"
                      for r, c, s in zip(est.rows_[:5], est.columns_[:5], est.scores_[:5])))
    for cls in np.unique(yt):
        for sign, off in (("up", 0), ("down", m)):
            rows = np.flatnonzero(yt == cls)
            props = rows + off
            frac = E[props].mean(axis=0)
            for f in (0.5, 0.6):
                genes = frac >= f
                U = np.zeros((1, E.shape[0]), bool)
                U[0, props] = True
                r = samba_improve(W, twin, U, genes[None, :], min_props=2, min_cols=5)
                pr = r.props[0, :m] | r.props[0, m:]
                _, cc = np.unique(yt[pr], return_counts=True)
                sc = W[np.ix_(props, np.flatnonzero(genes))].sum()
                print(f"class {cls} {sign}, genes with >= {f:.0%} edges: {rows.size} x {int(genes.sum())}, score "
                      f"{sc:.0f}; improved: {int(pr.sum())} x {int(r.genes[0].sum())}, score {r.scores[0]:.0f}, "
                      f"purity {cc.max() / cc.sum():.2f}", flush=True)


def oracle_thresholds(n_folds=5, fold=0):
    """The class blocks' weight under other edge thresholds and p_c: for each class and sign, the genes whose gain
    (sum of their weights over the class's properties) is positive and the block's score, beside the best found."""
    from pgmpy_ext.experiments._seed004_bench import _load, folds

    X, y = _load("leukemia", None)
    tr, _ = folds(y, "stratified", n_folds, 0)[fold]
    A, yt = X[tr], y[tr]
    m = A.shape[0]
    for thr, pc in ((0.75, 0.8), (0.5, 0.8), (0.35, 0.8), (0.5, 0.6)):
        est = SAMBA(threshold=thr, p_c=pc, random_state=0).fit(A)
        E, W, _, _ = est._graph(A)
        out = []
        for cls in np.unique(yt):
            for sign, off in (("up", 0), ("down", m)):
                col = W[np.flatnonzero(yt == cls) + off].sum(axis=0)
                g = col > 0
                out.append(f"{cls}-{sign} {int(g.sum())} genes, score {col[g].sum():.0f}")
        pur = [np.unique(yt[r], return_counts=True)[1].max() / r.sum() for r in est.rows_]
        print(f"threshold {thr}, p_c {pc}: density {E.mean():.2f}; class blocks: " + "; ".join(out)
              + f" | found: best score {est.scores_[0]:.0f}, {len(est.rows_)} biclusters, median "
              f"{np.median(est.rows_.sum(1)):.0f} x {np.median(est.columns_.sum(1)):.0f}, purity {np.mean(pur):.2f}",
              flush=True)


class SplitCentredSAMBA(SAMBA):
    """Experiment (issue 29, D4 of the design note): SAMBA with each gene centred at the midpoint of its best 1-D
    two-group split (2-means / Otsu: the split of the sorted values with the least within-group sum of squares, at
    least two samples per group) instead of its mean; the scale is still the gene's standard deviation. A gene that
    separates a 65 / 35 class split perfectly then joins both classes (z = +-1.05) instead of the minority only
    (mean-centred: z = 1.36 and -0.73)."""

    def _centre(self, A):
        m = A.shape[0]
        srt = np.sort(A, axis=0)
        cs, cs2 = np.cumsum(srt, axis=0), np.cumsum(srt**2, axis=0)
        best = np.full(A.shape[1], np.inf)
        mid = A.mean(axis=0)
        for k in range(2, m - 1):  # k samples in the low group
            lo, lo2 = cs[k - 1], cs2[k - 1]
            ss = (lo2 - lo**2 / k) + ((cs2[-1] - lo2) - (cs[-1] - lo) ** 2 / (m - k))
            better = ss < best
            best = np.where(better, ss, best)
            mid = np.where(better, 0.5 * (lo / k + (cs[-1] - lo) / (m - k)), mid)
        return mid


def split(n_folds=5):
    """Split-centred edges (:class:`SplitCentredSAMBA`) against the mean-centred ones on the leukemia folds, at the
    default threshold and at higher ones; then the class blocks' weight under the split-centred graph."""
    leukemia({"mean-centred": SAMBA, "split-centred": SplitCentredSAMBA}, n_folds,
             settings={"defaults": {}, "threshold 1.25": {"threshold": 1.25}})
    global SAMBA_FOR_ORACLE
    SAMBA_FOR_ORACLE = SplitCentredSAMBA
    oracle(n_folds)


SAMBA_FOR_ORACLE = SAMBA


def kernel(old_rev):
    code = r"""
import sys, time, os
import numpy as np
sys.path.insert(0, os.getcwd())
which, k = sys.argv[1], int(sys.argv[2])
if which == "old":
    sys.path.insert(0, os.path.dirname(sys.argv[3]))
    import importlib.util
    spec = importlib.util.spec_from_file_location("samba_old", sys.argv[3])
    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod); S = mod.SAMBA
else:
    from pgmpy_ext.biclustering import SAMBA as S
X = np.random.default_rng(0).normal(size=(65, 100))
import tracemalloc
tracemalloc.start()
t = time.perf_counter(); est = S(kernel_size=k, random_state=0).fit(X); el = time.perf_counter() - t
peak = tracemalloc.get_traced_memory()[1]
print(f"{which} kernel_size={k}: {el:.2f} s, peak traced memory in fit {peak / 2**20:.0f} MB, "
      f"{len(est.rows_)} biclusters, load {tuple(round(x, 2) for x in os.getloadavg())}", flush=True)
"""
    src = subprocess.run(["git", "show", f"{old_rev}:pgmpy_ext/biclustering/_samba.py"], capture_output=True,
                         text=True, check=True).stdout
    d = tempfile.mkdtemp()
    with open(os.path.join(d, "samba_old.py"), "w") as f:
        f.write(src)
    for which in ("new", "old"):
        for k in (3, 6, 10):
            if which == "old" and k == 10:
                continue  # C(d, 10) subsets listed before sampling: does not finish
            subprocess.run([sys.executable, "-c", code, which, str(k), os.path.join(d, "samba_old.py")], check=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("parts", nargs="+", choices=["planted", "leukemia", "oracle", "kernel", "split"])
    ap.add_argument("--old-rev", default=None)
    ap.add_argument("--folds", type=int, nargs="*", default=None, help="leukemia folds to run (default: all 5)")
    ap.add_argument("--settings", default=None, help='JSON {"name": {SAMBA params}} for the leukemia part')
    a = ap.parse_args()
    impls = {"new": SAMBA}
    if a.old_rev:
        impls["old"] = old_samba(a.old_rev)
    print("load average", os.getloadavg())
    if "planted" in a.parts:
        planted(impls)
    if "leukemia" in a.parts:
        leukemia(impls, settings=json.loads(a.settings) if a.settings else None, use_folds=a.folds)
    if "split" in a.parts:
        split()
    if "oracle" in a.parts:
        oracle()
        oracle_thresholds()
    if "kernel" in a.parts and a.old_rev:
        kernel(a.old_rev)


if __name__ == "__main__":
    main()

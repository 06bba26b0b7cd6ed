"""Clustering when most variables are irrelevant (issue 30): EM, EMA as the thesis specifies it, EMA with the
empirical-Bayes structure prior and dependency starts, and the selective latent-class EM, beside the oracle,
k-means and PCA + k-means (10 components of the one-hot codes), on the synthetic family of the issue, the shared
microarrays and held-out folds of the UCI sets.

Subcommands (each writes a Markdown section to stdout or ``--output``; every fit is cached under
``benchmarks/.cache/relevance``, so a rerun only computes what is missing):

``synthetic``
    The issue's family: 2 latent classes (P = 1/2), 10 relevant binary variables that each agree with the class
    with probability a_i ~ U(0.6, 0.85), ``n_noise`` irrelevant uniform ternary variables, N rows. ``--split dev``
    runs the development seeds 100-105 at the sizes the choices were made on; ``--split heldout`` (the evaluation)
    runs seeds 1000-1019 at other sizes, nothing tuned on them. Matched accuracy of ``labels_`` (Hungarian).
``microarray``
    leukemia (ALLAML.mat, per-gene tertiles, the Table 7.3 setting; leukemia.csv.gz raw values thresholded to
    [100, 16000] as Golub et al., tertiles, and equal-width thirds of log10 values), colon and lymphoma (values
    -2/0/2 as given; K = number of classes); 5 repetitions (random_state 0-4), matched accuracy.
``uci``
    5-fold stratified held-out log-likelihood per test row and held-out accuracy (clusters mapped to classes by the
    training rows' majority; k-means on the one-hot codes beside them, accuracy only) of the microarray learners on
    the 20 shared UCI sets of ``heldout_defaults.py``; continuous columns cut into 5
    equal-frequency bins fitted on the training fold.

Every learner has n_init = 20 and otherwise its defaults unless the label says so; n_jobs = 1.

Usage: python benchmarks/relevance_clustering.py {synthetic,microarray,uci} [--split dev|heldout] [--output F]
[--sizes 40x100 ...] [--sets lymphoma ...]
Prints the load average at the start and the end (timings, where shown, are noisy on a shared machine).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

CACHE = Path(__file__).resolve().parent / ".cache" / "relevance"
N_INIT = 20

#: Synthetic sizes (N, n_noise) and seeds: the development grid (what the choices of issue 30 were made on) and the
#: held-out grid (evaluation only).
SPLITS = {"dev": ([(200, 1000), (100, 1000), (400, 1000), (100, 300), (40, 100)], range(100, 106)),
          "heldout": ([(200, 1000), (150, 500), (300, 2000), (40, 100)], range(1000, 1020))}


def make_noisy_latent_class(n_samples: int, *, n_relevant: int = 10, n_noise: int = 1000, agree=(0.6, 0.85),
                            noise_card: int = 3, seed: int = 0):
    """The issue's family: ``(X DataFrame, z (n,), agreement (n_relevant,))``; columns ``r0..`` then ``n0..``."""
    rng = np.random.default_rng(np.random.SeedSequence([30, int(n_samples), int(n_noise), int(seed)]))
    z = rng.integers(0, 2, n_samples)
    a = rng.uniform(*agree, n_relevant)
    rel = np.where(rng.random((n_samples, n_relevant)) < a, z[:, None], 1 - z[:, None])
    noise = rng.integers(0, noise_card, (n_samples, n_noise))
    cols = [f"r{i}" for i in range(n_relevant)] + [f"n{i}" for i in range(n_noise)]
    return pd.DataFrame(np.hstack([rel, noise]).astype(np.int64), columns=cols), z, a


def learners(K: int, seed: int) -> dict:
    from pgmpy_ext.clustering import EMAClustering, LatentClassEM, SelectiveLatentClassClustering

    kw = {"n_init": N_INIT, "random_state": seed}
    return {
        "EM": LatentClassEM(K, **kw),
        "EMA (thesis)": EMAClustering(K, **kw),
        "EMA, dependency starts": EMAClustering(K, init="dependency", **kw),
        "EMA, prior auto": EMAClustering(K, structure_prior="auto", **kw),
        "EMA, prior auto + dependency starts": EMAClustering(K, structure_prior="auto", init="dependency", **kw),
        "EM, dependency starts": LatentClassEM(K, init="dependency", **kw),
        "selective EM": SelectiveLatentClassClustering(K, **kw),
        "selective EM (MICL)": SelectiveLatentClassClustering(K, criterion="micl", **kw),
        "selective EM (MICL, beta prior)": SelectiveLatentClassClustering(K, criterion="micl",
                                                                          relevance_prior="beta", **kw),
    }


#: The learners run on the microarrays (the ablations of one change at a time stay on the synthetic family, where a
#: fit takes a second; a microarray fit takes up to a minute).
MICRO_LEARNERS = ["EM", "EMA (thesis)", "EMA, prior auto + dependency starts", "EM, dependency starts",
                  "selective EM", "selective EM (MICL)", "selective EM (MICL, beta prior)"]


def _cached(key: str, fn):
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / (key.replace("/", "_").replace(" ", "_").replace(",", "").replace("+", "p") + ".json")
    if path.exists():
        return json.loads(path.read_text())
    out = fn()
    path.write_text(json.dumps(out))
    return out


def _fit_score(est, X, y) -> dict:
    from pgmpy_ext.evaluation import matched_accuracy

    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X)
    out = {"acc": float(matched_accuracy(y, est.labels_)), "seconds": time.perf_counter() - t0,
           "load": os.getloadavg()[0]}
    rel = getattr(est, "relevance_", getattr(est, "arc_posterior_", None))
    if rel is not None:
        out["n_relevant"] = int((np.asarray(rel) > 0.5).sum())
    return out


def _kmeans(X, y, K, seed) -> dict:
    from sklearn.cluster import KMeans

    from pgmpy_ext.evaluation import matched_accuracy

    Z = pd.get_dummies(X.astype("category")).to_numpy(float)
    return {"acc": float(matched_accuracy(y, KMeans(K, n_init=10, random_state=seed).fit_predict(Z)))}


def _pca_kmeans(X, y, K, seed, n_components: int = 10) -> dict:
    """PCA (``n_components`` on the one-hot codes, centred) then k-means: the user's first try on wide data."""
    from sklearn.cluster import KMeans
    from sklearn.decomposition import PCA

    from pgmpy_ext.evaluation import matched_accuracy

    Z = pd.get_dummies(X.astype("category")).to_numpy(float)
    P = PCA(min(n_components, Z.shape[0] - 1, Z.shape[1]), random_state=seed).fit_transform(Z)
    return {"acc": float(matched_accuracy(y, KMeans(K, n_init=10, random_state=seed).fit_predict(P)))}


#: Learners whose fit time the tables report (seconds per fit, n_jobs = 1, with the 1-minute load average).
TIMED = ["EM", "selective EM", "selective EM (MICL)", "selective EM (MICL, beta prior)"]


def _timing_lines(times: dict) -> list[str]:
    """``times``: {row label: {learner: [(seconds, load), ...]}} -> a Markdown table of mean seconds (mean load)."""
    L = ["", "Fit time, seconds per fit (mean; n_jobs = 1; mean 1-minute load average while it ran in brackets; "
         "noisy on the shared machine):", "", "| data | " + " | ".join(TIMED) + " |", "|---|" + "---|" * len(TIMED)]
    for label, per in times.items():
        cells = []
        for m in TIMED:
            v = [t for t in per.get(m, []) if t[0] is not None]
            loads = [t[1] for t in v if t[1] is not None]
            cells.append(f"{np.mean([t[0] for t in v]):.2f} ({np.mean(loads):.1f})" if v and loads
                         else (f"{np.mean([t[0] for t in v]):.2f} (–)" if v else "–"))
        L.append(f"| {label} | " + " | ".join(cells) + " |")
    return L


def synthetic(split: str, only_sizes=None) -> list[str]:
    sizes, seeds = SPLITS[split]
    if only_sizes:
        sizes = [sz for sz in sizes if f"{sz[0]}x{sz[1]}" in only_sizes]
    times = {}
    from pgmpy_ext.clustering import LatentClassEM

    L = [f"## Synthetic family, {split} split: matched accuracy, mean over seeds {seeds.start}-{seeds.stop - 1}", "",
         "10 relevant binary variables (agreement U(0.6, 0.85)), n_noise irrelevant ternary ones; oracle = EM on the "
         "10 relevant variables alone (n_init 20).", ""]
    names = ["oracle", *learners(2, 0), "k-means (one-hot)", "PCA + k-means"]
    rows = []
    for N, nn in sizes:
        res = {m: [] for m in names}
        nrel = {m: [] for m in names}
        for s in seeds:
            X, z, _ = make_noisy_latent_class(N, n_noise=nn, seed=s)
            rel_cols = [c for c in X.columns if c.startswith("r")]
            res["oracle"].append(_cached(f"syn-{N}-{nn}-{s}-oracle", lambda: _fit_score(
                LatentClassEM(2, n_init=N_INIT, random_state=s), X[rel_cols], z))["acc"])
            for m, est in learners(2, s).items():
                r = _cached(f"syn-{N}-{nn}-{s}-{m}", lambda est=est: _fit_score(est, X, z))
                res[m].append(r["acc"])
                times.setdefault(f"N = {N}, noise {nn}", {}).setdefault(m, []).append(
                    (r.get("seconds"), r.get("load")))
                if "n_relevant" in r:
                    nrel[m].append(r["n_relevant"])
            res["k-means (one-hot)"].append(_cached(f"syn-{N}-{nn}-{s}-kmeans", lambda: _kmeans(X, z, 2, s))["acc"])
            res["PCA + k-means"].append(_cached(f"syn-{N}-{nn}-{s}-pcakmeans",
                                                lambda: _pca_kmeans(X, z, 2, s))["acc"])
        rows.append((N, nn, {m: np.mean(v) for m, v in res.items()}, {m: np.mean(v) for m, v in nrel.items() if v},
                     res))
    L.append("| N | noise | " + " | ".join(names) + " |")
    L.append("|---|---|" + "---|" * len(names))
    for N, nn, mean, _, _ in rows:
        L.append(f"| {N} | {nn} | " + " | ".join(f"{mean[m]:.3f}" for m in names) + " |")
    L += ["", "Mean number of features with relevance > 1/2 (arc posterior for EMA):", ""]
    rel_names = [m for m in names if m in rows[0][3]]
    L.append("| N | noise | " + " | ".join(rel_names) + " |")
    L.append("|---|---|" + "---|" * len(rel_names))
    for N, nn, _, nrel, _ in rows:
        L.append(f"| {N} | {nn} | " + " | ".join(f"{nrel[m]:.1f}" for m in rel_names) + " |")
    L += ["", "Gap to the oracle (mean of oracle minus learner; the goal is at most 0.10) and seeds within 0.10:", ""]
    L.append("| N | noise | " + " | ".join(names[1:]) + " |")
    L.append("|---|---|" + "---|" * (len(names) - 1))
    for N, nn, mean, _, res in rows:
        cells = []
        for m in names[1:]:
            gap = np.asarray(res["oracle"]) - np.asarray(res[m])
            cells.append(f"{gap.mean():+.3f} ({int((gap <= 0.10).sum())}/{len(gap)})")
        L.append(f"| {N} | {nn} | " + " | ".join(cells) + " |")
    return L + _timing_lines(times)


def _tertiles(X: np.ndarray) -> np.ndarray:
    q = np.quantile(X, [1 / 3, 2 / 3], axis=0)
    return (X > q[0]).astype(np.int64) + (X > q[1]).astype(np.int64)


def microarray_sets() -> dict:
    """``{name: (codes DataFrame, y, K)}`` of the shared microarrays that are present."""
    from scipy.io import loadmat

    root = Path(os.environ.get("PGMPY_EXT_DATA", Path(__file__).resolve().parents[2] / "shared" / "datasets"))
    d = root / "microarray"
    out = {}
    if (d / "ALLAML.mat").exists():
        m = loadmat(d / "ALLAML.mat")
        out["leukemia (ALLAML, tertiles)"] = (_tertiles(m["X"]), m["Y"].ravel() - 1, 2)
    if (d / "leukemia.csv.gz").exists():
        df = pd.read_csv(d / "leukemia.csv.gz")
        raw = np.clip(df.iloc[:, :-1].to_numpy(float), 100, 16000)
        y = pd.factorize(df.iloc[:, -1], sort=True)[0]
        out["leukemia (csv raw, thresholded, tertiles)"] = (_tertiles(raw), y, 2)
        lg = np.log10(raw)
        lo, hi = lg.min(axis=0), lg.max(axis=0)
        width = np.where(hi > lo, (hi - lo) / 3, 1.0)
        out["leukemia (csv log10, equal-width thirds)"] = (np.clip(((lg - lo) / width).astype(np.int64), 0, 2), y, 2)
    for name in ("colon", "lymphoma"):
        if (d / f"{name}.mat").exists():
            m = loadmat(d / f"{name}.mat")
            X = m["X"]
            codes = np.searchsorted(np.unique(X), X)
            out[name] = (codes, m["Y"].ravel() - 1, len(np.unique(m["Y"])))
    for k, (codes, y, K) in list(out.items()):
        keep = codes.max(axis=0) > codes.min(axis=0)
        out[k] = (pd.DataFrame(codes[:, keep], columns=[f"g{j}" for j in np.flatnonzero(keep)]), y, K)
    return out


def microarray(reps: int = 5, only_sets=None) -> list[str]:
    sets = microarray_sets()
    if only_sets:
        sets = {k: v for k, v in sets.items() if any(k.startswith(o) for o in only_sets)}
    times = {}
    names = [*MICRO_LEARNERS, "k-means (one-hot)", "PCA + k-means"]
    L = ["## Microarrays: matched accuracy (%), mean ± sd over random_state 0-4", "",
         "| data | N x genes | K | " + " | ".join(names) + " |", "|---|---|---|" + "---|" * len(names)]
    extra = []
    for name, (X, y, K) in sets.items():
        res = {m: [] for m in names}
        nrel = {}
        for s in range(reps):
            for m, est in learners(K, s).items():
                if m not in MICRO_LEARNERS:
                    continue
                r = _cached(f"mic-{name}-{s}-{m}", lambda est=est: _fit_score(est, X, y))
                res[m].append(100 * r["acc"])
                times.setdefault(name, {}).setdefault(m, []).append((r.get("seconds"), r.get("load")))
                if "n_relevant" in r:
                    nrel.setdefault(m, []).append(r["n_relevant"])
            res["k-means (one-hot)"].append(100 * _cached(f"mic-{name}-{s}-kmeans", lambda: _kmeans(X, y, K, s))["acc"])
            res["PCA + k-means"].append(100 * _cached(f"mic-{name}-{s}-pcakmeans",
                                                      lambda: _pca_kmeans(X, y, K, s))["acc"])
        L.append(f"| {name} | {X.shape[0]} x {X.shape[1]} | {K} | "
                 + " | ".join(f"{np.mean(v):.1f} ± {np.std(v, ddof=1):.1f}" for v in res.values()) + " |")
        extra.append(f"* {name}: features with relevance > 1/2 (mean): "
                     + ", ".join(f"{m} {np.mean(v):.0f}" for m, v in nrel.items()))
    return L + [""] + extra + _timing_lines(times)


UCI = ["corral", "led7", "lymphography", "mofn_3_7_10", "monk1", "monk2", "monk3", "mux6", "soybean", "threeOf9",
       "tic_tac_toe", "vote", "xd6", "breast_w", "diabetes", "glass", "heart_statlog", "iris", "wine_recognition",
       "vehicle"]


def _uci_fold(name, fold, train, test, X, y, K, only=None):
    from pgmpy_ext.preprocessing import EqualFrequencyDiscretizer

    Xtr, Xte = X.iloc[train], X.iloc[test]
    cont = [c for c in X.columns if pd.api.types.is_float_dtype(X[c])]
    if cont:
        disc = EqualFrequencyDiscretizer(5, columns=cont).fit(Xtr)
        Xtr, Xte = disc.transform(Xtr), disc.transform(Xte)
    out = {}
    for m, est in learners(K, fold).items():
        if m not in MICRO_LEARNERS or (only is not None and m != only):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(Xtr)
        lab_tr = est.labels_
        mapping = {c: pd.Series(y[train][lab_tr == c]).mode().iloc[0] for c in np.unique(lab_tr)}
        default = pd.Series(y[train]).mode().iloc[0]
        pred = np.array([mapping.get(c, default) for c in est.predict(Xte)])
        out[m] = {"ll": float(est.score(Xte)), "acc": float(np.mean(pred == y[test]))}
    if only is not None:
        return out
    from sklearn.cluster import KMeans
    from sklearn.preprocessing import OneHotEncoder

    enc = OneHotEncoder(handle_unknown="ignore").fit(Xtr.astype(str))
    km = KMeans(K, n_init=10, random_state=fold).fit(enc.transform(Xtr.astype(str)).toarray())
    lab_tr = km.labels_
    mapping = {c: pd.Series(y[train][lab_tr == c]).mode().iloc[0] for c in np.unique(lab_tr)}
    pred = np.array([mapping[c] for c in km.predict(enc.transform(Xte.astype(str)).toarray())])
    out["k-means (one-hot)"] = {"ll": float("nan"), "acc": float(np.mean(pred == y[test]))}
    return out


def _num(v: float) -> str:
    return f"{v:.3f}" if np.isfinite(v) else "–"


def uci(sets=None) -> list[str]:
    from sklearn.model_selection import StratifiedKFold

    from pgmpy_ext.datasets import load_dataset

    names = [*MICRO_LEARNERS, "k-means (one-hot)"]
    ll_rows, acc_rows = [], []
    per = {m: {"ll": [], "acc": []} for m in names}
    for name in sets or UCI:
        X, y = load_dataset(name, continuous="float")
        y = np.asarray(y)
        K = len(np.unique(y))
        folds = StratifiedKFold(5, shuffle=True, random_state=0).split(X, y)
        res = []
        for f, (tr, te) in enumerate(folds):
            r = _cached(f"uci5-{name}-{f}", lambda f=f, tr=tr, te=te: _uci_fold(name, f, tr, te, X, y, K))
            for m in names:  # learners added after the fold was cached get their own cache entry
                if m not in r:
                    r[m] = _cached(f"uci5-{name}-{f}-{m}", lambda f=f, tr=tr, te=te, m=m: _uci_fold(
                        name, f, tr, te, X, y, K, only=m))[m]
            res.append(r)
        ll = {m: np.mean([r[m]["ll"] for r in res]) for m in names}
        acc = {m: np.mean([r[m]["acc"] for r in res]) for m in names}
        for m in names:
            per[m]["ll"].append(ll[m])
            per[m]["acc"].append(acc[m])
        ll_rows.append(f"| {name} | " + " | ".join(_num(ll[m]) for m in names) + " |")
        acc_rows.append(f"| {name} | " + " | ".join(f"{acc[m]:.4f}" for m in names) + " |")
    head = "| data | " + " | ".join(names) + " |"
    sep = "|---|" + "---|" * len(names)
    L = ["## UCI, 5-fold held-out log-likelihood per test row (higher is better)", "", head, sep, *ll_rows,
         "| **mean** | " + " | ".join(_num(np.mean(per[m]['ll'])) for m in names) + " |", "",
         "## UCI, 5-fold held-out accuracy (clusters mapped by the training rows' majority)", "", head, sep,
         *acc_rows, "| **mean** | " + " | ".join(f"{np.mean(per[m]['acc']):.4f}" for m in names) + " |", ""]
    from pgmpy_ext.evaluation import wilcoxon_signed_rank

    base = "EM"
    for m in names:
        if m == base:
            continue
        for key, label in (("ll", "held-out LL"), ("acc", "held-out accuracy")):
            if key == "ll" and m.startswith("k-means"):
                continue
            a, b = np.asarray(per[m][key]), np.asarray(per[base][key])
            p = float(wilcoxon_signed_rank(a, b).pvalue) if np.any(a != b) else 1.0
            L.append(f"* {m} vs {base}, {label}: better on {(a > b + 1e-12).sum()}, equal on "
                     f"{(np.abs(a - b) <= 1e-12).sum()}, worse on {(a < b - 1e-12).sum()} of {len(a)} (Wilcoxon p = "
                     f"{p:.3f})")
    return L


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("what", choices=["synthetic", "microarray", "uci"])
    ap.add_argument("--split", choices=list(SPLITS), default="heldout")
    ap.add_argument("--output")
    ap.add_argument("--sets", nargs="+", help="uci: only these data sets (default: all 20); microarray: only the "
                    "sets whose name starts with one of these")
    ap.add_argument("--sizes", nargs="+", help="synthetic: only these sizes, as NxNOISE (e.g. 40x100)")
    args = ap.parse_args(argv)
    lines = [f"load average at start: {os.getloadavg()}", ""]
    t0 = time.perf_counter()
    if args.what == "synthetic":
        lines += synthetic(args.split, args.sizes)
    elif args.what == "microarray":
        lines += microarray(only_sets=args.sets)
    else:
        lines += uci(args.sets)
    lines += ["", f"load average at end: {os.getloadavg()}; wall time {(time.perf_counter() - t0) / 60:.1f} min "
              "(cached fits are not recomputed)"]
    text = "\n".join(lines) + "\n"
    if args.output:
        Path(args.output).write_text(text)
    print(text)


if __name__ == "__main__":
    main()

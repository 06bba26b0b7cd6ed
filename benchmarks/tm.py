"""NB-TM and TAN-TM (discriminative parameters by the count-space TM algorithm, seed 001 spec 5.4-5.6) against
scikit-learn's unregularised multinomial logistic regression on the equivalent one-hot features.

For naive Bayes the conditional model of the TM is exactly the logistic regression on one-hot ``(c, x_i)``
features; for TAN it is the one with the extra one-hot ``(c, x_i, x_j(i))`` features of the tree edges (spec 5.4.1).
Both maximise the same training conditional log-likelihood (CLL, nats), so the comparison is "time to reach the
same CLL":

* LR: ``LogisticRegression(C=np.inf)`` (sklearn 1.8 deprecated ``penalty=None``; ``C=inf`` is its replacement),
  lbfgs, on a sparse CSR one-hot matrix. Its optimum is the run with ``tol=1e-8`` (at most ``--lr-max-iter``
  iterations). The time LR needs to reach a CLL is the time of the fit with the smallest ``max_iter`` whose CLL
  is at least that value (lbfgs iterates do not depend on ``max_iter``); building the one-hot matrix is not
  timed.
* TM: :func:`pgmpy_ext.parameters.fit_tm` on the encoded data, timed from the call (compression to unique rows
  included) to the first iteration whose CLL reaches the target; "thesis" = grid line search and ``tol=1e-3``,
  "backtracking" = the backtracking line search with ``tol=1e-3``, "lbfgs" = ``solver="lbfgs"`` (L-BFGS-B on the
  log-counts, same objective and model, not the thesis's iteration) with ``tol=1e-3`` (all at most ``--max-iter``
  iterations).
* Both run single-threaded (``threadpool_limits(1)`` around everything: on 2 shared cores, multi-threaded
  OpenBLAS made lbfgs up to 20x slower; the TM kernels are serial).
* Target ("the CLL both reach") = min(final TM CLL, LR optimum). ``ratio = TM time / LR time``: below 1 means
  the TM got there first.

The TAN structure is construct-TAN on the whole data (not timed). Encoding the DataFrame is not timed for either.

All three variants optimise the thesis's objective (the plain CLL from maximum likelihood, ``alpha=0``), the one
this table compares with an unregularised logistic regression; the library's default adds a Gaussian prior
(issue 26), which the two other modes of this script measure:

* ``python benchmarks/tm.py heldout [...]``: the held-out table (10-fold CV log loss and accuracy of every TM learner
  against its generative twin, tuned logistic regression and CategoricalNB; ``benchmarks/tm_heldout.py``);
* ``python benchmarks/tm.py speed --baseline ../main [...]``: the time per fit of the default TM learners against
  another checkout of pgmpy-ext (e.g. the branch point), each measured in its own process, alternating, in one run.

Usage: python benchmarks/tm.py [--datasets chess,splice,mushroom,letter] [--models NB,TAN] [--max-iter 2000]
       python benchmarks/tm.py heldout [--datasets all] [--folds 10] [--learners ...] [--report FILE]
       python benchmarks/tm.py speed --baseline PATH [--datasets ...] [--rounds 5]
Data: ../shared/datasets/uci/<name>.tsv.gz (or $PGMPY_EXT_DATA/uci).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

from pgmpy_ext.data import encode
from pgmpy_ext.datasets import load_dataset
from pgmpy_ext.parameters import fit_tm
from pgmpy_ext.structure import fit_tan

DATASETS = ["chess", "splice", "mushroom", "letter"]
#: fit_tm options of each TM variant.
VARIANTS = {"thesis": {"solver": "tm", "line_search": "grid", "alpha": 0.0},
            "backtracking": {"solver": "tm", "line_search": "backtracking", "alpha": 0.0},
            "lbfgs": {"solver": "lbfgs", "alpha": 0.0, "prior_strength": 0.0}}


def one_hot(data, features, edges=()) -> sp.csr_matrix:
    """Sparse one-hot columns of every feature, then of every (parent, child) pair of ``edges``."""
    n = data.n_rows
    blocks = []
    for f in features:
        codes = data.codes[:, data.index(f)]
        blocks.append(sp.csr_matrix((np.ones(n), (np.arange(n), codes)), shape=(n, data.card(f))))
    for p, c in edges:
        a, b = data.codes[:, data.index(p)].astype(np.int64), data.codes[:, data.index(c)].astype(np.int64)
        width = data.card(p) * data.card(c)
        blocks.append(sp.csr_matrix((np.ones(n), (np.arange(n), a * data.card(c) + b)), shape=(n, width)))
    return sp.hstack(blocks, format="csr")


def lr_fit(F, y, max_iter, tol=1e-8):
    """(cll, n_iter, seconds) of one lbfgs fit."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        t = time.perf_counter()
        lr = LogisticRegression(C=np.inf, tol=tol, max_iter=max_iter).fit(F, y)
        el = time.perf_counter() - t
    with np.errstate(divide="ignore"):
        lp = lr.predict_log_proba(F)
    return float(lp[np.arange(len(y)), np.searchsorted(lr.classes_, y)].sum()), int(np.max(lr.n_iter_)), el


def reaches(cll, target):
    return cll >= target - 1e-9 * abs(target)


def lr_time_to(F, y, target, cap, repeat):
    """(seconds, max_iter, cll) of the cheapest lbfgs fit whose CLL reaches ``target`` (None if none within cap)."""
    cache = {}

    def cll_at(k):
        if k not in cache:
            cache[k] = lr_fit(F, y, k)[0]
        return cache[k]

    hi = 1
    while not reaches(cll_at(hi), target):
        if hi >= cap:
            return None
        hi = min(2 * hi, cap)
    lo = hi // 2  # cll_at(lo) does not reach (or lo == 0)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if reaches(cll_at(mid), target):
            hi = mid
        else:
            lo = mid
    best = min(lr_fit(F, y, hi)[2] for _ in range(repeat))
    return best, hi, cache[hi]


def tm_time_to(res, target):
    ok = np.flatnonzero(res.cll_trace >= target - 1e-9 * abs(target))
    return (float(res.elapsed[ok[0]]), int(ok[0])) if ok.size else (None, None)


def run(name, models, variants, max_iter, lr_max_iter, repeat):
    X, y = load_dataset(name)
    df = X.assign(_class_=y.to_numpy())
    data = encode(df)
    feats = list(X.columns)
    yy = data.codes[:, data.index("_class_")]
    rows = []
    for model in models:
        if model == "NB":
            parents = {"_class_": [], **{f: ["_class_"] for f in feats}}
            edges = []
        else:
            tan = fit_tan(data, "_class_")
            parents = tan.parent_sets()
            edges = tan.augmenting_edges()
        F = one_hot(data, feats, edges)
        lr_opt, lr_iters, lr_sec = lr_fit(F, yy, lr_max_iter)
        lr_def = lr_fit(F, yy, 100, tol=1e-4)
        for variant in variants:
            opts = VARIANTS[variant]
            res = fit_tm(data, "_class_", parents, tol=1e-3, max_iter=max_iter, warn=False, **opts)
            if res.elapsed[-1] < 2.0 and repeat > 1:  # best of `repeat` for short runs
                for _ in range(repeat - 1):
                    again = fit_tm(data, "_class_", parents, tol=1e-3, max_iter=max_iter, warn=False, **opts)
                    if again.elapsed[-1] < res.elapsed[-1]:
                        res = again
            target = min(res.cll, lr_opt)
            t_tm, it_tm = tm_time_to(res, target)
            lr_to = lr_time_to(F, yy, target, lr_max_iter, repeat)
            rows.append({
                "data": name, "model": model, "variant": variant, "n": data.n_rows, "unique": None,
                "onehot": F.shape[1], "ml": res.cll_ml, "tm": res.cll, "tm_iter": res.n_iter, "stop": res.stop_reason,
                "tm_sec": res.elapsed[-1], "lr_opt": lr_opt, "lr_opt_iter": lr_iters, "lr_opt_sec": lr_sec,
                "lr_default": lr_def, "target": target, "t_tm": t_tm, "it_tm": it_tm,
                "t_lr": None if lr_to is None else lr_to[0], "it_lr": None if lr_to is None else lr_to[1],
            })
            print(_fmt(rows[-1]), flush=True)
    return rows


def _fmt(r):
    ratio = r["t_tm"] / r["t_lr"] if r["t_tm"] and r["t_lr"] else float("nan")
    return (f"| {r['data']} | {r['model']}-TM {r['variant']} | {r['ml']:.2f} | {r['tm']:.2f} ({r['tm_iter']} it, "
            f"{r['stop']}, {r['tm_sec']:.3f} s) | {r['lr_opt']:.2f} ({r['lr_opt_iter']} it, {r['lr_opt_sec']:.3f} s) "
            f"| {r['target']:.2f} | {r['t_tm']:.3f} s ({r['it_tm']} it) | "
            + ("n/a" if r["t_lr"] is None else f"{r['t_lr']:.3f} s ({r['it_lr']} it)") + f" | {ratio:.2f} |")


HEADER = ("| data | learner | CLL at ML | TM final CLL (iterations, stop, time) | LR optimum (iterations, time) | "
          "CLL both reach | TM time to it | LR time to it | ratio TM/LR |\n|---|---|---|---|---|---|---|---|---|")


# ---------------------------------------------------------------------------------------------- speed vs a checkout
SPEED_DATASETS = ["australian", "chess", "splice", "vehicle", "soybean", "letter"]
#: Timed in a child process (``python -c``) with the checkout to measure first on ``sys.path``: the best of
#: ``repeat`` fits of each learner with ``TMEstimator()``'s defaults (the classifier fit, encoding and structure
#: included, and the TM parameter fit alone), on one 90 % training fold (equal-frequency bins on that fold).
_CHILD = r"""
import json, sys, time, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, sys.argv[1])
sys.path.insert(1, sys.argv[2])
import tm_heldout as t
from threadpoolctl import threadpool_limits
from pgmpy_ext.classifiers import NaiveBayesClassifier, TANClassifier
from pgmpy_ext.parameters import TMEstimator, fit_tm
import pgmpy_ext
out = {"path": pgmpy_ext.__file__, "fits": {}}
with threadpool_limits(1):
    for name in sys.argv[3].split(","):
        X, y, _ = t.load(name, t.MAX_ROWS)
        Xtr, ytr, _, _ = t._fold_frames(X, y, t._folds(y, 10))[0]
        for cls in (NaiveBayesClassifier, TANClassifier):
            best_clf = best_tm = float("inf")
            for _ in range(int(sys.argv[4])):
                t0 = time.perf_counter()
                clf = cls(estimator=TMEstimator()).fit(Xtr, ytr)
                best_clf = min(best_clf, time.perf_counter() - t0)
                parents = clf.structure_.parent_sets()
                opts = {k: v for k, v in TMEstimator().get_params().items() if k not in ("class_node", "state_names")}
                t0 = time.perf_counter()
                res = fit_tm(clf.encoder_, clf.class_node_, parents, warn=False, **opts)
                best_tm = min(best_tm, time.perf_counter() - t0)
            label = "NB" if cls is NaiveBayesClassifier else "TAN"
            out["fits"][f"{name} {label}"] = [best_clf, best_tm, int(res.n_iter)]
print(json.dumps(out))
"""


def speed(argv=None):
    """Time per fit of the default NB-TM and TAN-TM here and in ``--baseline`` (rounds alternate the two)."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    from _common import load_average, machine

    ap = argparse.ArgumentParser(description="time per fit against another checkout")
    ap.add_argument("--baseline", required=True, help="root of the other checkout (e.g. ../main)")
    ap.add_argument("--datasets", default=",".join(SPEED_DATASETS))
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds (the best of all rounds is kept)")
    ap.add_argument("--repeat", type=int, default=3, help="fits per learner and round (best of)")
    args = ap.parse_args(argv)
    here = Path(__file__).resolve().parent
    roots = {"this": str(here.parent), "baseline": str(Path(args.baseline).resolve())}
    print(f"machine: {machine()}; load average {load_average()}", flush=True)
    best: dict = {}
    for r in range(args.rounds):
        for label, root in roots.items():
            env = {**os.environ, "PYTHONPATH": root}
            proc = subprocess.run([sys.executable, "-c", _CHILD, root, str(here), args.datasets, str(args.repeat)],
                                  env=env, capture_output=True, text=True, check=True)
            res = json.loads(proc.stdout.strip().splitlines()[-1])
            if not res["path"].startswith(root):
                raise RuntimeError(f"the {label} run imported pgmpy_ext from {res['path']}, not from {root}")
            for key, (t_clf, t_tm, n_iter) in res["fits"].items():
                b = best.setdefault((label, key), [float("inf"), float("inf"), n_iter])
                b[0], b[1] = min(b[0], t_clf), min(b[1], t_tm)
        print(f"round {r + 1}/{args.rounds} done; load average {load_average()}", flush=True)
    print("\n| data | learner | classifier fit: this / baseline (s) | ratio | TM fit: this / baseline (s) | ratio "
          "| TM iterations: this / baseline |\n|---|---|---|---|---|---|---|")
    ratios = []
    for (label, key), (t_clf, t_tm, it) in best.items():
        if label != "this":
            continue
        b_clf, b_tm, b_it = best[("baseline", key)]
        ratios.append((t_clf / b_clf, t_tm / b_tm))
        name, learner = key.split()
        print(f"| {name} | {learner}-TM | {t_clf:.4f} / {b_clf:.4f} | {t_clf / b_clf:.2f} | {t_tm:.4f} / {b_tm:.4f} "
              f"| {t_tm / b_tm:.2f} | {it} / {b_it} |")
    r = np.array(ratios)
    print(f"\nratio this / baseline: classifier fit median {np.median(r[:, 0]):.2f} (max {r[:, 0].max():.2f}); "
          f"TM fit median {np.median(r[:, 1]):.2f} (max {r[:, 1].max():.2f})")
    print(f"load average at the end: {load_average()}")


def main(argv=None):
    import sys

    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["heldout"]:
        import tm_heldout

        return tm_heldout.main(argv[1:])
    if argv[:1] == ["speed"]:
        return speed(argv[1:])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--models", default="NB,TAN")
    ap.add_argument("--variants", default=",".join(VARIANTS), help="TM variants (default: all)")
    ap.add_argument("--max-iter", type=int, default=2000, help="TM iteration cap (default 2000)")
    ap.add_argument("--lr-max-iter", type=int, default=5000, help="lbfgs iteration cap (default 5000)")
    ap.add_argument("--repeat", type=int, default=3, help="best of this many timings for short runs")
    args = ap.parse_args(argv)
    from _common import load_average, machine

    print(f"machine: {machine()}; load average {load_average()}")
    print(HEADER)
    with threadpool_limits(limits=1):
        for name in args.datasets.split(","):
            run(name, args.models.split(","), args.variants.split(","), args.max_iter, args.lr_max_iter, args.repeat)
    print(f"load average at the end: {load_average()}")


if __name__ == "__main__":
    main()

"""Reproduction of the ten-dataset map comparison of Ruz's thesis (seed 000 section 5.4.3, Figs. 5.5-5.14): PCA, SOM,
GTM and NBM judged by trustworthiness M1(k) and continuity M2(k), k = 5, 10, ..., 50, and the statements of spec
section 8.5 checked one by one.

Protocol (``docs/decisions/seed000-sbn-cem-nbm.md`` sections 5.7, 6.4, 8.5): every attribute z-scored;
* PCA: scikit-learn, first two components;
* SOM: MiniSom 10 x 10, Gaussian neighbourhood with the sigma schedule of eq. 5.19 and alpha 0.5 -> 0.02, random
  weights; hard projection; the best run by quantisation error (the thesis chose visually, with the class labels);
* GTM: ugtm, 10 x 10 latent grid, 16 or 25 RBF centres (the better by log-likelihood), s = 0.3, regul = 0.1;
  posterior-mean projection (ugtm initialises from PCA, so there are no random restarts);
* NBM: :class:`pgmpy_ext.maps.NaiveBayesMap`, 10 x 10, 50 epochs, 10 restarts, the best by log-likelihood,
  alpha (0.1, 0.05); soft projection.
M1 and M2 with exact tie averaging (:func:`pgmpy_ext.evaluation.trustworthiness_continuity`), which matters for
the SOM's hard projection.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np

from pgmpy_ext.experiments._common import fmt, md_table, report_path, run_facts, write_report
from pgmpy_ext.experiments._seed000_nbm_common import (
    DATASETS,
    NBM_RULES,
    figure_dir,
    load_standardised,
    run_gtm,
    run_nbm,
    run_pca,
    run_som,
    save,
)

__all__ = ["STATEMENTS", "run"]

NAME = "seed000-nbm-maps"
METHODS = ("PCA", "SOM", "GTM", "NBM")
KS = tuple(range(5, 51, 5))
TOL = 0.01   # "approximately equal": mean curves within 0.01


def _k(r, lo=None, hi=None):
    return [i for i, k in enumerate(KS) if (lo is None or k >= lo) and (hi is None or k <= hi)]


def _mean(r, meth, meas, lo=None, hi=None):
    return float(np.mean(r[meth][meas][_k(r, lo, hi)]))


def _order(r, meas, lo=None, hi=None):
    return sorted(r, key=lambda m: -_mean(r, m, meas, lo, hi))


def _all(r, meth, meas, pred, lo=None, hi=None):
    return all(pred(v) for v in r[meth][meas][_k(r, lo, hi)])


def _gt(r, a, b, meas, lo=None, hi=None, ge=False):
    ia = r[a][meas][_k(r, lo, hi)]
    ib = r[b][meas][_k(r, lo, hi)]
    return bool((ia >= ib).all() if ge else (ia > ib).all())


def _close(r, a, b, meas, lo=None, hi=None):
    return abs(_mean(r, a, meas, lo, hi) - _mean(r, b, meas, lo, hi)) <= TOL


#: (dataset, statement from section 8.5, methods needed, check on {method: {"T": M1 array, "C": M2 array}})
STATEMENTS = [
    ("Australian", "SOM best M1", "SOM GTM NBM PCA", lambda r: _order(r, "T")[0] == "SOM"),
    ("Australian", "NBM > GTM (M1) for k <= 15", "GTM NBM", lambda r: _gt(r, "NBM", "GTM", "T", hi=15)),
    ("Australian", "SOM, GTM, NBM all M1 > 0.9 for k <= 15", "SOM GTM NBM",
     lambda r: all(_all(r, m, "T", lambda v: v > 0.9, hi=15) for m in ("SOM", "GTM", "NBM"))),
    ("Australian", "PCA weakest on both measures", "SOM GTM NBM PCA",
     lambda r: _order(r, "T")[-1] == "PCA" and _order(r, "C")[-1] == "PCA"),
    ("Australian", "M2: PCA < SOM < GTM ~ NBM", "SOM GTM NBM PCA",
     lambda r: _mean(r, "PCA", "C") < _mean(r, "SOM", "C") < min(_mean(r, "GTM", "C"), _mean(r, "NBM", "C"))
     and _close(r, "GTM", "NBM", "C")),
    ("Breast", "M1: SOM > GTM > NBM", "SOM GTM NBM",
     lambda r: _mean(r, "SOM", "T") > _mean(r, "GTM", "T") > _mean(r, "NBM", "T")),
    ("Breast", "SOM, GTM, NBM M1 > 0.9 for k <= 10", "SOM GTM NBM",
     lambda r: all(_all(r, m, "T", lambda v: v > 0.9, hi=10) for m in ("SOM", "GTM", "NBM"))),
    ("Breast", "PCA M1 > 0.85 for k <= 10", "PCA", lambda r: _all(r, "PCA", "T", lambda v: v > 0.85, hi=10)),
    ("Breast", "M2: PCA best, then NBM, SOM, GTM", "SOM GTM NBM PCA",
     lambda r: _order(r, "C") == ["PCA", "NBM", "SOM", "GTM"]),
    ("Cleve", "PCA M1 < 0.8 for k <= 25", "PCA", lambda r: _all(r, "PCA", "T", lambda v: v < 0.8, hi=25)),
    ("Cleve", "SOM best M1 for k <= 20", "SOM GTM NBM PCA", lambda r: _order(r, "T", hi=20)[0] == "SOM"),
    ("Cleve", "GTM ~ NBM (M1) for k <= 15", "GTM NBM", lambda r: _close(r, "GTM", "NBM", "T", hi=15)),
    ("Cleve", "M2: NBM best", "SOM GTM NBM PCA", lambda r: _order(r, "C")[0] == "NBM"),
    ("Crx", "0.84 < PCA M1 < 0.86", "PCA", lambda r: _all(r, "PCA", "T", lambda v: 0.84 < v < 0.86)),
    ("Crx", "NBM >= SOM (M1) from k = 10 on", "SOM NBM", lambda r: _gt(r, "NBM", "SOM", "T", lo=10, ge=True)),
    ("Crx", "NBM > GTM (M1) for k <= 20", "GTM NBM", lambda r: _gt(r, "NBM", "GTM", "T", hi=20)),
    ("Crx", "M2: PCA best for k <= 10, then NBM", "SOM GTM NBM PCA",
     lambda r: _order(r, "C", hi=10)[:2] == ["PCA", "NBM"]),
    ("Diabetes", "0.80 < PCA M1 < 0.84", "PCA", lambda r: _all(r, "PCA", "T", lambda v: 0.80 < v < 0.84)),
    ("Diabetes", "SOM, GTM, NBM all M1 > 0.9", "SOM GTM NBM",
     lambda r: all(_all(r, m, "T", lambda v: v > 0.9) for m in ("SOM", "GTM", "NBM"))),
    ("Diabetes", "NBM > GTM (M1) for k <= 35", "GTM NBM", lambda r: _gt(r, "NBM", "GTM", "T", hi=35)),
    ("Diabetes", "M2: PCA best, then NBM", "SOM GTM NBM PCA", lambda r: _order(r, "C")[:2] == ["PCA", "NBM"]),
    ("Heart", "0.75 < PCA M1 < 0.82", "PCA", lambda r: _all(r, "PCA", "T", lambda v: 0.75 < v < 0.82)),
    ("Heart", "SOM, GTM, NBM M1 > 0.85 for k <= 30", "SOM GTM NBM",
     lambda r: all(_all(r, m, "T", lambda v: v > 0.85, hi=30) for m in ("SOM", "GTM", "NBM"))),
    ("Heart", "M2: PCA ~ GTM ~ NBM > SOM", "SOM GTM NBM PCA",
     lambda r: max(_mean(r, m, "C") for m in ("PCA", "GTM", "NBM"))
     - min(_mean(r, m, "C") for m in ("PCA", "GTM", "NBM")) <= 2 * TOL
     and min(_mean(r, m, "C") for m in ("PCA", "GTM", "NBM")) > _mean(r, "SOM", "C")),
    ("Ionosphere", "0.81 < PCA M1 < 0.84", "PCA", lambda r: _all(r, "PCA", "T", lambda v: 0.81 < v < 0.84)),
    ("Ionosphere", "GTM best M1 for k >= 10", "SOM GTM NBM PCA", lambda r: _order(r, "T", lo=10)[0] == "GTM"),
    ("Ionosphere", "M2: NBM clearly best", "SOM GTM NBM PCA",
     lambda r: _order(r, "C")[0] == "NBM" and _mean(r, "NBM", "C") - _mean(r, _order(r, "C")[1], "C") > TOL),
    ("Iris", "PCA best M1, > 0.97 for all k", "SOM GTM NBM PCA",
     lambda r: _order(r, "T")[0] == "PCA" and _all(r, "PCA", "T", lambda v: v > 0.97)),
    ("Iris", "NBM close behind PCA (second M1)", "SOM GTM NBM PCA", lambda r: _order(r, "T")[1] == "NBM"),
    ("Iris", "GTM M1 ~ 0.92 at k = 50", "GTM", lambda r: abs(r["GTM"]["T"][-1] - 0.92) <= 1.5 * TOL),
    ("Iris", "SOM M1 ~ 0.91 at k = 50", "SOM", lambda r: abs(r["SOM"]["T"][-1] - 0.91) <= 1.5 * TOL),
    ("Iris", "M2: NBM ~ PCA best", "SOM GTM NBM PCA", lambda r: set(_order(r, "C")[:2]) == {"NBM", "PCA"}),
    ("Pima", "0.80 < PCA M1 < 0.84", "PCA", lambda r: _all(r, "PCA", "T", lambda v: 0.80 < v < 0.84)),
    ("Pima", "SOM best M1", "SOM GTM NBM PCA", lambda r: _order(r, "T")[0] == "SOM"),
    ("Pima", "NBM > GTM (M1) for all k", "GTM NBM", lambda r: _gt(r, "NBM", "GTM", "T")),
    ("Pima", "M2: NBM best", "SOM GTM NBM PCA", lambda r: _order(r, "C")[0] == "NBM"),
    ("Wine", "SOM best M1 for k <= 10", "SOM GTM NBM PCA", lambda r: _order(r, "T", hi=10)[0] == "SOM"),
    ("Wine", "GTM and NBM M1 > 0.92 for all k", "GTM NBM",
     lambda r: _all(r, "GTM", "T", lambda v: v > 0.92) and _all(r, "NBM", "T", lambda v: v > 0.92)),
    ("Wine", "PCA M1 above SOM from k = 25", "SOM PCA", lambda r: _gt(r, "PCA", "SOM", "T", lo=25)),
    ("Wine", "M2: PCA best at k = 5", "SOM GTM NBM PCA", lambda r: _order(r, "C", hi=5)[0] == "PCA"),
    ("Wine", "M2: SOM lowest", "SOM GTM NBM PCA", lambda r: _order(r, "C")[-1] == "SOM"),
]


def _nbm_key(rule, rules):
    """The column of NBM under ``rule``: "NBM" when one rule is run (the statements' name), else "NBM <rule>"."""
    return "NBM" if len(rules) == 1 else f"NBM {rule}"


def _methods(rules):
    return (*METHODS[:3], *(_nbm_key(r, rules) for r in rules))


def _view(q, rule, rules):
    """The four curves the statements read, with NBM under ``rule``."""
    return {**{m: q[m] for m in METHODS[:3] if m in q}, **({"NBM": q[_nbm_key(rule, rules)]}
                                                           if _nbm_key(rule, rules) in q else {})}


def _run_dataset(name, file, quick, data_home, n_jobs, log, rules=("thesis",), som_epochs=100, som_runs=3):
    X, y, dropped = load_standardised(file, data_home)
    out = {"n": X.shape[0], "d": X.shape[1], "dropped": dropped, "maps": {}, "q": {}, "notes": {}, "time": {}}
    from pgmpy_ext.evaluation import trustworthiness_continuity

    runners = {
        "PCA": lambda: run_pca(X),
        "SOM": lambda: run_som(X, n_epochs=5 if quick else som_epochs, n_init=1 if quick else som_runs)[0],
        "GTM": lambda: run_gtm(X, niter=5 if quick else 50)[0],
    }
    for rule in rules:
        runners[_nbm_key(rule, rules)] = (lambda rule=rule: run_nbm(
            X, n_epochs=5 if quick else 50, n_init=2 if quick else 10, n_jobs=n_jobs, rule=rule)[0])
    for meth in runners:
        t = time.perf_counter()
        try:
            Y = runners[meth]()
        except ImportError as err:
            out["notes"][meth] = f"not run: {err.name or err} is not installed"
            log(f"  {meth}: {out['notes'][meth]}")
            continue
        out["time"][meth] = time.perf_counter() - t
        ks = [k for k in KS if k < X.shape[0] / 2]
        T, C = trustworthiness_continuity(X, Y, n_neighbors=ks)
        out["maps"][meth] = Y
        out["q"][meth] = {"T": np.asarray(T), "C": np.asarray(C)}
        log(f"  {meth}: M1(5) {T[0]:.3f} M2(5) {C[0]:.3f} ({out['time'][meth]:.1f} s)")
    return X, y, out


def _figure(name, y, res, path, methods=METHODS):
    from matplotlib.figure import Figure

    from pgmpy_ext.maps import plot_map, plot_quality

    n = len(methods) + 2
    fig = Figure(figsize=(3 * n, 3.4))
    for i, meth in enumerate(methods):
        ax = fig.add_subplot(1, n, i + 1)
        if meth in res["maps"]:
            plot_map(res["maps"][meth], y, ax=ax, title=f"{name}: {meth}")
        else:
            ax.set_title(f"{meth}: not run", fontsize=9)
            ax.set_axis_off()
    ks = list(KS)[: len(next(iter(res["q"].values()))["T"])]
    plot_quality(ks, {m: q["T"] for m, q in res["q"].items()}, ax=fig.add_subplot(1, n, n - 1), ylabel="M1")
    plot_quality(ks, {m: q["C"] for m, q in res["q"].items()}, ax=fig.add_subplot(1, n, n), ylabel="M2")
    save(fig, path)


RULE_TEXT = {"thesis": "the thesis's rule (`THESIS_RULE`: uniform start, variance floor 1e-6; 50 epochs, 10 restarts, "
                        "the best by log-likelihood)",
             "default": "`NaiveBayesMap()`'s defaults (issue 27: principal-plane start, variance floor 1.0 in "
                         "z-scored units, 50 epochs, 1 restart, soft projection at posterior temperature 0.75 "
                         "within a window of radius 4.5 grid units around the winner)"}


def _check_all(results, chosen, rule, rules):
    """{(data set, statement): True/False/None (not checked)} under ``rule``, and the orders of the mean curves."""
    out = {}
    for ds, text, need, check in STATEMENTS:
        res = results.get(ds)
        if res is None:
            if ds in chosen:
                out[ds, text] = None
            continue
        r = _view(res["q"], rule, rules)
        out[ds, text] = bool(check(r)) if all(m in r for m in need.split()) else None
    return out


def _both_tables(results, chosen, rules):
    """The statements under each rule side by side, T(10) / C(10) per data set, and the overall statements."""
    L = []
    checks = {rule: _check_all(results, chosen, rule, rules) for rule in rules}
    keys = list(checks[rules[0]])
    word = {True: "holds", False: "does not hold", None: "not checked"}
    rows = [[ds, text, *[word[checks[r][ds, text]] for r in rules]] for ds, text in keys]
    L += md_table(["data set", "statement (thesis, section 8.5)", *[f"NBM: {r}" for r in rules]], rows)
    L.append("")
    for r in rules:
        hold = sum(v is True for v in checks[r].values())
        n = sum(v is not None for v in checks[r].values())
        L.append(f"* NBM {r}: {hold} of {n} checked statements hold.")
    changed = [f"{ds}: {text} ({word[checks[rules[0]][ds, text]]} -> {word[checks[rules[1]][ds, text]]})"
               for ds, text in keys if checks[rules[0]][ds, text] != checks[rules[1]][ds, text]]
    L += [f"* Changed from {rules[0]} to {rules[1]} ({len(changed)}): " + ("; ".join(changed) or "none") + ".", ""]
    i10 = KS.index(10)
    L += ["## T(10) / C(10) per data set", "",
          "Trustworthiness and continuity at k = 10. 'NBM default >= PCA': both T and C at least PCA's; 'within "
          "0.01': T and C each within 0.01 of (or above) the better of SOM and GTM.", ""]
    cols = _methods(rules)
    rows, sums = [], {m: [] for m in cols}
    n_pca, n_near = dict.fromkeys(rules, 0), dict.fromkeys(rules, 0)
    for name, res in results.items():
        if res is None or not all(m in res["q"] for m in cols):
            continue
        tc = {m: (res["q"][m]["T"][i10], res["q"][m]["C"][i10]) for m in cols}
        for m in cols:
            sums[m].append(tc[m])
        best = (max(tc["SOM"][0], tc["GTM"][0]), max(tc["SOM"][1], tc["GTM"][1]))
        for r in rules:
            t, c = tc[_nbm_key(r, rules)]
            n_pca[r] += t >= tc["PCA"][0] and c >= tc["PCA"][1]
            n_near[r] += t >= best[0] - TOL and c >= best[1] - TOL
        rows.append([name, f"{res['n']} x {res['d']}", *[f"{fmt(tc[m][0], 3)} / {fmt(tc[m][1], 3)}" for m in cols]])
    if rows:
        rows.append(["mean", "", *[f"{fmt(np.mean([v[0] for v in sums[m]]), 3)} / "
                                   f"{fmt(np.mean([v[1] for v in sums[m]]), 3)}" for m in cols]])
    L += md_table(["data set", "N x n", *cols], rows)
    L.append("")
    for r in rules:
        L.append(f"* NBM {r}: T and C >= PCA's on {n_pca[r]} of {len(rows) - 1 if rows else 0} data sets; T and C "
                 f"within 0.01 of the better of SOM and GTM on {n_near[r]}.")
    L.append("")
    full = {n: r for n, r in results.items() if r and all(m in r["q"] for m in cols)}
    if full:
        L += ["## Overall statements", ""]
        for rule in rules:
            v = {n: _view(r["q"], rule, rules) for n, r in full.items()}
            som_small = sum(_order(q, "T", hi=10)[0] == "SOM" for q in v.values())
            som_worst = sum(_order(q, "C")[-1] == "SOM" for q in v.values())
            nbm_gtm = sum(_mean(q, "NBM", "C") >= _mean(q, "GTM", "C") for q in v.values())
            L.append(f"* NBM {rule}: SOM best mean M1 over k <= 10 on {som_small} of {len(full)}; SOM lowest mean "
                     f"M2 on {som_worst}; NBM's mean M2 >= GTM's on {nbm_gtm}.")
        L.append("")
    return L


def run(output=None, *, output_dir=None, quick: bool = False, n_jobs: int | None = None, datasets=None,
        data_home=None, log=print, nbm: str = "thesis", som_epochs: int | None = None,
        som_runs: int | None = None) -> Path:
    """Run the comparison and write the report (and one PNG per data set); returns the report's path.

    ``quick``: Iris only (unless ``datasets`` says otherwise), 5 epochs, 1-2 runs per method; not the reproduction.
    ``datasets``: thesis names (default: all ten). A data set missing from ``../shared/datasets`` is reported as not
    available.
    ``nbm``: ``"thesis"`` (the reproduction: the thesis's rule, ``THESIS_RULE``, 10 restarts), ``"default"``
    (``NaiveBayesMap()``'s defaults since issue 27) or ``"both"`` (both maps beside the same PCA, SOM and GTM, and
    the statements checked under each).
    ``som_epochs``, ``som_runs``: MiniSom's budget (default 100 epochs x 3 runs; the thesis: 1000 x 10).
    """
    if nbm not in (*NBM_RULES, "both"):
        raise ValueError(f"nbm == {nbm!r}: use 'thesis' (the thesis's rule), 'default' (NaiveBayesMap()'s "
                         "defaults) or 'both'.")
    rules = NBM_RULES if nbm == "both" else (nbm,)
    methods = _methods(rules)
    som_epochs = 100 if som_epochs is None else int(som_epochs)
    som_runs = 3 if som_runs is None else int(som_runs)
    path = report_path(output, NAME, output_dir)
    t0 = time.perf_counter()
    load0 = os.getloadavg()
    chosen = list(datasets) if datasets is not None else (["Iris"] if quick else [d[0] for d in DATASETS])
    figs = figure_dir(path)
    results = {}
    for name, file, rows, note in DATASETS:
        if name not in chosen:
            continue
        log(f"{name} ...")
        try:
            X, y, res = _run_dataset(name, file, quick, data_home, n_jobs, log, rules, som_epochs, som_runs)
        except FileNotFoundError:
            results[name] = None
            log(f"  {name}: not available in ../shared/datasets")
            continue
        tag = "" if nbm == "thesis" else f"-nbm-{nbm}"
        fname = f"{NAME}-{name.lower()}{tag}{'-quick' if quick else ''}.png"
        _figure(name, y, res, figs / fname, methods)
        res["figure"] = fname
        results[name] = res

    L = [f"# {NAME}: PCA, SOM, GTM and NBM maps of ten UCI data sets (thesis Figs. 5.5-5.14)", "",
         run_facts(time.perf_counter() - t0, n_jobs, quick), "",
         "## Protocol", "", (__doc__ or "").split("Protocol", 1)[1].split("\n", 1)[1].strip(), "",
         f"Here: SOM {'5' if quick else som_epochs} epochs (the thesis: 1000) and {'1' if quick else som_runs} runs "
         "(the thesis: 10), to keep the run within minutes (MiniSom trains one sample at a time in Python); GTM "
         f"{'5' if quick else '50'} cycles; NBM {'5 epochs, 2' if quick else '50 epochs, 10'} restarts.", ""]
    if nbm != "thesis":
        L += [f"NBM run here: {', '.join(RULE_TEXT[r] for r in rules)}.", "",
              f"Load average (1, 5, 15 min): {', '.join(f'{v:.1f}' for v in load0)} at the start, "
              f"{', '.join(f'{v:.1f}' for v in os.getloadavg())} at the end (2 cores shared; the fit times are "
              "noisy).", ""]
    notes = {m: n for r in results.values() if r for m, n in r["notes"].items()}
    for m, n in notes.items():
        L.append(f"* {m}: {n}.")
    L += ["", "## M1 (trustworthiness) and M2 (continuity) at k = 5, 25, 50", ""]
    rows = []
    for name, res in results.items():
        if res is None:
            rows.append([name, "not available", *[""] * 6])
            continue
        for m in methods:
            if m not in res["q"]:
                rows.append([name, m, "not run", "", "", "", "", "", ""])
                continue
            T, C = res["q"][m]["T"], res["q"][m]["C"]
            idx = [0, min(4, T.size - 1), T.size - 1]
            rows.append([name, m, *[fmt(T[i], 3) for i in idx], *[fmt(C[i], 3) for i in idx],
                         fmt(res["time"][m], 1)])
    L += md_table(["data set", "method", "M1(5)", "M1(25)", "M1(50)", "M2(5)", "M2(25)", "M2(50)", "fit time (s)"],
                  rows)
    L += ["", "## Which statements of section 8.5 hold", "",
          f"Means over k are over k = 5..50 (or the stated range); '~' means mean curves within {TOL}.", ""]
    if len(rules) > 1:
        L += _both_tables(results, chosen, rules)
    srows, n_hold, n_checked = [], 0, 0
    for ds, text, need, check in (STATEMENTS if len(rules) == 1 else ()):
        res = results.get(ds)
        if res is None:
            if ds in chosen:
                srows.append([ds, text, "data not available", ""])
            continue
        missing = [m for m in need.split() if m not in res["q"]]
        if missing:
            srows.append([ds, text, f"not checked ({', '.join(missing)} not run)", ""])
            continue
        ok = bool(check(res["q"]))
        n_checked += 1
        n_hold += ok
        order_t = " > ".join(_order(res["q"], "T"))
        order_c = " > ".join(_order(res["q"], "C"))
        srows.append([ds, text, "holds" if ok else "does not hold", f"M1: {order_t}; M2: {order_c}"])
    if len(rules) == 1:
        L += md_table(["data set", "statement (thesis, section 8.5)", "here", "mean orders over k"], srows)
        L += ["", f"{n_hold} of {n_checked} checked statements hold.", ""]
    full = {n: r for n, r in results.items() if r and all(m in r["q"] for m in METHODS)}
    if full and len(rules) == 1:
        som_small = sum(_order(r["q"], "T", hi=10)[0] == "SOM" for r in full.values())
        som_worst = sum(_order(r["q"], "C")[-1] == "SOM" for r in full.values())
        nbm_gtm = sum(_mean(r["q"], "NBM", "C") >= _mean(r["q"], "GTM", "C") for r in full.values())
        L += ["## Overall statements", "",
              f"* \"SOM best M1 for small k\": SOM has the best mean M1 over k <= 10 on {som_small} of {len(full)} "
              "data sets.",
              f"* \"SOM worst M2\": SOM has the lowest mean M2 on {som_worst} of {len(full)} data sets.",
              f"* \"NBM and GTM balanced\": NBM's mean M2 >= GTM's on {nbm_gtm} of {len(full)} data sets.", ""]
    L += ["## Figures", ""]
    for name, res in results.items():
        if res:
            L += [f"### {name}", "", f"![{name}](figures/{res['figure']})", ""]
    L += ["## Data used, and how it differs from the thesis's", ""]
    for name, file, rows_, note in DATASETS:
        if name in results:
            L.append(f"* **{name}** (`{file}`, thesis {rows_} rows): {note}")
    L += ["", "## Why numbers can differ from the thesis", "",
          "* The thesis's figures are read by eye (section 8.5 gives ranges and orders, not tables); ties within a "
          "few thousandths decide several orders.",
          "* SOM: fewer epochs and runs here, and the best run by quantisation error instead of a visual choice "
          "with the class labels; the SOM's hard projection puts many points on one neuron, which our exact tie "
          "averaging scores differently from a random tie-break.",
          "* GTM: ugtm's PCA initialisation and its default RBF width and regularisation (s = 0.3, regul = 0.1); the "
          "thesis tuned the number of basis functions per data set and ran 10 random starts.",
          "* Data: PMLB copies with imputed instead of dropped missing values (Breast, Cleve, Crx).",
          "* NBM: the schedules (D20, D21) and the variance update (D18) are reconstructions.",
          "",
          "## What does not match, and the likely cause", "",
          "NBM's maps are clearly weaker here than in the thesis on the data sets with many nominal or binary "
          "attributes (Australian, Cleve, Crx, Heart: M1(5) about 0.78-0.84 where the thesis has > 0.9 and NBM ahead "
          "of GTM) and on Diabetes/Pima, while Iris and Wine come out as in the thesis (NBM just behind PCA on Iris; "
          "NBM's mean M1 the highest of the four on Wine). The online rule itself is checked against a hand-computed "
          "step and a numpy reference, and reproduces the unit-square and Iris behaviour of the thesis "
          "(`seed000-nbm-unit-square`, `seed000-nbm-iris`). Diagnostics on Australian (one run each, not used for "
          "any number above): the variances do not reach the 1e-6 floor (raising it to 0.1 lifts M1(5) only to "
          "0.84); about half of the 100 neurons win any row; resetting the j counter every epoch (M1(5) 0.82), a "
          "five times slower sigma decay (0.75), 200 epochs, the exact variance update or data-row initialisation "
          "(all about 0.78) do not close the gap. Our reading: with eta_k = Lambda_k / (j/K + Lambda_k) and j counted "
          "over all epochs, the steps shrink like K/j while sigma(e) = 5 exp(-10 e/E) is below 1 grid unit "
          "from epoch 9 of 50, so the map is laid out in the first epochs and the later ones barely move it; on "
          "z-scored binary attributes the posterior winner is then decided by a few exactly matching values. Which "
          "part of the reconstructed eqs. 5.17/5.19 (D20, D23) differs from the thesis's code cannot be settled "
          "from the text; the numbers are reported as measured."]
    path = write_report(path, "\n".join(L) + "\n")
    log(f"report written to {path}")
    return path

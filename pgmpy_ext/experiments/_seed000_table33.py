"""Reproduction of Table 3.3 of Ruz's thesis (seed 000, chapter 3, experiment 2): control-chart pattern recognition,
5-fold cross-validation, SBN against C4.5 and a back-propagation MLP.

Protocol (``docs/decisions/seed000-sbn-cem-nbm.md`` sections 2.7, 7.3, 8.2; decisions D2, D5, D14, D24):

* data: :func:`pgmpy_ext.datasets.make_control_charts` (1500 series, 250 per class, 60 time points; the
  reconstruction of spec section 7.3, seeded); the thesis's own series are not available;
* 5-fold stratified cross-validation (Kohavi 1995), the same folds for every model;
* SBN (and NB, TAN as extra columns): Fayyad-Irani MDLP fitted on each training fold (D14), marginal stopping rule
  (D2), maximum-likelihood CPTs (``alpha=0``) and Laplace ``alpha=1`` (D5);
* "C4.5": scikit-learn ``DecisionTreeClassifier(criterion="entropy")`` on the raw continuous values. It is **not**
  C4.5: it splits on information gain (not gain ratio), makes binary splits, and has no pessimistic-error pruning;
* MLP with the thesis's settings (20 hidden units, learning rate 0.3, momentum 0.9): scikit-learn
  ``MLPClassifier(hidden_layer_sizes=(20,), activation="logistic", solver="sgd", learning_rate_init=0.3,
  momentum=0.9, nesterovs_momentum=False, alpha=0, batch_size=200, max_iter=500)`` on inputs standardised with the
  training fold's mean and std. Per-pattern updates (``batch_size=1``, the textbook on-line back-propagation) are
  reported as a sensitivity run;
* the whole experiment is repeated on several generator seeds to show how much one data set and one fold split
  move the numbers.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pgmpy_ext.experiments._common import fmt, md_table, parallel_map, pm, report_path, run_facts, write_report

__all__ = ["MLP_SETTINGS", "TARGETS", "run"]

NAME = "seed000-table3.3"

#: Table 3.3 of the thesis (spec section 8.2): per fold (C4.5, MLP, SBN accuracy in %, SBN edges of 59), and the
#: printed means. The thesis truncates to 2 decimals (e.g. 272/300 = 90.666 -> "90.66", D24).
TARGETS = {
    "folds": [(90.33, 98.33, 99.33, 0), (89.00, 97.66, 99.33, 21), (92.00, 99.00, 99.33, 0),
              (90.66, 97.33, 98.00, 23), (93.33, 98.66, 98.66, 13)],
    "mean": (91.06, 98.19, 98.93),
}

#: The MLP of the main runs (the thesis's 20 hidden units, learning rate 0.3, momentum 0.9; the rest documented).
MLP_SETTINGS = {"hidden_layer_sizes": (20,), "activation": "logistic", "solver": "sgd", "learning_rate_init": 0.3,
                "momentum": 0.9, "nesterovs_momentum": False, "alpha": 0.0, "batch_size": 200, "max_iter": 500,
                "learning_rate": "constant", "shuffle": True, "tol": 1e-4, "n_iter_no_change": 10,
                "early_stopping": False}

BN_MODELS = ("nb", "tan", "sbn")
BN_NAMES = {"nb": "NB", "tan": "TAN", "sbn": "SBN"}
ALPHAS = (0.0, 1.0)


@dataclass
class Settings:
    n_per_class: int = 250
    n_timepoints: int = 60
    n_folds: int = 5
    main_seed: int = 0
    seeds: list = field(default_factory=lambda: list(range(10)))
    online_mlp: bool = True


def _data(seed: int, st: Settings):
    from pgmpy_ext.datasets import make_control_charts

    X, y = make_control_charts(st.n_per_class, st.n_timepoints, random_state=seed)
    return X, np.asarray(y)


def _folds(X, y, seed: int, n_folds: int) -> list:
    from sklearn.model_selection import StratifiedKFold

    return list(StratifiedKFold(n_folds, shuffle=True, random_state=seed).split(X, y))


def _mlp(**overrides):
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), MLPClassifier(**{**MLP_SETTINGS, **overrides}, random_state=0))


def fold_task(seed: int, fold: int, st: Settings, online: bool) -> dict:
    """Every model on fold ``fold`` of the data set generated with ``seed``."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.tree import DecisionTreeClassifier

    from pgmpy_ext.classifiers import NaiveBayesClassifier, SBNClassifier, TANClassifier
    from pgmpy_ext.preprocessing import MDLPDiscretizer

    X, y = _data(seed, st)
    train, test = _folds(X, y, seed, st.n_folds)[fold]
    out = {"seed": seed, "fold": fold, "n_test": len(test), "n_train": len(train)}
    t0 = time.perf_counter()
    disc = MDLPDiscretizer(columns=list(X.columns)).fit(X.iloc[train], y[train])
    Xd = disc.transform(X)
    out["single_interval"] = int(sum(n == 1 for n in disc.n_bins_.values()))
    out["mean_intervals"] = float(np.mean(list(disc.n_bins_.values())))
    for alpha in ALPHAS:
        for key, est in (("nb", NaiveBayesClassifier(alpha=alpha)), ("tan", TANClassifier(alpha=alpha)),
                         ("sbn", SBNClassifier(alpha=alpha))):
            est.fit(Xd.iloc[train], y[train])
            out[key, alpha] = float(np.mean(est.predict(Xd.iloc[test]) == y[test]))
            if key == "sbn" and alpha == ALPHAS[0]:
                mon = est.monitor_trace_
                out["edges"] = len(est.structure_.augmenting_edges())
                out["edges_cum"] = int((mon["K_bits"].to_numpy() < 0).cumprod().sum())
                n_i2 = est.structure_.trace["n_rows"] * mon["cmi_bits"].to_numpy()
                out["n_i2_median"] = float(np.median(n_i2))
                out["n_i2_min"] = float(n_i2.min())
                out["penalty_bits"] = float(est.structure_.trace["penalty_bits"])
    out["bn_time"] = time.perf_counter() - t0
    for key, tree in (("tree", DecisionTreeClassifier(criterion="entropy", random_state=0)),
                      ("tree_leaf2", DecisionTreeClassifier(criterion="entropy", min_samples_leaf=2,
                                                            random_state=0))):
        tree.fit(X.iloc[train], y[train])
        out[key] = float(np.mean(tree.predict(X.iloc[test]) == y[test]))
        if key == "tree":
            out["tree_leaves"] = int(tree.get_n_leaves())
    variants = [("mlp", {})] + ([("mlp_online", {"batch_size": 1})] if online else [])
    for key, over in variants:
        t1 = time.perf_counter()
        mlp = _mlp(**over)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            mlp.fit(X.iloc[train], y[train])
        out[key] = float(np.mean(mlp.predict(X.iloc[test]) == y[test]))
        out[key + "_epochs"] = int(mlp[-1].n_iter_)
        out[key + "_converged"] = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
        out[key + "_time"] = time.perf_counter() - t1
    return out


# ---------------------------------------------------------------------------------------------- report
def _pct(v) -> str:
    return fmt(100.0 * v)


def _main_table(rows: list) -> list[str]:
    header = ["Fold", "C4.5 thesis", "entropy tree ours", "MLP thesis", "MLP ours", "SBN thesis",
              "SBN ours (alpha 0)", "SBN ours (alpha 1)", "SBN edges thesis", "SBN edges ours (marginal)",
              "SBN edges ours (cumulative)"]
    names = ["1st", "2nd", "3rd", "4th", "5th"]
    body = []
    for r in rows:
        k = r["fold"]
        t = TARGETS["folds"][k] if k < len(TARGETS["folds"]) else (None,) * 4
        body.append([names[k] if k < len(names) else str(k + 1), fmt(t[0]), _pct(r["tree"]), fmt(t[1]),
                     _pct(r["mlp"]), fmt(t[2]), _pct(r["sbn", 0.0]), _pct(r["sbn", 1.0]),
                     "–" if t[3] is None else f"{t[3]} / 59", f"{r['edges']} / {r['n_features'] - 1}",
                     f"{r['edges_cum']} / {r['n_features'] - 1}"])
    tm = TARGETS["mean"]
    mean = {k: 100.0 * np.mean([r[k] for r in rows]) for k in ("tree", "mlp", ("sbn", 0.0), ("sbn", 1.0))}
    body.append(["**Mean**", f"{tm[0]:.2f}", fmt(mean["tree"]), f"{tm[1]:.2f}", fmt(mean["mlp"]), f"{tm[2]:.2f}",
                 fmt(mean["sbn", 0.0]), fmt(mean["sbn", 1.0]), "–",
                 fmt(np.mean([r["edges"] for r in rows]), 1), fmt(np.mean([r["edges_cum"] for r in rows]), 1)])
    return md_table(header, body)


def _extra_table(rows: list, online: bool) -> list[str]:
    header = ["Fold", "NB (alpha 0)", "NB (alpha 1)", "TAN (alpha 0)", "TAN (alpha 1)", "tree, min_samples_leaf=2",
              "tree leaves", "MLP epochs (converged)"]
    if online:
        header += ["MLP per-pattern (batch_size=1)", "its epochs (converged)"]
    header += ["single-interval attributes", "mean MDLP intervals"]
    body = []
    for r in rows:
        cells = [str(r["fold"] + 1), _pct(r["nb", 0.0]), _pct(r["nb", 1.0]), _pct(r["tan", 0.0]),
                 _pct(r["tan", 1.0]), _pct(r["tree_leaf2"]), str(r["tree_leaves"]),
                 f"{r['mlp_epochs']} ({'yes' if r['mlp_converged'] else 'no'})"]
        if online:
            cells += [_pct(r["mlp_online"]),
                      f"{r['mlp_online_epochs']} ({'yes' if r['mlp_online_converged'] else 'no'})"]
        cells += [str(r["single_interval"]), fmt(r["mean_intervals"], 1)]
        body.append(cells)
    mean = ["**Mean**"] + [fmt(100.0 * np.mean([r[k] for r in rows])) for k in
                           (("nb", 0.0), ("nb", 1.0), ("tan", 0.0), ("tan", 1.0), "tree_leaf2")]
    mean += [fmt(np.mean([r["tree_leaves"] for r in rows]), 1), fmt(np.mean([r["mlp_epochs"] for r in rows]), 1)]
    if online:
        mean += [fmt(100.0 * np.mean([r["mlp_online"] for r in rows])),
                 fmt(np.mean([r["mlp_online_epochs"] for r in rows]), 1)]
    mean += [fmt(np.mean([r["single_interval"] for r in rows]), 1),
             fmt(np.mean([r["mean_intervals"] for r in rows]), 1)]
    body.append(mean)
    return md_table(header, body)


def _seed_table(by_seed: dict) -> list[str]:
    keys = [("tree", "entropy tree"), ("mlp", "MLP"), (("sbn", 0.0), "SBN (alpha 0)"), (("sbn", 1.0), "SBN (alpha 1)"),
            (("nb", 0.0), "NB (alpha 0)"), (("tan", 0.0), "TAN (alpha 0)")]
    header = ["Model", "thesis 5-fold mean", "ours: mean ± std of the 5-fold means over seeds",
              "lowest / highest 5-fold mean", "lowest / highest single fold"]
    thesis = {"tree": TARGETS["mean"][0], "mlp": TARGETS["mean"][1], ("sbn", 0.0): TARGETS["mean"][2],
              ("sbn", 1.0): TARGETS["mean"][2]}
    body = []
    for key, label in keys:
        means = [100.0 * np.mean([r[key] for r in rows]) for rows in by_seed.values()]
        folds = [100.0 * r[key] for rows in by_seed.values() for r in rows]
        body.append([label, fmt(thesis.get(key)), pm(means), f"{min(means):.2f} / {max(means):.2f}",
                     f"{min(folds):.2f} / {max(folds):.2f}"])
    edges = [r["edges"] for rows in by_seed.values() for r in rows]
    body.append(["SBN edges (marginal, of 59)", "0, 21, 0, 23, 13 (mean 11.4)", pm(edges, 1),
                 f"{min(edges)} / {max(edges)} (per fold)", "–"])
    return md_table(header, body)


def _findings(main: list, by_seed: dict) -> list[str]:
    tm = TARGETS["mean"]
    m = {k: 100.0 * np.mean([r[k] for r in main]) for k in ("tree", "mlp", ("sbn", 0.0), ("sbn", 1.0))}
    seeds_sbn = [100.0 * np.mean([r["sbn", 0.0] for r in rows]) for rows in by_seed.values()]
    seeds_sbn1 = [100.0 * np.mean([r["sbn", 1.0] for r in rows]) for rows in by_seed.values()]
    seeds_mlp = [100.0 * np.mean([r["mlp"] for r in rows]) for rows in by_seed.values()]
    seeds_tree = [100.0 * np.mean([r["tree"] for r in rows]) for rows in by_seed.values()]
    edges = [r["edges"] for rows in by_seed.values() for r in rows]
    order_t = "SBN > MLP > C4.5"
    best = sorted([("SBN", m["sbn", 0.0]), ("MLP", m["mlp"]), ("tree", m["tree"])], key=lambda kv: -kv[1])
    best1 = sorted([("SBN", m["sbn", 1.0]), ("MLP", m["mlp"]), ("tree", m["tree"])], key=lambda kv: -kv[1])
    nb0 = [100.0 * np.mean([r["nb", 0.0] for r in rows]) for rows in by_seed.values()]
    n_i2 = [r["n_i2_median"] for r in main]
    pen = main[0]["penalty_bits"]
    n_train = int(round(main[0]["n_train"]))
    L = ["## Summary: where we match the thesis and where not", "",
         f"* Main run (seed {next(iter(by_seed))}): 5-fold means tree {m['tree']:.2f} (thesis C4.5 {tm[0]:.2f}), "
         f"MLP {m['mlp']:.2f} (thesis {tm[1]:.2f}), SBN {m['sbn', 0.0]:.2f} with alpha = 0 and "
         f"{m['sbn', 1.0]:.2f} with alpha = 1 (thesis {tm[2]:.2f}). Our order with SBN at alpha = 0: "
         + " > ".join(k for k, _ in best) + "; at alpha = 1: " + " > ".join(k for k, _ in best1)
         + f"; thesis: {order_t}.",
         f"* Over {len(by_seed)} generator seeds: SBN alpha 0 {pm(seeds_sbn)}, SBN alpha 1 {pm(seeds_sbn1)}, MLP "
         f"{pm(seeds_mlp)}, entropy tree {pm(seeds_tree)}; SBN (alpha 1) beats the tree on "
         f"{sum(a > b for a, b in zip(seeds_sbn1, seeds_tree))} of {len(by_seed)} seeds and the MLP on "
         f"{sum(a > b for a, b in zip(seeds_sbn1, seeds_mlp))}; SBN (alpha 0) beats the MLP on "
         f"{sum(a > b for a, b in zip(seeds_sbn, seeds_mlp))}.",
         f"* Naive Bayes at alpha = 0: {pm(nb0)} over seeds, "
         + ("above" if np.mean(nb0) > np.mean(seeds_sbn) else "not above")
         + f" our near-TAN SBN at alpha = 0 ({pm(seeds_sbn)}). The thesis's SBN structures were sparse (0-23 "
         f"edges), i.e. closer to naive Bayes; its SBN level ({tm[2]:.2f}) is nearer our "
         + ("NB" if abs(np.mean(nb0) - tm[2]) < abs(np.mean(seeds_sbn) - tm[2]) else "SBN")
         + " at alpha = 0.",
         f"* SBN structure: {np.mean(edges):.1f} edges of 59 on average (range {min(edges)}-{max(edges)}) against the "
         "thesis's 0, 21, 0, 23, 13: **not reproduced**. On our series, time points stay dependent given the "
         "class, because every series draws its own amplitude and period, slope or shift size and time (section "
         f"7.3): in the main run the median Kruskal edge has N·I_2 = {np.median(n_i2):.1f} bits against the cost "
         f"2m = {pen:.2f} bits (N = {n_train}). A fold with 0 edges needs every class-conditional CMI below "
         f"2m/N = {pen / n_train:.4f} bits, i.e. almost independent time points within each class. That points to "
         "a generator whose per-series parameters vary much less than in the reconstruction used here (the Pham & "
         "Oztemel expressions are not printed in the thesis), or to a coarser discretisation."]
    if "mlp_online" in main[0]:
        on = [100.0 * r["mlp_online"] for r in main]
        ep = [r["mlp_online_epochs"] for r in main]
        L.append(f"* The MLP with per-pattern updates (`batch_size=1`, the textbook schedule) at learning rate 0.3 and "
                 f"momentum 0.9 reaches only {np.mean(on):.2f}% (folds {min(on):.2f}-{max(on):.2f}); its training loss "
                 f"stops improving after {np.mean(ep):.0f} epochs on average. With scikit-learn's cross-entropy "
                 "gradient these settings are too aggressive for on-line updates, so the main MLP column uses "
                 "mini-batches of 200, where the same learning rate and momentum train well.")
    L.append("")
    return L


STATIC_NOTES = """## Why the numbers differ (known causes)

* **Data.** The series come from the spec's reconstruction of the generator (section 7.3: the formulas published
  with the UCI synthetic control chart data). The 1992 expressions the thesis used are not printed there and may
  use other parameter ranges; the thesis's 1500 series are not available. So fold-by-fold numbers can only be
  compared as levels, not cell for cell: our fold k is not the thesis's fold k.
* **C4.5.** The tree here is scikit-learn's CART-style tree with the entropy criterion: information gain instead of
  gain ratio, binary splits on thresholds (as C4.5 for continuous attributes), **no** pessimistic-error pruning and
  no minimum of 2 objects per leaf in the main column (the `min_samples_leaf=2` column adds the latter). It is
  a C4.5-style baseline, not C4.5.
* **MLP.** scikit-learn's MLP minimises the cross-entropy of a softmax output layer; textbook back-propagation (and
  Weka's MultilayerPerceptron, a common tool at the time; the thesis does not name its MLP implementation)
  minimises squared error on sigmoid outputs and updates after every pattern. With the cross-entropy gradient,
  learning rate 0.3 and momentum 0.9 per pattern (`batch_size=1`) is a much larger effective step than in the
  squared-error setting; the per-pattern column shows what that does. The main column uses mini-batches of 200
  (scikit-learn's default), logistic hidden units, no weight decay, at most 500 epochs (Weka's default training
  time) with scikit-learn's stopping rule (training loss not improving by 1e-4 for 10 epochs), and the initial
  weights from `random_state=0`.
* **SBN.** Discretisation by our Fayyad-Irani MDLP on each training fold; the thesis does not say which
  discretiser it used for this experiment (D14). Alpha = 0 is the faithful setting (D5); with several intervals
  per time point and a time-point parent for almost every attribute, maximum-likelihood CPTs have many zero cells,
  which the 1e-300 log floor turns into near-vetoes of a class; Laplace alpha = 1 removes them.
* **Rounding.** The thesis's cells are truncated to 2 decimals (D24); ours are rounded.
"""


def report(main: list, by_seed: dict, st: Settings, elapsed: float, n_jobs, quick: bool) -> str:
    L = ["# Reproduction: seed 000, Table 3.3 (control-chart patterns: SBN vs C4.5 vs MLP, 5-fold CV)", "",
         f"Generated by `pgmpy-ext reproduce {NAME}` (module `pgmpy_ext.experiments._seed000_table33`); do not edit "
         "by hand.", "", run_facts(elapsed, n_jobs, quick), "",
         "## Protocol", "",
         f"* Data: `make_control_charts({st.n_per_class}, {st.n_timepoints}, random_state=seed)`: "
         f"{6 * st.n_per_class} series ({st.n_per_class} per class: normal, cyclic, increasing/decreasing trend, "
         f"upward/downward shift), {st.n_timepoints} time points as continuous attributes (spec section 7.3). "
         f"Main run: seed {st.main_seed}; repeated on seeds {st.seeds[0]}..{st.seeds[-1]}.",
         f"* {st.n_folds}-fold stratified cross-validation (`StratifiedKFold({st.n_folds}, shuffle=True, "
         "random_state=seed)`), the same folds for every model.",
         "* SBN, NB and TAN: MDLP (`MDLPDiscretizer`) fitted on each training fold (D14); SBN with the marginal "
         "stopping rule (D2; the cumulative rule's edge count is shown too); alpha = 0 (maximum likelihood with "
         "the 1e-300 log floor, faithful) and alpha = 1 (Laplace, sensitivity), D5.",
         "* C4.5-style tree: `DecisionTreeClassifier(criterion=\"entropy\", random_state=0)` on the raw values. "
         "**Not C4.5**: information gain, not gain ratio; no pessimistic pruning.",
         "* MLP: `StandardScaler` (fitted on the training fold) + `MLPClassifier(" +
         ", ".join(f"{k}={v!r}" for k, v in MLP_SETTINGS.items()) + ", random_state=0)`: the thesis's 20 "
         "hidden units, learning rate 0.3 and momentum 0.9 (classic, not Nesterov); the other settings are ours "
         "(see the notes)." + (" Sensitivity: the same with per-pattern updates (`batch_size=1`), main seed only."
                               if st.online_mlp else ""),
         "* Thesis numbers are copied from spec section 8.2 (test folds of 300 series; values truncated).", "",
         f"## Per fold, main run (seed {st.main_seed}): thesis vs ours (accuracy, %)", "",
         "Our fold k and the thesis's fold k hold different series; compare levels, not individual cells.", ""]
    L += _main_table(main)
    L += ["", "## Extra columns and diagnostics (main run)", ""]
    L += _extra_table(main, st.online_mlp)
    L += ["", f"## Over {len(by_seed)} generator seeds (5-fold CV on each)", ""]
    L += _seed_table(by_seed)
    L += [""] + _findings(main, by_seed) + [STATIC_NOTES]
    return "\n".join(L) + "\n"


def run(output=None, *, output_dir=None, quick: bool = False, n_jobs: int | None = None, seeds=None, log=print) -> Path:
    """Run the Table 3.3 reproduction and write the Markdown report; returns its path.

    Parameters
    ----------
    output : path, optional
        The report file. Give either ``output`` or ``output_dir``, not both.
    output_dir : path, optional
        The folder of the report ``<output_dir>/seed000-table3.3.md`` (created if needed); default: the
        current directory. The committed reports are in ``docs/reproductions/`` (``pgmpy-ext reproduce
        seed000-table3.3 --output-dir docs/reproductions``).
    quick : bool, default False
        A smoke run (40 series per class, one seed, no per-pattern MLP); its report is not the reproduction.
    n_jobs : int, optional
        Worker processes (joblib) over (seed, fold); results do not depend on it. None means 1.
    seeds : list of int, optional
        Generator seeds (default 0..9; the first one is the main run).
    """
    path = report_path(output, NAME, output_dir)
    st = Settings(n_per_class=40, seeds=[0], online_mlp=False) if quick else Settings()
    if seeds is not None:
        st.seeds = list(seeds)
    st.main_seed = st.seeds[0]
    t0 = time.perf_counter()
    tasks = [(seed, fold, st, st.online_mlp and seed == st.main_seed) for seed in st.seeds
             for fold in range(st.n_folds)]
    # the slow per-pattern MLP tasks first, so that two workers finish together
    order = sorted(range(len(tasks)), key=lambda i: not tasks[i][3])
    results = parallel_map(fold_task, [tasks[i] for i in order], n_jobs)
    by_seed = {seed: [] for seed in st.seeds}
    for res in sorted(results, key=lambda r: (r["seed"], r["fold"])):
        res["n_features"] = st.n_timepoints
        by_seed[res["seed"]].append(res)
    log(f"Table 3.3: {len(tasks)} folds done ({time.perf_counter() - t0:.0f} s)")
    text = report(by_seed[st.main_seed], by_seed, st, time.perf_counter() - t0, n_jobs, quick)
    path = write_report(path, text)
    log(f"report written to {path}")
    return path

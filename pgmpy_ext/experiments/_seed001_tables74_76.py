"""Reproduction of Tables 7.4, 7.5 and 7.6 of Santafé's thesis (seed 001, section 7.6): multi-start EMA-TAN
against multi-start structural EM with TAN (mEM-TAN), multi-start EM for the complete network given the order
(mEM-BNET) and multi-start EMA for naive Bayes (mEMA), on data sampled from random TAN models.

Protocol (``docs/decisions/seed001-ema-popgen.md`` sections 3.2, 3.3, 5, 6, 7.2, 7.3, 8.5; decisions 3, 4, 6, 7, 9,
11, 17):

* generator: :func:`pgmpy_ext.datasets.make_random_tan` (a uniformly random labelled tree from a Prüfer sequence,
  a random root, C a parent of every feature, r_i ~ U{2, 3}, r_C = 2, Dirichlet(1) CPTs);
* n in {2, 4, 8, 10, 12, 14} features; each random model sampled independently at N in {40, 80, 160, 320, 640};
  the sampled C is the true partition;
* learners, each with m starts and Best Choice by log-likelihood (decision 9), Dirichlet(1) priors: mEMA-TAN (a
  random order pi per model and N), mEM-BNET (the same pi), mEM-TAN (tree re-learned every iteration, decision 4)
  and mEMA (naive Bayes EMA, the latent-class engine); EMA's stop tol = 0.01 (parameter L-infinity), EM's
  |dLL| <= 1e-6 |LL|;
* each model clusters its own training sample (MAP labels); the winner is decided by the matched accuracy
  (decision 11; the co-membership Hamming distance is reported too); cells are mEMA-TAN's wins/draws/losses,
  ``*`` two-sided zsplit Wilcoxon p < 0.10 (the thesis's bold), ``**`` p < 0.01 (its grey box, lost in the
  extraction).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np

from pgmpy_ext.experiments._common import md_table, parallel_map, report_path, run_facts, write_report
from pgmpy_ext.experiments._seed001_ch7_common import fit_multistart, labels_of, parse_wdl, seed_sequence

__all__ = ["NS", "N_VARS", "OPPONENTS", "TABLES", "run"]

NS = [40, 80, 160, 320, 640]
N_VARS = [2, 4, 8, 10, 12, 14]
OPPONENTS = {"7.4": "mEM-TAN", "7.5": "mEM-BNET", "7.6": "mEMA"}

TABLES = {
    "7.4": parse_wdl("""
  2  | 11/71/18  9/71/20*  15/68/17  18/70/12  15/63/22*
  4  | 37/24/39  33/17/50* 50/8/42   48/5/47   46/3/51
  8  | 51/6/43   57/4/39*  65/6/29*  74/4/22*  71/1/28*
 10  | 48/5/47   59/4/37*  55/10/35* 64/6/30*  67/4/29*
 12  | 54/4/42*  65/3/32*  65/4/31*  69/4/27*  83/2/15*
 14  | 59/8/33*  68/6/26*  75/2/23*  76/4/20*  76/6/18*
""", 1),
    "7.5": parse_wdl("""
  2  | 24/51/25  29/35/36  33/34/33  28/35/37  41/29/30
  4  | 54/11/35* 51/8/41   59/8/33*  49/6/45   57/1/42*
  8  | 59/8/33*  64/5/31*  81/1/18*  83/0/17*  91/0/9*
 10  | 67/7/26*  76/0/24*  82/2/16*  84/0/16*  94/0/6*
 12  | 66/5/29*  86/1/13*  80/0/20*  91/0/9*   89/0/11*
 14  | 74/2/24*  83/1/16*  92/1/7*   92/0/8*   96/0/4*
""", 1),
    "7.6": parse_wdl("""
  2  | 21/53/26  24/41/35* 24/48/28  23/45/32  25/45/30
  4  | 47/14/39  49/6/45   49/10/41  50/5/45   56/3/41
  8  | 52/10/38* 58/4/38*  80/4/16*  90/0/10*  89/0/11*
 10  | 48/13/39  55/8/37*  69/6/25*  81/1/18*  88/1/11*
 12  | 55/8/37*  78/6/16*  79/1/20*  88/2/10*  88/0/12*
 14  | 55/11/34* 68/7/25*  81/3/16*  84/3/13*  92/0/8*
""", 1),
}

LEARNERS = ["mEMA-TAN", "mEM-TAN", "mEM-BNET", "mEMA", "mEMA-TAN (true order)"]


@dataclass
class Settings:
    n_vars: list = field(default_factory=lambda: list(N_VARS))
    ns: list = field(default_factory=lambda: list(NS))
    n_models: int = 100
    n_init: int = 100
    seed: int = 0
    max_iter: int = 1000
    label: str = "full"


def _fit_all(codes, cards, n_init: int, keys: tuple, max_iter: int, true_order=None) -> dict:
    """The four learners on one sample (plus, as a diagnostic, mEMA-TAN with the generator's ancestral order
    ``true_order``); returns ``{learner: (labels, loglik, seconds)}``."""
    from pgmpy_ext.clustering import (
        combine_ematan_starts,
        complete_bn_single_start,
        ematan_single_start,
        emtan_single_start,
        prepare_complete_bn,
        prepare_ematan,
        prepare_emtan,
    )
    from pgmpy_ext.utils import run_starts

    n = codes.shape[1]
    order = seed_sequence(*keys, 0).permutation(n)  # the same random order for mEMA-TAN and mEM-BNET
    out = {}
    t0 = time.perf_counter()
    d = prepare_ematan(codes, cards, 2, order=order)
    starts = run_starts(partial(ematan_single_start, d, max_iter=max_iter), n_init, seed_sequence(*keys, 1))
    best, _ = combine_ematan_starts(starts, d, "best")
    out["mEMA-TAN"] = (np.argmax(best.resp, 1)[d.inverse], best.loglik, time.perf_counter() - t0)
    t0 = time.perf_counter()
    d = prepare_emtan(codes, cards, 2)
    starts = run_starts(partial(emtan_single_start, d, max_iter=max_iter), n_init, seed_sequence(*keys, 2))
    best = starts[int(np.argmax([s.loglik for s in starts]))]
    out["mEM-TAN"] = (np.argmax(best.resp, 1)[d.inverse], best.loglik, time.perf_counter() - t0)
    t0 = time.perf_counter()
    d = prepare_complete_bn(codes, cards, 2, order=order)
    starts = run_starts(partial(complete_bn_single_start, d, max_iter=max_iter), n_init, seed_sequence(*keys, 3))
    best = starts[int(np.argmax([s.loglik for s in starts]))]
    out["mEM-BNET"] = (np.argmax(best.resp, 1)[d.inverse], best.loglik, time.perf_counter() - t0)
    t0 = time.perf_counter()
    best, d = fit_multistart(codes, cards, 2, "ema", n_init, seed_sequence(*keys, 4), max_iter=max_iter)
    out["mEMA"] = (labels_of(best, d), best.loglik, time.perf_counter() - t0)
    if true_order is not None:  # diagnostic, not in the thesis: the same starts with an order that contains the truth
        t0 = time.perf_counter()
        d = prepare_ematan(codes, cards, 2, order=np.asarray(true_order))
        starts = run_starts(partial(ematan_single_start, d, max_iter=max_iter), n_init, seed_sequence(*keys, 1))
        best, _ = combine_ematan_starts(starts, d, "best")
        out["mEMA-TAN (true order)"] = (np.argmax(best.resp, 1)[d.inverse], best.loglik, time.perf_counter() - t0)
    return out


def run_model(n: int, index: int, ns: list, n_init: int, seed: int, max_iter: int) -> dict:
    """One random TAN with ``n`` features: the four learners at every N; accuracies, Hamming distances, seconds."""
    from pgmpy_ext.datasets import make_random_tan
    from pgmpy_ext.evaluation import comembership_hamming, matched_accuracy

    keys = (seed, 74, n, index)
    model = make_random_tan(0, n, 2, states=(2, 3), random_state=seed_sequence(*keys))[2]
    out = {}
    for N in ns:
        codes, y = model.sample_codes(N, seed_sequence(*keys, N, 1))
        fits = _fit_all(codes, model.cards, n_init, (*keys, N, 2), max_iter, true_order=model.order)
        out[N] = {name: {"acc": matched_accuracy(y, lab), "hd": comembership_hamming(y, lab), "ll": ll,
                         "seconds": sec} for name, (lab, ll, sec) in fits.items()}
    return out


def _thesis_str(t) -> str:
    return f"{t[0]}/{t[1]}/{t[2]}" + ("*" if t[3] else "")


def _cell(results: list, N: int, opponent: str, metric: str = "acc"):
    from pgmpy_ext.evaluation import win_draw_loss

    ours = [r[N]["mEMA-TAN"][metric] for r in results]
    other = [r[N][opponent][metric] for r in results]
    return win_draw_loss(ours, other, lower_is_better=metric == "hd")


def _cell_named(results: list, N: int, first: str, second: str):
    from pgmpy_ext.evaluation import win_draw_loss

    return win_draw_loss([r[N][first]["acc"] for r in results], [r[N][second]["acc"] for r in results])


def report(results: dict, st: Settings, elapsed: float, quick: bool, n_jobs) -> str:
    L = ["# Reproduction: seed 001, Tables 7.4-7.6 (mEMA-TAN vs mEM-TAN, mEM-BNET and mEMA on random TAN models)",
         "", "Generated by `pgmpy-ext reproduce seed001-tables7.4-7.6` (module "
         "`pgmpy_ext.experiments._seed001_tables74_76`); do not edit by hand.", "",
         run_facts(elapsed, n_jobs, quick), "",
         "## Protocol", "",
         "* Spec: `docs/decisions/seed001-ema-popgen.md` sections 3.2, 3.3, 5, 6, 7.2, 7.3 and 8.5 (decisions 3, 4, "
         "6, 7, 9, 11, 17).",
         "* Generator: `make_random_tan` — a uniformly random labelled tree over the features (Prüfer sequence), a "
         "random root, C (2 states) a parent of every feature, r_i ~ U{2, 3}, Dirichlet(1) CPTs; every model "
         "sampled independently at every N; the sampled C is the true partition.",
         f"* Learners, m = {st.n_init} starts each, Best Choice by log-likelihood, Dirichlet(1) priors: "
         "**mEMA-TAN** (`EMATANClustering` engine; one random order pi per model and N; tol = 0.01), **mEM-TAN** "
         "(`EMTANClustering` engine: tree re-learned from the expected counts every iteration, decision 4; stop at "
         "|dLL| <= 1e-6 |LL|), **mEM-BNET** (`EMCompleteBNClustering` engine, the same pi, parameters of the "
         "observed parent configurations only) and **mEMA** (naive-Bayes EMA, the latent-class engine). Every start"
         " begins from random Dirichlet(1) naive-Bayes parameters (AMBIG-7/13; for the first three through the "
         f"responsibilities they give, then one M/MA step). max_iter = {st.max_iter}.",
         "* Winner by the matched accuracy of the MAP partition of the training sample (decision 11); a cell is "
         "mEMA-TAN's wins/draws/losses over the models; `*` two-sided zsplit Wilcoxon (normal approximation) "
         "p < 0.10 (the thesis's bold), `**` also p < 0.01 (the thesis's grey box, lost in the extraction). The "
         "same cells decided by the co-membership Hamming distance are in the last section.",
         f"* Grid run: **{st.label}**.", ""]
    if st.n_models != 100 or st.n_init != 100:
        L += [f"**Reduced settings ({st.n_models} models per cell, m = {st.n_init} starts instead of 100 and 100): "
              f"our W/D/L are out of {st.n_models}, the thesis's out of 100; compare the direction (W vs L) and "
              "the proportions, not the counts.**", ""]
    summary = []
    for table, opp in OPPONENTS.items():
        thesis = TABLES[table]
        L += [f"## Table {table} — mEMA-TAN vs {opp}: W/D/L by accuracy, ours (thesis)", ""]
        rows = []
        cells = ahead = ahead_thesis = agree = bold = bold_thesis = 0
        tot = np.zeros(3, dtype=int)
        for n in N_VARS:
            row = [n]
            for N in NS:
                t = thesis[(n,)][NS.index(N)]
                if n not in results or N not in st.ns:
                    row.append(f"– ({_thesis_str(t)})")
                    continue
                c = _cell(results[n], N, opp)
                row.append(f"{c} ({_thesis_str(t)})")
                cells += 1
                tot += (c.wins, c.draws, c.losses)
                ahead += c.wins > c.losses
                ahead_thesis += t[0] > t[2]
                agree += np.sign(c.wins - c.losses) == np.sign(t[0] - t[2])
                bold += c.bold
                bold_thesis += t[3]
            rows.append(row)
        L += md_table(["#Var"] + [f"N={N}" for N in NS], rows)
        L += [""]
        if cells:
            summary.append((table, opp, cells, ahead, ahead_thesis, agree, bold, bold_thesis, tot))
    L += ["## Summary", ""]
    L += md_table(["table", "opponent", "cells run", "mEMA-TAN ahead (W > L): ours", "thesis (same cells)",
                   "same direction as thesis", "bold: ours", "bold: thesis", "total W/D/L ours"],
                  [[s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], "/".join(str(int(v)) for v in s[8])]
                   for s in summary])
    L += ["", "## Mean matched accuracy (%) by learner", ""]
    rows = []
    for n in N_VARS:
        if n not in results:
            continue
        for N in st.ns:
            rows.append([n, N] + [f"{100 * np.mean([r[N][name]['acc'] for r in results[n]]):.2f}"
                                  for name in LEARNERS])
    L += md_table(["#Var", "N"] + LEARNERS, rows)
    L += ["", "## Mean seconds per fit (all m starts, one core)", ""]
    rows = [[n, N] + [f"{np.mean([r[N][name]['seconds'] for r in results[n]]):.3f}" for name in LEARNERS]
            for n in N_VARS if n in results for N in st.ns]
    L += md_table(["#Var", "N"] + LEARNERS, rows)
    L += ["", "## Diagnostic (not in the thesis): mEMA-TAN with the generator's order", "",
          "A random order pi usually cannot orient the generating tree so that every feature's tree parent precedes "
          "it, so the true TAN is usually *outside* the class mEMA-TAN averages over (an undirected tree fits a pi "
          "only when pi is a topological order of one of its rootings). The column *mEMA-TAN (true order)* above "
          "reruns mEMA-TAN, same starts, with the generator's breadth-first order, which contains the truth. "
          "W/D/L of that run against mEM-TAN, by accuracy:", ""]
    rows = []
    for n in N_VARS:
        if n not in results:
            continue
        rows.append([n] + [str(_cell_named(results[n], N, "mEMA-TAN (true order)", "mEM-TAN")) if N in st.ns
                           else "–" for N in NS])
    L += md_table(["#Var"] + [f"N={N}" for N in NS], rows)
    L += ["", "## The same cells decided by the co-membership Hamming distance (W/D/L of mEMA-TAN)", ""]
    rows = []
    for n in N_VARS:
        if n not in results:
            continue
        for N in st.ns:
            rows.append([n, N] + [str(_cell(results[n], N, opp, "hd")) for opp in OPPONENTS.values()])
    L += md_table(["#Var", "N"] + [f"vs {o}" for o in OPPONENTS.values()], rows)
    L += ["", "## Reading", ""]
    L += _reading(results, st)
    L += ["", "## Known differences from the thesis's protocol", "",
          "* Scale: the thesis ran 100 models per cell and m = 100 starts per learner; the grid run here is stated "
          "above. With 10 models a cell's W/D/L is a coarse estimate and its Wilcoxon test has little power (a "
          "bold mark needs a consistent direction in most of the 10 models).",
          "* Generator (AMBIG-17): the thesis's random TAN generator is not described; ours draws a uniform labelled "
          "tree (Prüfer), r_i ~ U{2, 3} and Dirichlet(1) CPTs. Dirichlet(1) CPTs often make C only weakly visible "
          "in some features, which lowers every learner's accuracy and makes many comparisons close.",
          "* Starts (AMBIG-7): every learner starts from a random Dirichlet(1) naive Bayes; the thesis only says "
          "'random'. Random responsibilities per row were tried first and made EMA-TAN stop after 2-3 iterations "
          "near the symmetric point (tol = 0.01 on parameter changes) with a lower log-likelihood.",
          "* Stopping: EMA-TAN stops on the parameter L-infinity change (tol = 0.01, AMBIG-6); the EM baselines on "
          "|dLL| <= 1e-6 |LL| (AMBIG-2), all capped at max_iter. mEM-TAN re-learns its tree every iteration "
          "(AMBIG-4) from a root drawn once per start.",
          "* Identifiability: with Best Choice by log-likelihood, a learner whose class contains structures with "
          "feature-to-feature arcs (mEMA-TAN, mEM-TAN, mEM-BNET) can prefer a partition in which one feature acts "
          "as a hub for the others and C explains something else; the log-likelihoods of such partitions and of the "
          "true one are often within a nat. This affects accuracy-based comparisons, not the algorithms' "
          "correctness (tested separately: kernels against references, the MA step against the explicit average "
          "over all 2^n n! structures, and the naive-Bayes options against EMA step by step).",
          "* Winner criterion (AMBIG-11): accuracy, as the thesis's text says; the Hamming-distance version of every "
          "cell is given above.", ""]
    return "\n".join(L) + "\n"


def _reading(results: dict, st: Settings) -> list[str]:
    out = []
    for table, opp in OPPONENTS.items():
        small = [np.sign(_cell(results[n], N, opp).wins - _cell(results[n], N, opp).losses)
                 for n in results if n <= 2 for N in st.ns]
        large = [np.sign(_cell(results[n], N, opp).wins - _cell(results[n], N, opp).losses)
                 for n in results if n >= 8 for N in st.ns]
        part = []
        if small:
            part.append(f"n = 2: mEMA-TAN ahead in {int(np.sum(np.array(small) > 0))} of {len(small)} cells")
        if large:
            part.append(f"n >= 8: ahead in {int(np.sum(np.array(large) > 0))} of {len(large)} cells")
        if part:
            out.append(f"* Table {table} (vs {opp}): " + "; ".join(part) + ". The thesis: no advantage (sometimes a "
                       "significant loss) at n = 2; mEMA-TAN clearly ahead for n >= 8, most at large N.")
    return out


def run(output=None, *, output_dir=None, quick: bool = False, full: bool = False, n_jobs: int | None = None,
        log=print) -> Path:
    """Run the reproduction and write the Markdown report; returns its path.

    Parameters
    ----------
    output, output_dir : path, optional
        The report file, or its folder (``<output_dir>/seed001-tables7.4-7.6.md``).
    quick : bool, default False
        Smoke run (n in {2, 8}, N in {40, 80}, 3 models, m = 2); not the reproduction.
    full : bool, default False
        The thesis's grid: 6 n x 5 N x 100 models x m = 100 for four learners (12,000 multi-start fits; hours on
        one core). The default (neither flag) is the subset described in the report's "Grid run".
    n_jobs : int, optional
        Models in parallel (joblib); results do not depend on it.
    """
    path = report_path(output, "seed001-tables7.4-7.6", output_dir)
    if quick:
        st = Settings(n_vars=[2, 8], ns=[40, 80], n_models=3, n_init=2, label="quick smoke grid")
    elif full:
        st = Settings()
    else:
        st = Settings(n_models=10, n_init=10, max_iter=200,
                      label="default subset: every n and N, 10 random models per cell (thesis: 100), m = 10 starts "
                            "per learner (thesis: 100), max_iter 200; about 4 CPU-minutes on an idle core (the full "
                            "grid, `full=True`, is about 100x larger)")
    t0 = time.perf_counter()
    tasks = [(n, i, st.ns, st.n_init, st.seed, st.max_iter) for n in st.n_vars for i in range(st.n_models)]
    log(f"{len(tasks)} model tasks ...")
    out = parallel_map(run_model, tasks, n_jobs)
    results = {}
    for t, r in zip(tasks, out, strict=True):
        results.setdefault(t[0], []).append(r)
    text = report(results, st, time.perf_counter() - t0, quick, n_jobs)
    return write_report(path, text)

"""Reproduction of the NBM map-formation demo of Ruz's thesis (seed 000 section 5.4.1, Fig. 5.2).

Protocol (``docs/decisions/seed000-sbn-cem-nbm.md`` sections 5.5-5.7, 7.4, 8.5; D18-D23): a 16 x 16 NBM, means and
variances uniform in [0, 1], a stream of x ~ U([0, 1]^2) (one new point per step), sigma(t) = 8 exp(-16 t / 1e5),
no alpha factor, 100,000 steps; the lattice of means at t = 0, 500, 1000, 5000, 10000 and 100000. Order is measured
by counting folded lattice cells (:func:`pgmpy_ext.maps.count_foldovers`), over several seeds and both variance
updates (D18).
"""

from __future__ import annotations

import time
from pathlib import Path

from pgmpy_ext.experiments._common import md_table, report_path, run_facts, write_report
from pgmpy_ext.experiments._seed000_nbm_common import figure_dir, save

__all__ = ["run"]

NAME = "seed000-nbm-unit-square"


def run(output=None, *, output_dir=None, quick: bool = False, n_jobs: int | None = None, n_seeds: int | None = None,
        log=print) -> Path:
    """Run the demo and write the report (and PNG figures in ``figures/`` beside it); returns the report's path.

    ``quick``: 2,000 steps (t_max still 100,000, so the schedule is the thesis's), 2 seeds; not the reproduction.
    """
    from matplotlib.figure import Figure

    from pgmpy_ext.maps import count_foldovers, nbm_unit_square, plot_lattice

    path = report_path(output, NAME, output_dir)
    t0 = time.perf_counter()
    n_steps = 2000 if quick else 100_000
    marks = [t for t in (0, 500, 1000, 5000, 10000, 100000) if t <= n_steps]
    seeds = range(n_seeds if n_seeds is not None else (2 if quick else 5))
    folds = {}
    spans = {}
    snaps0 = None
    for update in ("thesis", "exact"):
        for seed in seeds:
            snaps = nbm_unit_square(n_steps=n_steps, t_max=100_000, snapshots=marks, variance_update=update,
                                    random_state=seed)
            folds[update, seed] = [count_foldovers(snaps[t], (16, 16)) for t in marks]
            last = snaps[marks[-1]]
            spans[update, seed] = (last.min(axis=0), last.max(axis=0))
            if update == "thesis" and seed == 0:
                snaps0 = snaps
            log(f"{update} seed {seed}: fold-overs {folds[update, seed]}")
    figs = figure_dir(path)
    fig = Figure(figsize=(3.0 * len(marks), 3.2))
    for i, t in enumerate(marks):
        plot_lattice(snaps0[t], (16, 16), ax=fig.add_subplot(1, len(marks), i + 1), title=f"t = {t}")
    fig_name = f"{NAME}{'-quick' if quick else ''}.png"
    save(fig, figs / fig_name)

    L = [f"# {NAME}: NBM map formation on the unit square (thesis Fig. 5.2)", "",
         run_facts(time.perf_counter() - t0, n_jobs, quick), "",
         "## Protocol", "",
         "16 x 16 grid; means and variances uniform in [0, 1] (variances + 1e-6); a new x ~ U([0,1]^2) at every "
         "step; sigma(t) = 8 exp(-2 * 8 * t / 100000) (eq. 5.19 as reconstructed, D20); eta_k = "
         "Lambda_k / (j/K + Lambda_k) (eq. 5.17) with j = t; no alpha factor; variance floor 1e-6 (D19). "
         f"{n_steps} steps; seeds {list(seeds)}; both variance updates of D18.", "",
         "## Lattice of the neuron means (seed 0, thesis variance update)", "",
         f"![lattice](figures/{fig_name})", "",
         "## Folded lattice cells (0 = an ordered map; 225 cells)", ""]
    rows = [[update, seed, *folds[update, seed]] for (update, seed) in folds]
    L += md_table(["variance update", "seed", *[f"t = {t}" for t in marks]], rows)
    L += ["", f"## Span of the means at t = {marks[-1]}", ""]
    L += md_table(["variance update", "seed", "min (x1, x2)", "max (x1, x2)"],
                  [[u, s, f"({a[0]:.3f}, {a[1]:.3f})", f"({b[0]:.3f}, {b[1]:.3f})"] for (u, s), (a, b) in
                   spans.items()])
    L += ["", "## Against the thesis (section 8.5)", ""]
    if 500 in marks:
        at500 = {u: [folds[u, s][marks.index(500)] == 0 for s in seeds] for u in ("thesis", "exact")}
        verdict = "holds" if all(at500["thesis"]) else "does not hold"
        L.append(f"* \"An ordered lattice by t ~ 500\" (thesis variance update, the default): {verdict} — "
                 f"{sum(at500['thesis'])} of {len(at500['thesis'])} runs have no folded cell at t = 500; with the "
                 f"exact update of D18, {sum(at500['exact'])} of {len(at500['exact'])}.")
    else:
        L.append("* t = 500 not reached.")
    if n_steps >= 100_000:
        lo = min(a.min() for a, _ in spans.values())
        hi = max(b.max() for _, b in spans.values())
        L.append(f"* \"Spreading over the square by t = 100000\": the means span [{lo:.3f}, {hi:.3f}] at most "
                 "(the square's border is not reached: each neuron sits at the centre of mass of its share).")
    L += ["", "Notes: at t = 0 every eta equals 1, so the first sample pulls every mean onto itself (D22); the "
          "lattice then unfolds from a point. The thesis shows the figure without counts; the fold-over count is our "
          "measure of 'ordered'."]
    path = write_report(path, "\n".join(L) + "\n")
    log(f"report written to {path}")
    return path

"""Reproductions of published results, one module per table or figure, run with ``pgmpy-ext reproduce NAME``.

Every entry of :data:`REPRODUCTIONS` maps a name to a :class:`Reproduction` whose ``run(output=None, *,
output_dir=None, quick=False, n_jobs=None, ...)`` runs the experiment and writes its Markdown report to the file
``output``, or else to ``<output_dir>/<name>.md`` (default: the current directory), returning the report's path. The
reports committed with the repository are in ``docs/reproductions/`` (``pgmpy-ext reproduce NAME --output-dir
docs/reproductions``). The experiment modules are imported only when a reproduction runs.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["REPRODUCTIONS", "Reproduction", "register"]


@dataclass(frozen=True)
class Reproduction:
    """A registered reproduction: ``module`` (under ``pgmpy_ext.experiments``) defines ``run``."""

    name: str
    title: str
    module: str

    @property
    def run(self) -> Callable:
        return importlib.import_module(f"pgmpy_ext.experiments.{self.module}").run


REPRODUCTIONS: dict[str, Reproduction] = {}


def register(name: str, title: str, module: str) -> Reproduction:
    """Add a reproduction to :data:`REPRODUCTIONS` (the name must be new)."""
    if name in REPRODUCTIONS:
        raise ValueError(f"a reproduction named {name!r} is already registered.")
    REPRODUCTIONS[name] = Reproduction(name, title, module)
    return REPRODUCTIONS[name]


register("seed000-table4.2", "Ruz thesis Table 4.2: CEM-CL/TAN/SBN clustering accuracy vs k-means and EM, plus the "
         "Corral structures of Figs. 4.11-4.13", "_seed000_table42")
register("seed000-table3.2", "Ruz thesis Table 3.2: NB/TAN/SBN test accuracy over many random splits with the "
         "thesis's sizes, and the Cleve SBN edge-count growth (10/50/80%)", "_seed000_table32")
register("seed000-table3.3", "Ruz thesis Table 3.3: control charts, 5-fold CV, SBN vs an entropy decision tree "
         "(C4.5-style) and an MLP (20 hidden, lr 0.3, momentum 0.9)", "_seed000_table33")
register("seed002-abn", "Hamine & Helman ABN (no tables in the paper): brute-force MDL optimality over all labelled "
         "forests with pgmpy's BIC, MDL(ABN) <= MDL(TAN), MDL(NB), the A.6 counterexample", "_seed002_abn")
register("seed001-tables5.1-5.2", "Santafe thesis Tables 5.1/5.2: NB/TAN/BAN with ML and TM parameters on binary "
         "data sets, whole-data CLL and LOO accuracy", "_seed001_tables51_52")
register("seed001-tables5.3-5.4", "Santafe thesis Tables 5.3/5.4: NB/TAN with ML and TM parameters on UCI sets, "
         "5-fold CV accuracy and whole-data CLL", "_seed001_tables53_54")
register("seed001-tables5.3-protocol", "Santafe thesis Table 5.3 under four protocols (discretisation and structure "
         "in-fold, on all rows, resubstitution): do the thesis's 98-100 % cells come from leaking the test rows?",
         "_seed001_tables53_protocol")
register("seed001-tables5.5-5.6", "Santafe thesis Tables 5.5/5.6: structural TM and cTAN-TM vs NB-TM and TAN-TM, "
         "5-fold CV accuracy and the features structural TM selects", "_seed001_tables55_56")
register("seed003-tables2-3", "Pena, Lozano & Larranaga 1999 Tables 2-3: constructive-induction clustering (EM, "
         "BC+EM, SA, backward) on the synthetic 20-attribute databases, 5 runs each, and the B.11.8 claims",
         "_seed003_tables23")
register("seed003-tables4-5", "Pena, Lozano & Larranaga 1999 Tables 4-5: constructive-induction clustering on "
         "tic-tac-toe and nursery (forward and SA, 5 runs each), the nursery speed ratio and the B.11.9 scores",
         "_seed003_tables45")
register("seed000-nbm-unit-square", "Ruz thesis Fig. 5.2: NBM map formation on the unit square (16x16, 100,000 "
         "steps), lattice snapshots and fold-over counts", "_seed000_nbm_unit_square")
register("seed000-nbm-iris", "Ruz thesis Figs. 5.3-5.4: NBM convergence on Iris (3 restarts, 100 epochs), LL "
         "traces and the posterior of point 30", "_seed000_nbm_iris")
register("seed000-nbm-maps", "Ruz thesis Figs. 5.5-5.14: PCA, SOM (MiniSom), GTM (ugtm) and NBM on ten UCI sets, "
         "trustworthiness and continuity for k = 5..50 and the statements of spec section 8.5", "_seed000_nbm_maps")
register("seed001-tables7.4-7.6", "Santafe thesis Tables 7.4-7.6: multi-start EMA-TAN vs mEM-TAN, mEM-BNET and mEMA on "
         "random TAN models (W/D/L by matched accuracy, Wilcoxon marks)", "_seed001_tables74_76")
register("seed001-tables7.1-7.2", "Santafe thesis Tables 7.1/7.2: multi-start EMA vs EM (W/D/L of the "
         "co-membership Hamming distance) on random selective naive Bayes and random BN-classifier generators",
         "_seed001_tables71_72")
register("seed001-tables7.1-7.2-ml-em", "Santafe thesis Tables 7.1/7.2 against the maximum-likelihood EM baseline "
         "(AMBIG-3) beside the Dirichlet(1) one, on the same models, samples and EMA fits", "_seed001_tables71_72_ml")
register("seed001-figs7.2-7.3", "Santafe thesis Figs 7.2/7.3: multi-start EMA vs the brute-force Bayesian model "
         "average over all 2^n selective naive Bayes (Candidate method), KL in bits against random-model thresholds",
         "_seed001_figs72_73")
register("seed001-model-detection", "Santafe thesis section 7.5.2 (Figs 7.4/7.5, reconstructed): EMA's independence "
         "measure I_P separates the cluster-dependent from the independent variables as N grows",
         "_seed001_model_detection")
register("seed001-ema-relevance", "Issue 30: EMA's MA step against the enumeration of every selective structure, "
         "the plug-in of expected counts against the exact structure posterior, the arc posteriors through the "
         "iterations of a noisy run and what Best Choice keeps", "_seed001_ema_relevance")
register("seed001-table7.3", "Santafe thesis Table 7.3: leukemia (Golub, 72 and 38 samples, all 7,129 probes, "
         "tertiles) clustered by multi-start EM vs EMA (UA, Av, BC)", "_seed001_table73")
register("seed004-ch2", "Pansombut thesis ch. 2 (Tables 2.3-2.6): K2/HC/tabu/PC/TAN with and without C4.5 feature "
         "selection (BBN-DT) on UCI sets, accuracy, time and feature reduction", "_seed004_ch2")
register("seed004-bench", "Pansombut thesis Tables 4.2/4.3 and Figs. 4.2/4.5: BENCH (SAMBA + FI/FE BN ensembles) on "
         "leukemia, colon and lymphoma, both CV protocols, against scikit-learn random forest (500 trees), bagging, "
         "a linear SVM and the single BN on the same folds", "_seed004_bench")
register("seed004-itdt", "Pansombut thesis Tables 3.1/3.4: single K2 BN vs BBN-DT (accuracy, feature reduction) and "
         "the FN/FC/FN+FC BBN-ITDT ensembles on the microarrays, both CV protocols", "_seed004_itdt")
register("seed001-toy8.3", "Santafe thesis section 8.3: toy bit-string populations, multi-start EMA accuracy "
         "(target 95% every run) and the markers selected (target exactly 2)", "_seed001_toy83")
register("seed001-table8.1", "Santafe thesis Table 8.1: multi-start EMA on 19 blocks of 80 SNPs and all 1,520 "
         "(Balding-Nichols stand-in for the Perlegen data), marker selection on dsSNPs", "_seed001_table81")
register("seed001-tables8.2-8.3", "Santafe thesis Tables 8.2/8.3 and section 8.5.2: F_ST of EMA runs per r_C, "
         "Mann-Whitney, marker-selection grid (HGDP-sized stand-in)", "_seed001_tables82_83")

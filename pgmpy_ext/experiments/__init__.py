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
register("seed001-tables5.5-5.6", "Santafe thesis Tables 5.5/5.6: structural TM and cTAN-TM vs NB-TM and TAN-TM, "
         "5-fold CV accuracy and the features structural TM selects", "_seed001_tables55_56")
register("seed001-toy8.3", "Santafe thesis section 8.3: toy bit-string populations, multi-start EMA accuracy "
         "(target 95% every run) and the markers selected (target exactly 2)", "_seed001_toy83")
register("seed001-table8.1", "Santafe thesis Table 8.1: multi-start EMA on 19 blocks of 80 SNPs and all 1,520 "
         "(Balding-Nichols stand-in for the Perlegen data), marker selection on dsSNPs", "_seed001_table81")
register("seed001-tables8.2-8.3", "Santafe thesis Tables 8.2/8.3 and section 8.5.2: F_ST of EMA runs per r_C, "
         "Mann-Whitney, marker-selection grid (HGDP-sized stand-in)", "_seed001_tables82_83")

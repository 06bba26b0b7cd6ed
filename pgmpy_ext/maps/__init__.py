"""Topographic maps with a density model behind them: the naive Bayes map (NBM / NBSOM) of Ruz's thesis,
chapter 5 (design record ``docs/decisions/seed000-sbn-cem-nbm.md``, "NBM — naive Bayes mapping"), and its pictures.

The public API is ``__all__``; the engine (``fit_nbm``, ``NBMResult``, the schedules) stays importable from here for
the reproductions, benchmarks and tests.
"""

from pgmpy_ext.maps._nbsom import NaiveBayesMap, count_foldovers, nbm_unit_square
from pgmpy_ext.maps._plots import (
    plot_component_planes,
    plot_lattice,
    plot_ll_trace,
    plot_map,
    plot_neighbour_distances,
    plot_posterior,
    plot_quality,
)

__all__ = ["NaiveBayesMap", "count_foldovers", "nbm_unit_square", "plot_component_planes", "plot_lattice",
           "plot_ll_trace", "plot_map", "plot_neighbour_distances", "plot_posterior", "plot_quality"]

# Engine: importable for the reproductions, benchmarks and tests; not public (not in __all__).
from pgmpy_ext.maps._nbsom import (  # noqa: E402, F401
    THESIS_RULE,
    NBMResult,
    fit_nbm,
    learning_rate_schedule,
    principal_plane,
    sigma_schedule,
)

"""Topographic maps with a density model behind them: the naive Bayes map (NBM / NBSOM) of Ruz's thesis,
chapter 5 (spec ``docs/decisions/seed000-sbn-cem-nbm.md`` sections 5 and 8.5, decisions D18-D23), and its pictures.
"""

from pgmpy_ext.maps._nbsom import (
    NaiveBayesMap,
    NBMResult,
    count_foldovers,
    fit_nbm,
    learning_rate_schedule,
    nbm_unit_square,
    sigma_schedule,
)
from pgmpy_ext.maps._plots import plot_lattice, plot_ll_trace, plot_map, plot_posterior, plot_quality

__all__ = ["NBMResult", "NaiveBayesMap", "count_foldovers", "fit_nbm", "learning_rate_schedule", "nbm_unit_square",
           "sigma_schedule"]
__all__ += ["plot_lattice", "plot_ll_trace", "plot_map", "plot_posterior", "plot_quality"]

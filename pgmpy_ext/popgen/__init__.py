"""Population structure from genetic markers (Santafé 2007, chapter 8): genotype data, F_ST, marker selection and
``PopulationEMA`` (the latent-class EMA engine with ploidy and missing alleles). Its membership bar plot is
``pgmpy_ext.evaluation.plot_membership(ema)``.

The public API is ``__all__``; the option tuples stay importable from here.
"""

from pgmpy_ext.popgen._fst import fst_from_model, fst_reynolds
from pgmpy_ext.popgen._genotypes import Genotypes, as_genotypes
from pgmpy_ext.popgen._markers import MarkerSelection, select_markers
from pgmpy_ext.popgen._plots import plot_fst_by_k
from pgmpy_ext.popgen._population import (
    THESIS_SETTINGS,
    NClustersResult,
    PopulationEMA,
    choose_n_clusters,
    pca_kmeans_labels,
)

__all__ = ["THESIS_SETTINGS", "Genotypes", "MarkerSelection", "NClustersResult", "PopulationEMA", "as_genotypes",
           "choose_n_clusters", "fst_from_model", "fst_reynolds", "pca_kmeans_labels", "plot_fst_by_k",
           "select_markers"]

from pgmpy_ext.popgen._fst import FST_VARIANTS  # noqa: E402, F401
from pgmpy_ext.popgen._markers import REDUNDANCY_RULES  # noqa: E402, F401

"""Population structure from genetic markers (seed 001, chapter 8): genotype data, F_ST, marker selection,
membership plots and ``PopulationEMA`` (the latent-class EMA engine with ploidy and missing alleles)."""

from pgmpy_ext.popgen._genotypes import Genotypes, as_genotypes

__all__ = ["Genotypes", "as_genotypes"]
from pgmpy_ext.popgen._fst import FST_VARIANTS, fst_from_model, fst_reynolds  # noqa: E402

__all__ += ["FST_VARIANTS", "fst_from_model", "fst_reynolds"]
from pgmpy_ext.popgen._markers import REDUNDANCY_RULES, MarkerSelection, select_markers  # noqa: E402
from pgmpy_ext.popgen._population import (  # noqa: E402
    NClustersResult,
    PopulationEMA,
    choose_n_clusters,
    pca_kmeans_labels,
)

__all__ += ["REDUNDANCY_RULES", "MarkerSelection", "select_markers"]
__all__ += ["NClustersResult", "PopulationEMA", "choose_n_clusters", "pca_kmeans_labels"]
from pgmpy_ext.popgen._plots import plot_fst_by_k, plot_structure_bars  # noqa: E402

__all__ += ["plot_fst_by_k", "plot_structure_bars"]

"""Population structure from genetic markers (seed 001, chapter 8): genotype data, F_ST, marker selection,
membership plots and ``PopulationEMA`` (the latent-class EMA engine with ploidy and missing alleles)."""

from pgmpy_ext.popgen._genotypes import Genotypes, as_genotypes

__all__ = ["Genotypes", "as_genotypes"]

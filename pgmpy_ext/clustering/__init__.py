"""Clustering with Bayesian networks: classification-EM mixtures of Chow-Liu trees, TAN and SBN (seed 000 ch. 4)."""

from pgmpy_ext.clustering._cem import CEMClustering, fit_cem
from pgmpy_ext.clustering._engine import CEM_INITS, CEM_MODELS, EMPTY_CLUSTER_POLICIES
from pgmpy_ext.clustering._multinet import minimal_parents, multinet_to_network

__all__ = ["CEMClustering", "CEM_INITS", "CEM_MODELS", "EMPTY_CLUSTER_POLICIES", "fit_cem", "minimal_parents",
           "multinet_to_network"]

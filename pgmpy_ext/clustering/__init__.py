"""Clustering with Bayesian networks: classification-EM mixtures of Chow-Liu trees, TAN and SBN (seed 000 ch. 4)."""

from pgmpy_ext.clustering._base import BaseBNMixture
from pgmpy_ext.clustering._cem import CEMClustering, fit_cem
from pgmpy_ext.clustering._cem_engine import (
    CEM_INITS,
    CEM_MODELS,
    EMPTY_CLUSTER_POLICIES,
    CEMParams,
    CEMResult,
    CEMStart,
    MStep,
    cem_single_start,
    check_cem_params,
    initial_partition,
)
from pgmpy_ext.models import minimal_parents, multinet_to_network  # re-exported: they live in models

__all__ = ["CEMClustering", "CEM_INITS", "CEM_MODELS", "EMPTY_CLUSTER_POLICIES", "fit_cem", "minimal_parents",
           "multinet_to_network"]
__all__ += ["BaseBNMixture"]
__all__ += ["CEMParams", "CEMResult", "CEMStart", "MStep", "cem_single_start", "check_cem_params", "initial_partition"]
from pgmpy_ext.clustering._constructive import (  # noqa: E402
    CI_PARAM_SEARCHES,
    CI_SEARCHES,
    CIOptions,
    CIStart,
    ConstructiveInductionClustering,
    ci_single_start,
    unique_rows_with_counts,
)

__all__ += ["CI_PARAM_SEARCHES", "CI_SEARCHES", "CIOptions", "CIStart", "ConstructiveInductionClustering",
            "ci_single_start", "unique_rows_with_counts"]

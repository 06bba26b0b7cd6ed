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
from pgmpy_ext.clustering._latent import (  # noqa: E402
    LATENT_METHODS,
    LATENT_POLICIES,
    LatentClassData,
    LatentClassStart,
    align_starts,
    combine_starts,
    em_m_step,
    latent_class_data,
    latent_class_single_start,
    ma_step,
    n_free_parameters,
)
from pgmpy_ext.clustering._latent_class import EMAClustering, LatentClassEM  # noqa: E402

__all__ += ["LATENT_METHODS", "LATENT_POLICIES", "EMAClustering", "LatentClassData", "LatentClassEM",
            "LatentClassStart", "align_starts", "combine_starts", "em_m_step", "latent_class_data",
            "latent_class_single_start", "ma_step", "n_free_parameters"]
from pgmpy_ext.clustering._base import run_starts  # noqa: E402

__all__ += ["run_starts"]

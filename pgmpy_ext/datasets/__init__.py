"""Data-set generators (synthetic data sets from the reproduced papers) and a loader for the shared PMLB files;
every generator runs offline."""

from pgmpy_ext.datasets._biclusters import make_planted_biclusters
from pgmpy_ext.datasets._ci_synthetic import make_ci_synthetic
from pgmpy_ext.datasets._generators import (
    CONTROL_CHART_CLASSES,
    MOFN_RELEVANT,
    MONK_CARDS,
    MONK_FEATURES,
    NURSERY_DOMAINS,
    TIC_TAC_TOE_SQUARES,
    make_control_charts,
    make_m_of_n,
    make_monks,
    make_nursery_grid,
    make_tic_tac_toe,
)
from pgmpy_ext.datasets._latent import (
    RandomLatentModel,
    make_model_detection,
    make_random_bn_classifier,
    make_random_selective_nb,
    make_random_tan,
    pruefer_tree,
)
from pgmpy_ext.datasets._loader import list_datasets, load_dataset
from pgmpy_ext.datasets._microarray import MICROARRAYS, load_microarray
from pgmpy_ext.datasets._popgen import make_balding_nichols, make_toy_bitstrings, simulate_demes, simulate_stdpopsim
from pgmpy_ext.datasets._synthetic import CORRAL_FEATURES, make_corral

__all__ = [
    "CORRAL_FEATURES",
    "make_corral",
    # enumerated/synthetic benchmark sets (_generators.py) and the shared-file loader (_loader.py)
    "CONTROL_CHART_CLASSES",
    "MOFN_RELEVANT",
    "MONK_CARDS",
    "MONK_FEATURES",
    "NURSERY_DOMAINS",
    "TIC_TAC_TOE_SQUARES",
    "list_datasets",
    "load_dataset",
    "make_control_charts",
    "make_m_of_n",
    "make_monks",
    "make_nursery_grid",
    "make_tic_tac_toe",
    "make_planted_biclusters",
    "MICROARRAYS",
    "load_microarray",
]
__all__ += ["make_ci_synthetic"]
__all__ += ["RandomLatentModel", "make_model_detection", "make_random_bn_classifier", "make_random_selective_nb",
            "make_random_tan", "pruefer_tree"]
__all__ += ["make_balding_nichols", "make_toy_bitstrings", "simulate_demes", "simulate_stdpopsim"]

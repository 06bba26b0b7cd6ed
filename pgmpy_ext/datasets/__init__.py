"""Data-set generators (synthetic data sets from the reproduced papers) and a loader for the shared PMLB files;
every generator runs offline."""

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
from pgmpy_ext.datasets._loader import list_datasets, load_dataset
from pgmpy_ext.datasets._popgen import make_balding_nichols, make_toy_bitstrings
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
]
__all__ += ["make_balding_nichols", "make_toy_bitstrings"]

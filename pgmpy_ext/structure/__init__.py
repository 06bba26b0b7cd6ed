"""Structure learning engines and pgmpy StructureEstimator faces."""

from pgmpy_ext.structure._augmented import NBSearch, TANSearch, fit_nb, fit_tan
from pgmpy_ext.structure._ban import BANSearch, fit_ban
from pgmpy_ext.structure._base import ClassifierSearchBase, ClassifierStructure, check_class_node
from pgmpy_ext.structure._ctan import CTANSearch, ear_matrix, fit_ctan
from pgmpy_ext.structure._forest import (
    ABN_WEIGHTS,
    ABNSearch,
    FANSearch,
    SBNSearch,
    abn_forest,
    check_abn_params,
    check_fan_params,
    check_sbn_params,
    fit_abn,
    fit_fan,
    fit_sbn,
    labelled_matrix,
    mdl_gains,
    monitor_frame,
)
from pgmpy_ext.structure._kdb import KDBSearch, class_mutual_information, fit_kdb
from pgmpy_ext.structure._multinet import CLMultinetSearch, MultinetStructure, fit_cl_multinet
from pgmpy_ext.structure._selective import SelectiveNBSearch, fit_selective_nb
from pgmpy_ext.structure._structural_tm import (
    CRITERIA,
    MAX_CANDIDATES,
    StructuralTMSearch,
    cbic_score,
    conditional_dimension,
    fit_structural_tm,
)
from pgmpy_ext.structure._trees import (
    SBN_STOPPING,
    SBNWalk,
    TreeResult,
    chow_liu_trees_per_class,
    fit_chow_liu_tree,
    fit_tan_tree,
    maximum_spanning_forest,
    orient_forest,
    root_index,
    sbn_code_length,
    sbn_monitor,
    sbn_walk,
)

__all__ = ["ClassifierSearchBase", "ClassifierStructure", "NBSearch", "TANSearch", "check_class_node", "fit_nb",
           "fit_tan", "TreeResult", "fit_chow_liu_tree", "fit_tan_tree", "maximum_spanning_forest", "orient_forest"]
__all__ += ["ABNSearch", "FANSearch", "SBNSearch", "fit_abn", "fit_fan", "fit_sbn"]
__all__ += ["abn_forest", "check_abn_params", "check_fan_params", "check_sbn_params", "labelled_matrix", "mdl_gains",
            "monitor_frame"]
__all__ += ["BANSearch", "CLMultinetSearch", "KDBSearch", "MultinetStructure", "SelectiveNBSearch",
            "class_mutual_information", "fit_ban", "fit_cl_multinet", "fit_kdb", "fit_selective_nb", "k2_search"]
__all__ += ["CTANSearch", "StructuralTMSearch", "cbic_score", "conditional_dimension", "ear_matrix", "fit_ctan",
            "fit_structural_tm"]
__all__ += ["ABN_WEIGHTS", "SBN_STOPPING", "SBNWalk", "chow_liu_trees_per_class", "root_index", "sbn_code_length",
            "sbn_monitor", "sbn_walk"]
__all__ += ["CRITERIA", "MAX_CANDIDATES"]
from pgmpy_ext.structure._k2 import PARENT_PRIORS, K2Search, check_order, fit_k2, k2_search  # noqa: E402

__all__ += ["PARENT_PRIORS", "K2Search", "check_order", "fit_k2"]

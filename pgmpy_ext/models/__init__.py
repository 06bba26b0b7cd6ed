"""pgmpy models from pgmpy-ext engines: building networks from counts, and batch posteriors through the kernels."""

from pgmpy_ext.models._build import (
    NetworkTables,
    build_network,
    cpds_from_counts,
    cpds_from_layout,
    network_tables,
    sorted_parents,
)
from pgmpy_ext.models._multinet import minimal_parents, multinet_to_network
from pgmpy_ext.models._posterior import BatchPosterior, CompiledNetwork, compile_network, compile_tables

__all__ = ["BatchPosterior", "CompiledNetwork", "build_network", "compile_network", "cpds_from_counts",
           "cpds_from_layout", "sorted_parents"]
__all__ += ["minimal_parents", "multinet_to_network"]
__all__ += ["NetworkTables", "compile_tables", "network_tables"]
from pgmpy_ext.models._marginal import marginal_log_joint, variable_elimination_log_joint  # noqa: E402

__all__ += ["marginal_log_joint", "variable_elimination_log_joint"]
from pgmpy_ext.models._averaged import MAX_COMPLETE_CPD_SIZE, MAX_MISSING_COMPLETIONS, AveragedTANModel  # noqa: E402

__all__ += ["AveragedTANModel", "MAX_COMPLETE_CPD_SIZE", "MAX_MISSING_COMPLETIONS"]

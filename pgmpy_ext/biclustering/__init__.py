"""Biclustering with scikit-learn's conventions (``rows_``, ``columns_``, ``biclusters_``, ``get_indices``)."""

from pgmpy_ext.biclustering._samba import SAMBA

__all__ = ["SAMBA"]

# Importable for the ensembles layer (BENCH checks its matrices with it); not public (not in __all__).
from pgmpy_ext.biclustering._samba import check_finite_matrix  # noqa: E402, F401

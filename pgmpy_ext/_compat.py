"""Every import from pgmpy that needs special care lives here.

* ``pgmpy.estimators`` (and ``pgmpy.inference``/``pgmpy.sampling``, which import it) emits
  ``FutureWarning: pgmpy.estimators.StructureScore is deprecated and will be removed in v1.3.0`` at import time.
  That warning is about pgmpy's own module, not about anything we call, so it is filtered here, narrowly, once.
* We build only on what is current in pgmpy 1.1.2 and stays: ``DiscreteBayesianNetwork``, ``TabularCPD``,
  ``StructureEstimator`` (not deprecated), ``BaseStructureScore``, ``DiscreteParameterEstimator``.
"""

from __future__ import annotations

import warnings

_PGMPY_IMPORT_WARNING = r"`?pgmpy\.estimators\.StructureScore`? is deprecated"

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=_PGMPY_IMPORT_WARNING, category=FutureWarning)
    from pgmpy.estimators import StructureEstimator  # noqa: F401
    from pgmpy.inference import VariableElimination  # noqa: F401

from pgmpy import config as pgmpy_config  # noqa: E402
from pgmpy.base import DAG  # noqa: E402
from pgmpy.factors.discrete import TabularCPD  # noqa: E402
from pgmpy.models import DiscreteBayesianNetwork  # noqa: E402
from pgmpy.parameter_estimator import DiscreteParameterEstimator  # noqa: E402
from pgmpy.structure_score import BaseStructureScore  # noqa: E402

__all__ = ["DAG", "BaseStructureScore", "DiscreteBayesianNetwork", "DiscreteParameterEstimator",
           "StructureEstimator", "TabularCPD", "VariableElimination", "pgmpy_config", "show_progress_enabled"]


def show_progress_enabled(flag: bool) -> bool:
    """A progress bar is shown only when the caller asked for it and pgmpy's global switch is on."""
    return bool(flag) and bool(getattr(pgmpy_config, "SHOW_PROGRESS", True))

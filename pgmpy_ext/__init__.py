"""pgmpy-ext: fast Bayesian-network learners for pgmpy, with Cython kernels and a scikit-learn face.

Importing the package does not import pgmpy or scikit-learn: ``pgmpy_ext.data``, ``pgmpy_ext.stats`` and the
kernels in ``pgmpy_ext._core`` load without them (a Dask worker running our kernels stays small and starts fast;
design note scale-out.md §5.6). The modules that build pgmpy objects import pgmpy through :mod:`pgmpy_ext._compat`.

pgmpy 1.1.2 emits a FutureWarning about its own deprecated ``pgmpy.estimators.StructureScore`` module the first
time ``pgmpy.estimators`` is imported (by anyone: us, or a user's ``from pgmpy.estimators import ...``). Importing
the package installs one narrow filter for exactly that message, so users of ``pgmpy_ext`` do not see it, as when
the package imported pgmpy eagerly. Nothing else is filtered.
"""

import logging
import warnings

from pgmpy_ext.data import EncodedData, encode

#: The message of pgmpy 1.1.2's import-time FutureWarning about its own ``pgmpy.estimators.StructureScore``.
PGMPY_IMPORT_WARNING = r"`?pgmpy\.estimators\.StructureScore`? is deprecated"
warnings.filterwarnings("ignore", message=PGMPY_IMPORT_WARNING, category=FutureWarning)

__version__ = "0.1.0.dev0"

logging.getLogger(__name__).addHandler(logging.NullHandler())

__all__ = ["EncodedData", "encode", "__version__"]

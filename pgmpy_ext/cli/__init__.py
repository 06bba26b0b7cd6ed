"""The ``pgmpy-ext`` command line: ``demo``, ``evaluate``, ``fit``, ``predict``, ``cluster``, ``reproduce``.

The top layer of the package: it uses every other package through its public names only.
"""

from pgmpy_ext.cli._main import build_parser, main

__all__ = ["build_parser", "main"]

"""Tables 7.1/7.2 with the maximum-likelihood EM baseline (AMBIG-3), beside the Dirichlet(1) one: the same models,
samples and EMA fits as ``seed001-tables7.1-7.2``; see :mod:`pgmpy_ext.experiments._seed001_tables71_72`."""

from __future__ import annotations

from pgmpy_ext.experiments._seed001_tables71_72 import run as _run

__all__ = ["run"]


def run(output=None, *, output_dir=None, **kwargs):
    """:func:`pgmpy_ext.experiments._seed001_tables71_72.run` with ``baseline="ml"`` (report
    ``seed001-tables7.1-7.2-ml-em.md`` in ``output_dir``, or ``output``)."""
    return _run(output, output_dir=output_dir, baseline="ml", **kwargs)

"""Shared parameter documentation: one text per option that many estimators take, filled into their docstrings.

A docstring line that holds only ``%(name)s`` (indented like a parameter) is replaced by the fragment ``name`` of
:data:`DOC_PARAMS`, so every estimator documents ``handle_unknown``, ``missing``, ``n_jobs`` and
``max_numeric_states`` in the same words (scikit-learn and pandas share docstring fragments the same way).
"""

from __future__ import annotations

import re
import textwrap

__all__ = ["DOC_PARAMS", "fill_doc"]

DOC_PARAMS = {
    "handle_unknown": '''\
handle_unknown : {"ignore", "error"}, default "ignore"
    A feature value at predict time that was not seen at fit: ``"ignore"`` treats the cell as a missing
    observation and sums it out exactly (the posterior equals pgmpy's ``VariableElimination`` with that feature
    left out of the evidence); ``"error"`` raises a ValueError naming the column, the value and the row by its
    index label. The default is ``"ignore"`` because a rare value often falls in one cross-validation test fold
    only, and ``"error"`` would then stop the whole cross-validation of raw columns.''',
    "missing": '''\
missing : {"available_case", "error"}, default "available_case"
    NaN/None feature cells. ``"available_case"``: at fit every count uses the rows where its family is observed
    (pgmpy's and bnclassify's rule; a learner whose structure search needs complete data says so), at predict
    missing features are summed out exactly. ``"error"``: refused at fit and at predict.''',
    "missing_complete": '''\
missing : {"error", "available_case"}, default "error"
    NaN/None feature cells. This learner's structure search needs complete training data, so ``fit`` refuses
    them either way (naming the column and the row); ``"available_case"`` accepts them at predict, where they
    are summed out exactly. ``"error"``: refused at predict too.''',
    "score_missing": '''\
missing : {"available_case", "error"}, default "available_case"
    Missing cells (NaN/None): ``"available_case"`` counts each family over the rows where the child and all its
    parents are observed, which is what pgmpy's own scores do, so the default keeps drop-in equality with
    pgmpy on data with NaN (and :math:`N` in a penalty is still every row, pgmpy's ``len(data)``);
    ``"error"`` refuses the first missing cell, naming its column and row label.''',
    "missing_fit_complete": '''\
missing : {"available_case", "error"}, default "available_case"
    NaN/None feature cells. This learner fits on complete rows only: ``fit`` refuses a missing cell either way,
    naming its column and row (impute or drop incomplete rows first). ``"available_case"``: ``predict``,
    ``predict_proba`` and ``score`` sum missing cells out exactly; ``"error"``: they refuse them too.''',
    "n_jobs": '''\
n_jobs : int or None, default None
    Parallel workers for work whose result does not depend on them (restarts, candidate structures, families,
    blocks of rows; each random task on its own spawned generator): threads where the work releases the GIL,
    joblib processes otherwise. None means 1, -1 all cores. The same ``random_state`` gives the same result for
    every ``n_jobs``.''',
    "max_numeric_states": '''\
max_numeric_states : int or None, default 50
    The numeric-column rule of :func:`pgmpy_ext.data.encode`: an integer or whole-number float column with more
    distinct values than this (and no declared ``state_names``) raises; pgmpy would take it as categorical.''',
}

_PLACEHOLDER = re.compile(r"^( *)%\((\w+)\)s$", re.MULTILINE)


def fill_doc(obj):
    """Class or function decorator: replace each ``%(name)s`` line of ``obj.__doc__`` by ``DOC_PARAMS[name]``,
    indented like the placeholder. Returns ``obj`` (docstrings stripped by ``python -OO`` are left as None)."""
    if obj.__doc__:
        obj.__doc__ = _PLACEHOLDER.sub(lambda m: textwrap.indent(DOC_PARAMS[m.group(2)], m.group(1)), obj.__doc__)
    return obj

"""Shared pieces of the classifier structure learners: the result type and the pgmpy ``StructureEstimator`` face.

Every classifier structure engine is a plain function ``engine(data: EncodedData, class_node, **options) ->
ClassifierStructure`` that builds no pgmpy object. Two faces call it: the pgmpy face below
(``XxxSearch(data).estimate(class_node=...) -> DAG``, following ``TreeSearch``) and the scikit-learn classifiers
in :mod:`pgmpy_ext.classifiers`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pandas as pd
from pgmpy.utils import preprocess_data

from pgmpy_ext._compat import DAG, StructureEstimator
from pgmpy_ext.data import (
    FIT_MISSING,
    MAX_NUMERIC_STATES,
    EncodedData,
    check_fit_frame,
    check_no_missing,
    check_numeric_columns,
    encode,
    pgmpy_state_names,
)
from pgmpy_ext.utils.validation import check_option

__all__ = ["ClassifierStructure", "ClassifierSearchBase", "check_class_node"]


@dataclass
class ClassifierStructure:
    """The structure of a Bayesian-network classifier, in labels.

    Attributes
    ----------
    class_node : label
        The class; it has no parents.
    features : list
        Every feature of the data, in data order (selected or not).
    parents : dict
        ``{feature: [parents]}`` for every feature. A *selected* feature has the class among its parents; an
        unselected one (selective NB) has no parents at all and is independent of the class.
    trace : dict
        Engine-specific diagnostics (e.g. the SBN monitor trace, ABN gains, CMI weights).
    family_counts : dict
        Count tables the engine already had (e.g. TAN's class-conditional pair tables), so that parameter fitting
        need not recount the rows: ``{node: (parents, counts)}`` with ``parents`` in pgmpy's evidence order
        (``sorted``) and ``counts`` C-order over ``(node, *parents)``, unsmoothed. They belong to the data the
        engine ran on (``counted_on``) and are handed out once, by :meth:`take_counts`. Not part of equality or
        repr.
    """

    class_node: object
    features: list
    parents: dict
    trace: dict = field(default_factory=dict)
    family_counts: dict = field(default_factory=dict, repr=False, compare=False)
    counted_on: object = field(default=None, repr=False, compare=False)

    def take_counts(self, data, parent_sets: dict) -> dict:
        """Hand the stored ``family_counts`` to parameter fitting, once: ``{node: counts}`` (the form
        ``build_network(counts=...)`` takes) for the nodes whose parents still equal ``parent_sets[node]``, and
        only when ``data`` is the very data they were counted on; empty otherwise (e.g. a structure reused on a
        cross-validation fold). The stored tables are dropped either way, so a fitted ``structure_`` keeps
        neither them nor a reference to the data."""
        stored, on = self.family_counts, self.counted_on
        self.family_counts, self.counted_on = {}, None
        if on is None or on is not data:
            return {}
        out = {}
        for node, (pa, table) in stored.items():
            if node in parent_sets and len(pa) == len(parent_sets[node]) and set(pa) == set(parent_sets[node]):
                out[node] = table
        return out

    @property
    def selected(self) -> list:
        """Features that depend on the class (the class is one of their parents)."""
        return [f for f in self.features if self.class_node in self.parents[f]]

    def parent_sets(self) -> dict:
        """``{node: [parents]}`` for every node, class first (the form ``build_network`` takes)."""
        out = {self.class_node: []}
        out.update({f: list(self.parents[f]) for f in self.features})
        return out

    def augmenting_edges(self) -> list:
        """Feature -> feature arcs (parent, child)."""
        return [(p, f) for f in self.features for p in self.parents[f] if p != self.class_node]

    def edges(self) -> list:
        """All arcs (parent, child): class arcs first, in feature order, then augmenting arcs."""
        arcs = [(self.class_node, f) for f in self.features if self.class_node in self.parents[f]]
        return arcs + self.augmenting_edges()

    def to_dag(self) -> DAG:
        """A ``pgmpy.base.DAG`` with every node (unselected features stay as isolated nodes)."""
        dag = DAG()
        dag.add_nodes_from([self.class_node, *self.features])
        dag.add_edges_from(self.edges())
        return dag


def check_class_node(data: EncodedData, class_node, features: Sequence | None = None) -> list:
    """Validate the class column and return the feature list (default: every other column)."""
    if class_node not in data.columns:
        raise ValueError(f"class_node {class_node!r} is not a column of the data (columns: {data.columns!r}).")
    if data.card(class_node) < 2:
        raise ValueError(f"class column {class_node!r} has a single state {data.states[data.index(class_node)]!r}; "
                         "a classifier needs at least 2 classes.")
    if features is None:
        features = [c for c in data.columns if c != class_node]
    features = list(features)
    if class_node in features:
        raise ValueError(f"the class {class_node!r} cannot also be a feature.")
    if not features:
        raise ValueError("a classifier needs at least one feature besides the class.")
    if not set(data.columns).issuperset(features):
        for f in features:
            data.index(f)  # the KeyError naming the first unknown feature
    return features


class ClassifierSearchBase(StructureEstimator):
    """pgmpy face of a classifier structure learner (subclass of pgmpy's ``StructureEstimator``, like ``TreeSearch``).

    Data and data-bound options go to ``__init__``; algorithm options to ``estimate``. The data are encoded once
    (with pgmpy's state names: sorted observed values unless ``state_names`` declares them), and ``estimate``
    returns a ``pgmpy.base.DAG`` whose class node is a parent of every selected feature. The full engine result
    (with its diagnostics) is kept in ``result_``.

    Parameters
    ----------
    data : pandas.DataFrame
        Discrete data, one column per variable, the class included. An object column may mix types (``1``,
        ``"1"``, ``"two"``): its states are those the classifiers give it (distinct by type, ordered by
        ``(type name, repr)``), where pgmpy itself would raise ``TypeError``.
    state_names : dict, optional
        ``{column: [states]}`` (pgmpy's convention).
    n_jobs : int, default 1
        Threads for the counting kernels (results do not depend on it).
    missing : {"available_case", "error"}, default "available_case"
        Missing cells (NaN/None). ``"available_case"`` codes them ``-1`` and every count the search uses is taken
        over the rows where the variables of that count are observed (a pair table over the rows where both
        features and the class are observed, a family over the rows where the whole family is), as pgmpy's
        scores and bnclassify do. It is the default for the same reason as in :mod:`pgmpy_ext.scores`: pgmpy's
        faces accept data with NaN and count available cases, and ours stay drop-in for that data. The searches
        whose engine needs complete data (``ABNSearch``, ``SelectiveNBSearch``, ``StructuralTMSearch``) refuse
        missing values at construction. ``"error"`` refuses the first missing cell, naming its column and row
        label.
    max_numeric_states : int or None, default 50
        The numeric-column rule of :func:`pgmpy_ext.data.encode`: an integer or whole-number float column with more
        distinct values than this (and no declared ``state_names``) raises with the fix (a discretiser, or
        ``astype("category")``).
    """

    #: Searches whose engine needs complete data (their engines refuse -1 codes): refused at construction, with
    #: one message. (Class names, so that this base needs no edit in the search modules; a class attribute in each
    #: module would be the tidier home.)
    _AVAILABLE_CASE_UNSUPPORTED = frozenset({"ABNSearch", "SelectiveNBSearch", "StructuralTMSearch"})

    def __init__(self, data: pd.DataFrame, state_names: dict | None = None, n_jobs: int = 1, *,
                 missing: str = "available_case", max_numeric_states: int | None = MAX_NUMERIC_STATES, **kwargs):
        owner = type(self).__name__
        check_fit_frame(data, owner)
        check_option(missing, "missing", FIT_MISSING)
        if missing == "error":
            check_no_missing(data, owner)
        elif owner in self._AVAILABLE_CASE_UNSUPPORTED and data.isna().to_numpy().any():
            raise ValueError(f"{owner} needs complete data: its engine cannot count available cases, and the data have "
                             "missing values (NaN/None). Impute or drop them (e.g. data.dropna()).")
        self.missing = missing
        self.max_numeric_states = max_numeric_states
        check_numeric_columns(data, max_numeric_states, declared=state_names or ())
        try:
            super().__init__(data=data, state_names=state_names, **kwargs)
        except TypeError:  # pgmpy sorted the values of a mixed-type column: the classifiers' states instead
            if kwargs:
                raise
            self.independencies = None
            self.data, self.dtypes = preprocess_data(data)
            self.variables = list(self.data.columns.values)
            self.state_names = pgmpy_state_names(data, state_names)
        self.n_jobs = n_jobs
        self.encoded_ = encode(self.data, states=self.state_names,
                               missing="skip" if missing == "available_case" else "error", max_numeric_states=None)

    def _estimate(self, engine, class_node, **options) -> DAG:
        if class_node is None:
            raise ValueError("class_node is required: the name of the class column.")
        self.result_ = engine(self.encoded_, class_node, n_jobs=self.n_jobs, **options)
        return self.result_.to_dag()

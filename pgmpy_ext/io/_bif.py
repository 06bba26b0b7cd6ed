"""BIF and XMLBIF files that keep every name, state and state type, and that plain pgmpy/pyAgrum readers still read.

pgmpy's ``XMLBIFWriter`` replaces every character of a state name outside ``[A-Za-z0-9_]`` with ``_``, so
``"<=50K"`` and ``">50K"`` both become ``"_50K"`` and the file cannot be read back ("Repeated state names");
its readers return every state as ``str``; and BIF has no quoting, so a ``,``, ``{``, ``(``, ``|`` or ``;`` in a
name breaks the file. These helpers write through pgmpy's own ``BIFWriter`` / ``XMLBIFWriter`` after renaming
every variable and state with a reversible escape (:func:`escape_name`), and store the original labels with
their Python types in a metadata record that plain readers ignore; :func:`read_bif` / :func:`read_xmlbif`
restore them.

The escape
----------
Letters and digits are kept. Every other character ``c`` becomes ``_u`` followed by the 4 lowercase hex digits
of ``ord(c)`` (``_U`` + 8 hex digits above U+FFFF). ``_`` is kept, except that a ``_`` that is followed in the
original by ``u`` + 4 hex digits (or ``U`` + 8) is itself written ``_u005f``, so decoding is unambiguous. The
empty string is written ``_u``. Names made of letters, digits and ``_`` (``yes``, ``age_group``, ``50K``) are
therefore written unchanged (variable names additionally get a leading digit escaped, ``3`` -> ``_u0033``,
because pyAgrum wants identifiers there); ``<=50K`` becomes ``_u003c_u003d50K``, ``>50K`` ``_u003e50K``, ``a b``
``a_u0020b``, ``x-y`` ``x_u002dy`` and ``1.5`` ``1_u002e5``. Non-string labels are escaped through ``str()``
(``True`` -> ``True``, ``0`` -> ``0``) and get their type back from the metadata.

The metadata
------------
One JSON object, ``{"pgmpy_ext": 1, "escape": "u4", "name": ..., "nodes": [{"file": <escaped name>, "name":
<label>, "states": [<labels>]}, ...], "latents": [...]}``, where a label is a JSON string, integer, float
(including ``NaN``/``Infinity``), boolean or null, or ``{"tuple": [labels]}``. ``nodes`` is in the model's node
order. numpy scalars are written as the matching Python scalars (pgmpy-ext's convention); other label types
raise ``TypeError``. In BIF it is the first line of the file, a ``//`` comment (``// pgmpy_ext-metadata: {...}``);
in XMLBIF it is a network-level ``<PROPERTY>pgmpy_ext_metadata = {...}</PROPERTY>`` (allowed by XMLBIF 0.3).

What a plain reader sees
------------------------
pgmpy's ``BIFReader`` / ``XMLBIFReader`` (and pyAgrum) skip the comment / network property and return the same
network with escaped names and ``str`` states: identical CPD values, variables, evidence order and state order.
Node attributes (pgmpy "properties") are not written.
"""

from __future__ import annotations

import json
import math
import re
import xml.etree.ElementTree as etree
from os import PathLike

import numpy as np

from pgmpy_ext._compat import DiscreteBayesianNetwork, TabularCPD

__all__ = ["escape_name", "unescape_name", "write_bif", "write_xmlbif", "read_bif", "read_xmlbif"]

_SAFE = re.compile(r"[A-Za-z0-9]")
_ESC4 = re.compile(r"u[0-9a-f]{4}")
_ESC8 = re.compile(r"U[0-9a-f]{8}")
_BIF_META = "// pgmpy_ext-metadata: "
_XML_META = "pgmpy_ext_metadata"
_FORMAT_VERSION = 1


# ---------------------------------------------------------------------------------------------------- the escape
def escape_name(name: str, *, identifier: bool = False) -> str:
    """Reversible escape of ``name`` into ``[A-Za-z0-9_]`` (see the module docstring); safe names are unchanged.

    With ``identifier=True`` a leading digit is escaped too (``3`` -> ``_u0033``), so that the result is an
    identifier: pyAgrum's BIF parser wants variable names that do not start with a digit. States may.
    :func:`unescape_name` decodes both forms.

    Examples
    --------
    >>> escape_name("<=50K"), escape_name(">50K"), escape_name("a b"), escape_name("age_group")
    ('_u003c_u003d50K', '_u003e50K', 'a_u0020b', 'age_group')
    >>> unescape_name(escape_name("_u0041 <=")) == "_u0041 <="
    True
    """
    if not isinstance(name, str):
        raise TypeError(f"escape_name takes a str, got {type(name).__name__}; use str(label).")
    if name == "":
        return "_u"
    out = []
    n = len(name)
    for i, ch in enumerate(name):
        if identifier and i == 0 and ch.isascii() and ch.isdigit():
            out.append(f"_u{ord(ch):04x}")
        elif _SAFE.match(ch):
            out.append(ch)
        elif ch == "_":
            rest = name[i + 1:i + 10]
            ambiguous = _ESC4.match(rest) is not None or _ESC8.match(rest) is not None or (i == 0 and n == 2
                                                                                          and rest == "u")
            out.append("_u005f" if ambiguous else "_")
        else:
            cp = ord(ch)
            out.append(f"_u{cp:04x}" if cp <= 0xFFFF else f"_U{cp:08x}")
    return "".join(out)


def unescape_name(text: str) -> str:
    """Inverse of :func:`escape_name`.

    Examples
    --------
    >>> unescape_name("_u003c_u003d50K"), unescape_name("a_u0020b"), unescape_name("age_group")
    ('<=50K', 'a b', 'age_group')
    """
    if text == "_u":
        return ""
    out = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "_":
            m4 = _ESC4.match(text, i + 1)
            if m4:
                out.append(chr(int(text[i + 2:i + 6], 16)))
                i += 6
                continue
            m8 = _ESC8.match(text, i + 1)
            if m8:
                out.append(chr(int(text[i + 2:i + 10], 16)))
                i += 10
                continue
        out.append(ch)
        i += 1
    return "".join(out)


# ---------------------------------------------------------------------------------------------------- typed labels
def _to_json(label, what: str):
    if isinstance(label, np.generic):
        label = label.item()
    if label is None or isinstance(label, (bool, int, str)):
        return label
    if isinstance(label, float):
        return label
    if isinstance(label, tuple):
        return {"tuple": [_to_json(v, what) for v in label]}
    raise TypeError(f"{what} {label!r} has type {type(label).__name__}; pgmpy-ext's BIF/XMLBIF metadata can restore "
                    "str, int, float, bool, None and tuples of those. Convert it (e.g. to str) before writing.")


def _from_json(value):
    if isinstance(value, dict):
        if set(value) != {"tuple"}:
            raise ValueError(f"unknown label encoding {value!r} in pgmpy-ext metadata.")
        return tuple(_from_json(v) for v in value["tuple"])
    return value


def _text(label, identifier: bool = False) -> str:
    if isinstance(label, np.generic):
        label = label.item()
    return escape_name(label if isinstance(label, str) else str(label), identifier=identifier)


def _label_key(label):
    """Identity of a label for collision checks: bool/int/float stay distinct types."""
    if isinstance(label, np.generic):
        label = label.item()
    if isinstance(label, float) and math.isnan(label):
        return ("float", "nan")
    return (type(label).__name__, label)


# ---------------------------------------------------------------------------------------------------- writing
def _escaped_copy(model, fmt: str):
    """(model with escaped names, metadata dict)."""
    if not isinstance(model, DiscreteBayesianNetwork):
        raise TypeError(f"model must be a pgmpy DiscreteBayesianNetwork, got {type(model).__name__}.")
    nodes = list(model.nodes())
    cpds = {}
    for n in nodes:
        cpd = model.get_cpds(n)
        if cpd is None:
            raise ValueError(f"node {n!r} has no CPD; {fmt} stores CPDs, so every node needs one.")
        if not isinstance(cpd, TabularCPD):
            raise TypeError(f"the CPD of {n!r} is a {type(cpd).__name__}; {fmt} needs TabularCPDs.")
        cpds[n] = cpd
    file_of, seen = {}, {}
    for n in nodes:
        t = _text(n, identifier=True)
        key = t.lower() if fmt == "BIF" else t
        if key in seen:
            how = "differ only by case, which pgmpy's BIFReader does not distinguish" if fmt == "BIF" else \
                "have the same text form"
            raise ValueError(f"variables {seen[key]!r} and {n!r} {how}; rename one before writing {fmt} "
                             f"(or use write_xmlbif for case-only differences).")
        seen[key] = n
        file_of[n] = t
    states = {}
    for n in nodes:
        sn = cpds[n].state_names.get(n) if cpds[n].state_names else None
        st = list(range(int(cpds[n].cardinality[0]))) if sn is None else list(sn)
        texts = [_text(s) for s in st]
        if len(set(texts)) != len(texts):
            raise ValueError(f"states of {n!r} {st!r} are not distinct once written as text; rename them.")
        states[n] = st
    meta_nodes = []
    for n in nodes:
        meta_nodes.append({"file": file_of[n], "name": _to_json(n, "variable name"),
                           "states": [_to_json(s, f"state of {n!r}") for s in states[n]]})
    name = getattr(model, "name", None) or None
    meta = {"pgmpy_ext": _FORMAT_VERSION, "escape": "u4", "name": _to_json(name, "model name"),
            "nodes": meta_nodes, "latents": [_to_json(v, "latent") for v in _sorted(model.latents)]}
    esc = DiscreteBayesianNetwork()
    esc.add_nodes_from(file_of[n] for n in nodes)
    esc.add_edges_from((file_of[u], file_of[v]) for u, v in model.edges())
    new_cpds = []
    for n in nodes:
        cpd = cpds[n]
        variables = list(cpd.variables)
        for var in variables[1:]:
            if var not in file_of:
                raise ValueError(f"the CPD of {n!r} has evidence {var!r}, which is not a node of the model.")
        sn = {}
        for var in variables:
            own = cpd.state_names.get(var) if cpd.state_names else None
            own = list(range(int(cpd.cardinality[variables.index(var)]))) if own is None else list(own)
            if [_label_key(s) for s in own] != [_label_key(s) for s in states[var]]:
                raise ValueError(f"the CPD of {n!r} lists the states of {var!r} as {own!r}, but the CPD of {var!r} "
                                 f"has {states[var]!r}; {fmt} stores one state list per variable.")
            sn[file_of[var]] = [_text(s) for s in own]
        card = [int(c) for c in cpd.cardinality]
        new_cpds.append(TabularCPD(file_of[n], card[0], np.asarray(cpd.get_values(), dtype=np.float64),
                                   evidence=[file_of[v] for v in variables[1:]] or None,
                                   evidence_card=card[1:] or None, state_names=sn))
    esc.add_cpds(*new_cpds)
    esc.name = escape_name(str(name), identifier=True) if name is not None else "unknown"
    return esc, meta


def _sorted(values) -> list:
    values = list(values)
    try:
        return sorted(values)
    except TypeError:
        return sorted(values, key=lambda v: (type(v).__name__, repr(v)))


def _dumps(meta: dict) -> str:
    return json.dumps(meta, ensure_ascii=True, separators=(",", ":"))


def write_bif(model: DiscreteBayesianNetwork, path: str | PathLike) -> None:
    """Write ``model`` as BIF with escaped names and a metadata comment that restores labels and types.

    The body is exactly what pgmpy's ``BIFWriter(...).write`` produces for the escaped model (values written
    with full ``repr`` precision); the first line is ``// pgmpy_ext-metadata: {json}`` (see the module
    docstring). pgmpy's ``BIFReader`` and pyAgrum read the file and see escaped names and ``str`` states.

    Parameters
    ----------
    model : DiscreteBayesianNetwork
        Every node needs a ``TabularCPD``.
    path : str or path-like

    Raises
    ------
    ValueError
        Two variables whose names differ only by case (pgmpy's ``BIFReader`` matches names case-insensitively),
        states that coincide as text (``1`` and ``"1"``), inconsistent state lists across CPDs.
    TypeError
        A label that is not a str, int, float, bool, None or tuple of those.

    Examples
    --------
    >>> import tempfile, os
    >>> from pgmpy_ext._compat import DiscreteBayesianNetwork, TabularCPD
    >>> bn = DiscreteBayesianNetwork()
    >>> bn.add_node("income")
    >>> bn.add_cpds(TabularCPD("income", 2, [[0.75], [0.25]], state_names={"income": ["<=50K", ">50K"]}))
    >>> path = os.path.join(tempfile.mkdtemp(), "m.bif")
    >>> write_bif(bn, path)
    >>> with open(path) as f:
    ...     lines = f.read().splitlines()
    >>> lines[0][:40], lines[4]
    ('// pgmpy_ext-metadata: {"pgmpy_ext":1,"e', '    type discrete [ 2 ] { _u003c_u003d50K, _u003e50K };')

    ``read_bif(path)`` gives back ``state_names == {'income': ['<=50K', '>50K']}``.
    """
    from pgmpy.readwrite import BIFWriter

    esc, meta = _escaped_copy(model, "BIF")
    text = _BIF_META + _dumps(meta) + "\n" + str(BIFWriter(esc))
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def write_xmlbif(model: DiscreteBayesianNetwork, path: str | PathLike) -> None:
    """Write ``model`` as XMLBIF 0.3 with escaped names and a metadata property that restores labels and types.

    The file is pgmpy's ``XMLBIFWriter(...).write`` output for the escaped model (so no state name is altered by
    pgmpy's ``[A-Za-z0-9_]`` rewriting, and ``<=50K`` / ``>50K`` stay distinct), plus one network-level
    ``<PROPERTY>pgmpy_ext_metadata = {json}</PROPERTY>``. pgmpy's ``XMLBIFReader`` and pyAgrum (which wants the
    ``.bifxml`` extension) read it and see escaped names and ``str`` states.

    Parameters
    ----------
    model : DiscreteBayesianNetwork
    path : str or path-like

    Raises
    ------
    ValueError, TypeError
        As :func:`write_bif` (case-only differences between variable names are fine here).
    """
    from pgmpy.readwrite import XMLBIFWriter

    esc, meta = _escaped_copy(model, "XMLBIF")
    writer = XMLBIFWriter(esc)
    prop = etree.Element("PROPERTY")
    prop.text = f"{_XML_META} = {_dumps(meta)}"
    writer.network.insert(1, prop)  # after NAME, before the VARIABLEs (XMLBIF 0.3 allows PROPERTY there)
    writer.write(str(path))


# ---------------------------------------------------------------------------------------------------- reading
def _restore(plain, meta: dict, fmt: str) -> DiscreteBayesianNetwork:
    if meta.get("pgmpy_ext") != _FORMAT_VERSION or meta.get("escape") != "u4":
        raise ValueError(f"unsupported pgmpy-ext metadata version in this {fmt} file: {meta.get('pgmpy_ext')!r}.")
    entries = meta["nodes"]
    name_of, states_of = {}, {}
    for e in entries:
        name_of[e["file"]] = _from_json(e["name"])
    file_nodes = set(plain.nodes())
    if file_nodes != set(name_of):
        raise ValueError(f"the {fmt} file's variables {sorted(file_nodes)!r} do not match its pgmpy-ext metadata "
                         f"{sorted(name_of)!r}; was the file edited? Read it with pgmpy's reader instead.")
    for e in entries:
        st = [_from_json(s) for s in e["states"]]
        cpd = plain.get_cpds(e["file"])
        if cpd.state_names[e["file"]] != [_text(s) for s in st]:
            raise ValueError(f"the states of {e['file']!r} in the {fmt} file {cpd.state_names[e['file']]!r} do not "
                             "match its pgmpy-ext metadata; was the file edited?")
        states_of[name_of[e["file"]]] = st
    latents = {_from_json(v) for v in meta.get("latents", [])}
    model = DiscreteBayesianNetwork()
    order = [name_of[e["file"]] for e in entries]
    model.add_nodes_from(order)
    if latents:
        model.latents = latents
    cpds, edges = [], []
    for e in entries:
        cpd = plain.get_cpds(e["file"])
        node = name_of[e["file"]]
        evidence = [name_of[v] for v in cpd.variables[1:]]
        card = [int(c) for c in cpd.cardinality]
        sn = {node: list(states_of[node])}
        sn.update({p: list(states_of[p]) for p in evidence})
        cpds.append(TabularCPD(node, card[0], np.asarray(cpd.get_values(), dtype=np.float64),
                               evidence=evidence or None, evidence_card=card[1:] or None, state_names=sn))
        edges.extend((p, node) for p in evidence)
    model.add_edges_from(edges)
    model.add_cpds(*cpds)
    name = _from_json(meta.get("name"))
    if name is not None:
        model.name = name
    return model


def _typed_plain(plain, state_name_type):
    """A plain (no-metadata) model with ``state_name_type`` applied (str leaves it as read)."""
    if state_name_type in (None, str):
        return plain
    model = DiscreteBayesianNetwork()
    model.add_nodes_from(plain.nodes())
    model.add_edges_from(plain.edges())
    conv = (lambda s: s.strip().lower() == "true") if state_name_type is bool else state_name_type
    for cpd in plain.get_cpds():
        sn = {v: [conv(s) for s in cpd.state_names[v]] for v in cpd.variables}
        card = [int(c) for c in cpd.cardinality]
        model.add_cpds(TabularCPD(cpd.variable, card[0], cpd.get_values(), evidence=cpd.variables[1:] or None,
                                  evidence_card=card[1:] or None, state_names=sn))
    model.name = plain.name
    return model


def read_bif(path: str | PathLike, *, state_name_type=None) -> DiscreteBayesianNetwork:
    """Read a BIF file; restore original names, states and their types when pgmpy-ext wrote it.

    Parameters
    ----------
    path : str or path-like
    state_name_type : callable, optional
        Only for files *without* pgmpy-ext metadata (written by another tool): applied to every state, like
        pgmpy's ``get_model(state_name_type=...)`` (``bool`` maps ``"True"``/``"true"`` to True). Default: ``str``.
        Names are left as written in such files (no unescaping).

    Returns
    -------
    DiscreteBayesianNetwork
        For pgmpy-ext files: nodes in the original order with their original labels, CPDs with the original
        evidence order, state order, state labels and types, the model name and ``latents``.
    """
    from pgmpy.readwrite import BIFReader

    with open(path, encoding="utf-8") as f:
        text = f.read()
    meta = None
    first, _, _ = text.partition("\n")
    if first.startswith(_BIF_META):
        meta = json.loads(first[len(_BIF_META):])
    plain = BIFReader(string=text).get_model()
    if meta is None:
        return _typed_plain(plain, state_name_type)
    return _restore(plain, meta, "BIF")


def read_xmlbif(path: str | PathLike, *, state_name_type=None) -> DiscreteBayesianNetwork:
    """Read an XMLBIF file; restore original names, states and their types when pgmpy-ext wrote it.

    Parameters and return value are those of :func:`read_bif`.

    Examples
    --------
    >>> import tempfile, os
    >>> from pgmpy_ext._compat import DiscreteBayesianNetwork, TabularCPD
    >>> bn = DiscreteBayesianNetwork([(0, "y")])
    >>> bn.add_cpds(TabularCPD(0, 2, [[0.5], [0.5]], state_names={0: [False, True]}),
    ...             TabularCPD("y", 2, [[1.0, 0.25], [0.0, 0.75]], evidence=[0], evidence_card=[2],
    ...                        state_names={"y": [1.5, 2.5], 0: [False, True]}))
    >>> path = os.path.join(tempfile.mkdtemp(), "m.xml")
    >>> write_xmlbif(bn, path)
    >>> back = read_xmlbif(path)
    >>> list(back.nodes()), back.get_cpds("y").state_names
    ([0, 'y'], {'y': [1.5, 2.5], 0: [False, True]})
    """
    from pgmpy.readwrite import XMLBIFReader

    network = etree.parse(str(path)).getroot().find("NETWORK")
    meta = None
    if network is not None:
        for prop in network.findall("PROPERTY"):
            key, sep, value = (prop.text or "").partition("=")
            if sep and key.strip() == _XML_META:
                meta = json.loads(value.strip())
                break
    plain = XMLBIFReader(path=str(path)).get_model()
    if meta is None:
        return _typed_plain(plain, state_name_type)
    return _restore(plain, meta, "XMLBIF")

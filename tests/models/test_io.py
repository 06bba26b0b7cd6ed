"""BIF / XMLBIF helpers: exact round trips (values, variables, evidence, state names and their types), plain readers."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_array_equal
from pgmpy.readwrite import BIFReader, BIFWriter, XMLBIFReader

from pgmpy_ext._compat import DiscreteBayesianNetwork, TabularCPD
from pgmpy_ext.io import escape_name, read_bif, read_xmlbif, unescape_name, write_bif, write_xmlbif

FORMATS = {"bif": (write_bif, read_bif, BIFReader, "bif"), "xmlbif": (write_xmlbif, read_xmlbif, XMLBIFReader, "xml")}


def tricky_model() -> DiscreteBayesianNetwork:
    """Names and states that pgmpy's writers/readers mangle or retype."""
    rng = np.random.default_rng(0)
    states = {
        "income": ["<=50K", ">50K"],
        "a b": [1.5, "x-y", None, "a b"],
        "x-y": [True, False],
        3: [0, 1, 2],
        "1.5": [("t", 1), -7, "_u0041", ""],
        ("n", 2): ["yes", "no"],
    }
    parents = {"income": [3], "a b": ["x-y", "income"], "x-y": [], 3: [], "1.5": ["income", 3, ("n", 2)],
               ("n", 2): []}
    model = DiscreteBayesianNetwork()
    model.add_nodes_from(list(states))
    cpds = []
    for v, pa in parents.items():
        model.add_edges_from([(p, v) for p in pa])
        r, q = len(states[v]), int(np.prod([len(states[p]) for p in pa], dtype=int))
        vals = rng.dirichlet(np.ones(r), size=q).T
        cpds.append(TabularCPD(v, r, vals, evidence=pa or None, evidence_card=[len(states[p]) for p in pa] or None,
                               state_names={v: states[v], **{p: states[p] for p in pa}}))
    model.add_cpds(*cpds)
    model.latents = {"x-y"}
    model.name = "my net"
    assert model.check_model()
    return model


def typed(values):
    return [(type(v), v) for v in values]


def assert_models_identical(a, b):
    assert list(b.nodes()) == list(a.nodes())
    assert set(b.edges()) == set(a.edges())
    assert b.latents == a.latents
    for n in a.nodes():
        ca, cb = a.get_cpds(n), b.get_cpds(n)
        assert cb.variables == ca.variables
        assert_array_equal(cb.values, ca.values)  # exact: values are written with repr precision
        assert set(cb.state_names) == set(ca.state_names)
        for var in ca.variables:
            assert typed(cb.state_names[var]) == typed(ca.state_names[var]), (n, var)
    assert b.check_model()


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_round_trip_keeps_names_states_types_and_values(tmp_path, fmt):
    write, read, _, ext = FORMATS[fmt]
    model = tricky_model()
    path = tmp_path / f"m.{ext}"
    write(model, path)
    back = read(path)
    assert_models_identical(model, back)
    assert back.name == "my net"


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_plain_pgmpy_reader_reads_the_file(tmp_path, fmt):
    write, _, Reader, ext = FORMATS[fmt]
    model = tricky_model()
    path = tmp_path / f"m.{ext}"
    write(model, path)
    plain = Reader(path=str(path)).get_model()
    assert plain.check_model()
    esc = {escape_name(n if isinstance(n, str) else str(n), identifier=True): n for n in model.nodes()}
    assert set(plain.nodes()) == set(esc)
    for name, orig in esc.items():
        cp, co = plain.get_cpds(name), model.get_cpds(orig)
        assert [esc[v] for v in cp.variables] == co.variables
        assert_array_equal(cp.values, co.values)
        for v in cp.variables:
            assert cp.state_names[v] == [escape_name(s if isinstance(s, str) else str(s))
                                         for s in co.state_names[esc[v]]]
    for name in plain.nodes():  # every written name is a [A-Za-z0-9_] identifier
        assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name)


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_pyagrum_reads_the_file(tmp_path, fmt):
    gum = pytest.importorskip("pyagrum")
    write, _, _, _ = FORMATS[fmt]
    model = tricky_model()
    path = tmp_path / ("m.bif" if fmt == "bif" else "m.bifxml")
    write(model, path)
    bn = gum.loadBN(str(path))
    assert set(bn.names()) == {escape_name(n if isinstance(n, str) else str(n), identifier=True)
                               for n in model.nodes()}
    assert list(bn.variable("income").labels()) == ["_u003c_u003d50K", "_u003e50K"]


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_asia_round_trip(tmp_path, asia_model, fmt):
    write, read, _, ext = FORMATS[fmt]
    write(asia_model, tmp_path / f"asia.{ext}")
    assert_models_identical(asia_model, read(tmp_path / f"asia.{ext}"))


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_numpy_scalar_states_come_back_as_python_scalars(tmp_path, fmt):
    write, read, _, ext = FORMATS[fmt]
    model = DiscreteBayesianNetwork()
    model.add_node("v")
    model.add_cpds(TabularCPD("v", 2, [[0.25], [0.75]], state_names={"v": [np.int64(4), np.float64(0.5)]}))
    write(model, tmp_path / f"m.{ext}")
    assert typed(read(tmp_path / f"m.{ext}").get_cpds("v").state_names["v"]) == [(int, 4), (float, 0.5)]


def test_file_without_metadata_is_read_plainly(tmp_path):
    model = DiscreteBayesianNetwork([("a", "b")])
    model.add_cpds(TabularCPD("a", 2, [[0.5], [0.5]], state_names={"a": [0, 1]}),
                   TabularCPD("b", 2, [[0.9, 0.2], [0.1, 0.8]], evidence=["a"], evidence_card=[2],
                              state_names={"b": [0, 1], "a": [0, 1]}))
    BIFWriter(model).write(str(tmp_path / "plain.bif"))
    as_str = read_bif(tmp_path / "plain.bif")
    assert as_str.get_cpds("b").state_names == {"b": ["0", "1"], "a": ["0", "1"]}
    as_int = read_bif(tmp_path / "plain.bif", state_name_type=int)
    assert typed(as_int.get_cpds("b").state_names["a"]) == [(int, 0), (int, 1)]
    assert_array_equal(as_int.get_cpds("b").values, model.get_cpds("b").values)


def test_write_errors(tmp_path):
    m = DiscreteBayesianNetwork()
    m.add_nodes_from(["Age", "age"])
    m.add_cpds(TabularCPD("Age", 1, [[1.0]]), TabularCPD("age", 1, [[1.0]]))
    with pytest.raises(ValueError, match="differ only by case"):
        write_bif(m, tmp_path / "m.bif")
    write_xmlbif(m, tmp_path / "m.xml")  # fine in XMLBIF
    assert sorted(read_xmlbif(tmp_path / "m.xml").nodes()) == ["Age", "age"]
    clash = DiscreteBayesianNetwork()
    clash.add_node("v")
    clash.add_cpds(TabularCPD("v", 2, [[0.5], [0.5]], state_names={"v": [1, "1"]}))
    with pytest.raises(ValueError, match="are not distinct once written as text"):
        write_bif(clash, tmp_path / "c.bif")
    odd = DiscreteBayesianNetwork()
    odd.add_node("v")
    odd.add_cpds(TabularCPD("v", 2, [[0.5], [0.5]], state_names={"v": [frozenset({1}), "b"]}))
    with pytest.raises(TypeError, match="has type frozenset"):
        write_xmlbif(odd, tmp_path / "o.xml")
    nocpd = DiscreteBayesianNetwork([("a", "b")])
    with pytest.raises(ValueError, match="node 'a' has no CPD"):
        write_bif(nocpd, tmp_path / "n.bif")
    with pytest.raises(TypeError, match="model must be a pgmpy DiscreteBayesianNetwork"):
        write_bif("model", tmp_path / "n.bif")


def test_edited_file_is_detected(tmp_path):
    model = tricky_model()
    write_bif(model, tmp_path / "m.bif")
    text = (tmp_path / "m.bif").read_text().replace("_u003e50K", "more")
    (tmp_path / "e.bif").write_text(text)
    with pytest.raises(ValueError, match="do not match its pgmpy-ext metadata; was the file edited"):
        read_bif(tmp_path / "e.bif")


# ------------------------------------------------------------------------------------------ the escape itself
def test_escape_examples():
    assert escape_name("<=50K") == "_u003c_u003d50K"
    assert escape_name(">50K") == "_u003e50K"
    assert escape_name("a b") == "a_u0020b"
    assert escape_name("x-y") == "x_u002dy"
    assert escape_name("1.5") == "1_u002e5"
    assert escape_name("age_group") == "age_group"
    assert escape_name("3", identifier=True) == "_u0033"
    assert escape_name("") == "_u"
    assert unescape_name("_u") == ""
    assert escape_name("_u") == "_u005fu"
    assert unescape_name("_u005fu") == "_u"
    assert escape_name("_u0041") == "_u005fu0041"
    assert escape_name("\U0001f600") == "_U0001f600"
    with pytest.raises(TypeError, match="escape_name takes a str"):
        escape_name(3)


@given(st.text(max_size=30), st.booleans())
def test_escape_is_reversible_and_safe(s, identifier):
    e = escape_name(s, identifier=identifier)
    assert re.fullmatch(r"[A-Za-z0-9_]+", e)
    assert unescape_name(e) == s
    if identifier:
        assert not e[0].isdigit()


@given(st.lists(st.text(max_size=8), min_size=2, max_size=6, unique=True))
def test_escape_is_injective(names):
    assert len({escape_name(n) for n in names}) == len(names)


@given(st.from_regex(r"[A-Za-z0-9]+(_[A-Za-z0-9]+)*", fullmatch=True))
def test_safe_names_are_unchanged_unless_they_look_escaped(s):
    if not re.search(r"_(u[0-9a-f]{4}|U[0-9a-f]{8})", s):
        assert escape_name(s) == s

"""The shared YAML loader: strictness, located values and located errors."""

from __future__ import annotations

import copy
import datetime as dt
import pickle

import pytest
import yaml
from hypothesis import given, strategies as st

from consolidate.errors import ConsolidateError, DateRuleError, MetadataError
from consolidate.yamlload import (LocatedDict, LocatedList, YamlError, check_schema, line_at,
                                  load_yaml, loads_yaml, parse_date)


def write(tmp_path, text: str | bytes, name: str = "doc.yaml"):
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def error_of(text: str, **kwargs) -> ConsolidateError:
    with pytest.raises(ConsolidateError) as info:
        loads_yaml(text, "doc.yaml", **kwargs)
    return info.value


def test_plain_values_and_types():
    doc = loads_yaml("a: 1\nb: 2.5\nc: true\nd: null\ne: text\nf: [x, 2]\n")
    assert doc == {"a": 1, "b": 2.5, "c": True, "d": None, "e": "text", "f": ["x", 2]}
    assert type(doc) is LocatedDict and type(doc["f"]) is LocatedList
    assert isinstance(doc["a"], int) and not isinstance(doc["a"], bool)


def test_timestamps_stay_strings_even_impossible_ones():
    doc = loads_yaml("deposit: 2019-06-25\nbad: 2019-02-30\nwhen: 2001-12-14t21:59:43.10-05:00\n")
    assert doc == {"deposit": "2019-06-25", "bad": "2019-02-30",
                   "when": "2001-12-14t21:59:43.10-05:00"}


@pytest.mark.parametrize("text, value", [
    ("NO", "NO"), ("no", "no"), ("yes", "yes"), ("on", "on"), ("Off", "Off"),
    ("08", "08"), ("0755", "0755"), ("1_000", "1_000"), ("1:20", "1:20"), ("1e5", "1e5"),
    ("0x1F", 31), ("-12", -12), ("+3", 3), ("1.5e+3", 1500.0), (".5", 0.5),
    ("True", True), ("FALSE", False), ("~", None), ("", None),
])
def test_scalar_resolution_is_conservative(text, value):
    assert loads_yaml(f"k: {text}\n") == {"k": value}


def test_mapping_and_sequence_lines():
    doc = loads_yaml("# comment\nname: x\nparties:\n  IN:\n    deposit: 2019-06-25\n"
                     "list:\n  - a\n  -\n    b: 1\n")
    assert doc.line == 2
    assert doc.key_line("name") == 2 and doc.key_line("parties") == 3
    assert doc["parties"].line == 4 and doc["parties"]["IN"].key_line("deposit") == 5
    assert doc.key_line("missing") == 2  # absent keys point at the mapping
    assert doc["list"].line == 7
    assert doc["list"].item_line(0) == 7 and doc["list"].item_line(1) == 9
    assert doc["list"].item_line(-1) == 9 and doc["list"][1].line == 9


def test_line_at_follows_keys_and_stops_at_missing_ones():
    doc = loads_yaml("a:\n  b:\n    - x\n    - y\nc: 1\n")
    assert line_at(doc, ["a", "b", 1]) == 4
    assert line_at(doc, ["c"]) == 5
    assert line_at(doc, ["a", "nope", 3]) == 1


def test_located_containers_survive_copy_and_pickle():
    doc = loads_yaml("a:\n  b: [1, 2]\n")
    for clone in (copy.deepcopy(doc), pickle.loads(pickle.dumps(doc))):
        assert clone == doc and clone["a"].key_line("b") == 2 and clone["a"]["b"].line == 2


@pytest.mark.parametrize("text, line, fragment", [
    ("a: &x 1\nb: 2\n", 1, "anchors and aliases"),
    ("a: 1\nb: *x\n", 2, "anchors and aliases"),
    ("base: &b {x: 1}\nother:\n  <<: *b\n", 1, "anchors and aliases"),
    ("a: 1\nb: 2\na: 3\n", 3, "duplicate key 'a' (first on line 1)"),
    ("x:\n  k: 1\n  k: 2\n", 3, "duplicate key 'k'"),
    ("a: [1, 2\nb: 3\n", 2, "malformed YAML"),
    ("a: 1\n  b: 2\n", 2, "malformed YAML"),
    ("a: 1\n---\nb: 2\n", 2, "single document"),
    ("a: !!binary aGk=\n", 1, "not allowed"),
    ("a: !!timestamp 2019-06-25\n", 1, "not allowed"),
    ("a: !!python/object:os.system x\n", 1, "not allowed"),
    ("? [1, 2]\n: x\n", 1, "must be a scalar"),
    ("a: 1\nb: \x07\n", 2, "U+0007"),
])
def test_rejected_yaml_is_located(text, line, fragment):
    error = error_of(text)
    assert isinstance(error, YamlError)
    assert str(error).startswith(f"doc.yaml:{line}: ")
    assert fragment in str(error)


def test_alias_bomb_is_refused_before_expansion():
    bomb = "a: &a [x, x]\n" + "".join(f"{c}: &{c} [*{p}, *{p}]\n"
                                      for p, c in zip("abcdefgh", "bcdefghi"))
    assert "anchors and aliases" in str(error_of(bomb))


def test_deep_nesting_is_an_error_not_a_crash():
    assert "malformed YAML" in str(error_of("[" * 5000 + "]" * 5000))


def test_load_yaml_reads_utf8_and_strips_a_bom(tmp_path):
    path = write(tmp_path, "\ufeffname: भारत\n")
    assert load_yaml(path) == {"name": "भारत"}


def test_non_utf8_is_located(tmp_path):
    path = write(tmp_path, b"a: 1\nb: caf\xe9\n")
    with pytest.raises(YamlError, match=r"doc\.yaml:2: not UTF-8 \(byte 0xe9\)"):
        load_yaml(path)


def test_nul_byte_is_located(tmp_path):
    path = write(tmp_path, b"a: 1\nb: 2\nc: x\x00y\n")
    with pytest.raises(YamlError) as info:
        load_yaml(path)
    assert str(info.value) == f"{path}:3: NUL byte in YAML input"


def test_missing_file_names_the_path(tmp_path):
    with pytest.raises(YamlError, match="cannot read"):
        load_yaml(tmp_path / "absent.yaml")


def test_error_class_is_chosen_by_the_caller(tmp_path):
    path = write(tmp_path, "a: 1\na: 2\n")
    with pytest.raises(MetadataError, match=r":2: "):
        load_yaml(path, MetadataError)


def test_empty_document_is_none():
    assert loads_yaml("") is None and loads_yaml("# only a comment\n") is None


@pytest.mark.parametrize("value, expected", [
    ("2019-06-25", dt.date(2019, 6, 25)),
    ("2020-02-29", dt.date(2020, 2, 29)),
    (dt.date(2021, 1, 1), dt.date(2021, 1, 1)),
])
def test_parse_date_accepts(value, expected):
    assert parse_date(value, "f.yaml", 4) == expected


@pytest.mark.parametrize("value, fragment", [
    ("2019-02-30", "impossible date '2019-02-30'"),
    ("2019-13-01", "impossible date"),
    ("2021-02-29", "impossible date"),
    ("2019-6-25", "expected a date YYYY-MM-DD"),
    ("25/06/2019", "expected a date"),
    (20190625, "expected a date"),
    (None, "expected a date"),
    (dt.datetime(2019, 6, 25, 10, 0), "expected a date"),
])
def test_parse_date_rejects_with_location(value, fragment):
    with pytest.raises(DateRuleError) as info:
        parse_date(value, "case.yaml", 7, DateRuleError)
    assert str(info.value).startswith("case.yaml:7: ")
    assert fragment in str(info.value)


SCHEMA = {"type": "object", "additionalProperties": False, "properties": {
    "items": {"type": "array", "items": {"type": "object", "properties": {
        "n": {"type": "integer"}}}},
    "name": {"type": "string"}}}


def test_check_schema_points_at_the_offending_value():
    doc = loads_yaml("name: x\nitems:\n  - n: 1\n  - n: two\n")
    with pytest.raises(MetadataError) as info:
        check_schema(doc, SCHEMA, "m.yaml", MetadataError)
    assert str(info.value) == "m.yaml:4: items[1].n: 'two' is not of type 'integer'"


def test_check_schema_points_at_an_unexpected_key():
    doc = loads_yaml("name: x\n\nextra: 1\n")
    with pytest.raises(YamlError, match=r"^m\.yaml:3: Additional properties"):
        check_schema(doc, SCHEMA, "m.yaml")


def test_check_schema_accepts_valid_documents():
    check_schema(loads_yaml("items: [{n: 1}]\n"), SCHEMA, "m.yaml")


plain = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(), children, max_size=4),
    max_leaves=20,
)


@given(plain)
def test_reads_what_pyyaml_dumps_as_pyyaml_does(value):
    # Our scalar rules are a subset of YAML 1.1's, so the dumper quotes whatever
    # either loader would not read back as a string.
    text = yaml.safe_dump(value, allow_unicode=True)
    assert loads_yaml(text) == yaml.safe_load(text)


printable = st.text(st.characters(min_codepoint=32, max_codepoint=126))
plain_ascii = st.recursive(
    st.none() | st.booleans() | st.integers() | printable,
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(printable, children, max_size=4),
    max_leaves=20,
)


@given(plain_ascii)
def test_plain_ascii_values_round_trip(value):
    assert loads_yaml(yaml.safe_dump(value)) == value

"""Fuzzing the source parser, the importer and the overlay loader: located errors, never crashes.

Budget: derandomized, no example database, bounded example counts (about 40 s on two busy
cores), so CI runs the same examples every time.
"""

from __future__ import annotations

import os
import re
import tempfile
from functools import lru_cache
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from consolidate.corpus import load_treaty
from consolidate.engine import build_versions
from consolidate.errors import ConsolidateError, OverlayError
from consolidate.findings import Findings
from consolidate.importer import import_raw
from consolidate.model import KINDS
from consolidate.overlay import OPERATION_SCHEMAS, RELATIONS, load_instrument
from consolidate.sourcefmt import parse, write

REPO = Path(__file__).resolve().parents[2]
SEEDS = Path(__file__).resolve().parents[3] / "shared" / "seeds"
SOURCE_FILES = sorted(p for p in (REPO / "sources").glob("*/*.txt") if not p.name.endswith(".raw.txt"))
OVERLAY_FILES = sorted([*(REPO / "overlays").glob("*/[0-9][0-9]-*.yaml"), *(REPO / "overlays").glob("*/mli.yaml"),
                        *(REPO / "tests/data/broken/overlays").glob("*/*.yaml")])

# No shrinking by default: shrinking a failing 100 KB mutant can take minutes, which a CI budget
# cannot afford; the blob printed with a failure reproduces it. FUZZ_SHRINK=1 shrinks locally.
PHASES = tuple(Phase) if os.environ.get("FUZZ_SHRINK") else (Phase.explicit, Phase.reuse, Phase.generate)
FUZZ = settings(deadline=None, derandomize=True, database=None, print_blob=True, phases=PHASES,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.filter_too_much, HealthCheck.large_base_example])

# Characters and fragments that matter to one of the formats: directives, escapes, tokens,
# indentation, line breaks of every kind, bidi and zero-width marks, combining marks (a
# stray virama or nukta), YAML indicators, and lone surrogates (not encodable as UTF-8).
SPECIALS = ["\x00", "@", "@article 1", "@heading", "@paragraph 2 | 2.", "@wrapup", "@bogus", "\\", "\\@",
            "{{", "}}", "{{lb}}", "{{amend 1 ¹[}}", "{{end 1 ]}}", "{{fn 9 *}}", " | ", "|", "  ", "    ", " ",
            "\t", "\r", "\r\n", "\n", "\n\n", "\x0b", "\x0c", "\x85", "\u2028", "\u2029", "\u200f", "\u200e",
            "\u202e", "\u2066", "\u200b", "\u200c", "\u200d", "\ufeff", "\u0301", "\u0300", "\u093c", "\u094d",
            "\u0902", "ि", "क्ष", "अनुच्छेद 5", "Article 5", "1.", "(क)", "(a)", "i)", "\udcff", "\U0001f600",
            ": ", "- ", "#", "&a", "*a", "!!python/object:os.system", "!!binary", "? ", "'", '"', "{", "}", "[",
            "]", ",", "---", "...", "~", "null", "NO", "2021-02-30", "0x1F", ".nan", "1_000", "<script>"]
FRAGMENT = st.one_of(st.sampled_from(SPECIALS), st.text(max_size=12))
MUTATION = st.tuples(st.sampled_from(["insert", "delete", "replace", "insert_line", "delete_line",
                                      "replace_line", "duplicate_line", "indent", "dedent"]),
                     st.integers(min_value=0, max_value=2**31), st.integers(min_value=1, max_value=40), FRAGMENT)
MUTATIONS = st.lists(MUTATION, min_size=1, max_size=6)


def mutate(text: str, mutations: list[tuple[str, int, int, str]]) -> str:
    """Apply character and line mutations; positions wrap around the current text."""
    for kind, where, size, payload in mutations:
        if kind in ("insert", "delete", "replace"):
            at = where % (len(text) + 1)
            if kind == "insert":
                text = text[:at] + payload + text[at:]
            elif kind == "delete":
                text = text[:at] + text[at + size:]
            else:
                text = text[:at] + payload + text[at + 1:]
            continue
        lines = text.split("\n")
        at = where % len(lines)
        if kind == "insert_line":
            lines.insert(at, payload)
        elif kind == "delete_line":
            del lines[at]
        elif kind == "replace_line":
            lines[at] = payload
        elif kind == "duplicate_line":
            lines.insert(at, lines[at])
        elif kind == "indent":
            lines[at] = "  " + lines[at]
        else:
            lines[at] = lines[at][2:] if lines[at].startswith("  ") else lines[at]
        text = "\n".join(lines)
    return text


@lru_cache(maxsize=None)
def read_text(path: Path) -> str:
    return path.read_text("utf-8")


# ------------------------------------------------------------------ (1) the source parser

# Lines that look like the source format: headers at any indentation, with valid and invalid
# numbers and labels, headings, escaped and unescaped text, blank and space-only lines.
HEADER = st.builds(lambda indent, kind, num, label: " " * indent + "@" + kind + num + label,
                   st.integers(0, 9), st.sampled_from([*KINDS, "heading", "Article", "x", ""]),
                   st.sampled_from(["", " 1", " 12A", " a", " ii", " 5.1", " -1", " ", " क", " 1 2", " @"]),
                   st.sampled_from(["", " | 1.", " | ", " |", " | (क)", " | a | b", " | {{amend 1 ¹[}}अनुच्छेद 2"]))
TEXT_LINE = st.builds(lambda indent, body: " " * indent + body, st.integers(0, 9), FRAGMENT)
SOURCE_LIKE = st.builds(lambda lines, end: "\n".join(lines) + end,
                        st.lists(st.one_of(HEADER, TEXT_LINE, st.just("")), max_size=40),
                        st.sampled_from(["\n", "", "\n\n"]))
LOCATED = r"^{path}:\d+(:\d+)?: \S"


def strip_lines(nodes):
    """The tree without line numbers, to compare two parses of the same content."""
    return tuple((n.kind, n.num, n.label, n.heading, n.text, strip_lines(n.children)) for n in nodes)


def check_source(text: str) -> None:
    """Parse, or a located SourceFormatError; what parses writes back stably and losslessly."""
    path = "fuzz/hi.txt"
    try:
        document = parse(text, path, "fuzz", "hi", Findings())
    except ConsolidateError as exc:
        assert re.match(LOCATED.format(path=re.escape(path)), str(exc)), str(exc)
        return
    written = write(document)
    again = parse(written, "fuzz/written.txt", "fuzz", "hi", Findings())
    assert write(again) == written
    assert strip_lines(again.nodes) == strip_lines(document.nodes)


@settings(FUZZ, max_examples=300)
@given(SOURCE_LIKE)
# Known shapes worth keeping in every run: a text line that is one backslash, one that is a
# backslash and a space, one whose escaped body starts with spaces then '@', deep nesting.
@example("@article 1\nfoo\n\\\n")
@example("@article 1\n\\ \n")
@example("@article 1\n\\  @paragraph 2\n")
@example("@article 1\n" + "".join("  " * d + ("@paragraph 1" if d == 1 else "@item 1") + "\n" for d in range(1, 700)))
def test_source_parser_on_source_like_text(text):
    check_source(text)


@settings(FUZZ, max_examples=200)
@given(st.text(max_size=300))
def test_source_parser_on_arbitrary_text(text):
    check_source(text)


@settings(FUZZ, max_examples=150)
@given(st.sampled_from(SOURCE_FILES), MUTATIONS)
def test_source_parser_on_mutated_real_sources(path, mutations):
    check_source(mutate(read_text(path), mutations))


def test_real_sources_are_there_to_mutate():
    # The mutation tests are only as good as their inputs: the bundled corpus must be present.
    assert len(SOURCE_FILES) >= 6


# ------------------------------------------------------------------ (2) the importer

@lru_cache(maxsize=None)
def seed_texts() -> tuple[str, ...]:
    if not SEEDS.is_dir():
        pytest.fail(f"the shared seeds folder {SEEDS.name!r} beside the repository is missing; the fuzz tests "
                    "need the real seed texts")
    texts = tuple(p.read_text("utf-8") for p in sorted(SEEDS.glob("0*.txt")))
    if len(texts) < 5:
        pytest.fail("expected the five seed texts in the shared seeds folder")
    return texts


@pytest.fixture(scope="module")
def scratch():
    with tempfile.TemporaryDirectory(prefix="fuzz-import-") as folder:
        yield Path(folder)


def check_import(data: bytes, lang: str, folder: Path) -> None:
    """Import, or a ConsolidateError; an imported source text parses and writes back identically."""
    raw = folder / "raw.txt"
    raw.write_bytes(data)
    try:
        result = import_raw(raw, "fz-test", lang, folder / "root")
    except ConsolidateError as exc:
        assert str(exc).strip(), "an error needs a message"
        return
    text = result.files[f"sources/fz-test/{lang}.txt"]
    assert write(parse(text, "fuzz/imported.txt", "fz-test", lang, Findings())) == text
    meta = yaml.safe_load(result.files["sources/fz-test/treaty.yaml"])
    assert meta["id"] == "fz-test" and lang in meta["imports"]


def excerpt(text: str, start: int, length: int) -> str:
    """A window of lines of a seed; a window of characters of a run-on gazette line."""
    lines = text.split("\n")
    if max(len(line) for line in lines) > 20000:
        at = start % len(text)
        return text[at:at + length * 60]
    at = start % len(lines)
    return "\n".join(lines[at:at + length])


@settings(FUZZ, max_examples=120)
@given(st.one_of(st.binary(max_size=400), st.text(max_size=400).map(lambda t: t.encode("utf-8", "surrogatepass")),
                 SOURCE_LIKE.map(lambda t: t.encode("utf-8", "surrogatepass"))),
       st.sampled_from(["hi", "en"]))
def test_importer_on_arbitrary_input(scratch, data, lang):
    check_import(data, lang, scratch)


@settings(FUZZ, max_examples=120)
@given(st.integers(0, 4), st.integers(0, 2**31), st.integers(1, 120), st.lists(MUTATION, max_size=6),
       st.sampled_from(["hi", "en"]))
def test_importer_on_mutated_seed_excerpts(scratch, which, start, length, mutations, lang):
    text = mutate(excerpt(seed_texts()[which], start, length), mutations)
    check_import(text.encode("utf-8", "surrogatepass"), lang, scratch)


GAZETTE = 2  # seed 002 is one run-on gazette line: Hindi, then English from about offset 72,000


@settings(FUZZ, max_examples=8)
@given(st.integers(0, 2**31), st.integers(20001, 24000), st.lists(MUTATION, max_size=4), st.sampled_from(["hi", "en"]))
# Run-on lines that hold one language only: windows of the gazette's English and Hindi parts.
@example(100000, 21000, [], "hi")
@example(10000, 21000, [], "hi")
@example(10000, 21000, [], "en")
def test_importer_on_mutated_run_on_gazette_windows(scratch, start, length, mutations, lang):
    """Windows longer than the importer's run-on threshold, so the gazette path is fuzzed too."""
    text = seed_texts()[GAZETTE]
    at = start % (len(text) - length)
    check_import(mutate(text[at:at + length], mutations).encode("utf-8", "surrogatepass"), lang, scratch)


# ------------------------------------------------------------------ (3) the overlay loader

SCALAR = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**12), st.floats(allow_nan=True),
                   st.sampled_from(["art_1", "art_5__para_2", "preamble", "protocol__item_2", "../x", "a/b",
                                    "2019-02-30", "2021-02-29", "2017-06-07", "1998-09-11", "IN", "PT", "NO",
                                    "en", "hi", "before", "after", "last-child", "article", "paragraph", "1", "12A",
                                    *RELATIONS, *OPERATION_SCHEMAS, ""]),
                   st.text(max_size=20))
KEYS = st.sampled_from(["id", "kind", "title", "signed", "entry_into_force", "effect", "source", "note", "operations",
                        "op", "target", "text", "heading", "label", "children", "position", "node", "num", "find",
                        "replace", "occurrence", "from", "mli_article", "mli_paragraph", "relation", "lead_in",
                        "replaced_marker", "place", "after", "within", "after_line", "instrument", "marker",
                        "wording", "source_line", "withholding", "other", "from_positions", "en", "hi", "IN", "PT",
                        "colour", 1, None, True])
VALUE = st.recursive(SCALAR, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                     st.dictionaries(KEYS, inner, max_size=5)), max_leaves=12)
OPERATION = st.builds(lambda op, rest: {"op": op, **rest},
                      st.one_of(st.sampled_from(list(OPERATION_SCHEMAS)), VALUE),
                      st.dictionaries(KEYS, VALUE, max_size=6))
INSTRUMENT = st.builds(lambda head, ops: {**head, "operations": ops},
                       st.fixed_dictionaries({"id": st.sampled_from(["p", "protocol-2017", "Bad Id", ""]),
                                              "kind": st.sampled_from(["protocol", "mli", "protocol-notes", "x"]),
                                              "title": st.one_of(st.just({"en": "t", "hi": "t"}), VALUE)},
                                             optional={"signed": SCALAR, "entry_into_force": SCALAR, "effect": VALUE,
                                                       "source": VALUE, "colour": VALUE}),
                       st.one_of(st.lists(OPERATION, max_size=4), VALUE))


def dump(value) -> str:
    return yaml.safe_dump(value, allow_unicode=True, sort_keys=False)


@lru_cache(maxsize=None)
def documents_for(overlay: Path):
    """The texts an overlay file applies to: its treaty's sources (the broken fixtures have their own)."""
    root = REPO / "tests/data/broken" if "broken" in overlay.parts else REPO
    return load_treaty(root, overlay.parent.name, Findings()).documents


def check_overlay(text: str, folder: Path, documents) -> None:
    """Load, or located problems / a located OverlayError; what loads applies or collects problems."""
    path = folder / "01-fuzz.yaml"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    shown = "overlays/fz/01-fuzz.yaml"
    problems = []
    try:
        instrument = load_instrument(path, shown, problems)
    except OverlayError as exc:
        assert exc.location is not None and exc.location.path in (shown, str(path)) and exc.location.line, str(exc)
        return
    for problem in problems:
        assert problem.location.path == shown and problem.location.line, str(problem)
    if instrument is None or problems:
        return
    # Applying what loaded must give versions or located problems, never an exception.
    applied = []
    build_versions(documents, [instrument], applied)
    for problem in applied:
        assert problem.location.path == shown and problem.location.line, str(problem)


@settings(FUZZ, max_examples=150)
@given(INSTRUMENT)
@example({"id": "p", "kind": "protocol", "title": {"en": "t"}, "operations": [{"op": ["replace"]}]})
@example({"id": "p", "kind": "protocol", "title": {"en": "t"}, "operations": [{"op": {"a": 1}, "target": "art_1"}]})
@example({"id": "p", "kind": "protocol", "title": {"en": "t"}, "effect": {1: "2000-01-01"}, "operations": []})
def test_overlay_loader_on_instrument_like_yaml(scratch, value):
    check_overlay(dump(value), scratch, documents_for(REPO / "overlays/in-cl/01-protocol.yaml"))


@settings(FUZZ, max_examples=200)
@given(st.one_of(st.text(max_size=300), SOURCE_LIKE, VALUE.map(dump).flatmap(
    lambda text: MUTATIONS.map(lambda mutations: mutate(text, mutations)))))
def test_overlay_loader_on_arbitrary_yamlish_text(scratch, text):
    check_overlay(text, scratch, documents_for(REPO / "overlays/in-cl/01-protocol.yaml"))


@settings(FUZZ, max_examples=200)
@given(st.sampled_from(OVERLAY_FILES), MUTATIONS)
def test_overlay_loader_on_mutated_real_overlays(scratch, path, mutations):
    check_overlay(mutate(read_text(path), mutations), scratch, documents_for(path))


# Operations that pass the schema, on real eIds and a few wrong ones, so that what the
# engine does with them is fuzzed too (the loader alone rejects most random operations).
@lru_cache(maxsize=None)
def in_cl_eids() -> tuple[str, ...]:
    eids = documents_for(REPO / "overlays/in-cl/01-protocol.yaml")["en"].eids()
    return tuple(eids[::7]) + ("preamble", "protocol__item_2", "art_12A", "art_31", "art_99", "final")


EID = st.one_of(st.deferred(lambda: st.sampled_from(in_cl_eids())), st.sampled_from(["art_1__para_9", "x"]))
WORDS = st.sampled_from(["the", "Contracting State", "राज्य", "के", "income", "", " ", "{{", "\n"])
LANG_TEXT = st.one_of(st.fixed_dictionaries({"en": FRAGMENT, "hi": FRAGMENT}), st.fixed_dictionaries({"en": WORDS}),
                      st.fixed_dictionaries({"en": WORDS, "hi": WORDS}))
NODE = st.deferred(lambda: st.fixed_dictionaries(
    {"kind": st.sampled_from(["article", "paragraph", "subparagraph", "item", "wrapup", "protocol_item", "preamble",
                              "final"])},
    optional={"num": st.sampled_from(["1", "2", "99", "12A", "a", "5.1", "1-2"]), "label": LANG_TEXT,
              "heading": LANG_TEXT, "text": LANG_TEXT, "children": st.lists(NODE, max_size=2)}))
PLACE = st.one_of(st.fixed_dictionaries({"after": EID}),
                  st.fixed_dictionaries({"within": EID}, optional={"after_line": st.integers(0, 5)}),
                  st.just({}))
SCHEMA_VALID = {
    "replace": st.fixed_dictionaries({"target": EID}, optional={
        "text": LANG_TEXT, "heading": LANG_TEXT, "label": LANG_TEXT, "children": st.lists(NODE, max_size=2)}),
    "insert": st.fixed_dictionaries({"target": EID, "position": st.sampled_from(["before", "after", "last-child"]),
                                     "node": NODE}),
    "delete": st.fixed_dictionaries({"target": EID}),
    "renumber": st.fixed_dictionaries({"target": EID, "num": st.sampled_from(["1", "2", "40", "12A", "b"])},
                                      optional={"label": LANG_TEXT}),
    "substitute": st.fixed_dictionaries({"target": EID, "find": LANG_TEXT, "replace": LANG_TEXT},
                                        optional={"occurrence": st.integers(1, 4)}),
    "note": st.fixed_dictionaries({"target": EID}, optional={"from": EID, "text": LANG_TEXT, "heading": LANG_TEXT}),
    "mli": st.fixed_dictionaries({"mli_article": st.integers(1, 39), "mli_paragraph": st.integers(1, 20),
                                  "relation": st.sampled_from(RELATIONS), "text": LANG_TEXT},
                                 optional={"target": st.one_of(st.none(), EID), "place": PLACE,
                                           "lead_in": LANG_TEXT, "replaced_marker": LANG_TEXT}),
    "annotate": st.fixed_dictionaries({"target": EID, "instrument": st.sampled_from(["unknown", "p"])},
                                      optional={"marker": st.sampled_from(["1", ""])}),
}
VALID_OPERATION = st.sampled_from(sorted(SCHEMA_VALID)).flatmap(
    lambda op: SCHEMA_VALID[op].map(lambda fields: {"op": op, **fields}))


@settings(FUZZ, max_examples=150)
@given(st.lists(VALID_OPERATION, min_size=1, max_size=6))
def test_overlay_engine_on_schema_valid_operations(scratch, operations):
    instrument = {"id": "p", "kind": "protocol", "title": {"en": "t"}, "signed": "2020-01-01",
                  "operations": operations}
    check_overlay(dump(instrument), scratch, documents_for(REPO / "overlays/in-cl/01-protocol.yaml"))


def test_real_overlays_are_there_to_mutate():
    assert len(OVERLAY_FILES) >= 15

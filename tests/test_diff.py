"""Tests for consolidate.diff and consolidate.diffrender on the real India–Portugal corpus."""

from __future__ import annotations

import itertools
import json
import os
import shutil
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import pytest

from .test_textdiff import cluster_boundaries
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from consolidate import textdiff
from consolidate.corpus import load_treaty
from consolidate.diff import (
    DiffInputError,
    box_eid,
    diff_versions,
    load_versions,
    resolve,
    run_diff,
    word_diff,
)
from consolidate.diffrender import render_html, render_text
from consolidate.engine import build_versions
from consolidate.errors import ConsolidateError, OverlayError, UsageError
from consolidate.findings import Findings
from consolidate.ids import assign_ids
from consolidate.model import Node

REPO = Path(__file__).resolve().parents[1]
TREATY = "in-pt"

# The six MLI provisions of overlays/in-pt/01-mli.yaml, as the eIds the diff gives their boxes.
MLI_BOXES = {
    "preamble#mli_6_1": 1,
    "art_1#mli_11_1": 2,
    "art_5__para_4#mli_13_4": 3,
    "art_5#mli_15_1": 4,
    "art_13__para_4#mli_9_4": 5,
    "art_28#mli_7_1": 6,
}


@pytest.fixture(autouse=True)
def _no_backend_env(monkeypatch):
    # A developer's CONSOLIDATE_DIFF_BACKEND must not change what these tests exercise.
    monkeypatch.delenv(textdiff.ENV_VAR, raising=False)


def diff(from_spec: str, to_spec: str, *, root: Path = REPO, fmt: str = "json", **options):
    settings_ = dict(lang=None, fmt=fmt, changes_only=False, preview=None, state=None, tax=None, color=False)
    settings_.update(options)
    out = run_diff(root, TREATY, from_spec, to_spec, **settings_)
    return json.loads(out) if fmt == "json" else out


def by_eid(result: dict) -> dict[str, dict]:
    changes = {change["eid"]: change for change in result["changes"]}
    assert len(changes) == len(result["changes"]), "each eId appears once"
    return changes


def base_text(eid: str, field: str = "text") -> str:
    from consolidate import inline

    node = load_treaty(REPO, TREATY).documents["hi"].by_eid()[eid]
    return inline.clean(getattr(node, field) or "")


def assert_grapheme_safe(ops) -> None:
    """Every op boundary falls on a \\X boundary of the FROM text and of the TO text."""
    ops = [tuple(op) for op in ops]
    for side, skip in (("old", "insert"), ("new", "delete")):
        text = textdiff.source_text(ops) if side == "old" else textdiff.target_text(ops)
        allowed, pos = cluster_boundaries(text), 0
        for op, piece in ops:
            if op == skip:
                continue
            assert pos in allowed, (side, pos, ops)
            pos += len(piece)
        assert pos == len(text)


# ------------------------------------------------------------------ the real MLI overlay

def test_base_to_mli_is_the_six_boxes_and_the_replaced_article_13_4():
    result = diff("base", "mli")
    assert set(result) == {"treaty", "from", "to", "summary", "changes"}
    assert (result["treaty"], result["from"], result["to"]) == ("in-pt", "base", "mli")
    changes = by_eid(result)
    assert set(changes) == set(MLI_BOXES) | {"art_13__para_4"}
    for eid, operation in MLI_BOXES.items():
        change = changes[eid]
        assert (change["change"], change["instrument"], change["operation"]) == ("inserted", "mli", operation)
        assert change["ops"][0][0] == "insert" and len(change["ops"]) == 1
    replaced = changes["art_13__para_4"]
    assert (replaced["change"], replaced["instrument"], replaced["operation"]) == ("modified", "mli", 5)
    assert replaced["ops"] == [["delete", base_text("art_13__para_4")]]
    summary = result["summary"]
    assert summary["total"] == 7
    assert summary["by_change"] == {"inserted": 6, "modified": 1}
    assert summary["by_article"]["art_13"] == {"inserted": 1, "modified": 1}
    assert summary["by_article"]["art_5"] == {"inserted": 2}
    assert summary["instruments"]["mli"]["changes"] == 7


def test_box_text_is_the_overlay_text_and_box_eid_is_documented_suffix():
    overlay = yaml.safe_load((REPO / "overlays" / TREATY / "01-mli.yaml").read_text("utf-8"))
    changes = by_eid(diff("base", "mli"))
    for operation in overlay["operations"]:
        anchor = (operation.get("place") or {}).get("within") or (operation.get("place") or {}).get("after") \
            or operation["target"]
        eid = box_eid(anchor, operation["mli_article"], operation["mli_paragraph"])
        assert changes[eid]["ops"] == [["insert", operation["text"]["hi"]]]
        assert changes[eid]["heading_ops"] == [["insert", operation["heading"]["hi"]]]
        assert changes[eid]["mli"]["relation"] == operation["relation"]


def test_latest_and_reverse_direction():
    assert diff("base", "latest")["changes"] == diff("base", "mli")["changes"]
    back = by_eid(diff("mli", "base"))
    assert {eid for eid, c in back.items() if c["change"] == "deleted"} == set(MLI_BOXES)
    assert back["art_13__para_4"]["ops"] == [["insert", base_text("art_13__para_4")]]
    assert all(c["instrument"] == "mli" for c in back.values())
    assert diff("mli", "mli")["changes"] == []


def test_dates_resolve_through_the_timeline():
    by_date = diff("2020-01-01", "2021-06-01")
    assert (by_date["from"], by_date["to"]) == ("2020-01-01", "2021-06-01")
    assert (by_date["summary"]["from_version"], by_date["summary"]["to_version"]) == ("base", "mli")
    assert by_date["changes"] == diff("base", "mli")["changes"]
    # India applies the MLI to withholding taxes from 1 April 2021, Portugal from 1 January 2021.
    india = diff("2021-02-01", "2021-05-01", state="IN", tax="withholding")
    assert len(india["changes"]) == 7 and india["summary"]["state"] == "IN"
    assert diff("2021-02-01", "2021-05-01", state="PT", tax="withholding")["changes"] == []
    assert diff("2021-06-01", "mli")["changes"] == []


@pytest.mark.parametrize("args, error, message", [
    (("base", "mlii"), DiffInputError, r"TO: unknown version 'mlii' of in-pt; expected one of latest, base, mli"),
    (("2021-02-30", "mli"), DiffInputError, r"FROM '2021-02-30' is not a valid date"),
    (("2021-2-1", "mli"), DiffInputError, r"unknown version '2021-2-1'.*or a date YYYY-MM-DD"),
    (("base", "preview"), DiffInputError, r"--preview, which was not given"),
])
def test_bad_version_specs(args, error, message):
    with pytest.raises(error, match=message):
        diff(*args)


def test_bad_options():
    with pytest.raises(UsageError, match="unknown treaty 'xx-yy'"):
        run_diff(REPO, "xx-yy", "base", "mli", lang=None, fmt="json", changes_only=False, preview=None,
                 state=None, tax=None, color=False)
    with pytest.raises(DiffInputError, match="has no 'en' text; it has: hi"):
        diff("base", "mli", lang="en")
    with pytest.raises(DiffInputError, match="--state and --tax choose the text in effect on a date"):
        diff("base", "mli", state="IN")
    with pytest.raises(DiffInputError, match="unknown kind of tax 'vat'"):
        diff("2021-01-01", "mli", tax="vat")
    with pytest.raises(UsageError, match="state 'FR' is not a party"):
        diff("2021-01-01", "mli", state="FR")
    with pytest.raises(DiffInputError, match="unknown format 'pdf'"):
        diff("base", "mli", fmt="pdf")
    with pytest.raises(textdiff.DiffBackendError, match="unknown diff backend 'turbo'"):
        diff("base", "mli", backend="turbo")


# ------------------------------------------------------------------ a draft protocol (--preview)

def node_spec(node: Node) -> dict:
    """An overlay node spec that rebuilds `node` (its Hindi text) exactly."""
    spec: dict = {"kind": node.kind}
    if node.num is not None:
        spec["num"] = node.num
    for key in ("label", "heading"):
        if getattr(node, key) is not None:
            spec[key] = {"hi": getattr(node, key)}
    spec["text"] = {"hi": node.text}
    if node.children:
        spec["children"] = [node_spec(child) for child in node.children]
    return spec


NEW_PARAGRAPH = "इस अनुच्छेद के प्रयोजनों के लिए <शेयर> में ट्रस्ट के हित शामिल हैं।"
NOTE_TEXT = "यह समझा जाता है कि पैराग्राफ 4 संविदाकारी राष्ट्रों की सहमति से लागू होगा।"


def draft_overlay() -> dict:
    """A protocol that renumbers, inserts, deletes, substitutes, reorders and adds a note."""
    base = load_treaty(REPO, TREATY).documents["hi"].by_eid()
    article_2 = base["art_2"]
    reordered = [node_spec(child) for child in article_2.children[1:] + article_2.children[:1]]
    return {
        "id": "draft",
        "kind": "protocol",
        "title": {"hi": "संशोधन प्रोटोकॉल (मसौदा)", "en": "Amending protocol (draft)"},
        "signed": "2024-03-01",
        "operations": [
            {"op": "renumber", "target": "art_27", "num": "27A", "label": {"hi": "अनुच्छेद 27क"}},
            {"op": "insert", "target": "art_13__para_5", "position": "after",
             "node": {"kind": "paragraph", "num": "6", "label": {"hi": "6."}, "text": {"hi": NEW_PARAGRAPH}}},
            {"op": "delete", "target": "art_4__para_2"},
            {"op": "substitute", "target": "art_1", "find": {"hi": "एक या दोनों"}, "replace": {"hi": "किसी भी"}},
            {"op": "replace", "target": "art_2", "children": reordered},
            {"op": "note", "target": "art_13", "heading": {"hi": "अनुच्छेद 13 के संबंध में"},
             "text": {"hi": NOTE_TEXT}},
        ],
    }


@pytest.fixture
def draft_file(tmp_path: Path) -> Path:
    path = tmp_path / "draft-protocol.yaml"
    path.write_text(yaml.safe_dump(draft_overlay(), allow_unicode=True, sort_keys=False), "utf-8")
    return path


EXPECTED_DRAFT = {
    "art_27A": "renumbered",
    "art_13__para_6": "inserted",
    "art_13#note_draft_6": "inserted",
    "art_4__para_2": "deleted",
    "art_4__para_2__subpara_a": "deleted",
    "art_4__para_2__subpara_b": "deleted",
    "art_4__para_2__subpara_c": "deleted",
    "art_4__para_2__subpara_d": "deleted",
    "art_1": "modified",
    "art_2__para_1": "moved",
}


def test_preview_of_a_draft_protocol(draft_file):
    result = diff("latest", "preview", preview=draft_file)
    assert result["to"] == "preview:draft"
    changes = by_eid(result)
    assert {eid: c["change"] for eid, c in changes.items()} == EXPECTED_DRAFT
    assert {c["instrument"] for c in changes.values()} == {"draft"}
    assert changes["art_27A"]["operation"] == 1 and changes["art_1"]["operation"] == 4

    renumbered = changes["art_27A"]
    assert renumbered["old_eid"] == "art_27"
    assert renumbered["label_ops"] == [["equal", "अनुच्छेद "], ["delete", "27"], ["insert", "27क"]]
    assert renumbered["ops"] == []          # the article has no text of its own; its paragraphs moved with it

    assert changes["art_13__para_6"]["ops"] == [["insert", NEW_PARAGRAPH]]
    assert changes["art_13__para_6"]["label_ops"] == [["insert", "6."]]
    assert changes["art_13#note_draft_6"]["ops"] == [["insert", NOTE_TEXT]]
    assert changes["art_4__para_2"]["ops"] == [["delete", base_text("art_4__para_2")]]

    old_text = base_text("art_1")
    assert changes["art_1"]["ops"] == [
        ["equal", old_text[:old_text.index("एक या दोनों")]],
        ["delete", "एक या दोनों"],
        ["insert", "किसी भी"],
        ["equal", old_text[old_text.index("एक या दोनों") + len("एक या दोनों"):]],
    ]
    moved = changes["art_2__para_1"]
    assert moved["instrument"] == "draft" and moved["operation"] == 5 and moved["op"] == "replace"
    assert moved["ops"] == [["equal", base_text("art_2__para_1")]]
    for change in changes.values():
        for key, ops in change.items():
            if key == "ops" or key.endswith("_ops"):
                assert_grapheme_safe(ops)


def test_preview_equals_the_committed_overlay(draft_file, corpus_copy):
    shutil.copy(draft_file, corpus_copy / "overlays" / TREATY / "02-draft.yaml")
    committed = diff("mli", "draft", root=corpus_copy)["changes"]
    previewed = diff("latest", "preview", preview=draft_file)["changes"]
    # Same changes; only the file named in each operation's location differs.
    assert [c.pop("location").replace("overlays/in-pt/02-draft.yaml:", "draft-protocol.yaml:") for c in committed] \
        == [c.pop("location") for c in previewed]
    assert committed == previewed
    # Deleted provisions stay out of the later texts: a diff between two later versions ignores them.
    assert diff("draft", "latest", root=corpus_copy)["changes"] == []
    back = by_eid(diff("draft", "mli", root=corpus_copy))
    assert back["art_27"]["change"] == "renumbered" and back["art_27"]["old_eid"] == "art_27A"
    assert {eid for eid, c in back.items() if c["change"] == "inserted"} == {
        eid for eid, kind in EXPECTED_DRAFT.items() if kind == "deleted"}


def test_preview_problems_are_located(tmp_path):
    bad = draft_overlay()
    bad["operations"][2]["target"] = "art_4__para_9"
    path = tmp_path / "broken.yaml"
    path.write_text(yaml.safe_dump(bad, allow_unicode=True, sort_keys=False), "utf-8")
    with pytest.raises(OverlayError) as caught:
        diff("latest", "preview", preview=path)
    assert str(caught.value).startswith("broken.yaml:")
    assert "target art_4__para_9 not found" in str(caught.value)

    bad = draft_overlay()
    bad["operations"][0]["numm"] = "27A"
    path.write_text(yaml.safe_dump(bad, allow_unicode=True, sort_keys=False), "utf-8")
    with pytest.raises(OverlayError, match=r"^broken\.yaml:\d+: operation 1 \(renumber\): unknown key 'numm'"):
        diff("latest", "preview", preview=path)

    bad = draft_overlay()
    bad["id"] = "mli"
    path.write_text(yaml.safe_dump(bad, allow_unicode=True, sort_keys=False), "utf-8")
    with pytest.raises(OverlayError, match="'mli' is already used by overlays/in-pt/01-mli.yaml"):
        diff("latest", "preview", preview=path)
    with pytest.raises(DiffInputError, match="no overlay file 'missing.yaml'"):
        diff("latest", "preview", preview=tmp_path / "missing.yaml")


def test_article_moved_to_another_chapter():
    base = build_versions(load_treaty(REPO, TREATY).documents, [])[0]
    document = base.documents["hi"]
    chapters = {node.eid: node for node in document.nodes}
    article = chapters["chp_3"].children[-1]
    assert article.eid == "art_22"
    moved_nodes = tuple(
        node.with_children(node.children[:-1]) if node.eid == "chp_3"
        else node.with_children((article,) + node.children) if node.eid == "chp_4"
        else node
        for node in document.nodes)
    findings = Findings()
    moved_document = assign_ids(replace(document, nodes=moved_nodes), findings)
    assert not len(findings)
    later = replace(base, id="moved", documents={"hi": moved_document})
    result = diff_versions(base, later, "hi").to_json()
    assert [(c["eid"], c["change"]) for c in result["changes"]] == [("art_22", "moved")]


def unshared(version):
    """The same version with every node a new object, so no subtree is shared with another version."""
    def copy(nodes):
        return tuple(replace(node, children=copy(node.children)) for node in nodes)
    return replace(version, documents={lang: replace(doc, nodes=copy(doc.nodes))
                                       for lang, doc in version.documents.items()})


def test_shared_subtrees_give_the_same_diff_as_unshared_copies(draft_file, corpus_copy):
    shutil.copy(draft_file, corpus_copy / "overlays" / TREATY / "02-draft.yaml")
    versions = load_versions(corpus_copy, TREATY)
    by_id = {v.id: v for v in versions.versions}
    for before, after in (("base", "mli"), ("mli", "base"), ("mli", "draft"), ("draft", "mli"), ("base", "draft"),
                          ("draft", "base"), ("draft", "draft")):
        old, new = by_id[before], by_id[after]
        shared = diff_versions(old, new, "hi")
        copied = diff_versions(unshared(old), unshared(new), "hi")
        assert shared.to_json() == copied.to_json(), (before, after)
        assert render_text(shared) == render_text(copied), (before, after)
        assert render_html(shared) == render_html(copied), (before, after)
        if {before, after} == {"base", "mli"}:
            # The MLI leaves untouched subtrees as the same objects: the layout holds them whole.
            assert len(shared.layout) < len(copied.layout) / 2


# ------------------------------------------------------------------ renderers

def test_changes_only_text_is_plain_word_diff():
    text = diff("base", "mli", fmt="text", changes_only=True)
    assert text.startswith("in-pt (hi): base → mli\n7 changes: 6 inserted, 1 modified\n")
    assert "@@ art_13__para_4 · modified · mli, operation 5 (mli) @@\n    [-एक कंपनी जिसकी" in text
    assert text.count("@@ ") == 7
    assert "{+एमएलआई का अनुच्छेद 9 - मुख्यत: अचल संपत्ति" in text
    assert base_text("art_1") not in text       # unchanged provisions are left out
    assert "\x1b[" not in text
    whole = diff("base", "mli", fmt="text")
    assert base_text("art_1") in whole and whole.count("@@ ") == 7


def test_whole_text_of_unchanged_provisions_matches_their_entries():
    # render_text prints unchanged provisions by a short path; the entries give the same lines.
    from consolidate.diffrender import _entry_lines

    versions = load_versions(REPO, TREATY)
    model = diff_versions(resolve(versions, "mli").version, resolve(versions, "mli").version, "hi")
    blocks = ["\n".join(_entry_lines(entry, False)) for entry in model.entries]
    assert render_text(model).split("\n\n", 1)[1] == "\n\n".join(b for b in blocks if b) + "\n"
    assert len(model.entries) == sum(1 for _ in load_treaty(REPO, TREATY).documents["hi"].walk()) + 6


def test_coloured_text_uses_ansi_not_brackets():
    text = diff("base", "mli", fmt="text", changes_only=True, color=True)
    assert "\x1b[31mएक कंपनी जिसकी" in text and "\x1b[32m" in text
    assert "[-" not in text and "{+" not in text


class WellFormed(HTMLParser):
    """Checks that every non-void element is closed in order; collects ids and tags."""

    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.ids: list[str] = []
        self.tags: dict[str, int] = {}
        self.attrs: list[tuple[str, str, str | None]] = []
        self.errors: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        for name, value in attrs:
            self.attrs.append((tag, name, value))
            if name == "id":
                self.ids.append(value)
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1] if self.stack else 'nothing'}")
        else:
            self.stack.pop()


def parse(page: str) -> WellFormed:
    parser = WellFormed()
    parser.feed(page)
    parser.close()
    assert not parser.errors, parser.errors[:5]
    assert not parser.stack, parser.stack
    return parser


def test_html_page_is_standalone_well_formed_and_marks_changes(draft_file):
    page = diff("base", "mli", fmt="html")
    parsed = parse(page)
    assert page.startswith("<!DOCTYPE html>\n<html lang=\"hi\">")
    assert parsed.tags.get("ins", 0) >= 6 and parsed.tags.get("del", 0) >= 1
    assert set(MLI_BOXES) | {"art_13__para_4", "redline", "side-by-side", "art_1"} <= set(parsed.ids)
    assert len(parsed.ids) == len(set(parsed.ids))
    assert "script" not in parsed.tags and "link" not in parsed.tags
    assert not [a for a in parsed.attrs if a[1] in ("src", "href") and a[2] and not a[2].startswith("#")]
    assert 'href="#art_13__para_4%23mli_9_4"' in page      # the box suffix is escaped in links
    assert "बहुपक्षीय समझौता" in page                     # the instrument is named by its title

    only = parse(diff("latest", "preview", fmt="html", changes_only=True, preview=draft_file))
    assert set(EXPECTED_DRAFT) <= set(only.ids) and "art_3" not in only.ids
    draft_page = diff("latest", "preview", fmt="html", changes_only=True, preview=draft_file)
    assert "&lt;शेयर&gt;" in draft_page and "<शेयर>" not in draft_page    # autoescaped
    assert "संशोधन प्रोटोकॉल (मसौदा)" in draft_page


def test_renderers_work_on_the_model_directly():
    versions = load_versions(REPO, TREATY)
    model = diff_versions(resolve(versions, "base").version, resolve(versions, "latest").version, "hi")
    assert [e.eid for e in model.changes] == [c["eid"] for c in diff("base", "mli")["changes"]]
    assert render_text(model, changes_only=True).count("@@ ") == 7
    parse(render_html(model))


# ------------------------------------------------------------------ properties

ARTICLE = "art_13"
VOCABULARY = ["क्षेत्र", "राष्ट्र", "संविदाकारी", "प्रतिस्थापित", "ड़", "क्‍ष", "।", "5.1", "लाभ", " ", ", ",
              "(क)", "हस्तांतरण", "कर", "shares", "\u200d", "ि", "्"]


def edited_pair(data) -> tuple:
    """The base version and a copy with one article's paragraphs randomly edited, inserted or deleted."""
    base = build_versions(load_treaty(REPO, TREATY).documents, [])[0]
    document = base.documents["hi"]
    article = document.by_eid()[ARTICLE]
    children = []
    for child in article.children:
        action = data.draw(st.sampled_from(["keep", "edit", "edit", "delete"]))
        if action == "delete":
            continue
        if action == "edit":
            text = child.text
            start = data.draw(st.integers(0, len(text)))
            end = data.draw(st.integers(start, min(len(text), start + 40)))
            words = data.draw(st.lists(st.sampled_from(VOCABULARY), max_size=6))
            child = replace(child, text=text[:start] + "".join(words) + text[end:])
        children.append(child)
    if data.draw(st.booleans()):
        words = data.draw(st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=8))
        children.insert(data.draw(st.integers(0, len(children))),
                        Node("paragraph", "9", "9.", None, "".join(words)))
    edited = replace(article, children=tuple(children))

    def swap(nodes):
        return tuple(edited if n.eid == ARTICLE else n.with_children(swap(n.children)) for n in nodes)

    findings = Findings()
    later = assign_ids(replace(document, nodes=_clear(swap(document.nodes))), findings)
    return base, replace(base, id="edited", documents={"hi": later})


def _clear(nodes):
    return tuple(replace(n, eid="", children=_clear(n.children)) for n in nodes)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_ops_rebuild_both_texts_exactly(data):
    old, new = edited_pair(data)
    model = diff_versions(old, new, "hi")
    old_nodes, new_nodes = old.documents["hi"].by_eid(), new.documents["hi"].by_eid()
    changed = {}
    for entry in model.entries:
        before = old_nodes.get(entry.old_eid or entry.eid) if entry.change != "inserted" else None
        after = new_nodes.get(entry.eid) if entry.change != "deleted" else None
        for field in entry.fields:
            old_text = textdiff.source_text(field.ops)
            new_text = textdiff.target_text(field.ops)
            assert old_text == (_clean_field(before, field.name) if before else "")
            assert new_text == (_clean_field(after, field.name) if after else "")
            assert_grapheme_safe(field.ops)
        if entry.change:
            changed[entry.eid] = entry.change
    expected = {}
    for eid, node in new_nodes.items():
        if eid not in old_nodes:
            expected[eid] = "inserted"
        elif node.text != old_nodes[eid].text:
            expected[eid] = "modified"
    expected.update({eid: "deleted" for eid in old_nodes if eid not in new_nodes})
    assert changed == expected


WORDS = ["क्षेत्र", "राष्ट्र", "संविदाकारी", "लाभ", "कर", "5.1", "shares", "(क)", "।", ",", "ड़", "\u200d", "ि",
         "्", "\u0e33", "\uff9e"]
SPACES = [" ", " ", " ", "  ", "\n", " \u0301"]


@st.composite
def long_texts(draw):
    """A long text of words and spaces and an edited copy (several edits, far apart or close)."""
    size = draw(st.integers(20, 120))
    parts = [draw(st.sampled_from(WORDS)) + draw(st.sampled_from(SPACES)) for _ in range(size)]
    edited = list(parts)
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(edited)))
        action = draw(st.sampled_from(["replace", "insert", "delete"]))
        word = draw(st.sampled_from(WORDS)) + draw(st.sampled_from(SPACES))
        if action == "insert" or at == len(edited):
            edited.insert(at, word)
        elif action == "replace":
            edited[at] = word
        else:
            del edited[at]
    return "".join(parts), "".join(edited)


@settings(max_examples=150, deadline=None)
@given(long_texts())
def test_word_diff_of_long_passages_is_exact_and_grapheme_safe(pair):
    old, new = pair
    ops = word_diff(old, new, "pure")
    assert textdiff.source_text(ops) == old and textdiff.target_text(ops) == new
    assert all(text for _, text in ops)
    assert all(a[0] != b[0] for a, b in zip(ops, ops[1:]))
    assert_grapheme_safe(ops)
    # Every op boundary is also a boundary of textdiff's own tokens: no word is split.
    for side, skip, text in (("old", "insert", old), ("new", "delete", new)):
        tokens = set(itertools.accumulate(map(len, textdiff.tokenize(text)), initial=0))
        pos = 0
        for op, piece in ops:
            if op != skip:
                assert pos in tokens, (side, pos)
                pos += len(piece)


def _clean_field(node: Node, name: str) -> str:
    from consolidate import inline

    return inline.clean(getattr(node, name) or "")


# ------------------------------------------------------------------ backends

def require_fast() -> None:
    """The fast backend is a test dependency: missing, it fails under CI=true and skips elsewhere."""
    if "fast" in textdiff.available_backends():
        return
    if os.environ.get("CI", "").strip().lower() == "true":
        pytest.fail("fast_diff_match_patch is a test dependency (pip install -e '.[test]') but is not importable")
    pytest.skip("fast_diff_match_patch not installed; backend equivalence not checked")


def test_fast_and_pure_backends_give_identical_json(draft_file):
    require_fast()
    for args, options in ((("base", "mli"), {}), (("latest", "preview"), {"preview": draft_file})):
        fast = diff(*args, backend="fast", **options)
        pure = diff(*args, backend="pure", **options)
        assert fast == pure and fast["changes"]


def test_backend_from_the_environment(monkeypatch):
    monkeypatch.setenv(textdiff.ENV_VAR, "pure")
    assert diff("base", "mli") == diff("base", "mli", backend="pure")
    monkeypatch.setenv(textdiff.ENV_VAR, "slow")
    with pytest.raises(ConsolidateError, match="from environment variable CONSOLIDATE_DIFF_BACKEND"):
        diff("base", "mli")

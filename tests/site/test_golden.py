"""Golden HTML fragments of built pages, canonicalised; `pytest tests/site --update-golden` rewrites them."""

from __future__ import annotations

import difflib
import html
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import html5lib
import pytest

GOLDEN = Path(__file__).resolve().parent / "golden"
BLOCK = {"address", "article", "aside", "blockquote", "dd", "div", "dl", "dt", "footer", "form", "h1", "h2", "h3",
         "h4", "h5", "h6", "header", "li", "main", "nav", "ol", "p", "section", "table", "tbody", "td", "tfoot",
         "th", "thead", "tr", "ul"}
HTML_SPACE = re.compile(r"[ \t\n\f\r]+")
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


def _collapse(text: str | None) -> str:
    # Only HTML's own whitespace collapses: a no-break space is content.
    return HTML_SPACE.sub(" ", text or "")


def _open(element: ET.Element) -> str:
    attributes = "".join(f' {name}="{html.escape(value, quote=True)}"'
                         for name, value in sorted(element.attrib.items()))
    return f"<{element.tag}{attributes}>"


def _inline(element: ET.Element) -> str:
    """An element and its content on one line; whitespace runs become one space."""
    if not isinstance(element.tag, str):
        return ""  # a comment does not render
    if element.tag in VOID:
        return _open(element)
    inner = html.escape(_collapse(element.text), quote=False)
    for child in element:
        inner += _inline(child) + html.escape(_collapse(child.tail), quote=False)
    return f"{_open(element)}{inner}</{element.tag}>"


def canonical(element: ET.Element, depth: int = 0) -> list[str]:
    """Lines of a canonical form: block elements one per line, indented; attributes sorted."""
    pad = "  " * depth
    if not any(child.tag in BLOCK for child in element):
        line = _inline(element)
        # Space just inside a block's edges does not render; drop it so layout edits don't churn.
        opening = _open(element)
        if line.startswith(opening) and element.tag not in VOID:
            body = line[len(opening):-len(f"</{element.tag}>")].strip(" ")
            line = f"{opening}{body}</{element.tag}>"
        return [pad + line]
    lines = [pad + _open(element)]
    loose = _collapse(element.text).strip(" ")
    run = html.escape(loose, quote=False)
    for child in element:
        if child.tag in BLOCK:
            if run.strip(" "):
                lines.append(pad + "  " + run.strip(" "))
            run = ""
            lines += canonical(child, depth + 1)
        else:
            run += _inline(child)
        run += html.escape(_collapse(child.tail), quote=False)
    if run.strip(" "):
        lines.append(pad + "  " + run.strip(" "))
    lines.append(f"{pad}</{element.tag}>")
    return lines


def parse_page(path: Path) -> ET.Element:
    return html5lib.parse(path.read_bytes(), namespaceHTMLElements=False)


def by_id(tree: ET.Element, ident: str) -> ET.Element:
    found = [e for e in tree.iter() if e.get("id") == ident]
    assert len(found) == 1, f"{len(found)} elements with id {ident!r}"
    return found[0]


def classes(element: ET.Element) -> set[str]:
    return set((element.get("class") or "").split())


@dataclass(frozen=True)
class Case:
    name: str
    page: str
    ident: str
    with_footnotes: bool = False


CASES = [
    Case("in-pt-preamble-box", "treaties/in-pt/hi/index.html", "preamble"),
    Case("in-pt-art_5-box", "treaties/in-pt/hi/index.html", "mli-art_5-15-1"),
    Case("in-pt-art_13-para_4-replaced", "treaties/in-pt/hi/index.html", "art_13__para_4"),
    Case("in-pt-footnote", "treaties/in-pt/hi/index.html", "art_23__para_5", with_footnotes=True),
    Case("in-br-amendment-marker", "treaties/in-br/hi/index.html", "art_1", with_footnotes=True),
]


def fragment(site: Path, case: Case) -> tuple[ET.Element, list[ET.Element]]:
    """The element with the case's id, and the footnotes its references lead to (when asked for)."""
    tree = parse_page(site / case.page)
    element = by_id(tree, case.ident)
    notes = []
    if case.with_footnotes:
        for ref in element.iter("a"):
            if "footnote-ref" in classes(ref):
                notes.append(by_id(tree, ref.get("href", "").removeprefix("#")))
    return element, notes


def render_golden(site: Path, case: Case) -> str:
    element, notes = fragment(site, case)
    lines = [f"<!-- {case.page}#{case.ident}: canonical form (tests/site/test_golden.py) -->"]
    lines += canonical(element)
    for note in notes:
        lines += canonical(note)
    return "\n".join(lines) + "\n"


def test_canonical_form_ignores_layout_but_not_content():
    """Attribute order and whitespace runs do not matter; text and attribute values do."""
    def canon(markup: str) -> str:
        return "\n".join(canonical(by_id(html5lib.parse(markup, namespaceHTMLElements=False), "x")))

    a = canon('<section id="x" class="p"><p class="t">A  <a href="#f" id="r">1</a>\n b</p>\n</section>')
    b = canon('<section class="p" id="x">\n  <p class="t"> A <a id="r" href="#f">1</a> b </p></section>')
    assert a == b
    assert a == '<section class="p" id="x">\n  <p class="t">A <a href="#f" id="r">1</a> b</p>\n</section>'
    assert canon('<section id="x"><p>A b</p></section>') != canon('<section id="x"><p>Ab</p></section>')
    assert canon('<p id="x" class="s">&lt;script&gt;</p>') == '<p class="s" id="x">&lt;script&gt;</p>'
    assert canon('<p id="x">a<!-- note -->\u00a0b</p>') == '<p id="x">a\u00a0b</p>'  # a no-break space is text


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_golden_fragment(built_site, update_golden, case):
    """The fragment matches tests/site/golden/NAME.html (rewritten with --update-golden)."""
    actual = render_golden(built_site, case)
    path = GOLDEN / f"{case.name}.html"
    if update_golden:
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(actual, "utf-8")
        return
    assert path.is_file(), f"{path.name} is missing: run `python -m pytest tests/site --update-golden`"
    expected = path.read_text("utf-8")
    if actual != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                            f"golden/{path.name}", "built"))
        pytest.fail(f"{case.page}#{case.ident} differs from its golden file "
                    f"(check, then rerun with --update-golden):\n{diff[:6000]}")


def test_in_pt_fragments_keep_the_markup_contract(built_site):
    """Boxes carry their four data attributes; the replaced paragraph and the footnote link as promised."""
    tree = parse_page(built_site / "treaties/in-pt/hi/index.html")
    boxes = [e for e in tree.iter() if "mli-box" in classes(e)]
    assert len(boxes) == 6
    preamble_box = by_id(tree, "mli-preamble-6-1")
    assert preamble_box in list(by_id(tree, "preamble").iter())
    assert {k: preamble_box.get(k) for k in ("data-mli-article", "data-mli-paragraph", "data-relation",
                                              "data-target")} == {"data-mli-article": "6", "data-mli-paragraph": "1",
                                                                  "data-relation": "included-in-preamble",
                                                                  "data-target": "preamble"}
    art_5_box = by_id(tree, "mli-art_5-15-1")
    assert (art_5_box.get("data-mli-article"), art_5_box.get("data-target")) == ("15", "art_5")
    paragraph = by_id(tree, "art_13__para_4")
    replaced = [e for e in paragraph.iter() if "replaced" in classes(e)]
    assert len(replaced) == 1 and "".join(replaced[0].itertext()).strip()
    box = [e for e in paragraph.iter() if "mli-box" in classes(e)]
    assert [(b.get("data-mli-article"), b.get("data-mli-paragraph"), b.get("data-relation"), b.get("data-target"))
            for b in box] == [("9", "4", "replaces", "art_13__para_4")]
    _, notes = fragment(built_site, CASES[3])
    assert notes and all(n.tag == "li" and "footnote" in classes(n) for n in notes)


def test_in_br_marker_footnote_names_no_instrument(built_site):
    """The amendment marker links to a footnote saying the source does not name the instrument."""
    element, notes = fragment(built_site, CASES[4])
    markers = [a for a in element.iter("a") if {"footnote-ref", "marker"} <= classes(a)]
    assert markers and len(notes) == len(markers)
    for note in notes:
        assert "footnote" in classes(note)
        assert "instrument not named in the source" in " ".join("".join(note.itertext()).split())

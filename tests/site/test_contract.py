"""The markup contract (docs/site.md) on every built page: provisions, MLI boxes, replaced text, footnotes, diffs."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import html5lib
import pytest

BOX_ATTRIBUTES = ("data-mli-article", "data-mli-paragraph", "data-relation", "data-target")


def parse(path: Path) -> ET.Element:
    return html5lib.parse(path.read_bytes(), namespaceHTMLElements=False)


def classes(element: ET.Element) -> set[str]:
    return set((element.get("class") or "").split())


def provisions(nodes: list[dict]):
    for node in nodes:
        yield node
        yield from provisions(node["children"])


def edition_pages(site: Path) -> list[tuple[Path, Path]]:
    """Each version page with the JSON download of the same version beside it."""
    pairs = [(p.with_suffix(".html"), p) for p in sorted((site / "treaties").glob("*/*/*.json"))]
    assert pairs and all(html.is_file() for html, _ in pairs)
    return pairs


@pytest.fixture(scope="module")
def pages(built_site) -> dict[str, ET.Element]:
    return {p.relative_to(built_site).as_posix(): parse(p) for p in sorted(built_site.rglob("*.html"))}


def test_provisions_and_boxes_match_the_version_they_show(built_site, pages):
    """A version page has one element per provision, id = eId, and the version's MLI boxes inside them."""
    problems, boxes = [], 0
    for html, data in edition_pages(built_site):
        tree = pages[html.relative_to(built_site).as_posix()]
        version = json.loads(data.read_text("utf-8"))
        nodes = list(provisions(version["provisions"]))
        shown = [e for e in tree.iter() if "provision" in classes(e)]
        ids = [e.get("id") for e in shown]
        if sorted(ids) != sorted(n["eid"] for n in nodes):
            missing = {n["eid"] for n in nodes} - set(ids)
            problems.append(f"{html.name}: provisions differ (missing {sorted(missing)[:5]}, "
                            f"extra {sorted(set(ids) - {n['eid'] for n in nodes})[:5]})")
            continue
        by_id = {e.get("id"): e for e in shown}
        for node in nodes:
            expected = sorted((str(b["mli_article"]), str(b["mli_paragraph"]), b["relation"], b["target"] or "")
                              for b in node["boxes"])
            # The node's own boxes: those in its element but not inside a nested provision.
            element = by_id[node["eid"]]
            inner = {id(e) for child in element if "provision" in classes(child) for e in child.iter()}
            own = [b for b in element.iter() if "mli-box" in classes(b) and id(b) not in inner]
            actual = sorted(tuple(b.get(a) for a in BOX_ATTRIBUTES) for b in own)
            boxes += len(expected)
            if actual != expected:
                problems.append(f"{html.relative_to(built_site)}#{node['eid']}: boxes {actual} ≠ {expected}")
    assert boxes >= 6  # in-pt's six, on the mli version page
    # A language's index.html is its latest version's page, so the same checks cover it.
    for folder in {html.parent for html, _ in edition_pages(built_site)}:
        index = (folder / "index.html").read_bytes()
        assert any(index == html.read_bytes() for html, _ in edition_pages(built_site) if html.parent == folder)
    assert not problems, "\n".join(problems[:40])


def test_every_box_carries_the_contract_attributes(pages):
    """Each .mli-box is an aside with the four data attributes; a target names a provision of the page."""
    problems, count = [], 0
    for name, tree in pages.items():
        ids = {e.get("id") for e in tree.iter() if "provision" in classes(e)}
        for box in (e for e in tree.iter() if "mli-box" in classes(e)):
            count += 1
            if box.tag != "aside" or any(box.get(a) is None for a in BOX_ATTRIBUTES):
                problems.append(f"{name}: {box.tag} {box.attrib}")
            elif box.get("data-target") and box.get("data-target") not in ids:
                problems.append(f"{name}: box {box.get('id')} targets {box.get('data-target')!r}, not on the page")
            if not all(any(c in classes(e) for e in box.iter()) for c in ("lead-in", "box-heading", "box-text")):
                problems.append(f"{name}: box {box.get('id')} lacks .lead-in, .box-heading or .box-text")
    assert count >= 12  # in-pt's six boxes on its latest page and on the mli version page
    assert not problems, "\n".join(problems[:40])


def test_replaced_text_is_marked(pages):
    """Replaced or deleted text sits in a .replaced element with its .replaced-mark, inside its provision."""
    found = 0
    for name, tree in pages.items():
        parents = {child: parent for parent in tree.iter() for child in parent}
        for element in (e for e in tree.iter() if "replaced" in classes(e)):
            found += 1
            assert any("replaced-mark" in classes(e) and "".join(e.itertext()).strip() for e in element.iter()), name
            parent = parents.get(element)
            assert parent is not None and "provision" in classes(parent), name
    assert found >= 2  # in-pt Article 13(4), on its latest page and on the mli version page


def test_footnote_references_and_footnotes_link_both_ways(pages):
    """Each a.footnote-ref leads to a .footnote of its page, and each footnote is referenced and links back."""
    problems, count = [], 0
    for name, tree in pages.items():
        by_id = {e.get("id"): e for e in tree.iter() if e.get("id")}
        refs = [a for a in tree.iter("a") if "footnote-ref" in classes(a)]
        notes = [e for e in tree.iter() if "footnote" in classes(e)]
        referenced = set()
        for ref in refs:
            count += 1
            target = by_id.get((ref.get("href") or "").removeprefix("#"))
            if not (ref.get("href", "").startswith("#") and target is not None and "footnote" in classes(target)):
                problems.append(f"{name}: {ref.get('href')!r} leads to no footnote")
                continue
            referenced.add(target.get("id"))
        for note in notes:
            back = [a.get("href", "") for a in note.iter("a")]
            if note.get("id") not in referenced:
                problems.append(f"{name}: footnote {note.get('id')} is never referenced")
            if not any(h.startswith("#") and h[1:] in by_id and "footnote-ref" in classes(by_id[h[1:]]) for h in back):
                problems.append(f"{name}: footnote {note.get('id')} has no link back to its reference")
    assert count >= 10  # in-pt's footnotes and in-br's amendment markers
    assert not problems, "\n".join(problems[:40])


def test_diff_pages_mark_changes_with_ins_and_del(built_site, pages):
    """Diff pages show insertions as <ins> and deletions as <del>, never empty; in-pt's MLI diff has both."""
    diffs = {name: tree for name, tree in pages.items() if "/diff/" in name}
    assert diffs
    for name, tree in diffs.items():
        for element in [*tree.iter("ins"), *tree.iter("del")]:
            assert "".join(element.itertext()).strip(), f"{name}: empty <{element.tag}>"
    in_pt = diffs["treaties/in-pt/hi/diff/base--mli.html"]
    assert list(in_pt.iter("ins")) and list(in_pt.iter("del"))
    in_cl = diffs["treaties/in-cl/en/diff/base--protocol.html"]
    assert list(in_cl.iter("ins"))  # the protocol's notes are insertions

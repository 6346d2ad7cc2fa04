"""Export a treaty's tree as JSON (the export format) or as readable text."""

from __future__ import annotations

import json

from . import inline
from .model import Document, Node


def node_json(node: Node, version=None, lang: str | None = None) -> dict:
    marks = []
    for field in ("label", "heading", "text"):
        for token in inline.tokens(getattr(node, field) or ""):
            marks.append({"field": field, "kind": token.kind, "num": token.num, "printed": token.printed,
                          "offset": token.offset})
    data = {
        "eid": node.eid,
        "kind": node.kind,
        "num": node.num,
        "label": inline.clean(node.label) if node.label is not None else None,
        "heading": inline.clean(node.heading) if node.heading is not None else None,
        "text": inline.clean(node.text),
        "marks": marks,
        "notes": [],
        "children": [node_json(child, version, lang) for child in node.children],
    }
    if version is not None:
        _annotate(data, node, version, lang)
    return data


def _annotate(data: dict, node: Node, version, lang: str) -> None:
    """Add a version's annotations to one node's JSON."""
    from . import mli

    provenance = version.provenance.get(node.eid)
    data["provenance"] = provenance.to_json() if provenance else None
    data["boxes"] = [{
        "mli_article": box.mli_article, "mli_paragraph": box.mli_paragraph, "relation": box.relation,
        "target": box.target, "lead_in": mli.lead_in(box, lang), "heading": mli.header(box, lang),
        "text": box.text.get(lang, ""), "after_line": box.after_line, "provenance": box.by.to_json(),
    } for box in version.boxes.get(node.eid, ())]
    data["notes"] = [{"heading": note.heading.get(lang, ""), "text": note.text.get(lang, ""),
                      "source": note.source, "provenance": note.by.to_json()}
                     for note in version.notes.get(node.eid, ())]
    data["annotations"] = [{"marker": a.marker, "instrument": a.instrument, "provenance": a.by.to_json()}
                           for a in version.annotations.get(node.eid, ())]
    retained = version.retained.get(node.eid, ())
    if retained:
        last = retained[-1]
        old = last.old.get(lang)
        data["replaced_by"] = {**last.by.to_json(), "how": last.how}
        data["old_text"] = _flat_text(old) if old is not None else None
    data["deleted"] = node.eid in version.deleted


def _flat_text(node: Node) -> str:
    lines = []
    for part in node.walk():
        label = inline.clean(part.label or "") if part is not node else ""
        body = inline.clean(part.text)
        if label or body:
            lines.append(f"{label} {body}".strip())
    return "\n".join(lines)


def version_json(version, lang: str, treaty: str, dates: dict | None = None) -> dict:
    """The export format of one version: provisions with provenance, boxes and retained text."""
    document = version.document(lang)
    instrument = version.instrument
    return {
        "treaty": treaty, "lang": lang, "version": version.id,
        "instrument": None if instrument is None else {
            "id": instrument.id, "kind": instrument.kind, "title": instrument.title_in(lang),
            "signed": instrument.signed.isoformat() if instrument.signed else None},
        "dates": dates,
        "provisions": [node_json(node, version, lang) for node in document.nodes],
    }


def document_json(document: Document) -> dict:
    return {"treaty": document.treaty, "lang": document.lang,
            "provisions": [node_json(node) for node in document.nodes]}


def to_json(document: Document) -> str:
    return json.dumps(document_json(document), ensure_ascii=False, indent=1) + "\n"


def to_text(document: Document, version=None, dates=None) -> str:
    """Readable text, one block per provision, indented by depth, markers as printed.

    With a version, laid out like a published synthesised text: MLI boxes where they are
    placed, replaced text under its "[Replaced by …]" mark, notes after their provision."""
    from . import mli

    lang = document.lang
    blocks: list[str] = []

    def box_block(box, pad: str) -> str:
        # A box is marked by a bar at the start of each of its lines, as in a plain-text reader.
        lines = [mli.lead_in(box, lang), mli.header(box, lang), *box.text.get(lang, "").split("\n")]
        return "\n".join(f"{pad}| {line}" for line in lines)

    def visit(node: Node, depth: int) -> None:
        pad = "    " * depth
        lines = []
        label, heading = inline.printed(node.label or ""), inline.printed(node.heading or "")
        body = [line for line in inline.printed(node.text).split("\n") if line]
        retained = version.retained.get(node.eid, ()) if version else ()
        if retained and not body and not node.children:
            last = retained[-1]
            old = last.old.get(lang)
            box = next((b for bs in version.boxes.values() for b in bs
                        if b.by == last.by), None)
            marker = mli.replaced_marker(box, dict(last.marker), lang) if box else f"{last.how} by {last.by.instrument}"
            old_text = " ".join(inline.printed(p.text) for p in old.walk() if p.text) if old else ""
            body = [f"[{marker}][{old_text}]"]
        if version is not None and node.eid in version.deleted:
            body = [f"[deleted by {version.retained[node.eid][-1].by.instrument}] " + " ".join(body)]
        if heading or not body:
            head = " ".join(part for part in (label, heading) if part)
            if head:
                lines.append(pad + head)
        elif label:
            body[0] = f"{label} {body[0]}"
        inside = [b for b in (version.boxes.get(node.eid, ()) if version else ()) if b.after_line is not None]
        for index, line in enumerate(body, start=1):
            lines.append(pad + line)
            lines.extend(box_block(box, pad) for box in inside if box.after_line == index)
        if lines:
            blocks.append("\n".join(lines))
        for child in node.children:
            visit(child, depth + (0 if node.kind in ("chapter", "protocol") else 1))
        if version is not None:
            for note in version.notes.get(node.eid, ()):
                head = note.heading.get(lang, "")
                blocks.append("\n".join(pad + "  > " + line for line in
                                        ([head] if head else []) + note.text.get(lang, "").split("\n")))
            for box in version.boxes.get(node.eid, ()):
                if box.after_line is None:
                    blocks.append(box_block(box, pad))

    if dates is not None and dates.mli is not None:
        blocks.append("\n".join(mli.preface(dates, lang)))
    for node in document.nodes:
        visit(node, 0)
    return "\n\n".join(blocks) + "\n"

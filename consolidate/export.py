"""Export a treaty's tree as JSON (the export format) or as readable text."""

from __future__ import annotations

import json

from . import inline
from .model import Document, Node


def node_json(node: Node) -> dict:
    marks = []
    for field in ("label", "heading", "text"):
        for token in inline.tokens(getattr(node, field) or ""):
            marks.append({"field": field, "kind": token.kind, "num": token.num, "printed": token.printed,
                          "offset": token.offset})
    return {
        "eid": node.eid,
        "kind": node.kind,
        "num": node.num,
        "label": inline.clean(node.label) if node.label is not None else None,
        "heading": inline.clean(node.heading) if node.heading is not None else None,
        "text": inline.clean(node.text),
        "marks": marks,
        "notes": [],
        "children": [node_json(child) for child in node.children],
    }


def document_json(document: Document) -> dict:
    return {"treaty": document.treaty, "lang": document.lang,
            "provisions": [node_json(node) for node in document.nodes]}


def to_json(document: Document) -> str:
    return json.dumps(document_json(document), ensure_ascii=False, indent=1) + "\n"


def to_text(document: Document) -> str:
    """Readable text, one block per provision, indented by depth, markers as printed."""
    blocks: list[str] = []

    def visit(node: Node, depth: int) -> None:
        pad = "    " * depth
        lines = []
        label, heading = inline.printed(node.label or ""), inline.printed(node.heading or "")
        body = [line for line in inline.printed(node.text).split("\n") if line]
        if heading or not body:
            head = " ".join(part for part in (label, heading) if part)
            if head:
                lines.append(pad + head)
        elif label:
            body[0] = f"{label} {body[0]}"
        lines.extend(pad + line for line in body)
        if lines:
            blocks.append("\n".join(lines))
        for child in node.children:
            visit(child, depth + (0 if node.kind in ("chapter", "protocol") else 1))

    for node in document.nodes:
        visit(node, 0)
    return "\n\n".join(blocks) + "\n"

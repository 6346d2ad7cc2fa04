"""Amendment markers kept from a consolidated source: which provisions each one wraps."""

from __future__ import annotations

from dataclasses import dataclass

from . import inline
from .model import Document, Node


@dataclass(frozen=True)
class MarkerSpan:
    """One `¹[ … ]` marker: its number, what it printed, and the provisions it wraps."""

    num: str
    printed: str
    wrapped: tuple[str, ...]      # the largest provisions wholly inside the marker
    within: str | None            # when it wraps no whole provision: the one it sits in
    inferred_end: bool


def marker_spans(document: Document) -> list[MarkerSpan]:
    """Every amendment marker of a document with the provisions it wraps."""
    segments: list[tuple[Node, str]] = []
    for node in document.walk():
        for part in (node.label, node.heading, node.text):
            if part:
                segments.append((node, part))
    # Positions are (segment index, offset in clean text); a node covers its segments' range.
    events = []
    for index, (node, part) in enumerate(segments):
        for token in inline.tokens(part):
            if token.kind in ("amend", "end"):
                events.append((index, token.offset, token))
    spans = []
    opened = None
    for index, offset, token in events:
        if token.kind == "amend":
            opened = (index, offset, token)
        elif opened is not None:
            spans.append(_span(document, segments, opened, (index, offset, token)))
            opened = None
    return spans


def _span(document: Document, segments, opened, closed) -> MarkerSpan:
    start, end = (opened[0], opened[1]), (closed[0], closed[1])
    ranges = {}
    for index, (node, part) in enumerate(segments):
        length = len(inline.clean(part))
        for owner in _owners(document, node):
            first, last = ranges.get(owner.eid, ((index, 0), (index, length)))
            ranges[owner.eid] = (min(first, (index, 0)), max(last, (index, length)))
    inside = {eid for eid, (first, last) in ranges.items() if start <= first and last <= end}
    parents = _parents(document)
    wrapped = tuple(eid for eid in (n.eid for n in document.walk())
                    if eid in inside and parents.get(eid) not in inside)
    within = None
    if not wrapped:
        containing = [eid for eid, (first, last) in ranges.items() if first <= start and end <= last]
        within = containing[-1] if containing else None
    return MarkerSpan(opened[2].num or "", opened[2].printed, wrapped, within, closed[2].printed == "")


def _owners(document: Document, node: Node) -> list[Node]:
    path = []

    def find(nodes, trail):
        for candidate in nodes:
            if candidate is node:
                path.extend(trail + [candidate])
                return True
            if find(candidate.children, trail + [candidate]):
                return True
        return False
    find(document.nodes, [])
    return [n for n in path if n.kind != "chapter"]


def _parents(document: Document) -> dict[str, str]:
    out = {}
    for node in document.walk():
        for child in node.children:
            if node.kind != "chapter":
                out[child.eid] = node.eid
    return out

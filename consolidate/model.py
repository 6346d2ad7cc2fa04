"""The immutable tree of provisions that every later phase works on."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Iterator

# Kinds that stand at column 0 of a source file.
TOP_KINDS = (
    "notification", "annexure", "footnote", "title", "preamble", "chapter",
    "article", "protocol", "protocol_item", "final", "signature",
)
# Kinds that nest, indented, inside another provision.
NESTED_KINDS = ("paragraph", "subparagraph", "item", "wrapup")
KINDS = TOP_KINDS + NESTED_KINDS

# Column-0 kinds that a preceding grouping block collects as its children.
GROUPED_BY = {
    "chapter": ("article",),
    "protocol": ("protocol_item", "final", "signature"),
}


@dataclass(frozen=True)
class Node:
    """One provision: kind, normalised number, printed label, heading, text, children.

    `text` and `label` hold the source-file form, which may carry inline tokens
    (see `consolidate.inline`); `eid` is filled in by `consolidate.ids`.
    """

    kind: str
    num: str | None = None
    label: str | None = None
    heading: str | None = None
    text: str = ""
    children: tuple["Node", ...] = ()
    eid: str = ""
    line: int | None = None

    def walk(self) -> Iterator["Node"]:
        yield self
        for child in self.children:
            yield from child.walk()

    def with_children(self, children: tuple["Node", ...]) -> "Node":
        return replace(self, children=children)


@dataclass(frozen=True)
class Document:
    """A parsed source file: one treaty in one language."""

    treaty: str
    lang: str
    nodes: tuple[Node, ...]
    path: str | None = None

    def walk(self) -> Iterator[Node]:
        for node in self.nodes:
            yield from node.walk()

    def by_eid(self) -> dict[str, Node]:
        return {node.eid: node for node in self.walk()}

    def eids(self) -> list[str]:
        return [node.eid for node in self.walk()]

    def articles(self) -> list[Node]:
        return [n for n in self.walk() if n.kind == "article"]


@dataclass(frozen=True)
class TreatyMeta:
    """treaty.yaml, kept as loaded plus the fields every phase needs."""

    treaty: str
    parties: tuple[str, ...]
    languages: tuple[str, ...]
    prevails: str | None
    titles: dict = field(default_factory=dict, hash=False, compare=False)
    raw: dict = field(default_factory=dict, hash=False, compare=False)

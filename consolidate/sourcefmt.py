"""The treaty source format: text ↔ tree, exact round trip (docs/source-format.md)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .errors import Location, SourceFormatError
from .findings import Findings
from .ids import NUM_RE, assign_ids
from .model import GROUPED_BY, KINDS, NESTED_KINDS, TOP_KINDS, Document, Node

INDENT = "  "
MAX_DEPTH = 16  # far beyond any treaty; bounds recursion on hostile input
HEADER_RE = re.compile(r"^(?P<indent> *)@(?P<kind>[a-z_]+)(?: (?P<rest>.*))?$")


@dataclass
class _Draft:
    kind: str
    num: str | None
    label: str | None
    line: int
    depth: int
    heading: str | None = None
    text_lines: list[str] = field(default_factory=list)
    children: list["_Draft"] = field(default_factory=list)
    grouped: bool = False  # a column-0 child collected by a chapter or protocol

    def freeze(self) -> Node:
        return Node(self.kind, self.num, self.label, self.heading, "\n".join(self.text_lines),
                    tuple(c.freeze() for c in self.children), "", self.line)


def parse(text: str, path: str = "<source>", treaty: str = "", lang: str = "",
          findings: Findings | None = None) -> Document:
    """Parse source text into a Document with eIds assigned."""
    findings = findings if findings is not None else Findings()
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        raise SourceFormatError("NUL byte in source text", Location(path, line))
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    else:
        raise SourceFormatError("expected the file to end with a newline", Location(path, len(lines)))
    roots: list[_Draft] = []
    stack: list[_Draft] = []  # open drafts, innermost last
    current: _Draft | None = None
    blank_run = 0
    for number, raw in enumerate(lines, start=1):
        where = Location(path, number)
        if raw.strip(" ") == "":
            if raw:
                raise SourceFormatError("blank line holds spaces; expected an empty line", where)
            blank_run += 1
            continue
        header = HEADER_RE.match(raw)
        if header and header["kind"] == "heading":
            if blank_run:
                raise SourceFormatError("'@heading' must follow directly after the header of its block", where)
            _open_block(header, where, roots, stack)
            continue
        if header:
            if current is not None and blank_run != 1:
                findings.add("SOURCE.NONCANONICAL_SPACING",
                             "expected exactly one blank line before a block", where)
            elif current is None and blank_run:
                findings.add("SOURCE.NONCANONICAL_SPACING", "blank lines at the start of the file", where)
            blank_run = 0
            current = _open_block(header, where, roots, stack)
            continue
        if current is None:
            raise SourceFormatError("text before the first block; expected a line such as "
                                    "'@article 1 | Article 1'", where)
        if blank_run:
            raise SourceFormatError("text after a blank line must start a new block with '@kind'; "
                                    "write continuation text without a blank line", where)
        prefix = INDENT * current.depth
        if not raw.startswith(prefix):
            raise SourceFormatError(f"text is indented less than its block (expected {len(prefix)} "
                                    f"spaces, as '@{current.kind}' on line {current.line})", where)
        body = raw[len(prefix):]
        if body.startswith("@"):
            raise SourceFormatError("unknown or misplaced directive; a text line starting with '@' "
                                    "must be written '\\@'", where)
        if body.startswith("\\"):
            body = body[1:]
        current.text_lines.append(body)
    if blank_run:
        findings.add("SOURCE.NONCANONICAL_SPACING", "blank lines at the end of the file",
                     Location(path, len(lines)))
    document = Document(treaty, lang, tuple(d.freeze() for d in roots), path)
    return assign_ids(document, findings)


def _open_block(header: re.Match, where: Location, roots: list[_Draft], stack: list[_Draft]) -> _Draft:
    kind = header["kind"]
    indent = len(header["indent"])
    rest = header["rest"]
    if kind == "heading":
        if not stack or stack[-1].text_lines or stack[-1].heading is not None:
            raise SourceFormatError("'@heading' must follow directly after the header of its block", where)
        if indent != INDENT.__len__() * stack[-1].depth:
            raise SourceFormatError("'@heading' must be indented like its block", where)
        stack[-1].heading = rest or ""
        return stack[-1]
    if kind not in KINDS:
        raise SourceFormatError(f"unknown block kind '@{kind}'; expected one of: heading, "
                                + ", ".join(KINDS), where)
    if indent % len(INDENT):
        raise SourceFormatError(f"indentation of {indent} spaces; expected a multiple of {len(INDENT)}", where)
    depth = indent // len(INDENT)
    if depth > MAX_DEPTH:
        raise SourceFormatError(f"'@{kind}' is nested {depth} levels deep; at most {MAX_DEPTH} are allowed", where)
    num, label = _split_header(rest, where)
    draft = _Draft(kind, num, label, where.line or 0, depth)
    if depth == 0:
        if kind not in TOP_KINDS:
            raise SourceFormatError(f"'@{kind}' must be indented inside an article or other block", where)
        stack.clear()
        group = roots[-1] if roots and kind in GROUPED_BY.get(roots[-1].kind, ()) else None
        if group is not None:
            draft.grouped = True
            group.children.append(draft)
            stack.append(group)
        else:
            roots.append(draft)
        stack.append(draft)
        return draft
    if kind not in NESTED_KINDS:
        raise SourceFormatError(f"'@{kind}' must start at column 0", where)
    while stack and stack[-1].depth >= depth:
        stack.pop()
    parent = _parent_at(stack, depth - 1)
    if parent is None:
        raise SourceFormatError(f"'@{kind}' is indented {depth} level(s) but there is no block one "
                                "level up to hold it", where)
    if parent.kind == "wrapup":
        raise SourceFormatError("a '@wrapup' block cannot hold other blocks", where)
    parent.children.append(draft)
    stack.append(draft)
    return draft


def _parent_at(stack: list[_Draft], depth: int) -> _Draft | None:
    for draft in reversed(stack):
        if draft.depth == depth:
            return draft
        if draft.depth < depth:
            return None
    return None


def _split_header(rest: str | None, where: Location) -> tuple[str | None, str | None]:
    if not rest:
        return None, None
    if rest.startswith("| "):
        return None, rest[2:]
    num, sep, label = rest.partition(" | ")
    if not NUM_RE.match(num):
        raise SourceFormatError(f"number {num!r} is not usable in an eId; expected letters, digits, "
                                "'.' or '-' (put the printed form after ' | ')", where)
    return num, (label if sep else None)


def write(document: Document) -> str:
    """Serialise a Document to the canonical source text."""
    blocks: list[str] = []
    for node in document.nodes:
        _write_node(node, 0, blocks)
    return "\n\n".join(blocks) + "\n"


def _write_node(node: Node, depth: int, blocks: list[str]) -> None:
    prefix = INDENT * depth
    head = f"{prefix}@{node.kind}"
    if node.num is not None:
        head += f" {node.num}"
    if node.label is not None:
        head += f" | {node.label}"
    lines = [head]
    if node.heading is not None:
        lines.append(f"{prefix}@heading {node.heading}" if node.heading else f"{prefix}@heading")
    if node.text:
        for body in node.text.split("\n"):
            # Escape what would otherwise read back as a header, a blank line or lost indentation.
            if body.startswith(("@", "\\")) or not body.strip(" ") or body.lstrip(" ").startswith("@"):
                body = "\\" + body
            lines.append(prefix + body)
    blocks.append("\n".join(lines))
    grouped = GROUPED_BY.get(node.kind, ())
    for child in node.children:
        _write_node(child, depth if child.kind in grouped else depth + 1, blocks)


def read_document(path: Path, treaty: str, lang: str, findings: Findings | None = None,
                  shown: str | None = None) -> Document:
    """Read and parse one source file; located errors for unreadable input (named as `shown`)."""
    shown = shown or str(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise SourceFormatError("source file not found", Location(shown)) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise SourceFormatError(f"not valid UTF-8 (byte {exc.start}); expected UTF-8 text",
                                Location(shown, line)) from None
    return parse(text, shown, treaty, lang, findings)

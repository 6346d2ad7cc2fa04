"""Render a `consolidate.diff.VersionDiff` as text (plain or ANSI colours), JSON or a standalone HTML page."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import NamedTuple

from .diff import FLAT_KINDS, FORMATS, DiffInputError, Entry, Field, VersionDiff, node_fields
from .model import Node

# Plain text marks changes the way `git diff --word-diff=plain` does.
PLAIN = {"insert": ("{+", "+}"), "delete": ("[-", "-]")}
ANSI = {"insert": ("\x1b[32m", "\x1b[m"), "delete": ("\x1b[31m", "\x1b[m"), "header": ("\x1b[36m", "\x1b[m")}
BOX_PREFIX = {"mli_box": "│ ", "note": "> "}
INDENT = "    "


def render(diff: VersionDiff, fmt: str, *, color: bool = False, changes_only: bool = False) -> str:
    """The diff in `fmt` (text, json or html)."""
    if fmt == "text":
        return render_text(diff, color=color, changes_only=changes_only)
    if fmt == "json":
        return render_json(diff)
    if fmt == "html":
        return render_html(diff, changes_only=changes_only)
    raise DiffInputError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")


def render_json(diff: VersionDiff) -> str:
    """The JSON of `VersionDiff.to_json`, one change per line."""
    # json's C encoder only runs without `indent`; one line per change keeps it readable.
    data = diff.to_json()
    head = json.dumps({key: data[key] for key in ("treaty", "from", "to")}, ensure_ascii=False)[:-1]
    changes = ",\n  ".join(json.dumps(change, ensure_ascii=False) for change in data["changes"])
    body = f"[\n  {changes}\n ]" if changes else "[]"
    return f'{head},\n "summary": {json.dumps(data["summary"], ensure_ascii=False)},\n "changes": {body}\n}}\n'


# ------------------------------------------------------------------ text

def _mark(text: str, op: str, color: bool) -> str:
    if op == "equal":
        return text
    if not color:
        start, end = PLAIN[op]
        return f"{start}{text}{end}"
    start, end = ANSI[op]
    # Colour each line on its own so a pager or a grep of one line keeps it.
    return "\n".join(f"{start}{line}{end}" if line else line for line in text.split("\n"))


def _field_text(field: Field | None, color: bool) -> str:
    return "".join(_mark(text, op, color) for op, text in field.ops) if field else ""


def _describe(entry: Entry) -> str:
    parts = [entry.eid + (f" (was {entry.old_eid})" if entry.old_eid else ""), entry.change]
    if entry.also:
        parts[-1] += " and " + " and ".join(entry.also)
    if entry.cause:
        parts.append(f"{entry.cause.instrument}, operation {entry.cause.operation} ({entry.cause.op})")
    return "@@ " + " · ".join(parts) + " @@"


def _provision_lines(pad: str, label: str, heading: str, text: str) -> list[str]:
    body = [line for line in text.split("\n") if line]
    lines = []
    # Label and heading on a line of their own when there is a heading, as `consolidate export` prints.
    if heading or not body:
        head = " ".join(part for part in (label, heading) if part)
        if head:
            lines.append(head)
    elif label:
        body[0] = f"{label} {body[0]}"
    lines.extend(body)
    return [pad + line for line in lines]


def _entry_lines(entry: Entry, color: bool) -> list[str]:
    pad = INDENT * entry.depth
    if entry.kind in BOX_PREFIX:
        pad += BOX_PREFIX[entry.kind]
        lines: list[str] = []
        for field in entry.fields:
            lines.extend(line for line in _field_text(field, color).split("\n") if line)
        return [pad + line for line in lines]
    return _provision_lines(pad, _field_text(entry.field("label"), color), _field_text(entry.field("heading"), color),
                            _field_text(entry.field("text"), color))


def _unchanged_lines(node: Node, depth: int) -> list[str]:
    (_, label), (_, heading), (_, text) = node_fields(node)
    return _provision_lines(INDENT * depth, label, heading, text)


def _headline(diff: VersionDiff) -> list[str]:
    summary = diff.summary()
    where = f" for {diff.state or 'any state'}, {diff.tax or 'any'} tax" if diff.state or diff.tax else ""
    lines = [f"{diff.treaty} ({diff.lang}): {diff.from_label} → {diff.to_label}{where}"]
    if diff.from_label != diff.from_version or diff.to_label != diff.to_version:
        lines.append(f"versions: {diff.from_version} → {diff.to_version}")
    if summary.total:
        counts = ", ".join(f"{n} {kind}" for kind, n in summary.by_change)
        lines.append(f"{summary.total} change{'s' if summary.total != 1 else ''}: {counts}")
        lines.extend(f"  {ident}: {title}" for ident, title, _ in summary.by_instrument)
    else:
        lines.append("no changes")
    return lines


def render_text(diff: VersionDiff, *, color: bool = False, changes_only: bool = False) -> str:
    """Whole text with changes marked (or only the changed provisions), plain or coloured."""
    blocks = ["\n".join(_headline(diff))]

    def unchanged(node: Node, depth: int, subtree: bool) -> None:
        label, heading, text = node.label or "", node.heading or "", node.text
        if "{{" in label or "{{" in heading or "{{" in text:
            lines = _unchanged_lines(node, depth)     # inline tokens: the general path cleans them
            if lines:
                blocks.append("\n".join(lines))
        elif "\n" not in text and (text or heading or label):
            # One line of text, or a heading line alone: what most provisions are (same as the general path).
            pad = INDENT * depth
            if heading or not text:
                head = f"{label} {heading}" if label and heading else label or heading
                blocks.append(f"{pad}{head}\n{pad}{text}" if text else pad + head)
            else:
                blocks.append(f"{pad}{label} {text}" if label else pad + text)
        elif text or heading or label:
            blocks.append("\n".join(_provision_lines(INDENT * depth, label, heading, text)))
        if subtree and node.children:
            inner = depth if node.kind in FLAT_KINDS else depth + 1
            for child in node.children:
                unchanged(child, inner, True)

    for item in diff.changes if changes_only else diff.layout:
        if not isinstance(item, Entry):
            unchanged(*item)
            continue
        lines = _entry_lines(item, color)
        if item.change:
            header = _describe(item)
            if color:
                start, end = ANSI["header"]
                header = f"{start}{header}{end}"
            lines.insert(0, header)
        if lines:
            blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


# ------------------------------------------------------------------ html

def _environment():
    import jinja2

    return jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True,
                              lstrip_blocks=True, keep_trailing_newline=True)


@lru_cache(maxsize=1)
def _template():
    source = (resources.files("consolidate") / "templates" / "diff.html").read_text("utf-8")
    return _environment().from_string(source)


class _View(NamedTuple):
    """What the template needs of one entry; an unchanged provision carries its three strings."""

    id: str
    entry: Entry | None
    depth: int
    box: bool
    label: str = ""
    heading: str = ""
    text: str = ""
    fields: dict | None = None


def _unique(eid: str, seen: set[str]) -> str:
    # Ids must be unique in a page; a FROM-only provision may share its eId with a TO one.
    anchor, n = eid, 1
    while anchor in seen:
        n += 1
        anchor = f"{eid}~{n}"
    seen.add(anchor)
    return anchor


def _views(diff: VersionDiff, changes_only: bool) -> list[_View]:
    seen: set[str] = set()
    views = []
    for item in diff.changes if changes_only else diff.items():
        if isinstance(item, Entry):
            views.append(_View(_unique(item.eid, seen), item, item.depth, item.kind in BOX_PREFIX,
                               fields={f.name: f.ops for f in item.fields}))
        else:
            node, depth, _ = item
            (_, label), (_, heading), (_, text) = node_fields(node)
            views.append(_View(_unique(node.eid, seen), None, depth, False, label, heading, text))
    return views


def render_html(diff: VersionDiff, *, changes_only: bool = False) -> str:
    """A standalone page: summary, side-by-side view and redline view (switched by anchors, no script)."""
    views = _views(diff, changes_only)
    first_in_article: dict[str, str] = {}
    for view in views:
        if view.entry is not None and view.entry.change:
            first_in_article.setdefault(view.entry.article, view.id)
    return _template().render(diff=diff, summary=diff.summary(), views=views, changes_only=changes_only,
                              first_in_article=first_in_article)

"""Rendering: the jinja2 environment and view models of a version (no file writing here)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import jinja2
from markupsafe import Markup, escape

from . import inline, mli
from .editorial import reader_notes
from .engine import Box, Version
from .model import Node

LANGUAGE_NAMES = {"hi": "हिन्दी", "en": "English"}
LANGUAGE_NAMES_EN = {"hi": "Hindi", "en": "English"}
KIND_NAMES = {"title": "Title", "preamble": "Preamble", "final": "Final clauses", "notification": "Notification",
              "protocol": "Protocol", "chapter": "Chapter", "article": "Article"}


def templates_dir() -> Path:
    """The site templates: installed as consolidate/site_templates, or templates/ in a checkout."""
    installed = Path(__file__).resolve().parent / "site_templates"
    if (installed / "base.html").is_file():
        return installed
    return Path(__file__).resolve().parent.parent / "templates"


@lru_cache(maxsize=None)
def environment() -> jinja2.Environment:
    """Autoescaped, strict: a missing variable is an error, never an empty string."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(templates_dir())),
                             autoescape=jinja2.select_autoescape(["html", "xml"], default=True),
                             undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
                             trim_blocks=True, lstrip_blocks=True)
    # For JSON inside <script>: "<" escaped so no text can close the element.
    env.filters["tojson_sorted"] = lambda value: Markup(
        json.dumps(value, ensure_ascii=False, sort_keys=True).replace("<", "\\u003c"))
    return env


def render(template: str, **context) -> str:
    return environment().get_template(template).render(**context)


@dataclass
class Footnotes:
    """Footnotes of one page, numbered in order of first reference."""

    items: list[dict] = field(default_factory=list)

    def add(self, key: str, text: str, printed: str) -> str:
        for item in self.items:
            if item["key"] == key:
                return item["id"]
        ident = f"fn-{len(self.items) + 1}"
        self.items.append({"key": key, "id": ident, "text": text, "printed": printed})
        return ident


@dataclass
class ViewNode:
    """One provision as the templates need it."""

    eid: str
    kind: str
    label: Markup
    heading: Markup
    lines: list[Markup]
    children: list["ViewNode"]
    boxes_inside: dict[int, list[dict]]
    boxes_after: list[dict]
    notes: list[dict]
    replaced: dict | None
    deleted: dict | None
    editorial: list[str]
    provenance: dict | None
    depth: int


def inline_html(text: str, node_eid: str, footnotes: Footnotes, annotations: dict) -> Markup:
    """Source text with its tokens as markup: markers link to footnotes naming the instrument."""
    out = []
    pos = 0
    for match in inline.TOKEN_RE.finditer(text):
        out.append(escape(text[pos:match.start()]))
        kind, num, printed = match.group(1), match.group(2), match.group(3) or ""
        if kind == "lb":
            out.append(escape("{{"))
        elif kind == "fn":
            ident = footnotes.add(f"fn:{node_eid}:{num}", "The text of this footnote is not in the source.", printed)
            out.append(Markup('<a class="footnote-ref" href="#{0}" id="ref-{0}">{1}</a>').format(ident, printed))
        elif kind == "amend":
            instrument = annotations.get(num) or "instrument not named in the source"
            ident = footnotes.add(f"amend:{node_eid}:{num}:{match.start()}",
                                  f"Amended text (marker {num}): {instrument}.", printed)
            out.append(Markup('<a class="footnote-ref marker" href="#{0}" id="ref-{0}">{1}</a>').format(ident, printed))
        elif kind == "end":
            if printed:
                out.append(Markup('<span class="marker-end">{0}</span>').format(printed))
            else:
                out.append(Markup('<span class="marker-end inferred" title="end of the amendment not '
                                  'marked in the source; inferred">⸣</span>'))
        pos = match.end()
    out.append(escape(text[pos:]))
    return Markup("").join(out)


def box_view(box: Box, lang: str) -> dict:
    return {"mli_article": box.mli_article, "mli_paragraph": box.mli_paragraph, "relation": box.relation,
            "target": box.target or "", "lead_in": mli.lead_in(box, lang), "heading": mli.header(box, lang),
            "lines": box.text.get(lang, "").split("\n"), "instrument": box.by.instrument,
            "id": f"mli-{box.anchor}-{box.mli_article}-{box.mli_paragraph}"}


def view_tree(version: Version, lang: str, footnotes: Footnotes, base: Version) -> list[ViewNode]:
    """The version's tree in one language as view nodes, with boxes, notes and editorial notes.

    Editorial notes describe the published source, so they come from the base version."""
    editorial = reader_notes(base.document(lang))
    annotations: dict[str, dict[str, str]] = {}
    for eid, records in version.annotations.items():
        for record in records:
            name = "instrument not named in the source" if record.instrument == "unknown" else record.instrument
            annotations.setdefault(eid, {})[record.marker or ""] = name

    def marker_names(eid: str) -> dict:
        # A marker's instrument is recorded on the provisions it wraps; use the nearest record.
        parts = eid.split("__")
        for cut in range(len(parts), 0, -1):
            found = annotations.get("__".join(parts[:cut]))
            if found:
                return found
        for key, value in annotations.items():
            if key.startswith(eid + "__"):
                return value
        return {}

    def build(node: Node, depth: int) -> ViewNode:
        names = marker_names(node.eid)
        lines = [inline_html(line, node.eid, footnotes, names) for line in node.text.split("\n") if line]
        replaced = None
        deleted = None
        retained = version.retained.get(node.eid, ())
        if retained:
            last = retained[-1]
            old = last.old.get(lang)
            box = next((b for boxes in version.boxes.values() for b in boxes if b.by == last.by), None)
            if box is not None:
                mark = mli.replaced_marker(box, dict(last.marker), lang)
            else:
                mark = f"Replaced by {last.by.instrument} (operation {last.by.operation})"
            old_lines = [inline_html(p.text, node.eid, footnotes, names) for p in old.walk() if p.text] if old else []
            if node.eid in version.deleted:
                deleted = {"mark": f"Deleted by {last.by.instrument} (operation {last.by.operation})",
                           "lines": old_lines, "lang": "en", "css": "replaced deleted"}
            elif not lines or box is not None:
                # An MLI mark is in the page's language (data/mli.yaml); others are in English.
                replaced = {"mark": mark, "lines": old_lines, "instrument": last.by.instrument,
                            "lang": lang if box is not None else "en", "css": "replaced"}
        inside: dict[int, list[dict]] = {}
        after = []
        for box in version.boxes.get(node.eid, ()):
            if box.after_line is not None:
                inside.setdefault(box.after_line, []).append(box_view(box, lang))
            else:
                after.append(box_view(box, lang))
        notes = [{"heading": n.heading.get(lang, ""), "lines": n.text.get(lang, "").split("\n"),
                  "source": n.source, "instrument": n.by.instrument} for n in version.notes.get(node.eid, ())]
        provenance = version.provenance.get(node.eid)
        return ViewNode(
            node.eid, node.kind, inline_html(node.label or "", node.eid, footnotes, names),
            inline_html(node.heading or "", node.eid, footnotes, names), lines,
            [build(child, depth + 1) for child in node.children], inside, after, notes, replaced, deleted,
            editorial.get(node.eid, []), provenance.to_json() if provenance else None, depth)

    return [build(node, 0) for node in version.document(lang).nodes]


def toc(document) -> list[dict]:
    """Chapters, articles, protocol and final clauses for the table of contents."""
    entries = []
    for node in document.walk():
        if node.kind in ("chapter", "article", "protocol", "preamble", "final", "title", "notification"):
            entries.append({"eid": node.eid, "kind": node.kind,
                            "label": inline.clean(node.label or "") or KIND_NAMES.get(node.kind, node.kind),
                            "heading": inline.clean(node.heading or "")})
    return entries

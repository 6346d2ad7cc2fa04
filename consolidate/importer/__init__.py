"""Import: raw published treaty text → the source format, losing and inventing nothing.

Phases: read → blocks (lines, or segments of a run-on gazette line) → MLI boxes out →
markers to tokens → structure → ids → write (all files at once, or none).
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .. import inline
from ..errors import ImportFailure, Location
from ..findings import Findings
from ..ids import assign_ids
from ..model import Document, Node
from ..sourcefmt import write
from . import boxes as box_module
from . import gazette
from .keywords import keywords, languages
from .markers import tokenise
from .rawtext import Block, line_blocks, read_raw
from .structure import core_text, recognise

TREATY_ID_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MACHINE_MARK = "# --- written by `consolidate import` below this line; edit above it only ---"


@dataclass
class ImportResult:
    """Everything an import would write, computed before anything is written."""

    treaty: str
    lang: str
    document: Document
    files: dict[str, str] = field(default_factory=dict)  # path relative to root → content
    findings: Findings = field(default_factory=Findings)
    boxes: list = field(default_factory=list)
    replaced: list = field(default_factory=list)
    removed: list[str] = field(default_factory=list)     # page furniture, as removed
    kept: str | None = None                                 # run-on text of this language, furniture out


def check_treaty_id(treaty: str) -> None:
    if not TREATY_ID_RE.match(treaty or ""):
        raise ImportFailure(f"invalid treaty id {treaty!r}; expected lower-case letters, digits and "
                            "single hyphens (e.g. 'in-pt')")


def check_lang(lang: str) -> None:
    if lang not in languages():
        raise ImportFailure(f"unknown language {lang!r}; expected one of: {', '.join(languages())}")


def import_raw(raw_path: Path, treaty: str, lang: str, root: Path) -> ImportResult:
    """Import one language of a raw document; returns the files to write."""
    check_treaty_id(treaty)
    check_lang(lang)
    text = read_raw(raw_path)
    shown = raw_path.name
    findings = Findings()
    removed: list[str] = []
    quality = None
    raw_language_text = None
    kept_text = None
    if gazette.is_run_on(text):
        run_on = gazette.blocks_for(text, lang, shown, findings, _heldout_vocabulary(root) if lang == "hi" else None)
        blocks, removed, raw_language_text = run_on.blocks, run_on.removed, run_on.raw_text
        quality, kept_text = run_on.quality, run_on.kept
    else:
        blocks = line_blocks(text, shown, findings)
    kept, boxes, replaced = box_module.extract(blocks, lang, shown, findings)
    kw = keywords(lang)

    def is_heading(block: Block) -> bool:
        core = core_text(block)
        return bool(kw.article.match(core) or kw.chapter.match(core) or kw.protocol.match(core))

    kept = tokenise(kept, is_heading, shown, findings)
    forced = _forced_paragraphs(replaced, boxes)
    nodes, preface = recognise(kept, lang, shown, findings, synthesised=bool(boxes),
                               forced_paragraphs=forced)
    document = assign_ids(Document(treaty, lang, tuple(nodes), f"sources/{treaty}/{lang}.txt"), findings)
    _check_document(document, shown, findings)
    result = ImportResult(treaty, lang, document, findings=findings, boxes=boxes, replaced=replaced,
                          removed=removed, kept=kept_text)
    folder = f"sources/{treaty}"
    result.files[f"{folder}/{lang}.txt"] = write(document)
    if raw_language_text is not None:
        result.files[f"{folder}/{lang}.raw.txt"] = raw_language_text
    if boxes:
        result.files[f"overlays/{treaty}/mli.yaml"] = _mli_draft(document, boxes, replaced, preface, shown, lang,
                                                                 kept)
    result.files[f"{folder}/treaty.yaml"] = _treaty_yaml(root / folder / "treaty.yaml", treaty, lang, text,
                                                         shown, findings, quality, removed)
    return result


def write_files(result: ImportResult, root: Path) -> list[Path]:
    """Write all files of an import, each atomically; nothing is written if any path is unsafe."""
    targets = []
    for relative, content in sorted(result.files.items()):
        target = (root / relative).resolve()
        if root.resolve() not in target.parents:
            raise ImportFailure(f"refusing to write outside the project: {relative}")
        targets.append((target, content))
    written = []
    for target, content in targets:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(dir=target.parent, prefix=".import-", suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(content)
        os.replace(temp, target)
        written.append(target)
    return written


def _heldout_vocabulary(root: Path) -> frozenset[str] | None:
    """Words of the clean Hindi texts in `root` that the repair's word list was not built from."""
    from importlib import resources

    from .devanagari import vocabulary_from_texts

    listed = set(resources.files("consolidate").joinpath("data/hindi_words.sources.txt")
                 .read_text("utf-8").split())
    texts, used = [], []
    for meta_path in sorted((root / "sources").glob("*/treaty.yaml")):
        meta = yaml.safe_load(meta_path.read_text("utf-8").partition(MACHINE_MARK)[2] or "{}") or {}
        entry = (meta.get("imports") or {}).get("hi") or {}
        document = (entry.get("source") or {}).get("document")
        hindi = meta_path.parent / "hi.txt"
        if not document or document in listed or entry.get("machine_repaired") or not hindi.is_file():
            continue
        texts.append(hindi.read_text("utf-8"))
        used.append(meta_path.parent.name)
    return vocabulary_from_texts(*texts) if texts else None


def _check_document(document: Document, source: str, findings: Findings) -> None:
    """Findings that need the whole tree: footnotes without bodies, empty provisions, truncation."""
    footnotes = {n.num for n in document.walk() if n.kind == "footnote"}
    for node in document.walk():
        for part in (node.label or "", node.heading or "", node.text):
            for token in inline.tokens(part):
                if token.kind == "fn" and token.num not in footnotes:
                    findings.add("IMPORT.FOOTNOTE_BODY_MISSING",
                                 f"footnote reference {token.printed!r} has no footnote body in the source",
                                 Location(source, node.line), target=node.eid)
        if node.kind in ("paragraph", "subparagraph", "item") and not inline.clean(node.text).strip() \
                and not node.children:
            findings.add("IMPORT.EMPTY_PROVISION", f"{node.kind} {inline.printed(node.label or '')!r} has no text in the source",
                         Location(source, node.line), target=node.eid)
    kinds = {n.kind for n in document.walk()}
    if "article" in kinds and "final" not in kinds:
        last = document.articles()[-1]
        findings.add("IMPORT.TRUNCATED", f"the source ends inside article {last.num}: no final clauses follow",
                     Location(source, last.line), target=last.eid)


def _forced_paragraphs(replaced, boxes) -> dict[int, str]:
    """Old text printed under a "replaced by" mark becomes the paragraph its box replaces."""
    forced = {}
    for item in replaced:
        box = next((b for b in boxes if b.relation == "replaces" and b.mli_article == item.mli_article
                    and b.mli_paragraph == item.mli_paragraph and b.line > item.line), None)
        if box and box.target and "__para_" in box.target:
            forced[item.line] = box.target.rsplit("__para_", 1)[1]
    return forced


def _place(document: Document, line: int, blocks: list[Block]) -> tuple[str | None, dict]:
    """Where a box was printed: after which provision's whole subtree, or inside one after a line."""
    order = [n for n in document.walk() if n.line is not None]
    before = [n for n in order if n.line < line]
    if not before:
        return None, {}
    node = before[-1]
    later = [n.line for n in order if n.line > line]
    if node.kind in ("preamble", "title", "notification", "final") and node.text and later:
        # Printed between the text lines of one block (the MLI preamble box).
        lines_before = sum(1 for b in blocks if node.line <= b.line < line)
        if lines_before < len(node.text.split("\n")):
            return node.eid, {"within": node.eid, "after_line": lines_before}
    parents = _parents(document)
    while node.eid in parents:
        parent = parents[node.eid]
        last = list(parent.walk())[-1]
        if last.line is not None and last.line > line:
            break
        node = parent
    return node.eid, {"after": node.eid}


def _parents(document: Document) -> dict[str, Node]:
    out = {}
    for node in document.walk():
        for child in node.children:
            if node.kind not in ("chapter",):
                out[child.eid] = node
    return out


class _Literal(str):
    """A string dumped in YAML block style."""


def _literal(dumper, value):
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)


yaml.SafeDumper.add_representer(_Literal, _literal)


def _mli_draft(document: Document, boxes, replaced, preface: list[Block], source: str, lang: str,
               blocks: list[Block]) -> str:
    from .boxes import mli_wording

    operations = []
    raw_lines = {}
    for box in boxes:
        anchor, place = _place(document, box.line, blocks)
        operation = {"op": "mli", "mli_article": box.mli_article, "mli_paragraph": box.mli_paragraph,
                     "relation": box.relation, "target": box.target}
        default_anchor = box.target
        inside_target = anchor and box.target and (anchor == box.target or anchor.startswith(box.target + "__"))
        if place and not (inside_target and "after" in place) or not default_anchor:
            operation["place"] = place
        operation["source_line"] = box.line
        operation["lead_in"] = {lang: box.lead_in}
        operation["heading"] = {lang: box.heading}
        operation["text"] = {lang: box.text}
        mark = next((r for r in replaced if r.mli_article == box.mli_article
                     and r.mli_paragraph == box.mli_paragraph and box.relation == "replaces"), None)
        if mark:
            operation["replaced_marker"] = {lang: mark.marker}
            raw_lines[mark.line] = mark.raw
        raw_lines[box.line] = box.raw
        operations.append(operation)
    title = mli_wording().get("title", {})
    data = {
        "id": "mli",
        "kind": "mli",
        "title": {k: v for k, v in title.items()},
        "signed": None,
        "effect": {"from_positions": True},
        "source": {"document": source,
                   "preface": {lang: _Literal("\n".join(b.text for b in preface))},
                   "preface_lines": [b.line for b in preface],
                   "raw_lines": {k: raw_lines[k] for k in sorted(raw_lines)}},
        "operations": operations,
    }
    header = (f"# Draft written by `consolidate import` from {source}: the MLI boxes of a synthesised text\n"
              "# as an overlay. Files without an NN- prefix are never applied; the reviewed copy is\n"
              "# 01-mli.yaml (docs/corpus.md).\n")
    return header + yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=100)


def _treaty_yaml(path: Path, treaty: str, lang: str, raw_text: str, source: str, findings: Findings,
                 quality, removed) -> str:
    head, machine = _skeleton(treaty, lang), {}
    if path.exists() and not path.resolve().is_relative_to(path.parents[2].resolve()):
        raise ImportFailure("refusing to read a treaty.yaml outside the project (a symbolic link points out of it)",
                            Location(f"sources/{treaty}/treaty.yaml"))
    if path.exists():
        existing = path.read_text("utf-8")
        head, _, tail = existing.partition(MACHINE_MARK)
        head = head.rstrip("\n") + "\n"
        machine = yaml.safe_load(tail) or {} if tail else {}
    imports = dict(machine.get("imports") or {})
    counts: dict[str, int] = {}
    for finding in findings:
        counts[finding.code] = counts.get(finding.code, 0) + 1
    entry = {
        "file": f"{lang}.txt",
        "source": {"document": source, "sha256": hashlib.sha256(raw_text.encode("utf-8")).hexdigest()},
        "findings": dict(sorted(counts.items())),
    }
    if removed:
        entry["furniture_removed"] = len(removed)
    if quality is not None:
        entry["raw_file"] = f"{lang}.raw.txt"
        entry["machine_repaired"] = quality
    imports[lang] = entry
    body = yaml.safe_dump({"imports": dict(sorted(imports.items()))}, allow_unicode=True, sort_keys=False,
                          width=100)
    return f"{head}\n{MACHINE_MARK}\n{body}"


def _skeleton(treaty: str, lang: str) -> str:
    return (f"id: {treaty}\n"
            "# Fill in from the text: ISO 3166 codes of both states, titles per language,\n"
            "# dates (signed, entry_into_force, effect per party), which language prevails.\n"
            "parties: []\n"
            "titles: {}\n"
            "dates: {}\n"
            f"languages: [{lang}]\n"
            "prevails: null\n")


__all__ = ["import_raw", "write_files", "ImportResult", "check_treaty_id", "check_lang", "MACHINE_MARK"]

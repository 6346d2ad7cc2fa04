"""Change diffs between two versions of a treaty: provisions aligned by eId, texts diffed by words.

This is the model only; `consolidate.diffrender` turns it into text, JSON or HTML.
The JSON format and the eId suffixes of boxes and notes are documented in docs/diff.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Iterable, Mapping

from . import inline, textdiff
from .engine import Provenance, Version, build_versions, find_version
from .errors import OverlayError, UsageError
from .model import Node
from .overlay import Instrument, Problem, load_instrument, load_instruments
from .timeline import TAXES

__all__ = [
    "CHANGE_KINDS", "FORMATS", "PREVIEW", "DiffInputError", "Entry", "Field", "Resolved", "Summary",
    "TreatyVersions", "VersionDiff", "box_eid", "diff_versions", "load_versions", "note_eid",
    "resolve", "run_diff",
]

CHANGE_KINDS = ("inserted", "deleted", "modified", "moved", "renumbered")
FORMATS = ("text", "html", "json")
PREVIEW = "preview"
DATE_SPEC = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# Kinds whose children are printed at their own depth (as in `consolidate.export.to_text`).
FLAT_KINDS = ("chapter", "protocol")

Ops = tuple[tuple[str, str], ...]


class DiffInputError(UsageError):
    """A diff was asked of a version, date, language or option that does not exist."""


def box_eid(anchor: str, mli_article: int, mli_paragraph: int) -> str:
    """The eId of an MLI box: its anchor's eId plus `#mli_<article>_<paragraph>`."""
    return f"{anchor}#mli_{mli_article}_{mli_paragraph}"


def note_eid(target: str, by: Provenance) -> str:
    """The eId of a protocol note: its target's eId plus `#note_<instrument>_<operation>`."""
    return f"{target}#note_{by.instrument}_{by.operation}"


# ------------------------------------------------------------------ the model

@dataclass(frozen=True)
class Field:
    """One diffed part of a provision (label, heading, text; lead_in for a box) as word ops."""

    name: str
    ops: Ops

    @property
    def old(self) -> str:
        return textdiff.source_text(self.ops)

    @property
    def new(self) -> str:
        return textdiff.target_text(self.ops)

    @property
    def changed(self) -> bool:
        return any(op != textdiff.EQUAL for op, _ in self.ops)


@dataclass(frozen=True)
class Entry:
    """One provision, MLI box or note in reading order; `change` is None when it is unchanged."""

    eid: str
    kind: str                               # a provision kind, or "mli_box" / "note"
    depth: int
    fields: tuple[Field, ...]
    change: str | None = None
    also: tuple[str, ...] = ()              # further kinds, e.g. ("modified",) for a renumbered one
    old_eid: str | None = None              # the FROM eId when it differs
    cause: Provenance | None = None
    mli: tuple[int, int, str] | None = None  # (article, paragraph, relation) for a box

    @property
    def article(self) -> str:
        """The grouping key of the summary: the eId's first component (art_13, preamble, protocol …)."""
        return self.eid.split("#", 1)[0].split("__", 1)[0]

    def field(self, name: str) -> Field | None:
        for one in self.fields:
            if one.name == name:
                return one
        return None

    def to_json(self) -> dict:
        text = self.field("text")
        data: dict = {"eid": self.eid, "change": self.change, "kind": self.kind,
                      "instrument": self.cause.instrument if self.cause else None}
        if self.cause:
            data.update(operation=self.cause.operation, op=self.cause.op, location=self.cause.location)
        if self.old_eid:
            data["old_eid"] = self.old_eid
        if self.also:
            data["also"] = list(self.also)
        if self.mli:
            data["mli"] = {"article": self.mli[0], "paragraph": self.mli[1], "relation": self.mli[2]}
        for one in self.fields:
            if one.name != "text" and one.changed:
                data[f"{one.name}_ops"] = [list(op) for op in one.ops]
        data["ops"] = [list(op) for op in (text.ops if text else ())]
        return data


@dataclass(frozen=True)
class Summary:
    """Counts of changes: in all, per kind of change, per article, per instrument."""

    total: int
    by_change: tuple[tuple[str, int], ...]
    by_article: tuple[tuple[str, tuple[tuple[str, int], ...]], ...]
    by_instrument: tuple[tuple[str, str, int], ...]   # (id, title, changes)

    def to_json(self) -> dict:
        return {"total": self.total, "by_change": dict(self.by_change),
                "by_article": {article: dict(counts) for article, counts in self.by_article},
                "instruments": {ident: {"title": title, "changes": count}
                                for ident, title, count in self.by_instrument}}


@dataclass(frozen=True)
class VersionDiff:
    """The aligned entries of two versions of one treaty in one language."""

    treaty: str
    lang: str
    from_label: str
    to_label: str
    from_version: str
    to_version: str
    entries: tuple[Entry, ...]
    titles: tuple[tuple[str, str], ...] = ()        # instrument id → title in `lang`
    state: str | None = None
    tax: str | None = None

    @property
    def changes(self) -> tuple[Entry, ...]:
        return tuple(entry for entry in self.entries if entry.change)

    def title(self, instrument: str) -> str:
        return dict(self.titles).get(instrument, instrument)

    def summary(self) -> Summary:
        changes = self.changes
        by_change = {kind: 0 for kind in CHANGE_KINDS}
        by_article: dict[str, dict[str, int]] = {}
        by_instrument: dict[str, int] = {}
        for entry in changes:
            by_change[entry.change] += 1
            counts = by_article.setdefault(entry.article, {})
            counts[entry.change] = counts.get(entry.change, 0) + 1
            if entry.cause:
                by_instrument[entry.cause.instrument] = by_instrument.get(entry.cause.instrument, 0) + 1
        return Summary(len(changes), tuple((k, n) for k, n in by_change.items() if n),
                       tuple((article, tuple(sorted(counts.items(), key=lambda kv: CHANGE_KINDS.index(kv[0]))))
                             for article, counts in by_article.items()),
                       tuple((ident, self.title(ident), n) for ident, n in by_instrument.items()))

    def to_json(self) -> dict:
        summary = {"lang": self.lang, "from_version": self.from_version, "to_version": self.to_version}
        if self.state:
            summary["state"] = self.state
        if self.tax:
            summary["tax"] = self.tax
        summary.update(self.summary().to_json())
        return {"treaty": self.treaty, "from": self.from_label, "to": self.to_label, "summary": summary,
                "changes": [entry.to_json() for entry in self.changes]}


# ------------------------------------------------------------------ one side of the diff

_CLEAN: dict[str, str] = {}


def _clean(text: str | None) -> str:
    if not text:
        return ""
    if "{{" not in text:
        return text
    # Versions share most strings, so the token scan runs once per distinct string.
    found = _CLEAN.get(text)
    if found is None:
        if len(_CLEAN) > 50_000:
            _CLEAN.clear()
        found = _CLEAN[text] = inline.clean(text)
    return found


class _Side:
    """One version in one language, indexed by eId: parents, sibling positions, depth, liveness."""

    def __init__(self, version: Version, lang: str):
        if lang not in version.documents:
            raise DiffInputError(f"version {version.id!r} has no {lang!r} text; it has: "
                                 + ", ".join(version.documents))
        self.version = version
        self.nodes: dict[str, Node] = {}
        self.parent: dict[str, str | None] = {}
        self.position: dict[str, int] = {}
        self.depth: dict[str, int] = {}
        self.order: list[str] = []
        self.dead: set[str] = set()
        aliases = version.aliases
        # A deleted eId renamed later (its parent renumbered) is found under its new name.
        deleted = {aliases.get(eid, eid) for eid in version.deleted}
        self._walk(version.documents[lang].nodes, None, 0, False, deleted)
        self.provenance = self._resolve(version.provenance)
        self.retained = self._resolve(version.retained)
        self.boxes = self._resolve(version.boxes)
        self.notes = self._resolve(version.notes)

    def _walk(self, nodes: tuple[Node, ...], parent: str | None, depth: int, dead: bool, deleted: set[str]) -> None:
        for index, node in enumerate(nodes):
            eid = node.eid
            self.nodes[eid] = node
            self.parent[eid] = parent
            self.position[eid] = index
            self.depth[eid] = depth
            self.order.append(eid)
            gone = dead or eid in deleted
            if gone:
                self.dead.add(eid)
            if node.children:
                self._walk(node.children, eid, depth + (0 if node.kind in FLAT_KINDS else 1), gone, deleted)

    def _resolve(self, store: Mapping) -> dict:
        # Stores are keyed by the eId an operation named, which may be an alias of the current one.
        aliases, out = self.version.aliases, {}
        for key, value in store.items():
            out[key if key in self.nodes else aliases.get(key, key)] = value
        return out

    def alive(self, eid: str) -> bool:
        return eid in self.nodes and eid not in self.dead


def _renames(this: Mapping[str, str], other: Mapping[str, str]) -> dict[str, str]:
    """Aliases of one version that the other lacks: the renumberings between them."""
    return {old: new for old, new in this.items() if other.get(old) != new}


def _align(old: _Side, new: _Side) -> dict[str, str]:
    """FROM eId → TO eId; a renumbered provision is matched through the aliases, not by name."""
    forward = _renames(new.version.aliases, old.version.aliases)
    backward = _renames(old.version.aliases, new.version.aliases)
    undo: dict[str, list[str]] = {}
    for before, after in backward.items():
        undo.setdefault(after, []).append(before)
    mapping: dict[str, str] = {}
    claimed: set[str] = set()
    for eid in old.order:
        target = forward.get(eid)
        if target is None:
            target = next((before for before in undo.get(eid, ()) if before in new.nodes), None)
        if target is not None and target in new.nodes and target not in claimed:
            mapping[eid] = target
            claimed.add(target)
    for eid in old.order:
        # A name renumbered away on either side belongs to a different provision there.
        if eid in mapping or eid in forward or eid in backward or eid not in new.nodes or eid in claimed:
            continue
        mapping[eid] = eid
        claimed.add(eid)
    return mapping


def _increasing(sequence: list[int]) -> set[int]:
    """Indices of one longest strictly increasing subsequence (patience sorting)."""
    tails: list[int] = []
    links: list[int] = [-1] * len(sequence)
    import bisect
    values: list[int] = []
    for index, value in enumerate(sequence):
        at = bisect.bisect_left(values, value)
        if at == len(values):
            values.append(value)
            tails.append(index)
        else:
            values[at] = value
            tails[at] = index
        links[index] = tails[at - 1] if at else -1
    keep, index = set(), tails[-1] if tails else -1
    while index != -1:
        keep.add(index)
        index = links[index]
    return keep


# ------------------------------------------------------------------ diffing

def _ops(old: str, new: str, backend: str) -> Ops:
    if old == new:
        return ((textdiff.EQUAL, new),) if new else ()
    if not old:
        return ((textdiff.INSERT, new),)
    if not new:
        return ((textdiff.DELETE, old),)
    return tuple(textdiff.diff_words(old, new, backend))


def _one_sided(values: Iterable[tuple[str, str]], op: str) -> tuple[Field, ...]:
    return tuple(Field(name, ((op, value),) if value else ()) for name, value in values)


def _node_values(node: Node) -> tuple[tuple[str, str], ...]:
    return (("label", _clean(node.label)), ("heading", _clean(node.heading)), ("text", _clean(node.text)))


def _node_fields(before: Node, after: Node, backend: str) -> tuple[Field, ...]:
    fields = []
    for name in ("label", "heading", "text"):
        raw_old, raw_new = getattr(before, name) or "", getattr(after, name) or ""
        # Equal source strings need neither cleaning twice nor a diff.
        if raw_old == raw_new:
            value = _clean(raw_new)
            fields.append(Field(name, ((textdiff.EQUAL, value),) if value else ()))
        else:
            fields.append(Field(name, _ops(_clean(raw_old), _clean(raw_new), backend)))
    return tuple(fields)


class _Differ:
    """Works out the entries of one diff; see `diff_versions`."""

    def __init__(self, old: _Side, new: _Side, lang: str, backend: str):
        self.old, self.new, self.lang, self.backend = old, new, lang, backend
        self.mapping = _align(old, new)
        self.inverse = {after: before for before, after in self.mapping.items()}

    def cause(self, old_eid: str | None, new_eid: str | None) -> Provenance | None:
        """The operation in range that changed this provision or, failing that, its nearest ancestor."""
        old, new = self.old, self.new
        while old_eid or new_eid:
            after = new.provenance.get(new_eid) if new_eid else None
            before = old.provenance.get(old_eid) if old_eid else None
            if after is not None and after != before:
                return after
            if before is not None and before != after:
                return before            # a diff back in time undoes this operation
            if new_eid:
                new_eid = new.parent.get(new_eid)
                old_eid = self.inverse.get(new_eid) if new_eid else None
            else:
                old_eid = old.parent.get(old_eid)
                new_eid = self.mapping.get(old_eid) if old_eid else None
        return None

    def box_replaced(self, old_eid: str, new_eid: str) -> Provenance | None:
        """An MLI box that replaces this provision, on one side only."""
        def replacing(side: _Side, eid: str) -> set[Provenance]:
            return {r.by for r in side.retained.get(eid, ()) if r.how == "replaced" and r.by.op == "mli"}
        differ = replacing(self.new, new_eid) ^ replacing(self.old, old_eid)
        return min(differ, key=lambda by: (by.instrument, by.operation)) if differ else None

    def moved(self) -> set[str]:
        """TO eIds of provisions (alive on both sides) under another parent or out of sibling order."""
        old, new, mapping = self.old, self.new, self.mapping
        moved: set[str] = set()
        groups: dict[str | None, list[tuple[int, str]]] = {}
        for before, after in mapping.items():
            if not (old.alive(before) and new.alive(after)):
                continue
            parent = old.parent[before]
            if (mapping.get(parent) if parent else None) != new.parent[after]:
                moved.add(after)
                continue
            groups.setdefault(new.parent[after], []).append((new.position[after], after))
        for members in groups.values():
            members.sort()
            sequence = [old.position[self.inverse[after]] for _, after in members]
            if all(a < b for a, b in zip(sequence, sequence[1:])):
                continue
            keep = _increasing(sequence)
            moved.update(after for index, (_, after) in enumerate(members) if index not in keep)
        return moved

    def provision_entries(self) -> tuple[dict[str, Entry], dict[str, Entry]]:
        """Entries for TO-side eIds and for FROM-only eIds."""
        old, new, backend = self.old, self.new, self.backend
        moved = self.moved()
        on_new: dict[str, Entry] = {}
        for eid in new.order:
            node = new.nodes[eid]
            before = self.inverse.get(eid)
            was, now = before is not None and old.alive(before), new.alive(eid)
            depth = new.depth[eid]
            renamed = before if before is not None and before != eid else None
            if was and now:
                entry = self._pair(before, eid, moved, depth)
            elif now:
                entry = Entry(eid, node.kind, depth, _one_sided(_node_values(node), textdiff.INSERT), "inserted",
                              old_eid=renamed, cause=self.cause(before, eid))
            elif was:
                entry = Entry(eid, node.kind, depth, _one_sided(_node_values(old.nodes[before]), textdiff.DELETE),
                              "deleted", old_eid=renamed, cause=self.cause(before, eid))
            else:
                continue
            on_new[eid] = entry
        on_old: dict[str, Entry] = {}
        for eid in old.order:
            if eid in self.mapping or not old.alive(eid):
                continue
            node = old.nodes[eid]
            on_old[eid] = Entry(eid, node.kind, old.depth[eid], _one_sided(_node_values(node), textdiff.DELETE),
                                "deleted", cause=self.cause(eid, None))
        return on_new, on_old

    def _pair(self, before: str, after: str, moved: set[str], depth: int) -> Entry:
        old_node, new_node = self.old.nodes[before], self.new.nodes[after]
        fields = _node_fields(old_node, new_node, self.backend)
        kinds = []
        if before.rsplit("__", 1)[-1] != after.rsplit("__", 1)[-1]:
            kinds.append("renumbered")   # its own number changed, not just a renumbered parent's
        if after in moved:
            kinds.append("moved")
        replaced = self.box_replaced(before, after)
        # A renumbering changes the label by itself; that alone is not a modification.
        if replaced or any(f.changed for f in fields if f.name != "label" or "renumbered" not in kinds):
            kinds.append("modified")
        old_eid = before if before != after else None
        if not kinds:
            return Entry(after, new_node.kind, depth, fields, old_eid=old_eid)
        cause = replaced or self.cause(before, after)
        return Entry(after, new_node.kind, depth, fields, kinds[0], tuple(kinds[1:]), old_eid, cause)

    def extra_entries(self) -> tuple[dict[str, list[Entry]], dict[str, list[Entry]], dict[str, list[Entry]]]:
        """MLI boxes and notes: those placed inside their anchor, those after it, those of FROM-only anchors."""
        lang = self.lang
        within: dict[str, list[Entry]] = {}
        after: dict[str, list[Entry]] = {}
        orphans: dict[str, list[Entry]] = {}

        def keyed(side: _Side, to_new) -> dict[str, tuple]:
            items: dict[str, tuple] = {}
            for anchor, boxes in side.boxes.items():
                for box in boxes:
                    eid = box_eid(to_new(anchor), box.mli_article, box.mli_paragraph)
                    key, n = eid, 1
                    while key in items:
                        n += 1
                        key = f"{eid}_{n}"
                    values = (("lead_in", _clean(box.lead_in.get(lang))), ("heading", _clean(box.heading.get(lang))),
                              ("text", _clean(box.text.get(lang))))
                    items[key] = ("mli_box", anchor, box.after_line is not None, values, box.by,
                                  (box.mli_article, box.mli_paragraph, box.relation))
            for target, notes in side.notes.items():
                for note in notes:
                    values = (("heading", _clean(note.heading.get(lang))), ("text", _clean(note.text.get(lang))))
                    items[note_eid(to_new(target), note.by)] = ("note", target, False, values, note.by, None)
            return items

        olds = keyed(self.old, lambda eid: self.mapping.get(eid, eid))
        news = keyed(self.new, lambda eid: eid)
        for key, (kind, anchor, inside, values, by, mli) in news.items():
            depth = self.new.depth.get(anchor, 0)
            if key in olds:
                old_values, old_by = olds[key][3], olds[key][4]
                fields = tuple(Field(name, _ops(value, new_value, self.backend))
                               for (name, value), (_, new_value) in zip(old_values, values))
                changed = any(f.changed for f in fields)
                old_anchor = self.inverse.get(anchor, anchor)
                old_key = key.replace(anchor, old_anchor, 1) if old_anchor != anchor else None
                entry = Entry(key, kind, depth, fields, "modified" if changed else None, (), old_key,
                              (by if by != old_by else None) if changed else None, mli)
            else:
                entry = Entry(key, kind, depth, _one_sided(values, textdiff.INSERT), "inserted", cause=by, mli=mli)
            (within if inside else after).setdefault(anchor, []).append(entry)
        for key, (kind, anchor, inside, values, by, mli) in olds.items():
            if key in news:
                continue
            entry = Entry(key, kind, self.old.depth.get(anchor, 0), _one_sided(values, textdiff.DELETE), "deleted",
                          cause=by, mli=mli)
            if anchor in self.mapping:
                (within if inside else after).setdefault(self.mapping[anchor], []).append(entry)
            else:
                orphans.setdefault(anchor, []).append(entry)
        return within, after, orphans


def diff_versions(old: Version, new: Version, lang: str, *, treaty: str | None = None,
                  from_label: str | None = None, to_label: str | None = None, backend: str = "auto",
                  instruments: Iterable[Instrument] = (), state: str | None = None,
                  tax: str | None = None) -> VersionDiff:
    """Diff two versions of one treaty in `lang`: every provision, box and note, in reading order."""
    textdiff.backend_name(backend)   # an unknown or missing backend fails before any work
    old_side, new_side = _Side(old, lang), _Side(new, lang)
    differ = _Differ(old_side, new_side, lang, backend)
    on_new, on_old = differ.provision_entries()
    within, after, orphans = differ.extra_entries()

    # FROM-only provisions follow the entry of their nearest preceding FROM provision.
    attached: dict[str | None, list[str]] = {}
    anchor: str | None = None
    for eid in old_side.order:
        if eid in on_old:
            attached.setdefault(anchor, []).append(eid)
        elif eid in differ.mapping and differ.mapping[eid] in on_new:
            anchor = differ.mapping[eid]

    out: list[Entry] = []

    def emit_old(key: str | None) -> None:
        for eid in attached.get(key, ()):
            out.append(on_old[eid])
            out.extend(orphans.get(eid, ()))

    def emit(nodes: tuple[Node, ...]) -> None:
        for node in nodes:
            eid = node.eid
            if eid in on_new:
                out.append(on_new[eid])
            out.extend(within.get(eid, ()))
            emit_old(eid)
            if node.children:
                emit(node.children)
            out.extend(after.get(eid, ()))

    emit_old(None)
    emit(new.documents[lang].nodes)
    # A box or note whose anchor is in neither tree still is a change: never drop it.
    placed = {id(entry) for entry in out}
    for group in (within, after, orphans):
        for entries in group.values():
            out.extend(entry for entry in entries if id(entry) not in placed)
    document = new.documents[lang]
    named = {e.cause.instrument for e in out if e.change and e.cause}
    titles = tuple((i.id, i.title_in(lang)) for i in instruments if i.id in named)
    return VersionDiff(treaty or document.treaty, lang, from_label or old.id, to_label or new.id, old.id, new.id,
                       tuple(out), titles, state, tax)


# ------------------------------------------------------------------ versions from the command line

@dataclass(frozen=True)
class TreatyVersions:
    """A treaty's texts, committed instruments and versions, and a draft's version when previewed."""

    root: Path
    treaty: str
    meta: object
    documents: Mapping
    instruments: tuple[Instrument, ...]
    versions: tuple[Version, ...]
    draft: Instrument | None = None
    draft_version: Version | None = None
    _dates: dict = field(default_factory=dict, compare=False, repr=False)

    def dates(self) -> Mapping:
        """Each committed version's dates, computed once (MLI dates need the positions file)."""
        if not self._dates:
            from .timeline import all_dates
            self._dates.update(all_dates(list(self.versions), self.meta, self.root))
        return self._dates

    def all_instruments(self) -> tuple[Instrument, ...]:
        return self.instruments + ((self.draft,) if self.draft else ())


def load_versions(root: Path, treaty: str, preview: Path | None = None) -> TreatyVersions:
    """Load a treaty and build its versions; with `preview`, also apply that overlay file last."""
    from .corpus import load_treaty

    loaded = load_treaty(root, treaty)
    instruments = load_instruments(root, treaty)
    draft = _load_draft(preview, instruments) if preview is not None else None
    versions = build_versions(loaded.documents, instruments + ([draft] if draft else []))
    committed = tuple(versions[:len(instruments) + 1])
    return TreatyVersions(root, treaty, loaded.meta, loaded.documents, tuple(instruments), committed,
                          draft, versions[-1] if draft else None)


def _load_draft(path: Path, instruments: list[Instrument]) -> Instrument:
    shown = path.name   # messages name the file, never the folders of this machine
    if not path.is_file():
        raise DiffInputError(f"--preview: no overlay file {shown!r}")
    problems: list[Problem] = []
    draft = load_instrument(path, shown, problems)
    if problems or draft is None:
        first = problems[0] if problems else Problem(None, "cannot be read as an overlay")
        more = f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""
        tail = f" [{first.target}]" if first.target else ""
        raise OverlayError(first.message + tail + more, first.location)
    taken = {i.id: i.path for i in instruments}
    if draft.id in taken or draft.id in ("base", "latest", PREVIEW):
        where = f"by {taken[draft.id]}" if draft.id in taken else "as a version name"
        raise OverlayError(f"instrument id {draft.id!r} is already used {where}; give the draft an id of its own",
                           problems[0].location if problems else None)
    return draft


@dataclass(frozen=True)
class Resolved:
    """A FROM or TO argument resolved: the version and the label the output shows."""

    version: Version
    label: str


def resolve(versions: TreatyVersions, spec: str, which: str = "FROM", *, state: str | None = None,
            tax: str | None = None) -> Resolved:
    """`base`, an instrument id, `latest`, `preview` or a date `YYYY-MM-DD` (the text in effect then)."""
    from .timeline import as_of

    if DATE_SPEC.match(spec):
        try:
            day = date.fromisoformat(spec)
        except ValueError:
            raise DiffInputError(f"{which} {spec!r} is not a valid date (YYYY-MM-DD)") from None
        version = as_of(versions.documents, list(versions.instruments), versions.dates(), day, state, tax)
        return Resolved(version, spec)
    if spec == PREVIEW:
        if versions.draft_version is None:
            raise DiffInputError(f"{which} {PREVIEW!r} names the result of --preview, which was not given")
        return Resolved(versions.draft_version, f"{PREVIEW}:{versions.draft.id}")
    try:
        version = find_version(list(versions.versions), spec)
    except UsageError:
        known = ", ".join(["latest", *(v.id for v in versions.versions)]
                          + ([PREVIEW] if versions.draft_version else []))
        raise DiffInputError(f"{which}: unknown version {spec!r} of {versions.treaty}; "
                             f"expected one of {known}, or a date YYYY-MM-DD") from None
    return Resolved(version, version.id)


def run_diff(root: Path, treaty: str, from_spec: str, to_spec: str, *, lang: str | None, fmt: str,
             changes_only: bool, preview: Path | None, state: str | None, tax: str | None, color: bool,
             backend: str = "auto") -> str:
    """The `consolidate diff` command: resolve FROM and TO, diff them, render in `fmt`."""
    from .diffrender import render

    if fmt not in FORMATS:
        raise DiffInputError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if tax is not None and tax not in TAXES:
        raise DiffInputError(f"--tax: unknown kind of tax {tax!r}; expected withholding or other")
    if (state or tax) and not (DATE_SPEC.match(from_spec) or DATE_SPEC.match(to_spec)):
        raise DiffInputError("--state and --tax choose the text in effect on a date; "
                             "give FROM or TO as a date YYYY-MM-DD")
    textdiff.backend_name(backend)
    versions = load_versions(root, treaty, preview)
    lang = lang or versions.meta.languages[0]
    if lang not in versions.documents:
        raise DiffInputError(f"treaty {treaty!r} has no {lang!r} text; it has: " + ", ".join(versions.documents))
    old = resolve(versions, from_spec, "FROM", state=state, tax=tax)
    new = resolve(versions, to_spec, "TO", state=state, tax=tax)
    result = diff_versions(old.version, new.version, lang, treaty=treaty, from_label=old.label,
                           to_label=new.label, backend=backend, instruments=versions.all_instruments(),
                           state=state, tax=tax)
    return render(result, fmt, color=color, changes_only=changes_only)


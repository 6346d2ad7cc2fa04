"""Change diffs between two versions of a treaty: provisions aligned by eId, texts diffed by words.

This is the model only; `consolidate.diffrender` turns it into text, JSON or HTML.
The JSON format and the eId suffixes of boxes and notes are documented in docs/diff.md.
"""

from __future__ import annotations

import bisect
import difflib
import itertools
import re
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from pathlib import Path
from typing import Iterable, Iterator, Mapping, NamedTuple

import regex

from . import inline, textdiff
from .engine import Provenance, Version, build_versions, find_version
from .errors import Location, OverlayError, UsageError
from .ids import TRANSPARENT
from .model import Node, TreatyMeta
from .overlay import Instrument, Problem, load_instrument, load_instruments
from .timeline import TAXES

__all__ = [
    "CHANGE_KINDS", "FORMATS", "PREVIEW", "DiffInputError", "Entry", "Field", "Resolved", "Summary", "Unchanged",
    "TreatyVersions", "VersionDiff", "box_eid", "clean", "diff_versions", "load_versions", "node_fields",
    "note_eid", "resolve", "run_diff", "word_diff",
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


class Unchanged(NamedTuple):
    """An unchanged provision of TO in the layout; with `subtree`, everything under it is unchanged too."""

    # A NamedTuple, not a dataclass: one is made per unchanged provision, and tuples are cheap.
    node: Node
    depth: int
    subtree: bool = False


@dataclass(frozen=True)
class VersionDiff:
    """The aligned entries of two versions of one treaty in one language.

    `layout` is the reading order: an `Entry` for each change (and each box or note), an
    `Unchanged` reference for the rest, which becomes an `Entry` only when `entries` is read.
    """

    treaty: str
    lang: str
    from_label: str
    to_label: str
    from_version: str
    to_version: str
    layout: tuple
    titles: tuple[tuple[str, str], ...] = ()        # instrument id → title in `lang`
    state: str | None = None
    tax: str | None = None

    def items(self) -> Iterator[Entry | Unchanged]:
        """The layout with unchanged subtrees opened: one item per provision, box or note."""
        for item in self.layout:
            if isinstance(item, Entry) or not item.subtree:
                yield item
            else:
                yield from _expand(item.node, item.depth)

    @cached_property
    def entries(self) -> tuple[Entry, ...]:
        return tuple(item if isinstance(item, Entry) else _unchanged(item.node, item.depth) for item in self.items())

    @cached_property
    def changes(self) -> tuple[Entry, ...]:
        return tuple(item for item in self.layout if isinstance(item, Entry) and item.change)

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

def clean(text: str | None) -> str:
    """The reading text of a label, heading or text (no inline tokens); "" for None."""
    if not text:
        return ""
    return inline.clean(text) if "{{" in text else text


def node_fields(node: Node) -> tuple[tuple[str, str], ...]:
    """A provision's label, heading and text as reading text."""
    return (("label", clean(node.label)), ("heading", clean(node.heading)), ("text", clean(node.text)))


def _unchanged(node: Node, depth: int) -> Entry:
    return Entry(node.eid, node.kind, depth,
                 tuple(Field(name, ((textdiff.EQUAL, value),) if value else ()) for name, value in node_fields(node)))


def _expand(node: Node, depth: int) -> list[Unchanged]:
    """A node and everything under it, in reading order, as unchanged items."""
    out, stack = [], [(node, depth)]
    while stack:   # a stack, not nested generators: a treaty has hundreds of provisions
        node, depth = stack.pop()
        out.append(Unchanged(node, depth))
        if node.children:
            inner = depth if node.kind in FLAT_KINDS else depth + 1
            stack.extend((child, inner) for child in reversed(node.children))
    return out


# Per eId: (node, parent eId, position among siblings, depth, deleted?)
_NODE, _PARENT, _POSITION, _DEPTH, _DEAD = range(5)


class _Side:
    """One version in one language, indexed by eId (only where it differs from the other side)."""

    def __init__(self, version: Version, lang: str):
        if lang not in version.documents:
            raise DiffInputError(f"version {version.id!r} has no {lang!r} text; it has: "
                                 + ", ".join(version.documents))
        self.version = version
        self.nodes = version.documents[lang].nodes
        self.info: dict[str, tuple[Node, str | None, int, int, bool]] = {}
        self.order: list[str] = []
        aliases = version.aliases
        # A deleted eId renamed later (its parent renumbered) is found under its new name.
        self.deleted = {aliases.get(eid, eid) for eid in version.deleted}

    def resolve_stores(self) -> None:
        self.provenance = self._resolve(self.version.provenance)
        self.retained = self._resolve(self.version.retained)
        self.boxes = self._resolve(self.version.boxes)
        self.notes = self._resolve(self.version.notes)

    def add(self, node: Node, parent: str | None, position: int, depth: int, dead: bool) -> None:
        self.info[node.eid] = (node, parent, position, depth, dead)
        self.order.append(node.eid)

    def add_all(self, nodes: tuple[Node, ...], parent: str | None, depth: int, dead: bool) -> None:
        """Index these nodes and everything under them."""
        info, order, deleted = self.info, self.order, self.deleted
        for index, node in enumerate(nodes):
            eid = node.eid
            gone = dead or eid in deleted
            info[eid] = (node, parent, index, depth, gone)
            order.append(eid)
            if node.children:
                self.add_all(node.children, eid, depth if node.kind in FLAT_KINDS else depth + 1, gone)

    def _resolve(self, store: Mapping) -> dict:
        # Stores are keyed by the eId an operation named, which may be an alias of the current one.
        aliases, info = self.version.aliases, self.info
        return {key if key in info else aliases.get(key, key): value for key, value in store.items()}

    def parent(self, eid: str) -> str | None:
        return self.info[eid][_PARENT]


def _watched(old: _Side, new: _Side) -> set[str]:
    """eIds, with all their ancestors' eIds, whose subtree must be compared node by node."""
    # Deleted provisions stay in the tree: a subtree holding one is not shown whole.
    eids = old.deleted | new.deleted
    for side in (old, new):
        aliases = side.version.aliases
        for store in (side.version.boxes, side.version.notes):
            for key in store:
                eids.update((key, aliases.get(key, key)))
    prefixes = set()
    for eid in eids:
        parts = eid.split("__")
        prefixes.update("__".join(parts[:n]) for n in range(1, len(parts) + 1))
    return prefixes


def _index(old: _Side, new: _Side) -> set[str]:
    """Index both sides, skipping subtrees the two versions share; return the roots of those subtrees.

    Versions built one from the other share every subtree no instrument touched (the same
    objects), so a whole-treaty diff only walks the paths to what changed. A subtree is shared
    when it is the same object at the same place, alive (or deleted) on both sides, and holds
    no deleted provision, box or note.
    """
    watched = _watched(old, new)
    shared: set[str] = set()
    old_deleted, new_deleted = old.deleted, new.deleted

    def walk(before: tuple[Node, ...], after: tuple[Node, ...], old_parent: str | None, new_parent: str | None,
             old_depth: int, new_depth: int, old_dead: bool, new_dead: bool) -> None:
        same = before is after or [n.eid for n in before] == [n.eid for n in after]
        by_eid = None if same else {n.eid: (i, n) for i, n in enumerate(before)}
        paired: set[int] = set()
        for index, node in enumerate(after):
            eid = node.eid
            if same:
                at, match = index, before[index]
            else:
                at, match = by_eid.get(eid, (None, None))
            dead = new_dead or eid in new_deleted
            if match is None:
                new.add(node, new_parent, index, new_depth, dead)
                if node.children:
                    new.add_all(node.children, eid, new_depth if node.kind in FLAT_KINDS else new_depth + 1, dead)
                continue
            paired.add(at)
            was_dead = old_dead or match.eid in old_deleted
            if match is node and same and dead == was_dead and node.kind not in TRANSPARENT and eid not in watched:
                if not dead:     # deleted on both sides: not in either text
                    old.add(node, old_parent, at, old_depth, was_dead)
                    new.add(node, new_parent, index, new_depth, dead)
                    shared.add(eid)
                continue
            old.add(match, old_parent, at, old_depth, was_dead)
            new.add(node, new_parent, index, new_depth, dead)
            if match.children or node.children:
                walk(match.children, node.children, match.eid, eid,
                     old_depth if match.kind in FLAT_KINDS else old_depth + 1,
                     new_depth if node.kind in FLAT_KINDS else new_depth + 1, was_dead, dead)
        if not same:
            for at, match in enumerate(before):
                if at not in paired:
                    dead = old_dead or match.eid in old_deleted
                    old.add(match, old_parent, at, old_depth, dead)
                    if match.children:
                        old.add_all(match.children, match.eid,
                                    old_depth if match.kind in FLAT_KINDS else old_depth + 1, dead)

    walk(old.nodes, new.nodes, None, None, 0, 0, False, False)
    old.resolve_stores()
    new.resolve_stores()
    return shared


def _preorder(side: _Side, nodes: tuple[Node, ...], shared: set[str], out: list[str]) -> list[str]:
    """The indexed eIds of one side in reading order (shared subtrees as their root)."""
    for node in nodes:
        if node.eid in side.info:
            out.append(node.eid)
            if node.eid not in shared and node.children:
                _preorder(side, node.children, shared, out)
    return out


def _renames(this: Mapping[str, str], other: Mapping[str, str]) -> dict[str, str]:
    """Aliases of one version that the other lacks: the renumberings between them."""
    return {old: new for old, new in this.items() if other.get(old) != new}


def _align(old: _Side, new: _Side) -> dict[str, str]:
    """FROM eId → TO eId; a renumbered provision is matched through the aliases, not by name."""
    forward = _renames(new.version.aliases, old.version.aliases)
    backward = _renames(old.version.aliases, new.version.aliases)
    present = new.info
    if not forward and not backward:
        return {eid: eid for eid in old.order if eid in present}
    undo: dict[str, list[str]] = {}
    for before, after in backward.items():
        undo.setdefault(after, []).append(before)
    mapping: dict[str, str] = {}
    claimed: set[str] = set()
    for eid in old.order:
        target = forward.get(eid)
        if target is None:
            target = next((before for before in undo.get(eid, ()) if before in present), None)
        if target is not None and target in present and target not in claimed:
            mapping[eid] = target
            claimed.add(target)
    for eid in old.order:
        # A name renumbered away on either side belongs to a different provision there.
        if eid in mapping or eid in forward or eid in backward or eid not in present or eid in claimed:
            continue
        mapping[eid] = eid
        claimed.add(eid)
    return mapping


def _increasing(sequence: list[int]) -> set[int]:
    """Indices of one longest strictly increasing subsequence (patience sorting)."""
    values: list[int] = []
    tails: list[int] = []
    links: list[int] = [-1] * len(sequence)
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

def _common_prefix(a: str, b: str) -> int:
    """Length of the common prefix, by halving (slice comparisons run in C)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _common_suffix(a: str, b: str, limit: int) -> int:
    low, high = 0, min(len(a), len(b), limit)
    while low < high:
        middle = (low + high + 1) // 2
        if a[len(a) - middle:] == b[len(b) - middle:]:
            low = middle
        else:
            high = middle - 1
    return low


def _cut(text: str, at: int) -> bool:
    """Whether `at` is a token boundary right after whitespace (or an end of the text)."""
    if at <= 0 or at >= len(text):
        return True
    # Whitespace then a non-space character ends the whitespace token; the \X check rules
    # out a combining character that would join the whitespace's cluster.
    return (text[at - 1].isspace() and not text[at].isspace()
            and len(_CLUSTER.match(text, at - 1).group()) == 1)


_CLUSTER = regex.compile(r"\X")
# Changed passages longer than this are first aligned by space-separated chunks, and
# unchanged runs of at least GAP_LENGTH characters inside them split the word diff in parts.
SPLIT_LENGTH = 160
GAP_LENGTH = 48


def _append(ops: list[tuple[str, str]], op: tuple[str, str]) -> None:
    if op[1]:
        if ops and ops[-1][0] == op[0] == textdiff.EQUAL:
            ops[-1] = (textdiff.EQUAL, ops[-1][1] + op[1])
        else:
            ops.append(op)


def _passage(old: str, new: str, backend: str, ops: list[tuple[str, str]]) -> None:
    if old and new:
        for op in textdiff.diff_words(old, new, backend):
            _append(ops, op)
    else:
        _append(ops, (textdiff.DELETE, old) if old else (textdiff.INSERT, new))


def _split_passage(old: str, new: str, backend: str, ops: list[tuple[str, str]]) -> None:
    """Word-diff a long changed passage stretch by stretch, between its long unchanged runs."""
    if max(len(old), len(new)) <= SPLIT_LENGTH:
        _passage(old, new, backend, ops)
        return
    a, b = old.split(" "), new.split(" ")
    # Offsets of the chunks (each followed by one space but the last).
    starts_a = list(itertools.accumulate((len(x) + 1 for x in a), initial=0))
    starts_b = list(itertools.accumulate((len(x) + 1 for x in b), initial=0))
    done_a = done_b = 0
    for i, j, n in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks():
        if not n:
            continue
        at_a, at_b = starts_a[i], starts_b[j]
        length = min(starts_a[i + n], len(old)) - at_a
        if old[at_a:at_a + length] != new[at_b:at_b + length]:
            length -= 1     # the run ends one text but not the other: its last space differs
        # Cut only at a long run whose both ends are token boundaries in both texts.
        if (length < GAP_LENGTH or at_a < done_a or at_b < done_b
                or old[at_a:at_a + length] != new[at_b:at_b + length]
                or not (_cut(old, at_a) and _cut(new, at_b)
                        and _cut(old, at_a + length) and _cut(new, at_b + length))):
            continue
        _passage(old[done_a:at_a], new[done_b:at_b], backend, ops)
        _append(ops, (textdiff.EQUAL, old[at_a:at_a + length]))
        done_a, done_b = at_a + length, at_b + length
    _passage(old[done_a:], new[done_b:], backend, ops)


def word_diff(old: str, new: str, backend: str = "auto") -> Ops:
    """`textdiff.diff_words` of two texts, given only what lies between their unchanged parts.

    The common head and tail are cut at a token start after whitespace, and a long changed
    passage is split at its long unchanged runs (chunks aligned by `difflib.SequenceMatcher`),
    so no word or grapheme is split and a one-word edit does not tokenise a whole paragraph.
    """
    # Cut the shared head and tail where both texts have a token boundary after whitespace.
    start = _common_prefix(old, new)
    while start > 0 and not (_cut(old, start) and _cut(new, start)):
        start -= 1
    tail = _common_suffix(old, new, min(len(old), len(new)) - start)
    end = len(old) - tail
    while end < len(old) and not (_cut(old, end) and _cut(new, len(new) - len(old) + end)):
        end += 1
    rest = len(old) - end
    ops: list[tuple[str, str]] = []
    _append(ops, (textdiff.EQUAL, old[:start]))
    _split_passage(old[start:end], new[start:len(new) - rest], backend, ops)
    _append(ops, (textdiff.EQUAL, old[end:]))
    return tuple(ops)


def _one_sided(values: Iterable[tuple[str, str]], op: str) -> tuple[Field, ...]:
    return tuple(Field(name, ((op, value),) if value else ()) for name, value in values)


class _Differ:
    """Works out the entries of one diff; see `diff_versions`."""

    def __init__(self, old: _Side, new: _Side, lang: str, backend: str):
        self.old, self.new, self.lang, self.backend = old, new, lang, backend
        self.shared = _index(old, new)
        self.mapping = _align(old, new)
        self.inverse = {after: before for before, after in self.mapping.items()}

    def ops(self, old: str, new: str) -> Ops:
        if old == new:
            return ((textdiff.EQUAL, new),) if new else ()
        if not old:
            return ((textdiff.INSERT, new),)
        if not new:
            return ((textdiff.DELETE, old),)
        return word_diff(old, new, self.backend)

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
                new_eid = new.parent(new_eid)
                old_eid = self.inverse.get(new_eid) if new_eid else None
            else:
                old_eid = old.parent(old_eid)
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
        old_info, new_info, mapping, inverse = self.old.info, self.new.info, self.mapping, self.inverse
        if self._same_shape():
            return set()
        moved: set[str] = set()
        groups: dict[str | None, list[tuple[int, str]]] = {}
        for after in self.new.order:
            before = inverse.get(after)
            if before is None:
                continue
            _, old_parent, old_position, _, old_dead = old_info[before]
            _, parent, _, _, dead = new_info[after]
            if old_dead or dead:
                continue
            if (mapping.get(old_parent) if old_parent is not None else None) != parent:
                moved.add(after)
            else:
                groups.setdefault(parent, []).append((new_info[after][_POSITION], old_position, after))
        for group in groups.values():
            group.sort()
            members = [(old_position, after) for _, old_position, after in group]   # in TO order
            if all(a[0] < b[0] for a, b in zip(members, members[1:])):
                continue
            keep = _increasing([position for position, _ in members])
            moved.update(after for index, (_, after) in enumerate(members) if index not in keep)
        return moved

    def _same_shape(self) -> bool:
        """Whether every parent has the same children, in the same order, on both sides (so nothing moved)."""
        mapping = self.mapping
        pending = [(self.old.version.documents[self.lang].nodes, self.new.version.documents[self.lang].nodes)]
        while pending:
            old_nodes, new_nodes = pending.pop()
            if old_nodes is new_nodes:
                continue             # a shared tuple of subtrees has the same children by construction
            if [mapping.get(node.eid) for node in old_nodes] != [node.eid for node in new_nodes]:
                return False
            pending.extend((o.children, n.children) for o, n in zip(old_nodes, new_nodes)
                           if o is not n and (o.children or n.children))
        return True

    def provisions(self) -> tuple[dict[str, Entry | Unchanged], dict[str, Entry]]:
        """Layout items for the indexed TO eIds and entries of FROM-only eIds."""
        old_info, new_info, inverse, shared = self.old.info, self.new.info, self.inverse, self.shared
        old_retained, new_retained = self.old.retained, self.new.retained
        moved = self.moved()
        on_new: dict[str, Entry | Unchanged] = {}
        for eid in self.new.order:
            node, _, _, depth, dead = new_info[eid]
            if eid in shared and eid not in moved:
                on_new[eid] = Unchanged(node, depth, True)
                continue
            before = inverse.get(eid)
            old_node, was = None, False
            if before is not None:
                old_node, _, _, _, old_dead = old_info[before]
                was = not old_dead
            if was and not dead:
                # The common case first: same eId, same place, same strings — nothing to diff.
                if (before == eid and (old_node is node or (old_node.text == node.text and old_node.label == node.label
                                                            and old_node.heading == node.heading))
                        and eid not in moved and eid not in new_retained and before not in old_retained):
                    on_new[eid] = Unchanged(node, depth)
                else:
                    on_new[eid] = self._pair(before, eid, moved, depth)
            elif not dead:
                on_new[eid] = Entry(eid, node.kind, depth, _one_sided(node_fields(node), textdiff.INSERT),
                                    "inserted", old_eid=before if before not in (None, eid) else None,
                                    cause=self.cause(before, eid))
            elif was:
                on_new[eid] = Entry(eid, node.kind, depth, _one_sided(node_fields(old_node), textdiff.DELETE),
                                    "deleted", old_eid=before if before != eid else None,
                                    cause=self.cause(before, eid))
        on_old: dict[str, Entry] = {}
        for eid in self.old.order:
            if eid in self.mapping:
                continue
            node, _, _, depth, dead = old_info[eid]
            if not dead:
                on_old[eid] = Entry(eid, node.kind, depth, _one_sided(node_fields(node), textdiff.DELETE),
                                    "deleted", cause=self.cause(eid, None))
        return on_new, on_old

    def _pair(self, before: str, after: str, moved: set[str], depth: int) -> Entry | Unchanged:
        old_node, new_node = self.old.info[before][_NODE], self.new.info[after][_NODE]
        fields, changed = [], set()
        for (name, old_value), (_, new_value) in zip(node_fields(old_node), node_fields(new_node)):
            ops = self.ops(old_value, new_value)
            fields.append(Field(name, ops))
            if old_value != new_value:
                changed.add(name)
        kinds = []
        if before.rsplit("__", 1)[-1] != after.rsplit("__", 1)[-1]:
            kinds.append("renumbered")   # its own number changed, not just a renumbered parent's
            changed.discard("label")     # which changes the label by itself
        if after in moved:
            kinds.append("moved")
        replaced = self.box_replaced(before, after)
        if replaced or changed:
            kinds.append("modified")
        old_eid = before if before != after else None
        if not kinds:
            # Unchanged after all (say, replaced by identical wording): shown like any unchanged one.
            return Entry(after, new_node.kind, depth, tuple(fields), old_eid=old_eid) if old_eid \
                else Unchanged(new_node, depth)
        cause = replaced or self.cause(before, after)
        return Entry(after, new_node.kind, depth, tuple(fields), kinds[0], tuple(kinds[1:]), old_eid, cause)

    def extras(self) -> tuple[dict[str, list[Entry]], dict[str, list[Entry]], dict[str, list[Entry]]]:
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
                    values = (("lead_in", clean(box.lead_in.get(lang))), ("heading", clean(box.heading.get(lang))),
                              ("text", clean(box.text.get(lang))))
                    items[key] = ("mli_box", anchor, box.after_line is not None, values, box.by,
                                  (box.mli_article, box.mli_paragraph, box.relation))
            for target, notes in side.notes.items():
                for note in notes:
                    values = (("heading", clean(note.heading.get(lang))), ("text", clean(note.text.get(lang))))
                    items[note_eid(to_new(target), note.by)] = ("note", target, False, values, note.by, None)
            return items

        olds = keyed(self.old, lambda eid: self.mapping.get(eid, eid))
        news = keyed(self.new, lambda eid: eid)
        for key, (kind, anchor, inside, values, by, mli) in news.items():
            depth = self.new.info[anchor][_DEPTH] if anchor in self.new.info else 0
            if key in olds:
                old_values, old_by = olds[key][3], olds[key][4]
                fields = tuple(Field(name, self.ops(value, new_value))
                               for (name, value), (_, new_value) in zip(old_values, values))
                changed = old_values != values
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
            depth = self.old.info[anchor][_DEPTH] if anchor in self.old.info else 0
            entry = Entry(key, kind, depth, _one_sided(values, textdiff.DELETE), "deleted", cause=by, mli=mli)
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
    on_new, on_old = differ.provisions()
    within, after, orphans = differ.extras()

    # FROM-only provisions follow the entry of their nearest preceding FROM provision.
    attached: dict[str | None, list[str]] = {}
    if on_old:
        anchor: str | None = None
        for eid in _preorder(old_side, old_side.nodes, differ.shared, []):
            if eid in on_old:
                attached.setdefault(anchor, []).append(eid)
            elif eid in differ.mapping and differ.mapping[eid] in on_new:
                anchor = differ.mapping[eid]

    out: list = []

    def emit_old(key: str | None) -> None:
        for eid in attached[key]:
            out.append(on_old[eid])
            out.extend(orphans.get(eid, ()))

    def emit(nodes: tuple[Node, ...]) -> None:
        for node in nodes:
            eid = node.eid
            item = on_new.get(eid)
            if item is None:
                if eid not in new_side.info:
                    continue     # deleted on both sides, with all it holds
            else:
                out.append(item)
                if isinstance(item, Unchanged) and item.subtree:
                    if eid in attached:
                        emit_old(eid)
                    continue
            if eid in within:
                out.extend(within[eid])
            if eid in attached:
                emit_old(eid)
            if eid in differ.shared:
                # A shared subtree whose root moved: its contents are unchanged and not indexed.
                depth = new_side.info[eid][_DEPTH]
                inner = depth if node.kind in FLAT_KINDS else depth + 1
                for child in node.children:
                    out.extend(_expand(child, inner))
            elif node.children:
                emit(node.children)
            if eid in after:
                out.extend(after[eid])

    if None in attached:
        emit_old(None)
    emit(new.documents[lang].nodes)
    # A box or note whose anchor is in neither tree still is a change: never drop it.
    placed = {id(item) for item in out if isinstance(item, Entry)}
    for group in (within, after, orphans):
        for entries in group.values():
            out.extend(entry for entry in entries if id(entry) not in placed)
    named = {item.cause.instrument for item in out if isinstance(item, Entry) and item.change and item.cause}
    titles = tuple((i.id, i.title_in(lang)) for i in instruments if i.id in named)
    document = new.documents[lang]
    return VersionDiff(treaty or document.treaty, lang, from_label or old.id, to_label or new.id, old.id, new.id,
                       tuple(out), titles, state, tax)


# ------------------------------------------------------------------ versions from the command line

@dataclass(frozen=True)
class TreatyVersions:
    """A treaty's texts, committed instruments and versions, and a draft's version when previewed."""

    root: Path
    treaty: str
    meta: TreatyMeta
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
        first = problems[0] if problems else Problem(Location(shown), "cannot be read as an overlay")
        more = f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""
        tail = f" [{first.target}]" if first.target else ""
        raise OverlayError(first.message + tail + more, first.location)
    taken = {i.id: i.path for i in instruments}
    if draft.id in taken or draft.id in ("base", "latest", PREVIEW):
        where = f"by {taken[draft.id]}" if draft.id in taken else "as a version name"
        raise OverlayError(f"instrument id {draft.id!r} is already used {where}; give the draft an id of its own",
                           Location(shown))
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


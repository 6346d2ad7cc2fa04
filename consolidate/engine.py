"""Apply a treaty's instruments in order: base text → one version per instrument.

Every version is a full tree per language plus what a reader needs to see how it came
about: the instrument and operation that last changed each provision, the text an
instrument replaced or deleted, MLI boxes at their places, protocol notes at their
articles. An operation that cannot be applied exactly is a Problem, never a guess.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Iterable, Mapping

from . import inline
from .errors import OverlayError
from .findings import Findings
from .ids import SINGLETON, assign_ids
from .model import Document, Node
from .overlay import Instrument, Operation, Problem

EDITING_OPS = ("replace", "insert", "delete", "renumber", "substitute")


@dataclass(frozen=True)
class Provenance:
    """The instrument and operation behind a change."""

    instrument: str
    operation: int
    op: str
    location: str

    def to_json(self) -> dict:
        return {"instrument": self.instrument, "operation": self.operation, "op": self.op}


@dataclass(frozen=True)
class Retained:
    """A provision's text as it stood before an instrument replaced or deleted it."""

    how: str                      # "replaced" | "deleted"
    old: Mapping[str, Node]       # per language
    by: Provenance
    marker: Mapping[str, str] = field(default_factory=dict)  # published "[Replaced by …]" wording


@dataclass(frozen=True)
class Box:
    """An MLI provision shown in a box, anchored after a provision (or inside one, after a line)."""

    mli_article: int
    mli_paragraph: int
    relation: str
    target: str | None
    anchor: str
    after_line: int | None
    lead_in: Mapping[str, str]
    heading: Mapping[str, str]
    text: Mapping[str, str]
    by: Provenance


@dataclass(frozen=True)
class Note:
    """An interpretive protocol item attached to the provision it interprets."""

    target: str
    source: str | None
    heading: Mapping[str, str]
    text: Mapping[str, str]
    by: Provenance


@dataclass(frozen=True)
class Annotation:
    """A record that an instrument (perhaps unnamed) changed a provision before the base text."""

    target: str
    marker: str | None
    instrument: str
    by: Provenance


@dataclass(frozen=True)
class Version:
    """The treaty after one more instrument (or the base text)."""

    id: str
    instrument: Instrument | None
    documents: Mapping[str, Document]
    provenance: Mapping[str, Provenance]
    retained: Mapping[str, tuple[Retained, ...]]
    boxes: Mapping[str, tuple[Box, ...]]
    notes: Mapping[str, tuple[Note, ...]]
    annotations: Mapping[str, tuple[Annotation, ...]]
    deleted: frozenset[str]
    aliases: Mapping[str, str]

    def document(self, lang: str) -> Document:
        return self.documents[lang]

    @property
    def languages(self) -> tuple[str, ...]:
        return tuple(self.documents)


def _freeze(mapping: dict) -> Mapping:
    return MappingProxyType({k: (tuple(v) if isinstance(v, list) else v) for k, v in mapping.items()})


class _State:
    """The working state while instruments are applied."""

    def __init__(self, documents: Mapping[str, Document]):
        self.documents = dict(documents)
        self.provenance: dict[str, Provenance] = {}
        self.retained: dict[str, list[Retained]] = {}
        self.boxes: dict[str, list[Box]] = {}
        self.notes: dict[str, list[Note]] = {}
        self.annotations: dict[str, list[Annotation]] = {}
        self.deleted: dict[str, Provenance] = {}
        self.aliases: dict[str, str] = {}

    def snapshot(self, version_id: str, instrument: Instrument | None) -> Version:
        return Version(version_id, instrument, MappingProxyType(dict(self.documents)),
                       MappingProxyType(dict(self.provenance)), _freeze(self.retained), _freeze(self.boxes),
                       _freeze(self.notes), _freeze(self.annotations), frozenset(self.deleted),
                       MappingProxyType(dict(self.aliases)))


def build_versions(documents: Mapping[str, Document], instruments: Iterable[Instrument],
                   problems: list[Problem] | None = None) -> list[Version]:
    """Base version then one per instrument; with `problems`, collect instead of raising."""
    state = _State(documents)
    versions = [state.snapshot("base", None)]
    for instrument in instruments:
        _apply_instrument(state, instrument, problems)
        versions.append(state.snapshot(instrument.id, instrument))
    return versions


def _apply_instrument(state: _State, instrument: Instrument, problems: list[Problem] | None) -> None:
    edited: dict[str, int] = {}
    for operation in instrument.operations:
        by = Provenance(instrument.id, operation.index, operation.kind, str(operation.location))
        try:
            if operation.kind in EDITING_OPS and operation.target:
                if operation.target in edited:
                    raise _Fail(f"{operation.target} is already changed by operation {edited[operation.target]} "
                                "of the same instrument; one instrument changes a provision once")
                edited[operation.target] = operation.index
            APPLY[operation.kind](state, operation, by)
        except _Fail as failure:
            problem = Problem(operation.location, f"{operation.describe()}: {failure}", operation.target)
            if problems is None:
                raise OverlayError(f"{problem.message} [{problem.target}]" if problem.target else problem.message,
                                   problem.location) from None
            problems.append(problem)


class _Fail(Exception):
    """An operation that cannot be applied exactly."""


# ------------------------------------------------------------------ tree helpers

def _locate(nodes: tuple[Node, ...], eid: str) -> tuple[int, ...] | None:
    for index, node in enumerate(nodes):
        if node.eid == eid:
            return (index,)
        found = _locate(node.children, eid)
        if found is not None:
            return (index, *found)
    return None


def _get(nodes: tuple[Node, ...], path: tuple[int, ...]) -> Node:
    node = nodes[path[0]]
    for index in path[1:]:
        node = node.children[index]
    return node


def _set(nodes: tuple[Node, ...], path: tuple[int, ...], new: Node | None,
         insert: bool = False) -> tuple[Node, ...]:
    """Replace (or remove with None, or insert before) the node at `path`."""
    items = list(nodes)
    if len(path) == 1:
        if insert:
            items.insert(path[0], new)
        elif new is None:
            del items[path[0]]
        else:
            items[path[0]] = new
        return tuple(items)
    parent = items[path[0]]
    items[path[0]] = parent.with_children(_set(parent.children, path[1:], new, insert))
    return tuple(items)


def _target(state: _State, operation: Operation, eid: str | None = None) -> dict[str, tuple[int, ...]]:
    """The path of the target in every language; a missing or deleted target fails."""
    eid = eid or operation.target
    if eid in state.aliases:
        eid = state.aliases[eid]
    paths = {}
    for lang, document in state.documents.items():
        path = _locate(document.nodes, eid)
        if path is None:
            known = [n.eid for n in document.walk()]
            near = difflib.get_close_matches(eid, known, n=3, cutoff=0.6)
            hint = f"; nearest: {', '.join(near)}" if near else ""
            raise _Fail(f"target {eid} not found in the {lang} text{hint}")
        paths[lang] = path
        # The target or any provision holding it (a chapter does not prefix its articles' eIds).
        for depth in range(len(path), 0, -1):
            holder = _get(document.nodes, path[:depth]).eid
            if holder in state.deleted:
                by = state.deleted[holder]
                raise _Fail(f"target {eid} was deleted by {by.instrument} (operation {by.operation})"
                            + ("" if holder == eid else f" with {holder}"))
    return paths


def _key(state: _State, eid: str | None) -> str | None:
    """The current eId of a target named by an old one (a renumbered provision)."""
    return state.aliases.get(eid, eid) if eid else eid


def _lang_value(operation: Operation, key: str, lang: str, required: bool = True) -> str | None:
    value = operation.data.get(key)
    if value is None:
        if required:
            raise _Fail(f"'{key}' is required")
        return None
    if lang not in value:
        if required:
            raise _Fail(f"'{key}' has no {lang} text (the treaty has a {lang} text)")
        return None
    return value[lang]


def _build_node(spec: Mapping[str, Any], lang: str) -> Node:
    def pick(key: str) -> str | None:
        value = spec.get(key)
        if value is None:
            return None
        if lang not in value:
            raise _Fail(f"node '{key}' has no {lang} text")
        return value[lang]
    return Node(spec["kind"], spec.get("num"), pick("label"), pick("heading"), pick("text") or "",
                tuple(_build_node(child, lang) for child in spec.get("children", [])))


def _reassign(state: _State, lang: str, nodes: tuple[Node, ...]) -> Document:
    """Ids again after a structural change; a clash the change would create fails it.

    A clash the source already had (numbered `_2` with a finding when it was read) is not
    this operation's doing and does not stop it."""
    scratch = Findings()
    document = assign_ids(replace(state.documents[lang], nodes=_clear_ids(nodes)), scratch)
    before = {n.eid for n in state.documents[lang].walk()}
    clashes = [f.target for f in scratch if f.code == "ID.DUPLICATE" and f.target not in before]
    if clashes:
        raise _Fail(f"the result would have two provisions with the eId {clashes[0].rsplit('_', 1)[0]}")
    return document


def _clear_ids(nodes: tuple[Node, ...]) -> tuple[Node, ...]:
    return tuple(replace(n, eid="", children=_clear_ids(n.children)) for n in nodes)


def _touch(state: _State, eid: str, by: Provenance) -> None:
    state.provenance[eid] = by


# ------------------------------------------------------------------ operations

def _replace(state: _State, operation: Operation, by: Provenance) -> None:
    paths = _target(state, operation)
    old, new_docs = {}, {}
    for lang, path in paths.items():
        document = state.documents[lang]
        node = _get(document.nodes, path)
        old[lang] = node
        text = _lang_value(operation, "text", lang, required=False)
        if text is None and "children" not in operation.data:
            raise _Fail(f"'text' or 'children' is required (no {lang} text given)")
        children = tuple(_build_node(c, lang) for c in operation.data.get("children", []))
        new = replace(node, text=text or "", children=children,
                      heading=_lang_value(operation, "heading", lang, False) or node.heading,
                      label=_lang_value(operation, "label", lang, False) or node.label)
        new_docs[lang] = _reassign(state, lang, _set(document.nodes, path, new))
    state.documents.update(new_docs)
    state.retained.setdefault(_key(state, operation.target), []).append(Retained("replaced", old, by))
    _touch(state, _key(state, operation.target), by)


def _insert(state: _State, operation: Operation, by: Provenance) -> None:
    paths = _target(state, operation)
    position = operation.data["position"]
    if "num" not in operation.data["node"] and operation.data["node"]["kind"] not in SINGLETON:
        raise _Fail(f"the inserted {operation.data['node']['kind']} needs a 'num': its eId is made from it")
    revived = _revive(state, operation, paths)
    if revived:
        paths = _target(state, operation)
    new_docs, new_eid = {}, None
    for lang, path in paths.items():
        document = state.documents[lang]
        node = _build_node(operation.data["node"], lang)
        if position == "last-child":
            parent = _get(document.nodes, path)
            at = (*path, len(parent.children))
            nodes = _set(document.nodes, path, parent.with_children(parent.children + (node,)))
        else:
            at = path if position == "before" else (*path[:-1], path[-1] + 1)
            nodes = _set(document.nodes, at, node, insert=True)
        before = set(document.eids())
        updated = _reassign(state, lang, nodes)
        changed = [e for e in updated.eids() if e not in before]
        inserted = _get(updated.nodes, at).eid
        if inserted in before or len(changed) != sum(1 for _ in _get(updated.nodes, at).walk()):
            raise _Fail(f"inserting here would change the eIds of existing provisions (new eId {inserted}); "
                        "give the new provision a number of its own")
        new_docs[lang], new_eid = updated, inserted
    state.documents.update(new_docs)
    first = new_docs[next(iter(new_docs))]
    for node in _get(first.nodes, _locate(first.nodes, new_eid)).walk():
        _touch(state, node.eid, by)


def _revive(state: _State, operation: Operation, paths: dict[str, tuple[int, ...]]) -> str | None:
    """A deleted provision re-inserted with its own number takes its place again (no clash)."""
    spec = operation.data["node"]
    position = operation.data["position"]
    revived = None
    for lang, path in paths.items():
        document = state.documents[lang]
        parent_path = path if position == "last-child" else path[:-1]
        siblings = _get(document.nodes, parent_path).children if parent_path else document.nodes
        for index, sibling in enumerate(siblings):
            if sibling.kind == spec["kind"] and sibling.num == spec.get("num") and sibling.eid in state.deleted:
                state.documents[lang] = replace(document, nodes=_set(document.nodes, (*parent_path, index), None))
                revived = sibling.eid
                break
    if revived:
        del state.deleted[revived]
    return revived


def _delete(state: _State, operation: Operation, by: Provenance) -> None:
    paths = _target(state, operation)
    old = {lang: _get(state.documents[lang].nodes, path) for lang, path in paths.items()}
    eid = _key(state, operation.target)
    state.retained.setdefault(eid, []).append(Retained("deleted", old, by))
    state.deleted[eid] = by
    _touch(state, eid, by)


def _renumber(state: _State, operation: Operation, by: Provenance) -> None:
    paths = _target(state, operation)
    new_docs, mapping = {}, {}
    for lang, path in paths.items():
        document = state.documents[lang]
        node = _get(document.nodes, path)
        renamed = replace(node, num=operation.data["num"],
                          label=_lang_value(operation, "label", lang, False) or node.label)
        before = {n.eid for n in document.walk()}
        updated = _reassign(state, lang, _set(document.nodes, path, renamed))
        new_node = _get(updated.nodes, path)
        if new_node.eid in before:
            raise _Fail(f"renumbering {operation.target} to {new_node.eid} collides with an existing provision")
        mapping = {old.eid: new.eid for old, new in zip(node.walk(), new_node.walk())}
        new_docs[lang] = updated
    state.documents.update(new_docs)
    for old_eid, new_eid in mapping.items():
        state.aliases[old_eid] = new_eid
        for store in (state.provenance, state.retained, state.boxes, state.notes, state.annotations, state.deleted):
            if old_eid in store:
                store[new_eid] = store.pop(old_eid)
    for old_alias, target in list(state.aliases.items()):
        if target in mapping:
            state.aliases[old_alias] = mapping[target]
    _touch(state, mapping[operation.target], by)


def _substitute(state: _State, operation: Operation, by: Provenance) -> None:
    paths = _target(state, operation)
    occurrence = operation.data.get("occurrence")
    old, new_docs = {}, {}
    for lang, path in paths.items():
        document = state.documents[lang]
        node = _get(document.nodes, path)
        find = _lang_value(operation, "find", lang)
        change = _lang_value(operation, "replace", lang)
        count = node.text.count(find)
        if count == 0:
            raise _Fail(f"the {lang} text of {operation.target} does not contain {find!r}")
        if occurrence is None and count > 1:
            raise _Fail(f"{find!r} occurs {count} times in the {lang} text of {operation.target}; "
                        "say which with 'occurrence'")
        which = occurrence or 1
        if which > count:
            raise _Fail(f"occurrence {which} asked but {find!r} occurs {count} time(s) in the {lang} text")
        start = -1
        for _ in range(which):
            start = node.text.index(find, start + 1)
        old[lang] = node
        new = replace(node, text=node.text[:start] + change + node.text[start + len(find):])
        new_docs[lang] = replace(document, nodes=_set(document.nodes, path, new))
    state.documents.update(new_docs)
    state.retained.setdefault(_key(state, operation.target), []).append(Retained("replaced", old, by))
    _touch(state, _key(state, operation.target), by)


def _note(state: _State, operation: Operation, by: Provenance) -> None:
    _target(state, operation)
    source = operation.data.get("from")
    headings, texts = {}, {}
    for lang, document in state.documents.items():
        if source:
            paths = _target(state, operation, source)
            item = _get(document.nodes, paths[lang])
            headings[lang] = _lang_value(operation, "heading", lang, False) or inline.clean(item.heading or "")
            texts[lang] = _flatten(item)
        else:
            headings[lang] = _lang_value(operation, "heading", lang, False) or ""
            texts[lang] = _lang_value(operation, "text", lang)
    target = _key(state, operation.target)
    state.notes.setdefault(target, []).append(
        Note(target, source, MappingProxyType(headings), MappingProxyType(texts), by))


def _flatten(node: Node) -> str:
    """A provision's own text and its children's, one line each, labels included."""
    lines = []
    for part in node.walk():
        body = inline.clean(part.text).strip()
        label = inline.clean(part.label or "").strip()
        if part is node:
            label = ""
        if body or label:
            lines.append(f"{label} {body}".strip())
    return "\n".join(lines)


def _mli(state: _State, operation: Operation, by: Provenance) -> None:
    relation = operation.data["relation"]
    target = operation.target
    place = operation.data.get("place") or {}
    if relation == "included-in-preamble" and target != "preamble":
        raise _Fail(f"relation {relation} needs target 'preamble', not {target!r}")
    if relation in ("replaces", "applies-to") and not target:
        raise _Fail(f"relation {relation} needs a target provision")
    if relation == "added" and target:
        raise _Fail("relation added takes no target (it adds to the agreement); use 'place' to position it")
    if target:
        paths = _target(state, operation)
        first = _get(state.documents[next(iter(paths))].nodes, next(iter(paths.values())))
        if relation == "replaces" and first.kind not in ("article", "paragraph", "subparagraph", "item"):
            raise _Fail(f"relation replaces cannot replace a {first.kind} ({target})")
    target = _key(state, target)
    anchor = _key(state, place.get("within") or place.get("after") or target)
    if not anchor:
        raise _Fail(f"relation {relation} with no target needs 'place' (after: <eId>) to position the box")
    anchor_op = Operation(operation.kind, operation.index, anchor, operation.data, operation.location)
    _target(state, anchor_op)
    langs = list(state.documents)
    for key in ("text",):
        for lang in langs:
            _lang_value(operation, key, lang)
    box = Box(operation.data["mli_article"], operation.data["mli_paragraph"], relation, target, anchor,
              place.get("after_line") if "within" in place else None,
              MappingProxyType(dict(operation.data.get("lead_in") or {})),
              MappingProxyType(dict(operation.data.get("heading") or {})),
              MappingProxyType(dict(operation.data["text"])), by)
    state.boxes.setdefault(anchor, []).append(box)
    if relation == "replaces":
        paths = _target(state, operation)
        old, new_docs = {}, {}
        for lang, path in paths.items():
            document = state.documents[lang]
            node = _get(document.nodes, path)
            old[lang] = node
            new_docs[lang] = replace(document, nodes=_set(document.nodes, path, replace(node, text="", children=())))
        state.documents.update(new_docs)
        state.retained.setdefault(target, []).append(
            Retained("replaced", old, by, MappingProxyType(dict(operation.data.get("replaced_marker") or {}))))
    if target:
        _touch(state, target, by)


def _annotate(state: _State, operation: Operation, by: Provenance) -> None:
    _target(state, operation)
    target = _key(state, operation.target)
    state.annotations.setdefault(target, []).append(
        Annotation(target, operation.data.get("marker"), operation.data["instrument"], by))
    _touch(state, target, by)


APPLY = {"replace": _replace, "insert": _insert, "delete": _delete, "renumber": _renumber,
         "substitute": _substitute, "note": _note, "mli": _mli, "annotate": _annotate}


def find_version(versions: list[Version], version_id: str) -> Version:
    """A version by id (`base`, an instrument id, or `latest`)."""
    if version_id == "latest":
        return versions[-1]
    for version in versions:
        if version.id == version_id:
            return version
    from .errors import UsageError
    raise UsageError(f"unknown version {version_id!r}; versions: " + ", ".join(v.id for v in versions))

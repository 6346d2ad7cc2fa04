"""Overlay files: one instrument each (protocol, notes, MLI), as typed operations.

Loading checks every operation against its schema and collects every problem with its
`file:line:`; nothing here touches a treaty tree (that is `consolidate.engine`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Mapping

import jsonschema

from .errors import Location, OverlayError
from .yamlload import LocatedDict, LocatedList, describe_path, line_at, load_yaml, parse_date

OVERLAY_NAME = re.compile(r"^(?P<order>\d{2})-(?P<name>[a-z0-9]+(?:-[a-z0-9]+)*)\.yaml$")
KINDS = ("protocol", "protocol-notes", "exchange-of-notes", "mli", "amendment-record")
RELATIONS = ("replaces", "applies-to", "supersedes-incompatible", "included-in-preamble", "added")
TAX_KINDS = ("withholding", "other")

LANG_TEXT = {"type": "object", "minProperties": 1, "propertyNames": {"pattern": "^[a-z]{2,3}$"},
             "additionalProperties": {"type": "string"}}
DATE = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"}
EID = {"type": "string", "pattern": r"^[A-Za-z0-9_.\-]+$"}
PARTY_EFFECT = {"type": "object", "additionalProperties": False, "minProperties": 1,
                "properties": {"withholding": DATE, "other": DATE, "note": {"type": "string"}}}
EFFECT = {"type": "object", "additionalProperties": False,
          "properties": {"from_positions": {"type": "boolean"}},
          "patternProperties": {"^[A-Z]{2}$": PARTY_EFFECT}}
NODE_SPEC: dict = {"type": "object", "additionalProperties": False, "required": ["kind"],
                   "properties": {"kind": {"enum": ["article", "paragraph", "subparagraph", "item", "wrapup",
                                                    "protocol_item", "preamble", "final"]},
                                  "num": {"type": "string", "pattern": r"^[A-Za-z0-9][A-Za-z0-9.\-]*$"},
                                  "label": LANG_TEXT, "heading": LANG_TEXT, "text": LANG_TEXT,
                                  "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}
COMMON = {"op": {"type": "string"}, "target": {"anyOf": [EID, {"type": "null"}]}, "effect": EFFECT,
          "wording": LANG_TEXT, "note": {"type": "string"}, "source_line": {"type": "integer"}}


def _op_schema(required: list[str], **properties) -> dict:
    return {"type": "object", "additionalProperties": False, "required": ["op", *required],
            "properties": {**COMMON, **properties}, "$defs": {"node": NODE_SPEC}}


OPERATION_SCHEMAS = {
    "replace": _op_schema(["target"], text=LANG_TEXT, heading=LANG_TEXT, label=LANG_TEXT,
                          children={"type": "array", "items": {"$ref": "#/$defs/node"}}),
    "insert": _op_schema(["target", "position", "node"], position={"enum": ["before", "after", "last-child"]},
                         node={"$ref": "#/$defs/node"}),
    "delete": _op_schema(["target"]),
    "renumber": _op_schema(["target", "num"], num=NODE_SPEC["properties"]["num"], label=LANG_TEXT),
    "substitute": _op_schema(["target", "find", "replace"], find=LANG_TEXT, replace=LANG_TEXT,
                             occurrence={"type": "integer", "minimum": 1}),
    "note": _op_schema(["target"], heading=LANG_TEXT, text=LANG_TEXT, **{"from": EID}),
    "mli": _op_schema(["mli_article", "mli_paragraph", "relation", "text"],
                      mli_article={"type": "integer", "minimum": 1, "maximum": 39},
                      mli_paragraph={"type": "integer", "minimum": 1, "maximum": 20},
                      relation={"enum": list(RELATIONS)}, lead_in=LANG_TEXT, heading=LANG_TEXT, text=LANG_TEXT,
                      replaced_marker=LANG_TEXT,
                      place={"type": "object", "additionalProperties": False,
                             "properties": {"after": EID, "within": EID,
                                            "after_line": {"type": "integer", "minimum": 0}}}),
    "annotate": _op_schema(["target", "instrument"], marker={"type": "string"},
                           instrument={"type": "string", "minLength": 1}),
}

INSTRUMENT_SCHEMA = {
    "type": "object", "additionalProperties": False,
    "required": ["id", "kind", "title", "operations"],
    "properties": {
        "id": {"type": "string", "pattern": "^[a-z0-9]+(?:-[a-z0-9]+)*$"},
        "kind": {"enum": list(KINDS)},
        "title": LANG_TEXT,
        "signed": {"anyOf": [DATE, {"type": "null"}]},
        "entry_into_force": {"anyOf": [DATE, {"type": "null"}]},
        "effect": EFFECT,
        "source": {"type": "object"},
        "note": {"type": "string"},
        "operations": {"type": "array", "items": {"type": "object"}},
    },
}


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an overlay, located, with the eId it concerns."""

    location: Location
    message: str
    target: str | None = None

    def __str__(self) -> str:
        tail = f" [{self.target}]" if self.target else ""
        return f"{self.location}: {self.message}{tail}"


@dataclass(frozen=True)
class Effect:
    """Dates from which an instrument (or one operation) has effect, per party and tax kind."""

    from_positions: bool = False
    parties: Mapping[str, Mapping[str, date]] = field(default_factory=dict)

    def to_json(self) -> dict:
        data: dict[str, Any] = {code: {k: v.isoformat() for k, v in taxes.items()}
                                for code, taxes in self.parties.items()}
        if self.from_positions:
            data["from_positions"] = True
        return data


@dataclass(frozen=True)
class Operation:
    """One typed operation; `data` keeps the checked YAML mapping for its kind's fields."""

    kind: str
    index: int
    target: str | None
    data: Mapping[str, Any]
    location: Location
    effect: Effect | None = None

    def text(self, key: str, lang: str) -> str | None:
        value = self.data.get(key)
        return value.get(lang) if isinstance(value, Mapping) else None

    def describe(self) -> str:
        return f"operation {self.index} ({self.kind})"


@dataclass(frozen=True)
class Instrument:
    """One overlay file: what the instrument is, its dates, and its operations in order."""

    id: str
    kind: str
    order: int
    title: Mapping[str, str]
    signed: date | None
    entry_into_force: date | None
    effect: Effect
    operations: tuple[Operation, ...]
    path: str
    source: Mapping[str, Any] = field(default_factory=dict)

    def title_in(self, lang: str) -> str:
        return self.title.get(lang) or self.title.get("en") or next(iter(self.title.values()), self.id)


def overlay_files(root: Path, treaty: str) -> list[Path]:
    """The overlay files of a treaty in application order (their NN- prefix)."""
    folder = root / "overlays" / treaty
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_file() and OVERLAY_NAME.match(p.name))


def load_instruments(root: Path, treaty: str, problems: list[Problem] | None = None) -> list[Instrument]:
    """Load a treaty's overlays; with `problems` given, collect problems instead of raising."""
    instruments = []
    seen: dict[str, str] = {}
    for path in overlay_files(root, treaty):
        shown = str(path.relative_to(root)) if path.is_relative_to(root) else path.name
        collected: list[Problem] = []
        try:
            if not path.resolve().is_relative_to(root.resolve()):
                raise OverlayError("refusing to read a file outside the project (a symbolic link points out of it)",
                                   Location(shown))
            instrument = load_instrument(path, shown, collected)
        except OverlayError as exc:
            collected.append(Problem(exc.location or Location(shown), exc.message))
            instrument = None
        if instrument is not None and instrument.id in seen:
            collected.append(Problem(Location(shown, 1), f"instrument id {instrument.id!r} is also used by "
                                                          f"{seen[instrument.id]}"))
        if collected:
            if problems is None:
                first = collected[0]
                raise OverlayError(first.message + (f" [{first.target}]" if first.target else ""), first.location)
            problems.extend(collected)
            continue
        seen[instrument.id] = shown
        instruments.append(instrument)
    return instruments


def load_instrument(path: Path, shown: str, problems: list[Problem]) -> Instrument | None:
    """Read one overlay file; every schema problem is appended to `problems`."""
    try:
        document = load_yaml(path, OverlayError)
    except OverlayError as exc:
        # Name the file as the project does (relative), not as the loader was given it.
        raise OverlayError(exc.message, Location(shown, exc.location.line if exc.location else None)) from None
    if not isinstance(document, LocatedDict):
        problems.append(Problem(Location(shown, 1), "expected a mapping with id, kind, title and operations"))
        return None
    before = len(problems)
    _key_problems(document, shown, problems, skip=("source",))
    if len(problems) > before:
        return None
    _schema_problems(document, INSTRUMENT_SCHEMA, shown, [], problems)
    operations: list[Operation] = []
    raw_ops = document.get("operations")
    if isinstance(raw_ops, LocatedList):
        for index, raw in enumerate(raw_ops):
            operation = _operation(raw, index, raw_ops.item_line(index), shown, problems)
            if operation is not None:
                operations.append(operation)
    if len(problems) > before:
        return None
    signed = _date(document, "signed", shown)
    in_force = _date(document, "entry_into_force", shown)
    effect = _effect(document.get("effect"), shown, document)
    match = OVERLAY_NAME.match(path.name)
    instrument = Instrument(document["id"], document["kind"], int(match["order"]) if match else 0,
                            dict(document["title"]), signed, in_force, effect, tuple(operations), shown,
                            dict(document.get("source") or {}))
    problems.extend(_date_order(instrument, document))
    return instrument


def _operation(raw: Any, index: int, line: int | None, shown: str, problems: list[Problem]) -> Operation | None:
    number = index + 1
    if not isinstance(raw, LocatedDict) or "op" not in raw:
        problems.append(Problem(Location(shown, line), f"operation {number}: expected a mapping with 'op'"))
        return None
    kind = raw["op"]
    if not isinstance(kind, str) or kind not in OPERATION_SCHEMAS:
        problems.append(Problem(Location(shown, raw.key_line("op")),
                                f"operation {number}: unknown operation {kind!r}; expected one of "
                                + ", ".join(OPERATION_SCHEMAS), raw.get("target")))
        return None
    before = len(problems)
    _schema_problems(raw, OPERATION_SCHEMAS[kind], shown, [], problems, prefix=f"operation {number} ({kind}): ",
                     target=raw.get("target") if isinstance(raw.get("target"), str) else None)
    if len(problems) > before:
        return None
    effect = _effect(raw.get("effect"), shown, raw) if "effect" in raw else None
    return Operation(kind, number, raw.get("target"), raw, Location(shown, line), effect)


def _key_problems(value: Any, shown: str, problems: list[Problem], skip: tuple[str, ...] = ()) -> None:
    """Mapping keys must be names: a number or a list as a key is reported at its line."""
    if isinstance(value, LocatedDict):
        for key, item in value.items():
            if not isinstance(key, str):
                problems.append(Problem(Location(shown, value.key_line(key)),
                                        f"key {key!r} is not a name; expected a word such as 'target'"))
            elif key not in skip:
                _key_problems(item, shown, problems)
    elif isinstance(value, list):
        for item in value:
            _key_problems(item, shown, problems)


def _schema_problems(document: Any, schema: dict, shown: str, keys: list, problems: list[Problem],
                     prefix: str = "", target: str | None = None) -> None:
    validator = jsonschema.Draft202012Validator(schema)
    for error in sorted(validator.iter_errors(document), key=lambda e: list(map(str, e.absolute_path))):
        path = list(error.absolute_path)
        line = line_at(document, path)
        message = error.message
        if error.validator == "additionalProperties" and isinstance(error.instance, LocatedDict):
            known = error.schema.get("properties", {})
            extra = [k for k in error.instance if k not in known and not any(
                re.match(p, str(k)) for p in error.schema.get("patternProperties", {}))]
            if extra:
                line = error.instance.key_line(extra[0])
                message = f"unknown key {extra[0]!r}; expected one of: " + ", ".join(known)
        where = describe_path(path)
        problems.append(Problem(Location(shown, line), f"{prefix}{where + ': ' if where else ''}{message}", target))


def _date(document: LocatedDict, key: str, shown: str) -> date | None:
    value = document.get(key)
    return None if value is None else parse_date(value, shown, document.key_line(key), OverlayError)


def _effect(raw: Any, shown: str, holder: LocatedDict) -> Effect:
    if not raw:
        return Effect()
    parties = {}
    for code, taxes in raw.items():
        if code == "from_positions":
            continue
        parties[code] = {kind: parse_date(value, shown, taxes.key_line(kind), OverlayError)
                         for kind, value in taxes.items() if kind in TAX_KINDS}
    return Effect(bool(raw.get("from_positions")), parties)


def _date_order(instrument: Instrument, document: LocatedDict) -> list[Problem]:
    problems = []
    signed = instrument.signed
    if signed is None:
        return problems
    if instrument.entry_into_force and instrument.entry_into_force < signed:
        problems.append(Problem(Location(instrument.path, document.key_line("entry_into_force")),
                                f"entry into force {instrument.entry_into_force} is before signature {signed}"))
    effects = [(instrument.effect, document.get("effect"), "effect")]
    effects += [(op.effect, op.data.get("effect"), f"operation {op.index} effect") for op in instrument.operations
                if op.effect]
    for effect, raw, what in effects:
        for code, taxes in effect.parties.items():
            for kind, day in taxes.items():
                if day < signed:
                    line = raw[code].key_line(kind) if isinstance(raw, LocatedDict) else None
                    problems.append(Problem(Location(instrument.path, line),
                                            f"{what}: {code} {kind} date {day} is before signature {signed}"))
    return problems

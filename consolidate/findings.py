"""Findings: what was repaired, guessed or skipped, as coded, located records."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from .errors import Location

# Every code the tool can emit, with its one-line meaning. Emitting an unknown
# code is a programming error, so typos cannot create silent new categories.
CODES: dict[str, str] = {
    # import
    "IMPORT.PAGE_FURNITURE_REMOVED": "gazette page headers, mastheads or imprints were removed",
    "IMPORT.BLANK_LINE_REMOVED": "a line holding only whitespace (e.g. a no-break space) was removed",
    "IMPORT.LANGUAGE_SPLIT": "a document holding two languages was split and only one kept",
    "IMPORT.DUPLICATE_NUMBER": "a printed number repeats; the provision was numbered by position",
    "IMPORT.NUMBER_OUT_OF_SEQUENCE": "a printed number does not follow its predecessor; numbered by position",
    "IMPORT.UNNUMBERED_PARAGRAPH": "a paragraph has no printed number; numbered by position",
    "IMPORT.LABEL_NUMBERED_BY_POSITION": "a list label does not match its position or scheme; numbered by position",
    "IMPORT.CHAPEAU_WITHOUT_ITEMS": "a provision ends in ':' but no list items follow it in the source",
    "IMPORT.UNCLOSED_MARKER": "an amendment marker never closes; its end was inferred",
    "IMPORT.MARKER_INSTRUMENT_UNKNOWN": "the source does not name the instrument behind an amendment marker",
    "IMPORT.FOOTNOTE_BODY_MISSING": "a footnote reference has no footnote body in the source",
    "IMPORT.MISSPELT_KEYWORD": "a structure word is misspelt or mislabelled in the source",
    "IMPORT.WRAPUP_GUESSED": "unlabelled text after a list was taken as closing text of the provision",
    "IMPORT.CONTINUATION_JOINED": "unlabelled text was joined to the preceding provision as further text",
    "IMPORT.FALSE_HEADING": "a line looked like a heading but was kept as text",
    "IMPORT.STRAY_TEXT": "a line holding only punctuation was kept as text of the preceding provision",
    "IMPORT.DEVANAGARI_REPAIRED": "legacy-font Devanagari was machine-repaired",
    "IMPORT.WORD_REPAIRED": "a word was changed by the Devanagari repair",
    "IMPORT.MLI_BOX_EXTRACTED": "an MLI box was moved from the text to a draft overlay",
    "IMPORT.REPLACED_TEXT_EXTRACTED": "text marked as replaced by the MLI was restored as the provision's text",
    "IMPORT.TRUNCATED": "the source stops inside a provision",
    "IMPORT.HEADING_NOT_SEPARATED": "an article title runs on into its text and could not be cut off",
    "IMPORT.EMPTY_PROVISION": "a provision has a label but no text in the source",
    "IMPORT.DUPLICATE_TEXT": "a block repeats (part of) the preceding block",
    # source format and ids
    "SOURCE.NONCANONICAL_SPACING": "blank lines differ from the canonical layout; writing back will normalise them",
    "ID.DUPLICATE": "two provisions would share an eId; a suffix was added",
    "ID.UNNUMBERED": "a provision has no number; its eId uses its position",
    # MLI entry-into-effect dates
    "DATE.PENDING_35_7": "a party reserved 35(7) and has not notified completion; MLI effect pending",
    "DATE.PENDING_DEPOSIT": "a party has not deposited its MLI instrument; MLI effect pending",
    "DATE.NOT_COVERED": "the parties have not both listed the treaty; it is not a covered tax agreement",
    "DATE.ADDED_LATER_NOT_APPLIED": "a 35(5) listing date did not follow entry into force for both; 35(1) applied",
    "DATE.POSITION_ASSUMED": "a party's recorded MLI position includes assumed, unconfirmed facts",
}


@dataclass(frozen=True)
class Finding:
    """One coded, located observation; `excerpt` holds the raw text concerned."""

    code: str
    message: str
    location: Location | None = None
    target: str | None = None
    excerpt: str | None = None
    severity: str = "warning"

    def __post_init__(self) -> None:
        if self.code not in CODES:
            raise ValueError(f"unknown finding code {self.code!r}")

    def format(self) -> str:
        where = f"{self.location}: " if self.location else ""
        tail = f" [{self.target}]" if self.target else ""
        return f"{where}{self.code} {self.message}{tail}"

    def to_dict(self) -> dict:
        data = asdict(self)
        data["location"] = str(self.location) if self.location else None
        return data


@dataclass
class Findings:
    """A collector passed explicitly through a run (never global)."""

    items: list[Finding] = field(default_factory=list)

    def add(self, code: str, message: str, location: Location | None = None,
            target: str | None = None, excerpt: str | None = None,
            severity: str = "warning") -> Finding:
        finding = Finding(code, message, location, target, excerpt, severity)
        self.items.append(finding)
        return finding

    def extend(self, other: "Findings | list[Finding]") -> None:
        self.items.extend(other.items if isinstance(other, Findings) else other)

    def __iter__(self):
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def codes(self) -> list[str]:
        return [f.code for f in self.items]

    def count(self, code: str) -> int:
        return sum(1 for f in self.items if f.code == code)

    def to_json(self) -> str:
        return json.dumps([f.to_dict() for f in self.items], ensure_ascii=False, indent=1)

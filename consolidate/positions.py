"""MLI positions of the parties (overlays/mli/positions.yaml): loading, checking, pairing."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, Iterable, Mapping

from .dates import (OPTIONS, CALENDAR_YEAR, EffectResult, MonthDay, Party, PeriodStart,
                    effect_dates)
from .errors import DateRuleError, Location
from .yamlload import LocatedDict, check_schema, load_yaml, parse_date

POSITIONS_RELATIVE = Path("overlays", "mli", "positions.yaml")

CODE_SCHEMA = {"type": "string", "pattern": "^[A-Z]{2}$"}
DATE_SCHEMA = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"}
MONTH_DAY_SCHEMA = {"type": "string", "pattern": r"^\d{2}-\d{2}$"}
OPTION_SCHEMA = {"enum": list(OPTIONS)}
PERIOD_START_SCHEMA = {"anyOf": [
    MONTH_DAY_SCHEMA,
    {"type": "object", "minProperties": 1,
     "propertyNames": {"pattern": "^[a-z][a-z0-9_]*$"},
     "additionalProperties": MONTH_DAY_SCHEMA},
]}
ASSUMABLE_FIELDS = ["deposit", "options", "notifications_35_7", "part_vi",
                    "taxable_period_start", "withholding_period_start", "covers"]

PARTY_SCHEMA = {
    "type": "object",
    "required": ["deposit", "options", "notifications_35_7", "part_vi", "covers"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string"},
        "deposit": {"anyOf": [{"type": "null"}, DATE_SCHEMA]},
        "options": {"type": "array", "items": OPTION_SCHEMA, "uniqueItems": True},
        "notifications_35_7": {"type": "array", "items": {
            "type": "object", "required": ["partner", "date"], "additionalProperties": False,
            "properties": {"partner": CODE_SCHEMA, "date": DATE_SCHEMA, "note": {"type": "string"}},
        }},
        "part_vi": {"type": "boolean"},
        "taxable_period_start": PERIOD_START_SCHEMA,
        "withholding_period_start": MONTH_DAY_SCHEMA,
        "covers": {"type": "array", "items": CODE_SCHEMA, "uniqueItems": True},
        "assumed": {"type": "array", "items": {"enum": ASSUMABLE_FIELDS}, "uniqueItems": True},
        "note": {"type": "string"},
    },
}

POSITIONS_SCHEMA = {
    "type": "object",
    "required": ["version", "parties"],
    "additionalProperties": False,
    "properties": {
        "version": {"const": 1},
        "note": {"type": "string"},
        "parties": {"type": "object", "minProperties": 1,
                    "propertyNames": CODE_SCHEMA, "additionalProperties": PARTY_SCHEMA},
    },
}


@dataclass(frozen=True)
class Notification:
    """A completion notification under Article 35(7)(b) for the treaty with `partner`."""

    partner: str
    date: date


@dataclass(frozen=True)
class MliPosition:
    """One party's recorded MLI position; `line` is its line in positions.yaml."""

    code: str
    name: str | None
    deposit: date | None
    options: frozenset[str]
    notifications_35_7: tuple[Notification, ...]
    part_vi: bool
    period_starts: tuple[PeriodStart, ...]
    withholding_period_start: MonthDay | None
    covers: frozenset[str]
    assumed: tuple[str, ...] = ()
    note: str | None = None
    line: int | None = None

    def lists(self, partner: str) -> bool:
        """Whether this party listed its treaty with `partner` as covered."""
        return partner in self.covers

    def notification_for(self, partner: str) -> date | None:
        """The latest 35(7)(b) notification for the treaty with `partner`, if any."""
        dates = [n.date for n in self.notifications_35_7 if n.partner == partner]
        return max(dates) if dates else None

    def party_for(self, partner: str) -> Party:
        """This position as the date rules need it for the treaty with `partner`."""
        return Party(code=self.code, deposit=self.deposit, options=self.options,
                     notification_35_7=self.notification_for(partner), part_vi=self.part_vi,
                     period_starts=self.period_starts,
                     withholding_period_start=self.withholding_period_start)


@dataclass(frozen=True)
class Positions:
    """All recorded positions, by party code."""

    path: str
    parties: Mapping[str, MliPosition]

    def __contains__(self, code: object) -> bool:
        return code in self.parties

    def __getitem__(self, code: str) -> MliPosition:
        return self.parties[code]


@dataclass(frozen=True)
class TreatyPair:
    """The two parties to one treaty, with their positions."""

    treaty: str
    first: MliPosition
    second: MliPosition

    @property
    def covered(self) -> bool:
        """A covered tax agreement needs each party to have listed the other."""
        return self.first.lists(self.second.code) and self.second.lists(self.first.code)

    def parties(self) -> tuple[Party, Party]:
        """Both positions as date-rule parties for this treaty."""
        return self.first.party_for(self.second.code), self.second.party_for(self.first.code)

    def effect(self, *, added_later: date | None = None,
               shorter_period_months: int | None = None) -> EffectResult:
        """The MLI's entry-into-effect dates for this treaty."""
        first, second = self.parties()
        return effect_dates(first, second, covered=self.covered, added_later=added_later,
                            shorter_period_months=shorter_period_months)


def default_positions_path(root: Path) -> Path:
    """Where positions.yaml lives under the project folder `root`."""
    return Path(root) / POSITIONS_RELATIVE


def read_month_day(value: Any, path: str | Path, line: int | None) -> MonthDay:
    """A located `MM-DD` reader."""
    try:
        return MonthDay.parse(value)
    except ValueError as exc:
        raise DateRuleError(str(exc), Location(str(path), line)) from None


def read_period_starts(value: Any, path: str | Path, line: int | None) -> tuple[PeriodStart, ...]:
    """`taxable_period_start` as `MM-DD`, a mapping tax kind -> `MM-DD`, or absent (1 January)."""
    if value is None:
        return CALENDAR_YEAR
    if isinstance(value, LocatedDict):
        return tuple(PeriodStart(str(kind), read_month_day(day, path, value.key_line(kind)))
                     for kind, day in value.items())
    return (PeriodStart(None, read_month_day(value, path, line)),)


def _read_position(code: str, raw: LocatedDict, path: str) -> MliPosition:
    def at(key: str) -> Location:
        return Location(path, raw.key_line(key))

    deposit = None if raw["deposit"] is None else parse_date(
        raw["deposit"], path, raw.key_line("deposit"), DateRuleError)
    options = frozenset(raw["options"])
    covers = frozenset(raw["covers"])
    notifications = []
    for index, item in enumerate(raw["notifications_35_7"]):
        where = Location(path, raw["notifications_35_7"].item_line(index))
        day = parse_date(item["date"], path, item.key_line("date"), DateRuleError)
        # A 35(7)(b) notification concerns a listed treaty of a party that made the
        # reservation and has deposited; anything else is a data-entry mistake.
        if "35(7)" not in options:
            raise DateRuleError(f"{code}: 35(7)(b) notification without the 35(7) reservation", where)
        if item["partner"] not in covers:
            raise DateRuleError(f"{code}: notification for {item['partner']}, "
                                "which is not in covers", where)
        if deposit is None or day < deposit:
            raise DateRuleError(f"{code}: notification dated before the deposit", where)
        notifications.append(Notification(item["partner"], day))
    if code in covers:
        raise DateRuleError(f"{code} lists itself in covers", at("covers"))
    starts = read_period_starts(raw.get("taxable_period_start"), path,
                                raw.key_line("taxable_period_start"))
    withholding = None
    if "withholding_period_start" in raw:
        withholding = read_month_day(raw["withholding_period_start"], path,
                                     raw.key_line("withholding_period_start"))
    try:
        # The date rules' own consistency checks (e.g. 35(2) needs one period start).
        Party(code=code, deposit=deposit, options=options, period_starts=starts,
              withholding_period_start=withholding)
    except ValueError as exc:
        raise DateRuleError(str(exc), at("options")) from None
    return MliPosition(code=code, name=raw.get("name"), deposit=deposit, options=options,
                       notifications_35_7=tuple(notifications), part_vi=raw["part_vi"],
                       period_starts=starts, withholding_period_start=withholding,
                       covers=covers, assumed=tuple(raw.get("assumed", ())),
                       note=raw.get("note"), line=raw.line)


def load_positions(path: str | Path) -> Positions:
    """Load and check positions.yaml; problems raise DateRuleError at `path:line:`."""
    where = str(path)
    document = load_yaml(path, DateRuleError)
    check_schema(document, POSITIONS_SCHEMA, where, DateRuleError)
    parties = {code: _read_position(code, raw, where) for code, raw in document["parties"].items()}
    return Positions(where, parties)


def resolve_pair(positions: Positions, treaty: str, codes: Iterable[str],
                 where: Location | None = None) -> TreatyPair:
    """The two recorded parties to `treaty`; unknown or repeated codes raise DateRuleError."""
    codes = list(codes)
    if len(codes) != 2:
        raise DateRuleError(f"a treaty needs exactly two parties, got {len(codes)}", where)
    if codes[0] == codes[1]:
        raise DateRuleError(f"party {codes[0]} given twice", where)
    for code in codes:
        if code not in positions:
            known = ", ".join(sorted(positions.parties))
            raise DateRuleError(f"unknown party code {code!r} (positions has {known})", where)
    return TreatyPair(treaty, positions[codes[0]], positions[codes[1]])

"""When each version has effect, per state and kind of tax, and which version applies on a date.

Protocol overlays state their own dates; an MLI overlay with `effect: {from_positions: true}`
takes them from the parties' MLI positions by the rules of Articles 34–36 (`consolidate.dates`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Mapping

from .dates import EffectResult
from .engine import Version
from .errors import UsageError
from .model import TreatyMeta

TAXES = ("withholding", "other")


@dataclass(frozen=True)
class VersionDates:
    """A version's dates: signature, entry into force, and effect per state and tax kind."""

    version: str
    signed: date | None
    entry_into_force: date | None
    status: str                                           # "in effect" | "pending" | "not in effect"
    effect: Mapping[str, Mapping[str, date | None]]       # state → tax kind → date (None: pending)
    mli: EffectResult | None = None
    notes: tuple[str, ...] = field(default=())
    rules: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # the text's own words where no date

    def effective(self, state: str | None, tax: str | None, day: date) -> bool:
        """Whether this version applies on `day` for `state` and `tax` (None: any)."""
        if self.version == "base" or self.status == "included in the base text":
            return True
        states = [state] if state else list(self.effect)
        taxes = [tax] if tax else list(TAXES)
        for code in states:
            for kind in taxes:
                start = self.effect.get(code, {}).get(kind)
                if start is not None and start <= day:
                    return True
        return False

    def to_json(self) -> dict:
        data = {
            "signed": _iso(self.signed),
            "entry_into_force": _iso(self.entry_into_force),
            "status": self.status,
            "notes": list(self.notes),
            "effect": {code: {kind: _iso(day) for kind, day in taxes.items()}
                       for code, taxes in self.effect.items()},
        }
        if self.mli is not None:
            data["mli"] = self.mli.to_json_dict()
        if self.rules:
            data["rules"] = {code: dict(kinds) for code, kinds in self.rules.items()}
        return data


def _iso(day: date | None) -> str | None:
    return day.isoformat() if day else None


def version_dates(version: Version, meta: TreatyMeta, root: Path) -> VersionDates:
    """The dates of one version: the treaty's own for `base`, the instrument's otherwise."""
    if version.instrument is None:
        return _base_dates(version, meta)
    instrument = version.instrument
    if instrument.effect.from_positions:
        return _mli_dates(version, meta, root)
    if instrument.kind == "amendment-record":
        # A record of amendments the base text already contains: in effect whenever it is.
        return VersionDates(version.id, instrument.signed, instrument.entry_into_force,
                            "included in the base text", {}, notes=("its changes are part of the base text",))
    effect = {code: {kind: taxes.get(kind) for kind in TAXES} for code, taxes in instrument.effect.parties.items()}
    status = "in effect" if any(d for taxes in effect.values() for d in taxes.values()) else "dates not stated"
    return VersionDates(version.id, instrument.signed, instrument.entry_into_force, status, effect)


def _base_dates(version: Version, meta: TreatyMeta) -> VersionDates:
    dates = meta.raw.get("dates") or {}
    effect: dict[str, dict[str, date | None]] = {}
    rules: dict[str, dict[str, str]] = {}
    for code, stated in (dates.get("effect") or {}).items():
        for kind, rule in (stated or {}).items():
            start = rule.get("from") if isinstance(rule, dict) else None
            kinds = TAXES if kind == "all" else (kind,)
            for one in kinds:
                if one in TAXES:
                    effect.setdefault(code, {})[one] = _as_date(start)
                    if isinstance(rule, dict) and rule.get("rule"):
                        rules.setdefault(code, {})[one] = str(rule["rule"])
    return VersionDates("base", _as_date(dates.get("signed")), _as_date(dates.get("entry_into_force")),
                        "in effect", effect, rules=rules)


def _as_date(value) -> date | None:
    if value is None or isinstance(value, date):
        return value
    return date.fromisoformat(str(value))


def _mli_dates(version: Version, meta: TreatyMeta, root: Path) -> VersionDates:
    from .positions import default_positions_path, load_positions, resolve_pair

    if len(meta.parties) != 2:
        raise UsageError(f"{meta.treaty}: treaty.yaml must name exactly two parties to compute MLI dates")

    positions = load_positions(default_positions_path(root))
    pair = resolve_pair(positions, meta.treaty, meta.parties)
    result = pair.effect()
    effect: dict[str, dict[str, date | None]] = {}
    for party in result.parties:
        position = positions[party.code]
        effect[party.code] = {"withholding": party.withholding, "other": _published_other(party, position)}
    instrument = version.instrument
    notes = tuple(message for _, message in result.reasons)
    return VersionDates(version.id, instrument.signed, None, result.status, effect, result, notes)


def _published_other(party, position) -> date | None:
    """The other-taxes date a publisher states: the first taxable period where every taxpayer
    shares the party's period start (India: 1 April), otherwise the rule date itself."""
    first = party.other_taxes_first_period
    fixed = "taxable_period_start" not in position.assumed and position.period_starts
    if fixed and isinstance(first, date):
        return first
    if fixed and isinstance(first, tuple):
        return min(day for _, day in first)
    return party.other_taxes


def all_dates(versions: list[Version], meta: TreatyMeta, root: Path) -> dict[str, VersionDates]:
    return {version.id: version_dates(version, meta, root) for version in versions}


def as_of(documents, instruments, dates: Mapping[str, VersionDates], day: date,
          state: str | None = None, tax: str | None = None) -> Version:
    """The text in effect on `day` (for `state` and `tax` when given): the base text with the
    instruments in effect on that day applied in order. Its id names the last one applied."""
    from .engine import build_versions

    if state is not None and state not in _states(dates):
        raise UsageError(f"state {state!r} is not a party; parties: {', '.join(sorted(_states(dates)))}")
    if tax is not None and tax not in TAXES:
        raise UsageError(f"unknown kind of tax {tax!r}; expected withholding or other")
    chosen = [i for i in instruments if dates[i.id].effective(state, tax, day)]
    version = build_versions(documents, chosen)[-1]
    # Named by what was applied: when an earlier instrument is not yet in effect, this text is
    # none of the committed versions and must not carry one of their ids.
    if [i.id for i in chosen] != [i.id for i in instruments[: len(chosen)]]:
        from dataclasses import replace
        version = replace(version, id="base" + "".join(f"+{i.id}" for i in chosen))
    return version


def _states(dates: Mapping[str, VersionDates]) -> set[str]:
    return {code for d in dates.values() for code in d.effect}

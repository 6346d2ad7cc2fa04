"""MLI Articles 34-36 (entry into force and into effect) as pure functions on dates.

Each rule is one small function named after its paragraph; `effect_dates` combines them
for one bilateral treaty. See docs/dates.md for the rules and a worked example.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Iterable

OPTIONS = ("35(2)", "35(3)", "35(6)", "35(7)")

# Article 34(1): the fifth instrument (Slovenia, 22 March 2018) brought the MLI into force.
CONVENTION_IN_FORCE = date(2018, 7, 1)
SIX_MONTHS = 6    # Article 35(1)(b)
NINE_MONTHS = 9   # Article 35(5)(b)
THIRTY_DAYS = timedelta(days=30)  # Articles 35(5)(a) and 35(7)(a)

IN_EFFECT = "in effect"
PENDING = "pending"
NOT_COVERED = "not a covered agreement"

_MONTH_DAY_RE = re.compile(r"^(\d{2})-(\d{2})$")


@dataclass(frozen=True, order=True)
class MonthDay:
    """A yearly date such as a taxable period start, written `MM-DD`."""

    month: int
    day: int

    def __post_init__(self) -> None:
        # Checked against a common year: a period cannot start on 29 February.
        try:
            date(2001, self.month, self.day)
        except (TypeError, ValueError):
            raise ValueError(f"not a day of every year: {self.month:02}-{self.day:02}") from None

    @classmethod
    def parse(cls, text: str) -> "MonthDay":
        """Read `MM-DD`; raise ValueError otherwise."""
        match = _MONTH_DAY_RE.match(text) if isinstance(text, str) else None
        if match is None:
            raise ValueError(f"expected MM-DD, got {text!r}")
        return cls(int(match.group(1)), int(match.group(2)))

    def __str__(self) -> str:
        return f"{self.month:02}-{self.day:02}"

    def first_on_or_after(self, day: date) -> date:
        """The first date on or after `day` that falls on this month and day."""
        candidate = date(day.year, self.month, self.day)
        return candidate if candidate >= day else date(day.year + 1, self.month, self.day)


JANUARY_FIRST = MonthDay(1, 1)


@dataclass(frozen=True)
class PeriodStart:
    """Where a party's taxable periods begin; `kind` names the tax when there are several."""

    kind: str | None
    start: MonthDay


CALENDAR_YEAR = (PeriodStart(None, JANUARY_FIRST),)


@dataclass(frozen=True)
class Party:
    """One Contracting Jurisdiction's MLI position, as it bears on one treaty."""

    code: str
    deposit: date | None
    options: frozenset[str] = frozenset()
    notification_35_7: date | None = None
    part_vi: bool = False
    period_starts: tuple[PeriodStart, ...] = CALENDAR_YEAR
    withholding_period_start: MonthDay | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "options", frozenset(self.options))
        object.__setattr__(self, "period_starts", tuple(self.period_starts))
        unknown = sorted(self.options - set(OPTIONS))
        if unknown:
            raise ValueError(f"{self.code}: unknown option(s) {', '.join(unknown)}")
        if not self.period_starts:
            raise ValueError(f"{self.code}: no taxable period start")
        kinds = [p.kind for p in self.period_starts]
        if len(set(kinds)) != len(kinds) or (None in kinds and len(kinds) > 1):
            raise ValueError(f"{self.code}: taxable period starts must have distinct tax kinds")
        if "35(2)" in self.options:
            self.withholding_start()

    def withholding_start(self) -> MonthDay:
        """The period start that Article 35(2) uses for this party's withholding taxes."""
        if self.withholding_period_start is not None:
            return self.withholding_period_start
        if len(self.period_starts) == 1:
            return self.period_starts[0].start
        raise ValueError(f"{self.code}: option 35(2) with several taxable period starts "
                         "needs withholding_period_start")


@dataclass(frozen=True)
class PartyEffect:
    """The dates on which the MLI has effect in one party for one treaty."""

    code: str
    in_force: date | None
    withholding: date | None = None
    other_taxes: date | None = None
    other_taxes_first_period: date | tuple[tuple[str, date], ...] | None = None
    map: date | None = None
    arbitration: date | None = None
    arbitration_applies: bool = False

    def to_json_dict(self) -> dict:
        """The party's entry of the `effect-dates` output."""
        first = self.other_taxes_first_period
        if isinstance(first, tuple):
            first_json: object = {kind: day.isoformat() for kind, day in first}
        else:
            first_json = _iso(first)
        return {
            "in_force": _iso(self.in_force),
            "withholding": _iso(self.withholding),
            "other_taxes": _iso(self.other_taxes),
            "other_taxes_first_period": first_json,
            "map": _iso(self.map),
            "arbitration": _iso(self.arbitration),
        }


@dataclass(frozen=True)
class EffectResult:
    """Entry-into-effect dates of one treaty; `reasons` are (finding code, message) pairs."""

    status: str
    base: date | None
    parties: tuple[PartyEffect, ...]
    reasons: tuple[tuple[str, str], ...] = field(default=())

    def party(self, code: str) -> PartyEffect:
        """The result for the party `code`."""
        for effect in self.parties:
            if effect.code == code:
                return effect
        raise KeyError(code)

    def to_json_dict(self) -> dict:
        """The `effect-dates` output: status, base and one entry per party."""
        return {
            "status": self.status,
            "base": _iso(self.base),
            "parties": {p.code: p.to_json_dict() for p in self.parties},
        }


def _iso(day: date | None) -> str | None:
    return day.isoformat() if day is not None else None


# ---- date arithmetic ------------------------------------------------------------------

def add_months(day: date, months: int) -> date:
    """`day` plus whole calendar months, clamped to the end of a shorter month."""
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    last = calendar.monthrange(year, month + 1)[1]
    return date(year, month + 1, min(day.day, last))


def first_of_next_month(day: date) -> date:
    """The first day of the month after `day`."""
    return add_months(day.replace(day=1), 1)


# ---- Article 34: entry into force -----------------------------------------------------

def in_force_34_2(deposit: date) -> date:
    """34(2): first day of the month after three calendar months beginning on the deposit."""
    last_day_of_period = add_months(deposit, 3) - timedelta(days=1)
    return first_of_next_month(last_day_of_period)


def in_force_34_1(in_force: date) -> date:
    """34(1): no party's date precedes the Convention's own entry into force."""
    return max(in_force, CONVENTION_IN_FORCE)


def party_in_force(deposit: date) -> date:
    """The date the MLI enters into force for a party that deposited on `deposit`."""
    return in_force_34_1(in_force_34_2(deposit))


# ---- Article 35: entry into effect ----------------------------------------------------

def base_35_1(in_force_dates: Iterable[date]) -> date:
    """35(1): the latest of the dates the MLI enters into force for the parties."""
    return max(in_force_dates)


def base_35_7(base: date, notifications: Iterable[date | None]) -> date | None:
    """35(7): 30 days after the latest completion notification; None while one is missing."""
    notified = list(notifications)
    if any(day is None for day in notified):
        return None
    # The text only swaps the reference date; an effect before the MLI is in force for
    # both parties is impossible, so an early notification cannot move `base` earlier.
    return max(max(notified) + THIRTY_DAYS, base)


def withholding_35_1_a(start: date) -> date:
    """35(1)(a): the first 1 January on or after `start` (inclusive)."""
    return JANUARY_FIRST.first_on_or_after(start)


def withholding_35_2(start: date, period_start: MonthDay) -> date:
    """35(2): the party's taxable period replaces the calendar year in 35(1)(a) and 35(5)(a)."""
    return period_start.first_on_or_after(start)


def other_taxes_35_1_b(base: date, months: int) -> date:
    """35(1)(b) and 35(5)(b): taxable periods beginning on or after `base` plus `months`."""
    return add_months(base, months)


def other_taxes_35_3(rule_date: date) -> date:
    """35(3): periods beginning on or after 1 January of the next year from `rule_date` on."""
    return JANUARY_FIRST.first_on_or_after(rule_date)


def shorter_period(months: int, shorter_months: int | None) -> int:
    """35(1)(b) and 35(5)(b): a shorter period replaces the default when all parties notified it."""
    return shorter_months if shorter_months is not None else months


def applies_35_5(added_later: date | None, latest_in_force: date) -> bool:
    """35(5) governs a treaty listed only after the MLI was in force for both parties."""
    return added_later is not None and added_later > latest_in_force


def withholding_start_35_5(reference: date) -> date:
    """35(5)(a): withholding periods count from 30 days after the reference date."""
    return reference + THIRTY_DAYS


def map_35_4(base: date) -> date:
    """35(4): MAP cases presented on or after `base`, whatever period they concern."""
    return base


def map_reserved_35_6(first: Party, second: Party) -> bool:
    """35(6): a reservation by either party disapplies 35(4) for the treaty."""
    return "35(6)" in first.options or "35(6)" in second.options


def arbitration_36(base: date, first: Party, second: Party) -> date | None:
    """36(1)(a): Part VI cases presented on or after `base`, if both parties opted in."""
    return base if first.part_vi and second.part_vi else None


def first_period_start(rule_date: date, starts: tuple[PeriodStart, ...]) -> date | tuple[tuple[str, date], ...]:
    """The first taxable period beginning on or after `rule_date`, per tax kind if named."""
    if len(starts) == 1 and starts[0].kind is None:
        return starts[0].start.first_on_or_after(rule_date)
    return tuple((p.kind or "", p.start.first_on_or_after(rule_date)) for p in starts)


# ---- one treaty ----------------------------------------------------------------------

def effect_dates(first: Party, second: Party, *, covered: bool = True,
                 added_later: date | None = None,
                 shorter_period_months: int | None = None) -> EffectResult:
    """Entry-into-force and entry-into-effect dates of the MLI for one bilateral treaty."""
    if first.code == second.code:
        raise ValueError(f"a treaty needs two different parties, got {first.code} twice")
    if shorter_period_months is not None and not 1 <= shorter_period_months < SIX_MONTHS:
        raise ValueError(f"a shorter period must be 1 to 5 months, got {shorter_period_months}")
    parties = (first, second)
    in_force = {p.code: party_in_force(p.deposit) if p.deposit else None for p in parties}

    def unresolved(status: str, reasons: list[tuple[str, str]]) -> EffectResult:
        effects = tuple(PartyEffect(p.code, in_force[p.code]) for p in parties)
        return EffectResult(status, None, effects, tuple(reasons))

    if not covered:
        return unresolved(NOT_COVERED, [("DATE.NOT_COVERED",
                          f"{first.code} and {second.code} have not both listed the treaty")])
    undeposited = [p.code for p in parties if p.deposit is None]
    if undeposited:
        return unresolved(PENDING, [("DATE.PENDING_DEPOSIT",
                          f"no MLI instrument deposited by {', '.join(undeposited)}")])

    latest_in_force = base_35_1(d for d in in_force.values() if d is not None)
    base: date | None = latest_in_force
    reserving = [p for p in parties if "35(7)" in p.options]
    if reserving:
        base = base_35_7(latest_in_force, (p.notification_35_7 for p in reserving))
        if base is None:
            waiting = [p.code for p in reserving if p.notification_35_7 is None]
            return unresolved(PENDING, [("DATE.PENDING_35_7",
                              f"35(7): no completion notification by {', '.join(waiting)}")])

    reasons: list[tuple[str, str]] = []
    if applies_35_5(added_later, latest_in_force):
        # 35(7)(a)(ii): under the reservation the 35(5) reference date is the
        # notification-based base, not the Depositary's communication.
        reference = base if reserving else added_later
        withholding_from = withholding_start_35_5(reference)
        months = shorter_period(NINE_MONTHS, shorter_period_months)
    else:
        if added_later is not None:
            reasons.append(("DATE.ADDED_LATER_NOT_APPLIED",
                            f"treaty listed on {added_later.isoformat()}, not after the MLI was in "
                            f"force for both parties ({latest_in_force.isoformat()}); 35(1) applies"))
        reference = base
        withholding_from = base
        months = shorter_period(SIX_MONTHS, shorter_period_months)

    map_reserved = map_reserved_35_6(first, second)
    effects = []
    for party in parties:
        if "35(2)" in party.options:
            withholding = withholding_35_2(withholding_from, party.withholding_start())
        else:
            withholding = withholding_35_1_a(withholding_from)
        other = other_taxes_35_1_b(reference, months)
        if "35(3)" in party.options:
            other = other_taxes_35_3(other)
        arbitration = arbitration_36(reference, first, second)
        effects.append(PartyEffect(
            code=party.code,
            in_force=in_force[party.code],
            withholding=withholding,
            other_taxes=other,
            other_taxes_first_period=first_period_start(other, party.period_starts),
            map=None if map_reserved else map_35_4(reference),
            arbitration=arbitration,
            arbitration_applies=arbitration is not None,
        ))
    return EffectResult(IN_EFFECT, reference, tuple(effects), tuple(reasons))
